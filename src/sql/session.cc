#include "sql/session.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "sql/binder.h"
#include "sql/dml.h"
#include "sql/expr.h"
#include "sql/program.h"
#include "sql/query.h"
#include "types/row_codec.h"
#include "zset/batch_builder.h"
#include "zset/merge.h"

namespace sluice::sql {

SqlSession::TableData* SqlSession::Find(const std::string& name) {
  auto it = tables_.find(name);
  return it == tables_.end() ? nullptr : &it->second;
}

Status SqlSession::CreateTable(const std::string& sql, const Json& body) {
  SLUICE_ASSIGN_OR_RETURN(TableDef t, BindCreateTable(sql, body, &catalog_));
  for (const SequenceDef& d : t.column_sequences) {
    if (catalog_.FindSequence(d.name) != nullptr || catalog_.FindTable(d.name) != nullptr ||
        catalog_.FindView(d.name) != nullptr) {
      return Status::InvalidArgument("relation \"" + d.name + "\" already exists");
    }
  }
  SLUICE_RETURN_IF_ERROR(catalog_.AddTable(t));
  for (const SequenceDef& d : t.column_sequences) {
    SLUICE_RETURN_IF_ERROR(catalog_.AddSequence(d));
    SLUICE_RETURN_IF_ERROR(sequences_->Create(d));
  }
  TableData data;
  data.def = t;
  tables_[t.name] = std::move(data);
  return Status::OK();
}

Status SqlSession::Apply(TableData& t, const std::vector<std::pair<std::string, Weight>>& changes) {
  BatchBuilder b;
  Schema schema;
  for (const Column& c : t.def.columns) schema.push_back(c.type);
  // A row that fails a CHECK constraint fails the statement, before any of
  // its changes applies.
  if (!t.def.checks.empty()) {
    for (const auto& [row, w] : changes) {
      if (w <= 0) continue;
      SLUICE_ASSIGN_OR_RETURN(Row values, DecodeRow(schema, row));
      SLUICE_RETURN_IF_ERROR(CheckRow(t.def.name, t.def.checks, schema, values));
    }
  }
  for (const auto& [row, w] : changes) {
    if (!t.def.primary_key.empty()) {
      std::vector<std::string_view> fields;
      SLUICE_RETURN_IF_ERROR(SplitRow(schema, row, &fields));
      std::string key;
      for (int k : t.def.primary_key) key += fields[static_cast<size_t>(k)];
      auto it = t.by_key.find(key);
      if (w > 0) {
        if (it != t.by_key.end()) {
          return Status::InvalidArgument("duplicate key value violates unique constraint on \"" +
                                         t.def.name + "\"");
        }
        t.by_key[key] = row;
      } else if (it != t.by_key.end() && it->second == row) {
        t.by_key.erase(it);
      }
    }
    Weight& cur = t.rows[row];
    cur += w;
    if (cur == 0) t.rows.erase(row);
    b.Push(row, w);
  }
  SLUICE_ASSIGN_OR_RETURN(MemBatchPtr batch, b.Finish());
  if (!batch->empty()) t.history.push_back(batch);
  return Status::OK();
}

// The error of a change to relation `name` (at `rel`), which is no table.
Status SqlSession::NoTable(const std::string& sql, const Json& rel, const std::string& name) const {
  if (catalog_.FindView(name) != nullptr) {
    return SqlUnsupported(sql, rel, "INSERT, UPDATE or DELETE on a view");
  }
  return SqlError(sql, rel, "relation \"" + name + "\" does not exist");
}

Status SqlSession::Insert(const std::string& sql, const Json& body) {
  std::string name = body["relation"]["relname"];
  TableData* t = Find(name);
  if (!t) return NoTable(sql, body["relation"], name);
  const auto& cols = t->def.columns;
  std::vector<int> target;
  for (const Json& c : body.value("cols", Json::array())) {
    std::string cn = c["ResTarget"]["name"];
    auto it = std::find_if(cols.begin(), cols.end(), [&](const Column& x) { return x.name == cn; });
    if (it == cols.end())
      return SqlError(sql, c, "column \"" + cn + "\" of relation \"" + name + "\" does not exist");
    target.push_back(static_cast<int>(it - cols.begin()));
  }
  if (target.empty()) {
    for (size_t i = 0; i < cols.size(); ++i) target.push_back(static_cast<int>(i));
  }
  Schema schema;
  for (const Column& c : cols) schema.push_back(c.type);
  std::vector<std::pair<std::string, Weight>> changes;
  // What a column the statement leaves out gets.
  const Row defaults = t->def.defaults.empty() ? Row(cols.size(), Value::Null()) : t->def.defaults;
  static const Json kNone = Json::object();
  const Json& sel = body.contains("selectStmt") ? body["selectStmt"]["SelectStmt"] : kNone;
  std::vector<Row> rows;
  if (!body.contains("selectStmt")) {  // DEFAULT VALUES
    rows.push_back(defaults);
  } else if (sel.contains("valuesLists")) {
    // Without a column list, fewer values fill the first columns.
    const size_t width = sel["valuesLists"][0]["List"]["items"].size();
    if (!body.contains("cols") && width < target.size()) target.resize(width);
    for (const Json& list : sel["valuesLists"]) {
      const Json& items = list["List"]["items"];
      if (items.size() != target.size()) {
        return SqlError(sql, list,
                        "INSERT has " +
                            std::string(items.size() > target.size() ? "more" : "fewer") +
                            " expressions than target columns");
      }
      Row row = defaults;
      for (size_t i = 0; i < items.size(); ++i) {
        if (items[i].contains("SetToDefault")) continue;
        const SqlType& ty = cols[static_cast<size_t>(target[i])].type;
        SLUICE_ASSIGN_OR_RETURN(row[static_cast<size_t>(target[i])],
                                EvalConstant(catalog_, sql, items[i], ty));
      }
      rows.push_back(std::move(row));
    }
  } else {
    SLUICE_ASSIGN_OR_RETURN(BoundQuery q, BindSelect(catalog_, sql, sel));
    if (!body.contains("cols") && q.visible < target.size()) target.resize(q.visible);
    if (q.visible != target.size())
      return SqlError(sql, sel, "INSERT has a different number of expressions than target columns");
    SLUICE_ASSIGN_OR_RETURN(std::vector<Row> got, Evaluate(q, false));
    for (const Row& g : got) {
      Row row = defaults;
      for (size_t i = 0; i < target.size(); ++i) {
        SLUICE_RETURN_IF_ERROR(AssignValue(g[i], q.plan->columns[i].type,
                                           cols[static_cast<size_t>(target[i])].type,
                                           &row[static_cast<size_t>(target[i])]));
      }
      rows.push_back(std::move(row));
    }
  }
  for (const Row& row : rows) {
    std::string enc;
    SLUICE_RETURN_IF_ERROR(EncodeRow(schema, row, &enc));
    changes.emplace_back(std::move(enc), 1);
  }
  return Apply(*t, changes);
}

Status SqlSession::Delete(const std::string& sql, const Json& body) {
  std::string name = body["relation"]["relname"];
  TableData* t = Find(name);
  if (!t) return NoTable(sql, body["relation"], name);
  if (t->def.append_only) {
    return SqlError(sql, body["relation"],
                    "table " + name + " is append_only: it takes no deletes");
  }
  Schema schema;
  for (const Column& c : t->def.columns) schema.push_back(c.type);
  ExprPtr pred;
  if (body.contains("whereClause")) {
    SLUICE_ASSIGN_OR_RETURN(
        pred, BindOverColumns(catalog_, sql, t->def.columns, name, body["whereClause"]));
  }
  std::vector<std::pair<std::string, Weight>> changes;
  for (const auto& [row, w] : t->rows) {
    bool hit = true;
    if (pred) {
      SLUICE_ASSIGN_OR_RETURN(Row r, DecodeRow(schema, row));
      SLUICE_RETURN_IF_ERROR(EvalPredicate(*pred, r, &hit));
    }
    if (hit) changes.emplace_back(row, -w);
  }
  return Apply(*t, changes);
}

Status SqlSession::Update(const std::string& sql, const Json& body) {
  std::string name = body["relation"]["relname"];
  TableData* t = Find(name);
  if (!t) return NoTable(sql, body["relation"], name);
  if (t->def.append_only) {
    return SqlError(sql, body["relation"],
                    "table " + name + " is append_only: it takes no updates");
  }
  const auto& cols = t->def.columns;
  Schema schema;
  for (const Column& c : cols) schema.push_back(c.type);
  ExprPtr pred;
  if (body.contains("whereClause")) {
    SLUICE_ASSIGN_OR_RETURN(pred, BindOverColumns(catalog_, sql, cols, name, body["whereClause"]));
  }
  std::vector<std::pair<int, ExprPtr>> sets;
  for (const Json& tgt : body["targetList"]) {
    const Json& rt = tgt["ResTarget"];
    std::string cn = rt["name"];
    auto it = std::find_if(cols.begin(), cols.end(), [&](const Column& x) { return x.name == cn; });
    if (it == cols.end())
      return SqlError(sql, tgt,
                      "column \"" + cn + "\" of relation \"" + name + "\" does not exist");
    const size_t c = static_cast<size_t>(it - cols.begin());
    if (rt["val"].contains("SetToDefault")) {
      const Value v = t->def.defaults.empty() ? Value::Null() : t->def.defaults[c];
      sets.emplace_back(static_cast<int>(c), MakeLiteral(v, cols[c].type.WithNullable(true)));
      continue;
    }
    SLUICE_ASSIGN_OR_RETURN(ExprPtr e, BindOverColumns(catalog_, sql, cols, name, rt["val"]));
    sets.emplace_back(static_cast<int>(c), e);
  }
  std::vector<std::pair<std::string, Weight>> dels, ins;
  for (const auto& [row, w] : t->rows) {
    SLUICE_ASSIGN_OR_RETURN(Row r, DecodeRow(schema, row));
    bool hit = true;
    if (pred) SLUICE_RETURN_IF_ERROR(EvalPredicate(*pred, r, &hit));
    if (!hit) continue;
    Row updated = r;
    for (const auto& [col, e] : sets) {
      Value v;
      SLUICE_RETURN_IF_ERROR(Eval(*e, r, &v));
      SLUICE_RETURN_IF_ERROR(AssignValue(v, e->type, cols[static_cast<size_t>(col)].type,
                                         &updated[static_cast<size_t>(col)]));
    }
    std::string enc;
    SLUICE_RETURN_IF_ERROR(EncodeRow(schema, updated, &enc));
    dels.emplace_back(row, -w);
    ins.emplace_back(std::move(enc), w);
  }
  // Deletes first, so that an updated primary key is free again.
  dels.insert(dels.end(), ins.begin(), ins.end());
  return Apply(*t, dels);
}

// CREATE OR REPLACE VIEW: PostgreSQL keeps the old view's columns, so the
// new query may only add columns after them. Drops the old view.
Status SqlSession::ReplaceableView(const ViewDef& v) {
  const ViewDef* old = catalog_.FindView(v.name);
  if (old == nullptr) return Status::OK();
  const auto& was = old->query.plan->columns;
  const auto& now = v.query.plan->columns;
  if (now.size() < old->query.visible || v.query.visible < old->query.visible)
    return Status::InvalidArgument("cannot drop columns from view");
  for (size_t i = 0; i < old->query.visible; ++i) {
    if (was[i].name != now[i].name) {
      return Status::InvalidArgument("cannot change name of view column \"" + was[i].name +
                                     "\" to \"" + now[i].name + "\"");
    }
    if (was[i].type.WithNullable(true) != now[i].type.WithNullable(true)) {
      return Status::InvalidArgument("cannot change data type of view column \"" + was[i].name +
                                     "\"");
    }
  }
  return catalog_.DropView(v.name);
}

namespace {

// Whether an UPDATE or INSERT sets part of a column (c[i], c.f) or
// several columns at once (SET (a, b) = ...).
bool SetsParts(const Json& body) {
  for (const Json& t : body.value(body.contains("cols") ? "cols" : "targetList", Json::array())) {
    const Json& rt = t["ResTarget"];
    if (rt.contains("indirection") || rt.value("val", Json::object()).contains("MultiAssignRef"))
      return true;
  }
  return false;
}

}  // namespace

Status SqlSession::Statement(const std::string& sql) {
  CastSettingsScope settings(settings_);
  TransactionTimeScope transaction_time(transaction_time_);
  SLUICE_ASSIGN_OR_RETURN(Json tree, ParseSql(sql));
  for (const Json& st : tree["stmts"]) {
    const Json& stmt = st["stmt"];
    std::string kind = stmt.begin().key();
    const Json& body = stmt.begin().value();
    if (kind == "CreateStmt") {
      SLUICE_RETURN_IF_ERROR(CreateTable(sql, body));
    } else if (kind == "CreateSeqStmt" || kind == "AlterSeqStmt" ||
               (kind == "DropStmt" && body.value("removeType", "") == "OBJECT_SEQUENCE")) {
      SLUICE_RETURN_IF_ERROR(SequenceStatement(sql, kind, body));
    } else if (ChangesData(stmt) &&
               (kind == "SelectStmt" || UsesSequences(stmt) || body.contains("returningList") ||
                body.contains("withClause") || body.contains("usingClause") ||
                body.contains("fromClause") || body.contains("onConflictClause") ||
                body["relation"].contains("alias") || SetsParts(body))) {
      // As the pipeline runs them (sql/dml.h); the plain ones below are
      // this session's own, faster for scripts of many small changes.
      const size_t at = st.value("stmt_location", 0);
      const size_t len = st.value("stmt_len", 0);
      SLUICE_RETURN_IF_ERROR(Modify(sql.substr(at, len == 0 ? std::string::npos : len)).status());
    } else if (kind == "InsertStmt") {
      SLUICE_RETURN_IF_ERROR(Insert(sql, body));
    } else if (kind == "DeleteStmt") {
      SLUICE_RETURN_IF_ERROR(Delete(sql, body));
    } else if (kind == "UpdateStmt") {
      SLUICE_RETURN_IF_ERROR(Update(sql, body));
    } else if (IsCreateView(kind, body)) {
      SLUICE_ASSIGN_OR_RETURN(ViewDef v, BindCreateView(catalog_, sql, kind, body));
      SetViewText(sql, st, &v);
      if (body.value("replace", false)) SLUICE_RETURN_IF_ERROR(ReplaceableView(v));
      SLUICE_RETURN_IF_ERROR(catalog_.AddView(std::move(v)));
    } else if (kind == "IndexStmt") {
      SLUICE_RETURN_IF_ERROR(catalog_.AddIndex(BindCreateIndex(body)));
    } else if (IsCreateType(kind)) {
      SLUICE_RETURN_IF_ERROR(AddCreateType(sql, kind, body, &catalog_));
    } else if (kind == "CreateFunctionStmt") {
      // Kept even when Sluice cannot run it: its calls then say why.
      SLUICE_ASSIGN_OR_RETURN(FunctionDef f, BindCreateFunction(sql, body));
      SLUICE_RETURN_IF_ERROR(catalog_.AddFunction(std::move(f), body.value("replace", false)));
    } else if (kind == "DropStmt") {
      std::string type = body.value("removeType", "");
      bool missing_ok = body.value("missing_ok", false);
      for (const Json& obj : body["objects"]) {
        if (type == "OBJECT_AGGREGATE") {
          Status s = catalog_.DropAggregate(
              obj["ObjectWithArgs"]["objname"].back()["String"].value("sval", ""));
          if (!s.ok() && !missing_ok) return s;
          continue;
        }
        if (type == "OBJECT_FUNCTION") {
          const std::string fname =
              obj["ObjectWithArgs"]["objname"].back()["String"].value("sval", "");
          Status s = catalog_.DropFunction(fname);
          if (!s.ok() && !missing_ok) return s;
          continue;
        }
        if (type == "OBJECT_TYPE" && obj.contains("TypeName")) {
          Status s = catalog_.DropType(obj["TypeName"]["names"].back()["String"].value("sval", ""));
          if (!s.ok() && !missing_ok) return s;
          continue;
        }
        if (!obj.contains("List")) return SqlUnsupported(sql, body, "DROP of this kind of object");
        std::string name = obj["List"]["items"].back()["String"].value("sval", "");
        Status s;
        if (type == "OBJECT_TABLE") {
          s = catalog_.DropTable(name);
          if (s.ok()) tables_.erase(name);
          sequences_->Define(catalog_.sequences());  // its columns' sequences go with it
        } else if (type == "OBJECT_VIEW") {
          s = catalog_.DropView(name);
        } else if (type == "OBJECT_INDEX") {
          s = catalog_.DropIndex(name);
        } else {
          return SqlUnsupported(sql, body, "DROP of this kind of object");
        }
        if (!s.ok() && !missing_ok) return s;
      }
    } else if (kind == "DefineStmt" && body.value("kind", "") == "OBJECT_OPERATOR") {
      // Remembered, so that using the operator says why it is not there.
      const Json& names = body.value("defnames", Json::array());
      if (!names.empty()) catalog_.AddRefusedOperator(names.back()["String"].value("sval", ""));
      return SqlUnsupported(sql, stmt, "CREATE OPERATOR");
    } else if (kind == "DefineStmt" && body.value("kind", "") == "OBJECT_AGGREGATE") {
      // Kept even when Sluice cannot compute it: its calls then say why.
      SLUICE_ASSIGN_OR_RETURN(AggregateDef a, BindCreateAggregate(catalog_, sql, body));
      const std::string unsupported =
          a.unsupported.empty() ? "" : a.unsupported + " (aggregate " + a.name + ")";
      // One that was refused may be defined again.
      const AggregateDef* was = catalog_.FindAggregate(a.name);
      const bool replace =
          body.value("replace", false) || (was != nullptr && !was->unsupported.empty());
      SLUICE_RETURN_IF_ERROR(catalog_.AddAggregate(std::move(a), replace));
      if (!unsupported.empty()) return SqlUnsupported(sql, stmt, unsupported);
    } else {
      // Said as the statement is written, pointing at its start.
      static const std::map<std::string, std::string> kStatementNames = {
          {"RuleStmt", "CREATE RULE"},
          {"CreateTrigStmt", "CREATE TRIGGER"},
          {"CreateEventTrigStmt", "CREATE EVENT TRIGGER"},
          {"CreatePolicyStmt", "CREATE POLICY"},
          {"CreateDomainStmt", "CREATE DOMAIN"},
          {"CreateSchemaStmt", "CREATE SCHEMA"},
          {"CreateTableAsStmt", "CREATE TABLE AS"},
          {"AlterTableStmt", "ALTER TABLE"},
          {"TruncateStmt", "TRUNCATE"},
          {"MergeStmt", "MERGE"},
      };
      auto name = kStatementNames.find(kind);
      const Json at = {{"location", st.value("stmt_location", 0)}};
      return SqlUnsupported(sql, at, name == kStatementNames.end() ? kind : name->second);
    }
  }
  return Status::OK();
}

Status SqlSession::SequenceStatement(const std::string& sql, const std::string& kind,
                                     const Json& body) {
  if (kind == "CreateSeqStmt") {
    SLUICE_ASSIGN_OR_RETURN(std::optional<SequenceDef> def, CreatedSequence(sql, body, catalog_));
    if (!def) return Status::OK();  // PostgreSQL: a notice
    Status s = catalog_.AddSequence(*def);
    if (!s.ok()) return SqlError(sql, body["sequence"], s.message());
    return sequences_->Create(*def);
  }
  if (kind == "AlterSeqStmt") {
    std::optional<int64_t> restart;
    SLUICE_ASSIGN_OR_RETURN(
        std::optional<SequenceDef> def,
        AlteredSequence(sql, body, catalog_, &restart,
                        sequences_->LastValue(body["sequence"].value("relname", ""))));
    if (!def) return Status::OK();
    SLUICE_RETURN_IF_ERROR(sequences_->Alter(*def, restart));
    return catalog_.ReplaceSequence(std::move(*def));
  }
  // DROP SEQUENCE
  for (const Json& obj : body["objects"]) {
    const std::string name = obj["List"]["items"].back()["String"].value("sval", "");
    const SequenceDef* def = catalog_.FindSequence(name);
    if (def == nullptr) {
      if (body.value("missing_ok", false)) continue;
      return SqlError(sql, body, "sequence \"" + name + "\" does not exist");
    }
    if (!def->owned_by_table.empty() && catalog_.FindTable(def->owned_by_table) != nullptr) {
      const TableDef* t = catalog_.FindTable(def->owned_by_table);
      if (std::find(t->default_sequences.begin(), t->default_sequences.end(), name) !=
          t->default_sequences.end()) {
        return SqlError(sql, body,
                        "cannot drop sequence " + name + " because other objects depend on it");
      }
    }
    SLUICE_RETURN_IF_ERROR(catalog_.DropSequence(name));
    SLUICE_RETURN_IF_ERROR(sequences_->Drop(name));
  }
  return Status::OK();
}

bool SqlSession::UsesSequences(const Json& stmt) const {
  const Json& body = stmt.begin().value();
  if (body.contains("relation")) {
    const TableDef* t = catalog_.FindTable(body["relation"].value("relname", ""));
    if (t != nullptr && (!t->default_sequences.empty() || !t->identity_always.empty())) return true;
  }
  return CallsSequenceFunction(stmt);
}

Result<QueryRows> SqlSession::Query(const std::string& sql) {
  CastSettingsScope settings(settings_);
  TransactionTimeScope transaction_time(transaction_time_);
  SLUICE_ASSIGN_OR_RETURN(Json tree, ParseSql(sql));
  if (tree["stmts"].size() != 1 || !tree["stmts"][0]["stmt"].contains("SelectStmt")) {
    return Status::InvalidArgument("a query must be one SELECT");
  }
  Catalog catalog = catalog_;
  catalog.set_sequence_access(
      std::make_shared<SequenceAccess>(SequenceAccess{sequences_, sequence_session_}));
  SLUICE_ASSIGN_OR_RETURN(BoundQuery q,
                          BindSelect(catalog, sql, tree["stmts"][0]["stmt"]["SelectStmt"]));
  DeferVolatileItems(&q);
  SLUICE_ASSIGN_OR_RETURN(std::vector<Row> rows, Evaluate(q, false));
  SortForPresentation(q, &rows);
  SLUICE_RETURN_IF_ERROR(ComputeDeferred(q, &rows));
  QueryRows out;
  out.columns.assign(q.plan->columns.begin(),
                     q.plan->columns.begin() + static_cast<ptrdiff_t>(q.visible));
  for (const auto& [c, e] : q.deferred) out.columns[c].type = e->type;
  for (Row& r : rows) {
    r.resize(q.visible);
    out.rows.push_back(std::move(r));
  }
  return out;
}

Result<DmlOutcome> SqlSession::Modify(const std::string& sql) {
  CastSettingsScope settings(settings_);
  TransactionTimeScope transaction_time(transaction_time_);
  DmlEnv env;
  env.query = [this](const std::string& query) { return Query(query); };
  env.type_name = [this](const SqlType& row) { return catalog_.RowTypeName(row); };
  env.table = [this](const std::string& name) -> Result<DmlTable> {
    const TableData* t = Find(name);
    if (t == nullptr && catalog_.FindView(name) != nullptr) {
      return Status::Unimplemented("INSERT, UPDATE or DELETE on a view is not supported yet");
    }
    if (t == nullptr) {
      return Status::InvalidArgument("relation \"" + name + "\" does not exist");
    }
    return DmlTable{t->def.columns,
                    t->def.append_only,
                    t->def.primary_key,
                    t->def.defaults,
                    t->def.default_sequences,
                    t->def.identity_always,
                    t->def.identity_by_default,
                    t->def.checks};
  };
  SLUICE_ASSIGN_OR_RETURN(DmlOutcome out, RunDml(sql, env));
  for (const TableChange& c : out.changes) {
    TableData* t = Find(c.table);
    Schema schema;
    for (const Column& col : t->def.columns) schema.push_back(col.type);
    std::vector<std::pair<std::string, Weight>> changes;
    for (const auto* rows : {&c.deleted, &c.inserted}) {
      for (const Row& r : *rows) {
        std::string enc;
        SLUICE_RETURN_IF_ERROR(EncodeRow(schema, r, &enc));
        changes.emplace_back(std::move(enc), rows == &c.deleted ? -1 : 1);
      }
    }
    SLUICE_RETURN_IF_ERROR(Apply(*t, changes));
  }
  return out;
}

Result<std::vector<Row>> SqlSession::Evaluate(const BoundQuery& q, bool incremental) {
  // NOW() in the view: the transaction's time where one is set (a runner
  // beside PostgreSQL), else the wall clock's.
  std::shared_ptr<StepClock> clock;
  if (ReadsStepClock(q.plan)) {
    clock = std::make_shared<StepClock>();
    TransactionTimeScope transaction_time(transaction_time_);
    clock->Advance(TransactionTime());
  }
  if (!incremental) {
    // Over the data already there, an evaluation error is what PostgreSQL
    // would have failed the query with.
    return EvaluateOnce(
        q,
        [&](const std::string& name) -> Result<std::vector<BatchPtr>> {
          TableData* t = Find(name);
          BatchBuilder b;
          for (const auto& [row, w] : t->rows) b.Push(row, w);
          SLUICE_ASSIGN_OR_RETURN(MemBatchPtr all, b.Finish());
          return std::vector<BatchPtr>{all};
        },
        1, clock);
  }
  EvalErrors errors;
  std::set<std::string> append_only;
  for (const auto& [name, t] : tables_) {
    if (t.def.append_only) append_only.insert(name);
  }
  SLUICE_ASSIGN_OR_RETURN(QueryRuntime qr,
                          StartQuery(q, workers_, &errors, hosts_, std::move(append_only), clock));
  QueryRuntime* rt = &qr;
  std::vector<BatchPtr> outputs;
  auto step = [&]() -> Status {
    SLUICE_RETURN_IF_ERROR(rt->Step());
    SLUICE_ASSIGN_OR_RETURN(BatchPtr o, rt->Output("query"));
    outputs.push_back(o);
    return Status::OK();
  };
  // The statements' changes, in their order, spread over a few steps; an
  // empty first step comes before any data. Intermediate states may raise
  // evaluation errors that the final state does not have.
  const size_t kSteps = 4;
  SLUICE_RETURN_IF_ERROR(step());
  for (size_t s = 0; s < kSteps; ++s) {
    for (const std::string& name : qr.scanned) {
      const auto& h = Find(name)->history;
      size_t from = h.size() * s / kSteps, to = h.size() * (s + 1) / kSteps;
      for (size_t i = from; i < to; ++i) SLUICE_RETURN_IF_ERROR(rt->Push(name, h[i]));
    }
    SLUICE_RETURN_IF_ERROR(step());
  }
  SLUICE_ASSIGN_OR_RETURN(BatchPtr integral, MergeBatches(outputs, {}));
  return RowsOf(q, *integral);
}

Result<BoundQuery> SqlSession::Bind(const std::string& sql) const {
  CastSettingsScope settings(settings_);
  TransactionTimeScope transaction_time(transaction_time_);
  SLUICE_ASSIGN_OR_RETURN(Json tree, ParseSql(sql));
  if (tree["stmts"].size() != 1 || !tree["stmts"][0]["stmt"].contains("SelectStmt")) {
    return Status::InvalidArgument("a query must be one SELECT");
  }
  return BindSelect(catalog_, sql, tree["stmts"][0]["stmt"]["SelectStmt"]);
}

Status SqlSession::SetContents(const std::string& table,
                               const std::vector<std::vector<std::optional<std::string>>>& rows) {
  TableData* t = Find(table);
  if (t == nullptr) return Status::NotFound("relation \"" + table + "\" does not exist");
  const auto& cols = t->def.columns;
  Schema schema;
  for (const Column& c : cols) schema.push_back(c.type);
  std::map<std::string, Weight> want;
  for (const auto& texts : rows) {
    if (texts.size() != cols.size()) {
      return Status::InvalidArgument("a row of " + std::to_string(texts.size()) +
                                     " values for the " + std::to_string(cols.size()) +
                                     " columns of \"" + table + "\"");
    }
    Row row(cols.size());
    for (size_t i = 0; i < cols.size(); ++i) {
      if (!texts[i]) continue;
      Status s = CastValue(Value::String(*texts[i]), SqlType::Varchar(), cols[i].type, &row[i]);
      if (!s.ok()) {
        return Status::InvalidArgument("column \"" + cols[i].name + "\" of \"" + table +
                                       "\": " + s.message());
      }
    }
    std::string enc;
    SLUICE_RETURN_IF_ERROR(EncodeRow(schema, row, &enc));
    ++want[enc];
  }
  std::vector<std::pair<std::string, Weight>> changes;
  for (const auto& [row, w] : t->rows) {
    auto it = want.find(row);
    Weight d = (it == want.end() ? 0 : it->second) - w;
    if (d != 0) changes.emplace_back(row, d);
  }
  for (const auto& [row, w] : want) {
    if (!t->rows.count(row)) changes.emplace_back(row, w);
  }
  // Deletes first, so that a replaced primary key is free again.
  std::stable_partition(changes.begin(), changes.end(), [](const auto& c) { return c.second < 0; });
  return Apply(*t, changes);
}

}  // namespace sluice::sql
