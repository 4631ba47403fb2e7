// Restarting with a changed program (bootstrapping).
//
// Every checkpoint records each relation's definition: a hash of its text
// (without locations and options), the relations it reads, and, for a table,
// its CREATE TABLE statement. A relation's fingerprint combines its own hash
// with the fingerprints of everything it reads, so a view is unchanged
// exactly when neither its query nor anything upstream of it changed.
//
// On a restart with another program:
//   - unchanged tables and views keep their operators' state (the circuit
//     knows each operator by its owner and ordinal, circuit.h), their
//     integrals and their connectors' progress;
//   - new and changed views are rebuilt: a second runtime, built with only
//     those views (and the views they read), takes every table's contents as
//     one step, and its operators' state moves into the pipeline's runtime.
//     A table's contents come from its upsert state (a table with a primary
//     key replays it, UpsertOp::Replay), its clamp state (a table without
//     one that is not append_only, ClampOp::Replay) or from its integral (a
//     materialized table); a view that must be rebuilt from an append-only
//     table that is not materialized cannot be;
//   - a changed table (other columns, types or key) keeps its rows, carried
//     into the new definition by column name (CAST to the new type; a new
//     column is NULL), if it was materialized: otherwise its rows are not
//     kept anywhere, and the restart is refused;
//   - removed relations are dropped.
// The rebuild is one step, numbered after the checkpoint's. The connectors
// of rebuilt relations start over: they receive the new contents in that
// step (or as their snapshot). A checkpoint follows at once.
#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "base/bytes.h"
#include "base/hash.h"
#include "dataflow/operators/upsert.h"
#include "dataflow/state.h"
#include "pipeline/controller.h"
#include "sql/expr.h"
#include "storage/file.h"
#include "types/row_codec.h"
#include "zset/batch_builder.h"
#include "zset/cursor.h"

namespace sluice::pipeline {
namespace {

using Json = nlohmann::json;

// Maps rows of a table's old definition onto its new one, by column name.
class RowCarrier {
 public:
  static Result<RowCarrier> Make(const std::string& table, const sql::TableDef& from,
                                 const sql::TableDef& to) {
    RowCarrier r;
    r.table_ = table;
    for (const sql::Column& c : from.columns) r.from_.push_back(c.type);
    for (const sql::Column& c : to.columns) r.to_.push_back(c.type);
    for (int k : to.primary_key) r.key_.push_back(to.columns[static_cast<size_t>(k)].type);
    r.key_cols_ = to.primary_key;
    for (const sql::Column& c : to.columns) {
      int src = -1;
      for (size_t i = 0; i < from.columns.size(); ++i) {
        if (from.columns[i].name == c.name) src = static_cast<int>(i);
      }
      if (src < 0 && !c.type.nullable()) {
        return Status::InvalidArgument("table " + table + " changed: its new column " + c.name +
                                       " is NOT NULL, and its existing rows have no value for it");
      }
      r.source_.push_back(src);
    }
    r.names_ = to.columns;
    return r;
  }

  // The encoded new row (and, for a keyed table, its key) of an old row.
  Status Carry(std::string_view old_row, std::string* row, std::string* key) const {
    SLUICE_ASSIGN_OR_RETURN(std::vector<Value> old, DecodeRow(from_, old_row));
    std::vector<Value> out(to_.size());
    for (size_t i = 0; i < to_.size(); ++i) {
      if (source_[i] < 0) continue;  // NULL
      const size_t s = static_cast<size_t>(source_[i]);
      Status st = sql::CastValue(old[s], from_[s], to_[i], &out[i]);
      if (st.ok() && !to_[i].nullable() && out[i].is_null()) {
        st = Status::InvalidArgument("NULL in a NOT NULL column");
      }
      if (!st.ok()) {
        return Status::InvalidArgument("table " + table_ + " changed: the row " +
                                       RowToString(from_, old_row) + " does not fit column " +
                                       names_[i].name + " " + to_[i].ToString() + ": " +
                                       st.message());
      }
    }
    row->clear();
    SLUICE_RETURN_IF_ERROR(EncodeRow(to_, out, row));
    key->clear();
    if (!key_cols_.empty()) {
      std::vector<Value> k;
      for (int c : key_cols_) k.push_back(out[static_cast<size_t>(c)]);
      SLUICE_RETURN_IF_ERROR(EncodeRow(key_, k, key));
    }
    return Status::OK();
  }

 private:
  std::string table_;
  Schema from_, to_, key_;
  std::vector<int> source_, key_cols_;
  std::vector<sql::Column> names_;
};

// The definition of `table` that a checkpoint recorded.
Result<sql::TableDef> OldTable(const std::string& table, const Json& rel) {
  auto p = sql::CompileProgram(rel.value("sql", std::string()));
  if (!p.ok() || p->catalog.FindTable(table) == nullptr) {
    return Status::Corruption("the checkpoint's definition of table " + table +
                              " does not compile: " + p.status().ToString());
  }
  return *p->catalog.FindTable(table);
}

}  // namespace

uint64_t Controller::Fingerprint(const std::string& relation) const {
  if (const sql::TableDef* t = program_.catalog.FindTable(relation)) {
    return Hash64(Hex64(t->definition_hash));
  }
  const sql::ViewDef& v = *program_.catalog.FindView(relation);
  std::string text = Hex64(v.definition_hash);
  for (const std::string& in : v.inputs) text += " " + in + "=" + Hex64(Fingerprint(in));
  return Hash64(text);
}

std::string Controller::RelationsJson() const {
  Json rels = Json::object();
  for (const std::string& t : program_.tables) {
    const sql::TableDef& def = *program_.catalog.FindTable(t);
    rels[t] = {{"kind", "table"},
               {"definition", Hex64(def.definition_hash)},
               {"fingerprint", Hex64(Fingerprint(t))},
               {"materialized", def.materialized},
               {"keyed", !def.primary_key.empty()},
               {"append_only", def.append_only},
               {"sql", def.sql}};
  }
  for (const std::string& v : program_.views) {
    const sql::ViewDef& def = *program_.catalog.FindView(v);
    rels[v] = {{"kind", "view"},
               {"definition", Hex64(def.definition_hash)},
               {"fingerprint", Hex64(Fingerprint(v))},
               {"materialized", def.materialized},
               {"inputs", def.inputs}};
  }
  return rels.dump();
}

Result<std::unique_ptr<Controller::ProgramChange>> Controller::PlanChange(
    const std::string& body_text) const {
  const Json body = Json::parse(body_text);
  if (!body.contains("relations")) {
    return Status::InvalidArgument(
        "the program changed since the checkpoint, which does not record its relations' "
        "definitions (it was written by an older version): run the program it was taken with, "
        "or start with an empty storage directory");
  }
  const Json& old = body["relations"];
  auto change = std::make_unique<ProgramChange>();
  ProgramChange& c = *change;
  auto was = [&](const std::string& name, const char* kind) {
    return old.contains(name) && old[name].value("kind", "") == kind;
  };
  // Tables.
  for (const std::string& t : program_.tables) {
    const sql::TableDef& def = *program_.catalog.FindTable(t);
    if (!was(t, "table")) {
      c.entries.push_back({t, true, "added", "new table"});  // empty: nothing to build
      continue;
    }
    const Json& o = old[t];
    const bool old_materialized = o.value("materialized", false);
    if (o.value("definition", "") != Hex64(def.definition_hash)) {
      if (!old_materialized) {
        return Status::InvalidArgument(
            "table " + t +
            " changed (its columns, types or key), and its rows cannot be carried into the new "
            "definition because it was not materialized, so they were not kept: restart with the "
            "program the checkpoint was taken with, declare the table WITH ('materialized' = "
            "'true') and take a checkpoint before changing it, or start with an empty storage "
            "directory");
      }
      c.entries.push_back({t, true, "changed", "its columns, types or key changed"});
      c.changed_tables.insert(t);
      c.rebuilt_owners.insert(sql::TableOwner(t));
      if (def.materialized) c.new_integrals.insert(t);
      continue;
    }
    c.kept_owners.insert(sql::TableOwner(t));
    if (def.materialized && !old_materialized) {
      if (def.append_only) {
        return Status::InvalidArgument(
            "table " + t +
            " is now materialized, but its rows were not kept (it is append_only and was not "
            "materialized): restart with the program the checkpoint was taken with, or start "
            "with an empty storage directory");
      }
      c.entries.push_back({t, true, "materialized", "now materialized"});
      c.replay_tables.insert(t);
      c.new_integrals.insert(t);
    }
  }
  for (auto it = old.begin(); it != old.end(); ++it) {
    const bool table = it->value("kind", "") == "table";
    if (table ? program_.catalog.FindTable(it.key()) == nullptr
              : program_.catalog.FindView(it.key()) == nullptr) {
      c.entries.push_back({it.key(), table, "removed", "not in the program"});
    }
  }
  // Views, in program order (inputs first).
  for (const std::string& v : program_.views) {
    const sql::ViewDef& def = *program_.catalog.FindView(v);
    std::string reason;
    std::string kind = "changed";
    if (!was(v, "view")) {
      kind = "added";
      reason = "new view";
    } else if (old[v].value("fingerprint", "") != Hex64(Fingerprint(v))) {
      if (old[v].value("definition", "") != Hex64(def.definition_hash)) {
        reason = "its definition changed";
      } else {
        for (const std::string& in : def.inputs) {
          if (c.rebuild_views.count(in) > 0 || c.changed_tables.count(in) > 0 ||
              !old.contains(in) || old[in].value("fingerprint", "") != Hex64(Fingerprint(in))) {
            reason = "its input " + in + " changed";
            break;
          }
        }
        if (reason.empty()) reason = "its inputs changed";
      }
    } else if (def.materialized && !old[v].value("materialized", false)) {
      reason = "it is now materialized";
    }
    if (reason.empty()) {
      c.kept_owners.insert(sql::ViewOwner(v));
      continue;
    }
    c.entries.push_back({v, false, kind, reason});
    c.rebuild_views.insert(v);
    c.rebuilt_owners.insert(sql::ViewOwner(v));
    if (def.materialized) c.new_integrals.insert(v);
  }
  // Where the rebuilt views' tables come from.
  std::set<std::string> seen;
  std::vector<std::string> todo(c.rebuild_views.begin(), c.rebuild_views.end());
  while (!todo.empty()) {
    const std::string r = todo.back();
    todo.pop_back();
    if (!seen.insert(r).second) continue;
    if (const sql::ViewDef* v = program_.catalog.FindView(r)) {
      todo.insert(todo.end(), v->inputs.begin(), v->inputs.end());
      continue;
    }
    const sql::TableDef& t = *program_.catalog.FindTable(r);
    if (!was(r, "table") || c.changed_tables.count(r) > 0) continue;  // empty, or carried
    if (!t.primary_key.empty()) {
      c.replay_tables.insert(r);
    } else if (old[r].value("materialized", false)) {
      c.feed_tables.insert(r);
    } else if (!t.append_only) {
      c.replay_tables.insert(r);  // its clamp state
    } else {
      std::string needers;
      for (const std::string& v : c.rebuild_views) needers += (needers.empty() ? "" : ", ") + v;
      return Status::InvalidArgument(
          "views " + needers + " must be rebuilt, and read table " + r +
          ", whose rows were not kept (it is append_only and was not materialized): declare "
          "it WITH ('materialized' = 'true') in the program the checkpoint was taken with, or "
          "start with an empty storage directory");
    }
  }
  for (const ProgramChange::Entry& e : c.entries) {
    if (e.change != "added" || !e.table) c.needs_approval = true;
  }
  return change;
}

Status Controller::Bootstrap(const std::string& dir, const std::string& body_text,
                             const ProgramChange& change) {
  const Json body = Json::parse(body_text);
  const uint64_t step = body.value("step", uint64_t{0}) + 1;
  // The views to build: the rebuilt ones and every view they read.
  std::set<std::string> views;
  std::vector<std::string> todo(change.rebuild_views.begin(), change.rebuild_views.end());
  while (!todo.empty()) {
    const std::string r = todo.back();
    todo.pop_back();
    const sql::ViewDef* v = program_.catalog.FindView(r);
    if (v == nullptr || !views.insert(r).second) continue;
    todo.insert(todo.end(), v->inputs.begin(), v->inputs.end());
  }
  RuntimeOptions opts;
  opts.workers = config_.workers;
  opts.spine.merge.storage_dir = config_.storage;
  opts.spine.merge.budget = budget_.get();
  SLUICE_ASSIGN_OR_RETURN(auto rebuild, Runtime::Start(opts, [&](Circuit& c) {
                            return sql::BuildProgram(program_, c, &errors_, &views, nullptr,
                                                     nullptr, clock_);
                          }));
  // Tables replay their upsert or clamp state from the checkpoint.
  std::set<std::string> replay;
  for (const std::string& t : change.replay_tables) replay.insert(sql::TableOwner(t));
  auto replaying = [&](const std::string& owner) { return replay.count(owner) > 0; };
  SLUICE_RETURN_IF_ERROR(rebuild->LoadState(dir, body["runtime"].dump(), replaying));
  rebuild->Replay(replaying);
  // Unkeyed tables come from their integrals.
  SLUICE_ASSIGN_OR_RETURN(auto integrals, StateReader::Open(dir, body["integrals"].dump()));
  for (const std::string& t : change.feed_tables) {
    SLUICE_RETURN_IF_ERROR(integrals->BeginOp(t, "integral"));
    Spine contents(opts.spine);
    SLUICE_RETURN_IF_ERROR(integrals->GetSpine(&contents));
    for (const BatchPtr& b : contents.Snapshot()) SLUICE_RETURN_IF_ERROR(rebuild->Push(t, b));
  }
  // Changed tables: their rows, carried into the new definition.
  for (const std::string& t : change.changed_tables) {
    SLUICE_ASSIGN_OR_RETURN(sql::TableDef old, OldTable(t, body["relations"][t]));
    const sql::TableDef& now = *program_.catalog.FindTable(t);
    SLUICE_ASSIGN_OR_RETURN(RowCarrier carry, RowCarrier::Make(t, old, now));
    SLUICE_RETURN_IF_ERROR(integrals->BeginOp(t, "integral"));
    Spine contents(opts.spine);
    SLUICE_RETURN_IF_ERROR(integrals->GetSpine(&contents));
    BatchBuilder rows;
    std::string row, key;
    std::vector<std::pair<std::string, std::string>> keyed;
    auto cur = contents.NewCursor();
    for (; cur->KeyValid(); cur->StepKey()) {
      for (; cur->ValValid(); cur->StepVal()) {
        SLUICE_RETURN_IF_ERROR(carry.Carry(cur->key(), &row, &key));
        if (now.primary_key.empty()) {
          rows.Push(row, cur->weight());
        } else {
          keyed.emplace_back(key, row);
        }
      }
    }
    SLUICE_RETURN_IF_ERROR(cur->status());
    if (!now.primary_key.empty()) {
      std::sort(keyed.begin(), keyed.end());
      Schema schema;
      for (const sql::Column& col : now.columns) schema.push_back(col.type);
      for (size_t i = 0; i < keyed.size(); ++i) {
        if (i > 0 && keyed[i].first == keyed[i - 1].first) {
          return Status::InvalidArgument(
              "table " + t + " changed: the rows " + RowToString(schema, keyed[i - 1].second) +
              " and " + RowToString(schema, keyed[i].second) + " have the same new primary key");
        }
        rows.Push(keyed[i].first,
                  EncodeUpsertCommand(upsert_seq_++, UpsertOpKind::kInsert, keyed[i].second), 1);
      }
    }
    SLUICE_ASSIGN_OR_RETURN(MemBatchPtr batch, rows.Finish());
    SLUICE_RETURN_IF_ERROR(rebuild->Push(t, batch));
  }
  SLUICE_RETURN_IF_ERROR(rebuild->Step());
  // The rebuilt operators' state moves into the pipeline's runtime.
  const std::string tmp = config_.storage + "/.bootstrap";
  std::error_code ec;
  std::filesystem::remove_all(tmp, ec);
  SLUICE_RETURN_IF_ERROR(CreateDirs(tmp));
  SLUICE_ASSIGN_OR_RETURN(std::string state, rebuild->SaveState(tmp));
  SLUICE_RETURN_IF_ERROR(runtime_->LoadState(tmp, state, [&](const std::string& owner) {
    return change.rebuilt_owners.count(owner) > 0;
  }));
  std::filesystem::remove_all(tmp, ec);  // open files stay readable
  runtime_->set_steps(step);
  // Their contents: integrals, and the first change their connectors see.
  std::map<std::string, BatchPtr> new_integrals, changes;
  for (const std::string& name : output_names_) {
    const bool deliver =
        change.rebuild_views.count(name) > 0 || change.changed_tables.count(name) > 0;
    if (!deliver && change.new_integrals.count(name) == 0) continue;
    SLUICE_ASSIGN_OR_RETURN(BatchPtr b, rebuild->Output(name));
    if (change.new_integrals.count(name) > 0) new_integrals[name] = b;
    if (deliver) changes[name] = b;
  }
  SLUICE_RETURN_IF_ERROR(outputs_->DeliverRebuilt(step, new_integrals, changes));
  loop_.set_step(step);
  return Status::OK();
}

Status Controller::Approve() {
  std::unique_ptr<ProgramChange> change;
  uint64_t seq = 0;
  std::string body;
  {
    MutexLock l(&change_mu_);
    if (state() != PipelineState::kAwaitingApproval || pending_change_ == nullptr) {
      return Status::InvalidArgument("the pipeline is not awaiting approval of a program change");
    }
    change = std::move(pending_change_);
    seq = pending_seq_;
    body = std::move(pending_body_);
  }
  Status s;
  {
    MutexLock l(&step_mu_);
    s = LoadCheckpoint(seq, body, change.get());
  }
  if (s.ok()) {
    loop_.Approved();
    SyncGate();
    s = Launch();
  }
  if (!s.ok()) {
    Fail(s);
    return failure();
  }
  return Status::OK();
}

}  // namespace sluice::pipeline
