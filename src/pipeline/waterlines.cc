#include "pipeline/waterlines.h"

#include "sql/datetime.h"
#include "types/row_codec.h"

namespace sluice::pipeline {

Waterlines::Waterlines(const sql::Program& program, bool agreed) : agreed_(agreed) {
  MutexLock l(&mu_);
  for (const std::string& name : program.tables) {
    const sql::TableDef& def = *program.catalog.FindTable(name);
    if (def.lateness_column < 0) continue;
    Table t;
    for (const sql::Column& c : def.columns) t.schema.push_back(c.type);
    t.column = def.lateness_column;
    t.lateness = def.lateness;
    t.waterline = std::make_shared<Waterline>();
    published_[name] = {t.column, t.waterline};
    tables_[name] = std::move(t);
  }
}

void Waterlines::AdvanceLocked() {
  for (auto& [name, t] : tables_) {
    if (t.agreed == Waterline::kNone) continue;
    int64_t w;
    if (__builtin_sub_overflow(t.agreed, t.lateness, &w) || w == Waterline::kNone) {
      w = Waterline::kNone + 1;
    }
    t.waterline->Advance(w);
  }
}

bool Waterlines::Admit(const std::string& table, std::string_view row) {
  MutexLock l(&mu_);
  auto it = tables_.find(table);
  if (it == tables_.end()) return true;
  Table& t = it->second;
  std::string_view in = row;
  for (int i = 0; i < t.column; ++i) {
    if (!SkipValue(t.schema[static_cast<size_t>(i)], &in).ok()) return true;
  }
  const SqlType& type = t.schema[static_cast<size_t>(t.column)];
  int64_t v;
  if (!ReadInt(type.id(), type.nullable(), &in, &v)) return true;  // NULL
  if (v < t.waterline->value()) {
    ++t.late;
    return false;
  }
  t.max = std::max(t.max, v);
  return true;
}

void Waterlines::EndStep() {
  MutexLock l(&mu_);
  if (agreed_) return;
  for (auto& [name, t] : tables_) t.agreed = t.max;
  AdvanceLocked();
}

void Waterlines::Agree(const std::map<std::string, int64_t>& maxima) {
  MutexLock l(&mu_);
  for (auto& [name, t] : tables_) {
    auto it = maxima.find(name);
    if (it != maxima.end()) t.agreed = std::max(t.agreed, it->second);
  }
  AdvanceLocked();
}

std::map<std::string, int64_t> Waterlines::Known(int64_t Table::*field) const {
  MutexLock l(&mu_);
  std::map<std::string, int64_t> out;
  for (const auto& [name, t] : tables_) {
    if (t.*field != Waterline::kNone) out[name] = t.*field;
  }
  return out;
}

std::map<std::string, uint64_t> Waterlines::late_rows() const {
  MutexLock l(&mu_);
  std::map<std::string, uint64_t> out;
  for (const auto& [name, t] : tables_) out[name] = t.late;
  return out;
}

std::map<std::string, std::string> Waterlines::waterlines() const {
  MutexLock l(&mu_);
  std::map<std::string, std::string> out;
  for (const auto& [name, t] : tables_) {
    const int64_t w = t.waterline->value();
    if (w == Waterline::kNone) continue;
    const SqlType& type = t.schema[static_cast<size_t>(t.column)];
    switch (type.id()) {
      case TypeId::kTimestamp:
        out[name] = sql::FormatTimestamp(w);
        break;
      case TypeId::kDate:
        out[name] = sql::FormatDate(w);
        break;
      case TypeId::kTime:
        out[name] = sql::FormatTime(w);
        break;
      default:
        out[name] = std::to_string(w);
    }
  }
  return out;
}

// {"<table>": {"max": <int64 or null>, "agreed": <int64 or null>, "late":
// <count>}, ...}; "agreed" is missing in checkpoints of one host before it
// was kept (it was "max" there).
nlohmann::json Waterlines::ToJson() const {
  MutexLock l(&mu_);
  auto value = [](int64_t v) {
    return v == Waterline::kNone ? nlohmann::json() : nlohmann::json(v);
  };
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, t] : tables_) {
    j[name] = {{"max", value(t.max)}, {"agreed", value(t.agreed)}, {"late", t.late}};
  }
  return j;
}

Status Waterlines::FromJson(const nlohmann::json& j) {
  if (!j.is_object()) return Status::Corruption("waterlines are not a JSON object");
  MutexLock l(&mu_);
  for (auto& [name, t] : tables_) {
    auto it = j.find(name);
    if (it == j.end()) continue;  // a table that gained its LATENESS since
    if (!it->is_object()) return Status::Corruption("the waterline of " + name + " is malformed");
    const nlohmann::json& max = (*it)["max"];
    if (max.is_number_integer()) t.max = std::max(t.max, max.get<int64_t>());
    const nlohmann::json& agreed = it->contains("agreed") ? (*it)["agreed"] : max;
    if (agreed.is_number_integer()) t.agreed = std::max(t.agreed, agreed.get<int64_t>());
    t.late = it->value("late", uint64_t{0});
  }
  AdvanceLocked();
  return Status::OK();
}

}  // namespace sluice::pipeline
