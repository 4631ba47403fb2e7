#include "sql/catalog.h"

#include <set>

#include "base/hash.h"

namespace sluice::sql {

const TableDef* Catalog::FindTable(const std::string& name) const {
  auto it = tables_.find(name);
  return it == tables_.end() ? nullptr : &it->second;
}

const ViewDef* Catalog::FindView(const std::string& name) const {
  auto it = views_.find(name);
  return it == views_.end() ? nullptr : &it->second;
}

Status Catalog::AddTable(TableDef table) {
  if (tables_.count(table.name) || views_.count(table.name) || sequences_.count(table.name)) {
    return Status::InvalidArgument("relation \"" + table.name + "\" already exists");
  }
  std::string name = table.name;
  tables_.emplace(std::move(name), std::move(table));
  return Status::OK();
}

Status Catalog::AddView(ViewDef view) {
  if (tables_.count(view.name) || views_.count(view.name) || sequences_.count(view.name)) {
    return Status::InvalidArgument("relation \"" + view.name + "\" already exists");
  }
  std::string name = view.name;
  views_.emplace(std::move(name), std::move(view));
  return Status::OK();
}

Status Catalog::AddFunction(FunctionDef f, bool replace) {
  if (!replace && functions_.count(f.name)) {
    return Status::InvalidArgument("function \"" + f.name + "\" already exists");
  }
  std::string name = f.name;
  functions_[name] = std::move(f);
  return Status::OK();
}

const FunctionDef* Catalog::FindFunction(const std::string& name) const {
  auto it = functions_.find(name);
  return it == functions_.end() ? nullptr : &it->second;
}

Status Catalog::DropFunction(const std::string& name) {
  if (functions_.erase(name) == 0) {
    return Status::NotFound("function " + name + " does not exist");
  }
  return Status::OK();
}

Status Catalog::AddAggregate(AggregateDef a, bool replace) {
  if (!replace && aggregates_.count(a.name)) {
    return Status::InvalidArgument("function \"" + a.name + "\" already exists");
  }
  std::string name = a.name;
  aggregates_[name] = std::move(a);
  return Status::OK();
}

const AggregateDef* Catalog::FindAggregate(const std::string& name) const {
  auto it = aggregates_.find(name);
  return it == aggregates_.end() ? nullptr : &it->second;
}

Status Catalog::DropAggregate(const std::string& name) {
  if (aggregates_.erase(name) == 0) {
    return Status::NotFound("aggregate " + name + " does not exist");
  }
  return Status::OK();
}

Status Catalog::AddType(const std::string& name, SqlType type) {
  if (types_.count(name) || tables_.count(name) || views_.count(name))
    return Status::InvalidArgument("type \"" + name + "\" already exists");
  types_.emplace(name, std::move(type));
  return Status::OK();
}

const SqlType* Catalog::FindType(const std::string& name) const {
  auto it = types_.find(name);
  return it == types_.end() ? nullptr : &it->second;
}

std::string Catalog::RowTypeName(const SqlType& row) const {
  const SqlType want = row.WithNullable(true);
  for (const auto& [name, t] : types_) {
    if (t.WithNullable(true) == want) return name;
  }
  for (const auto& [name, t] : tables_) {
    std::vector<std::string> names;
    std::vector<SqlType> fields;
    for (const Column& c : t.columns) {
      names.push_back(c.name);
      fields.push_back(c.type.WithNullable(true));
    }
    if (SqlType::Row(std::move(names), std::move(fields)) == want) return name;
  }
  return "";
}

Status Catalog::DropType(const std::string& name) {
  if (types_.erase(name) + refused_types_.erase(name) == 0)
    return Status::NotFound("type \"" + name + "\" does not exist");
  return Status::OK();
}

void Catalog::AddRefusedType(const std::string& name, std::string what) {
  if (types_.count(name) == 0) refused_types_[name] = std::move(what);
}

const std::string* Catalog::FindRefusedType(const std::string& name) const {
  auto it = refused_types_.find(name);
  return it == refused_types_.end() ? nullptr : &it->second;
}

Status Catalog::DropTable(const std::string& name) {
  if (tables_.erase(name) == 0) {
    return Status::NotFound("table \"" + name + "\" does not exist");
  }
  std::erase_if(indexes_, [&](const auto& kv) { return kv.second.relation == name; });
  // Its SERIAL and IDENTITY sequences (OWNED BY) go with it.
  std::erase_if(sequences_, [&](const auto& kv) { return kv.second.owned_by_table == name; });
  return Status::OK();
}

Status Catalog::AddSequence(SequenceDef s) {
  if (tables_.count(s.name) || views_.count(s.name) || sequences_.count(s.name) ||
      indexes_.count(s.name)) {
    return Status::InvalidArgument("relation \"" + s.name + "\" already exists");
  }
  std::string name = s.name;
  sequences_.emplace(std::move(name), std::move(s));
  return Status::OK();
}

const SequenceDef* Catalog::FindSequence(const std::string& name) const {
  auto it = sequences_.find(name);
  return it == sequences_.end() ? nullptr : &it->second;
}

Status Catalog::ReplaceSequence(SequenceDef s) {
  auto it = sequences_.find(s.name);
  if (it == sequences_.end()) {
    return Status::NotFound("relation \"" + s.name + "\" does not exist");
  }
  it->second = std::move(s);
  return Status::OK();
}

Status Catalog::DropSequence(const std::string& name) {
  if (sequences_.erase(name) == 0) {
    return Status::NotFound("sequence \"" + name + "\" does not exist");
  }
  return Status::OK();
}

Status Catalog::AddIndex(IndexDef index) {
  if (!tables_.count(index.relation) && !views_.count(index.relation)) {
    return Status::NotFound("relation \"" + index.relation + "\" does not exist");
  }
  if (indexes_.count(index.name) || tables_.count(index.name) || views_.count(index.name)) {
    return Status::InvalidArgument("relation \"" + index.name + "\" already exists");
  }
  std::string name = index.name;
  indexes_.emplace(std::move(name), std::move(index));
  return Status::OK();
}

Status Catalog::DropIndex(const std::string& name) {
  if (indexes_.erase(name) == 0) return Status::NotFound("index \"" + name + "\" does not exist");
  return Status::OK();
}

Status Catalog::DropView(const std::string& name) {
  if (views_.erase(name) == 0) return Status::NotFound("view \"" + name + "\" does not exist");
  std::erase_if(indexes_, [&](const auto& kv) { return kv.second.relation == name; });
  return Status::OK();
}

PgOids AssignPgOids(const Catalog& catalog) {
  // Every object as (kind, name): relations, then key indexes, then key
  // constraints, each in name order; the kind is hashed too, so a table's key
  // index never shares its hash with a relation named like it.
  std::vector<std::pair<std::string, std::string>> objects;
  auto user = [](const std::string& name) { return name.find('.') == std::string::npos; };
  for (const auto& [name, def] : catalog.tables()) {
    if (user(name)) objects.emplace_back("relation", name);
  }
  for (const auto& [name, def] : catalog.views()) {
    if (user(name)) objects.emplace_back("relation", name);
  }
  for (const auto& [name, def] : catalog.sequences()) objects.emplace_back("relation", name);
  for (const char* kind : {"key_index", "key_constraint"}) {
    for (const auto& [name, def] : catalog.tables()) {
      if (user(name) && !def.primary_key.empty()) objects.emplace_back(kind, name);
    }
  }
  constexpr uint64_t kFirst = 16384;
  constexpr uint64_t kSpan = (uint64_t{1} << 31) - kFirst;  // OIDs stay positive int4s
  std::set<int64_t> taken;
  PgOids out;
  for (const auto& [kind, name] : objects) {
    int64_t oid = static_cast<int64_t>(kFirst + Hash64(kind + ":" + name) % kSpan);
    while (!taken.insert(oid).second) {
      oid = oid + 1 < static_cast<int64_t>(kFirst + kSpan) ? oid + 1 : static_cast<int64_t>(kFirst);
    }
    (kind == "relation"    ? out.relations
     : kind == "key_index" ? out.key_indexes
                           : out.key_constraints)[name] = oid;
  }
  return out;
}

}  // namespace sluice::sql
