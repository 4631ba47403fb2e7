#include "sql/slt.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "base/md5.h"
#include "dataflow/operators/input.h"
#include "dataflow/operators/output.h"
#include "runtime/runtime.h"
#include "sql/binder.h"
#include "sql/lower.h"
#include "sql/program.h"
#include "sql/query.h"
#include "types/row_codec.h"
#include "zset/batch_builder.h"
#include "zset/cursor.h"
#include "zset/merge.h"

namespace sluice::sql {
namespace {

// ---------------------------------------------------------------- records

struct Record {
  enum Kind { kStatement, kQuery, kHashThreshold, kHalt, kOther } kind = kOther;
  int line = 0;
  bool expect_error = false;     // statement error
  std::string types, sort_mode;  // query
  std::string sql;
  std::vector<std::string> expected;
  bool skip = false;  // skipif/onlyif says not for postgresql
  int64_t threshold = 0;
};

std::vector<Record> ParseRecords(std::istream& in) {
  std::vector<Record> out;
  std::vector<std::pair<int, std::string>> block;
  std::string line;
  int lineno = 0;
  auto flush = [&]() {
    if (block.empty()) return;
    Record r;
    size_t i = 0;
    for (; i < block.size(); ++i) {
      std::istringstream words(block[i].second);
      std::string w, db;
      words >> w >> db;
      if (w == "skipif") {
        r.skip |= db == "postgresql";
      } else if (w == "onlyif") {
        r.skip |= db != "postgresql";
      } else {
        break;
      }
    }
    if (i == block.size()) {
      block.clear();
      return;
    }
    r.line = block[i].first;
    std::istringstream head(block[i].second);
    std::string w;
    head >> w;
    if (w == "statement") {
      r.kind = Record::kStatement;
      std::string what;
      head >> what;
      r.expect_error = what == "error";
    } else if (w == "query") {
      r.kind = Record::kQuery;
      head >> r.types >> r.sort_mode;
      if (r.sort_mode.empty() || r.sort_mode.rfind("label-", 0) == 0) r.sort_mode = "nosort";
    } else if (w == "hash-threshold") {
      r.kind = Record::kHashThreshold;
      head >> r.threshold;
    } else if (w == "halt") {
      r.kind = Record::kHalt;
    }
    bool results = false;
    for (++i; i < block.size(); ++i) {
      const std::string& l = block[i].second;
      if (!results && r.kind == Record::kQuery && l == "----") {
        results = true;
        continue;
      }
      if (results) {
        r.expected.push_back(l);
      } else {
        r.sql += (r.sql.empty() ? "" : "\n") + l;
      }
    }
    out.push_back(std::move(r));
    block.clear();
  };
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty() && line[0] == '#') continue;
    if (line.empty()) {
      flush();
      continue;
    }
    block.emplace_back(lineno, line);
  }
  flush();
  return out;
}

// ---------------------------------------------------------------- tables

struct TableData {
  TableDef def;
  std::map<std::string, Weight> rows;         // current contents
  std::map<std::string, std::string> by_key;  // primary key -> row
  std::vector<BatchPtr> history;              // every change, in order
};

std::string RenderValue(const Value& v, const SqlType& type, char letter) {
  if (v.is_null()) return "NULL";
  switch (letter) {
    case 'I': {
      switch (v.kind()) {
        case Value::Kind::kInt:
          return std::to_string(v.int_value());
        case Value::Kind::kBool:
          return v.bool_value() ? "1" : "0";
        case Value::Kind::kDouble:
          return std::to_string(static_cast<int64_t>(std::trunc(v.double_value())));
        case Value::Kind::kDecimal: {
          int128 u = v.decimal_unscaled();
          for (int i = 0; i < v.decimal_scale(); ++i) u /= 10;
          return DecimalToString(u, 0);
        }
        case Value::Kind::kString:
          return std::to_string(std::atoll(v.string_value().c_str()));
        default:
          return ValueToText(v, type);
      }
    }
    case 'R': {
      double d = 0;
      if (v.kind() == Value::Kind::kInt) d = static_cast<double>(v.int_value());
      if (v.kind() == Value::Kind::kDouble) d = v.double_value();
      if (v.kind() == Value::Kind::kDecimal) {
        Value out;
        if (CastValue(v, type, SqlType::Double(), &out).ok()) d = out.double_value();
      }
      if (v.kind() == Value::Kind::kString) d = std::atof(v.string_value().c_str());
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.3f", d);
      return buf;
    }
    default: {
      std::string s = ValueToText(v, type);
      if (s.empty()) return "(empty)";
      for (char& c : s) {
        if (c < ' ' || c > '~') c = '@';
      }
      return s;
    }
  }
}

class Runner {
 public:
  Runner(const SltOptions& options, FILE* out) : options_(options), out_(out) {}
  SltCounts Run(const std::string& path);

 private:
  Status Statement(const std::string& sql);
  Status CreateTable(const std::string& sql, const Json& body);
  Status Insert(const std::string& sql, const Json& body);
  Status Delete(const std::string& sql, const Json& body);
  Status Update(const std::string& sql, const Json& body);
  Status Apply(TableData& t, const std::vector<std::pair<std::string, Weight>>& changes);
  // Runs `q` as a view: over the data already there, or with the data
  // arriving as it was changed. Returns the view's rows.
  Result<std::vector<Row>> Evaluate(const BoundQuery& q, bool incremental);
  Result<std::vector<std::string>> Query(const Record& r, std::string* why);
  TableData* Find(const std::string& name);

  SltOptions options_;
  FILE* out_;
  Catalog catalog_;
  std::map<std::string, TableData> tables_;
  int64_t threshold_ = 0;
};

TableData* Runner::Find(const std::string& name) {
  auto it = tables_.find(name);
  return it == tables_.end() ? nullptr : &it->second;
}

Status Runner::CreateTable(const std::string& sql, const Json& body) {
  SLUICE_ASSIGN_OR_RETURN(TableDef t, BindCreateTable(sql, body));
  SLUICE_RETURN_IF_ERROR(catalog_.AddTable(t));
  TableData data;
  data.def = t;
  tables_[t.name] = std::move(data);
  return Status::OK();
}

Status Runner::Apply(TableData& t, const std::vector<std::pair<std::string, Weight>>& changes) {
  BatchBuilder b;
  Schema schema;
  for (const Column& c : t.def.columns) schema.push_back(c.type);
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

Status Runner::Insert(const std::string& sql, const Json& body) {
  std::string name = body["relation"]["relname"];
  TableData* t = Find(name);
  if (!t) return SqlError(sql, body["relation"], "relation \"" + name + "\" does not exist");
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
  const Json& sel = body["selectStmt"]["SelectStmt"];
  std::vector<Row> rows;
  if (sel.contains("valuesLists")) {
    for (const Json& list : sel["valuesLists"]) {
      const Json& items = list["List"]["items"];
      if (items.size() != target.size()) {
        return SqlError(sql, list,
                        "INSERT has " +
                            std::string(items.size() > target.size() ? "more" : "fewer") +
                            " expressions than target columns");
      }
      Row row(cols.size());
      for (size_t i = 0; i < items.size(); ++i) {
        const SqlType& ty = cols[static_cast<size_t>(target[i])].type;
        SLUICE_ASSIGN_OR_RETURN(row[static_cast<size_t>(target[i])],
                                EvalConstant(catalog_, sql, items[i], ty));
      }
      rows.push_back(std::move(row));
    }
  } else {
    SLUICE_ASSIGN_OR_RETURN(BoundQuery q, BindSelect(catalog_, sql, sel));
    if (q.visible != target.size())
      return SqlError(sql, sel, "INSERT has a different number of expressions than target columns");
    SLUICE_ASSIGN_OR_RETURN(std::vector<Row> got, Evaluate(q, false));
    for (const Row& g : got) {
      Row row(cols.size());
      for (size_t i = 0; i < target.size(); ++i) {
        SLUICE_RETURN_IF_ERROR(CastValue(g[i], q.plan->columns[i].type,
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

Status Runner::Delete(const std::string& sql, const Json& body) {
  std::string name = body["relation"]["relname"];
  TableData* t = Find(name);
  if (!t) return SqlError(sql, body["relation"], "relation \"" + name + "\" does not exist");
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

Status Runner::Update(const std::string& sql, const Json& body) {
  std::string name = body["relation"]["relname"];
  TableData* t = Find(name);
  if (!t) return SqlError(sql, body["relation"], "relation \"" + name + "\" does not exist");
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
    SLUICE_ASSIGN_OR_RETURN(ExprPtr e, BindOverColumns(catalog_, sql, cols, name, rt["val"]));
    sets.emplace_back(static_cast<int>(it - cols.begin()), e);
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
      SLUICE_RETURN_IF_ERROR(CastValue(v, e->type, cols[static_cast<size_t>(col)].type,
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

Status Runner::Statement(const std::string& sql) {
  SLUICE_ASSIGN_OR_RETURN(Json tree, ParseSql(sql));
  for (const Json& st : tree["stmts"]) {
    const Json& stmt = st["stmt"];
    std::string kind = stmt.begin().key();
    const Json& body = stmt.begin().value();
    if (kind == "CreateStmt") {
      SLUICE_RETURN_IF_ERROR(CreateTable(sql, body));
    } else if (kind == "InsertStmt") {
      SLUICE_RETURN_IF_ERROR(Insert(sql, body));
    } else if (kind == "DeleteStmt") {
      SLUICE_RETURN_IF_ERROR(Delete(sql, body));
    } else if (kind == "UpdateStmt") {
      SLUICE_RETURN_IF_ERROR(Update(sql, body));
    } else if (IsCreateView(kind, body)) {
      SLUICE_ASSIGN_OR_RETURN(ViewDef v, BindCreateView(catalog_, sql, kind, body));
      SLUICE_RETURN_IF_ERROR(catalog_.AddView(std::move(v)));
    } else if (kind == "IndexStmt") {
      SLUICE_RETURN_IF_ERROR(catalog_.AddIndex(BindCreateIndex(body)));
    } else if (kind == "DropStmt") {
      std::string type = body.value("removeType", "");
      bool missing_ok = body.value("missing_ok", false);
      for (const Json& obj : body["objects"]) {
        std::string name = obj["List"]["items"].back()["String"].value("sval", "");
        Status s;
        if (type == "OBJECT_TABLE") {
          s = catalog_.DropTable(name);
          if (s.ok()) tables_.erase(name);
        } else if (type == "OBJECT_VIEW") {
          s = catalog_.DropView(name);
        } else if (type == "OBJECT_INDEX") {
          s = catalog_.DropIndex(name);
        } else {
          return SqlUnsupported(sql, body, "DROP of this kind of object");
        }
        if (!s.ok() && !missing_ok) return s;
      }
    } else {
      return Status::Unimplemented(kind + " is not supported yet");
    }
  }
  return Status::OK();
}

Result<std::vector<Row>> Runner::Evaluate(const BoundQuery& q, bool incremental) {
  if (!incremental) {
    // Over the data already there, an evaluation error is what PostgreSQL
    // would have failed the query with.
    return EvaluateOnce(q, [&](const std::string& name) -> Result<std::vector<BatchPtr>> {
      TableData* t = Find(name);
      BatchBuilder b;
      for (const auto& [row, w] : t->rows) b.Push(row, w);
      SLUICE_ASSIGN_OR_RETURN(MemBatchPtr all, b.Finish());
      return std::vector<BatchPtr>{all};
    });
  }
  EvalErrors errors;
  SLUICE_ASSIGN_OR_RETURN(QueryRuntime qr,
                          StartQuery(q, options_.workers, &errors, options_.hosts));
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

Result<std::vector<std::string>> Runner::Query(const Record& r, std::string* why) {
  SLUICE_ASSIGN_OR_RETURN(Json tree, ParseSql(r.sql));
  if (tree["stmts"].size() != 1 || !tree["stmts"][0]["stmt"].contains("SelectStmt")) {
    return Status::InvalidArgument("a query record must hold one SELECT");
  }
  SLUICE_ASSIGN_OR_RETURN(BoundQuery q,
                          BindSelect(catalog_, r.sql, tree["stmts"][0]["stmt"]["SelectStmt"]));
  if (q.visible != r.types.size()) {
    return Status::InvalidArgument("the query has " + std::to_string(q.visible) +
                                   " columns, the record says " + std::to_string(r.types.size()));
  }
  std::vector<std::string> first;
  for (bool incremental : {false, true}) {
    SLUICE_ASSIGN_OR_RETURN(std::vector<Row> rows, Evaluate(q, incremental));
    SortForPresentation(q, &rows);
    std::vector<std::vector<std::string>> table;
    for (const Row& row : rows) {
      std::vector<std::string> cells;
      for (size_t i = 0; i < q.visible; ++i) {
        cells.push_back(RenderValue(row[i], q.plan->columns[i].type, r.types[i]));
      }
      table.push_back(std::move(cells));
    }
    if (r.sort_mode == "rowsort") std::sort(table.begin(), table.end());
    std::vector<std::string> values;
    for (auto& cells : table) {
      for (auto& v : cells) values.push_back(std::move(v));
    }
    if (r.sort_mode == "valuesort") std::sort(values.begin(), values.end());
    if (!incremental) {
      first = values;
    } else if (values != first) {
      *why = "the incremental run differs from the bulk run";
      return values;
    }
  }
  return first;
}

SltCounts Runner::Run(const std::string& path) {
  SltCounts counts;
  std::ifstream in(path);
  if (!in) {
    std::fprintf(out_, "%s: cannot open\n", path.c_str());
    counts.failed = 1;
    return counts;
  }
  std::vector<Record> records = ParseRecords(in);
  int shown = 0;
  auto fail = [&](const Record& r, const std::string& what) {
    ++counts.failed;
    if (shown++ < options_.max_failures_shown || options_.verbose) {
      std::fprintf(out_, "  %s:%d: %s\n    %s\n", path.c_str(), r.line, what.c_str(),
                   r.sql.c_str());
    }
  };
  for (const Record& r : records) {
    if (r.kind == Record::kHalt && !r.skip) break;
    if (r.kind == Record::kHashThreshold) {
      threshold_ = r.threshold;
      continue;
    }
    if (r.kind != Record::kStatement && r.kind != Record::kQuery) continue;
    if (r.skip) {
      ++counts.skipped;
      continue;
    }
    if (r.kind == Record::kStatement) {
      Status s = Statement(r.sql);
      if (s.ok() == !r.expect_error) {
        ++counts.passed;
      } else {
        fail(r, s.ok() ? "statement succeeded, expected an error" : s.ToString());
      }
      continue;
    }
    std::string why;
    auto got = Query(r, &why);
    if (!got.ok()) {
      fail(r, got.status().ToString());
      continue;
    }
    if (!why.empty()) {
      fail(r, why);
      continue;
    }
    bool ok;
    std::string detail;
    static const std::string kHashing = " values hashing to ";
    if (r.expected.size() == 1 && r.expected[0].find(kHashing) != std::string::npos) {
      size_t p = r.expected[0].find(kHashing);
      int64_t n = std::atoll(r.expected[0].substr(0, p).c_str());
      std::string want = r.expected[0].substr(p + kHashing.size());
      Md5 md5;
      for (const std::string& v : *got) {
        md5.Update(v);
        md5.Update("\n");
      }
      std::string have = md5.HexDigest();
      ok = n == static_cast<int64_t>(got->size()) && have == want;
      detail =
          "expected " + r.expected[0] + ", got " + std::to_string(got->size()) + kHashing + have;
    } else {
      ok = *got == r.expected;
      detail = "expected " + std::to_string(r.expected.size()) + " values, got " +
               std::to_string(got->size());
      for (size_t i = 0; i < std::min<size_t>(got->size(), 8); ++i)
        detail += (i ? " " : ": ") + (*got)[i];
    }
    if (ok) {
      ++counts.passed;
    } else {
      fail(r, detail);
    }
  }
  std::fprintf(out_, "%s: %lld passed, %lld failed, %lld skipped\n", path.c_str(),
               static_cast<long long>(counts.passed), static_cast<long long>(counts.failed),
               static_cast<long long>(counts.skipped));
  return counts;
}

}  // namespace

SltCounts RunSltFile(const std::string& path, const SltOptions& options, FILE* out) {
  Runner runner(options, out);
  return runner.Run(path);
}

SltCounts RunSlt(const std::vector<std::string>& paths, const SltOptions& options, FILE* out) {
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    if (std::filesystem::is_directory(p)) {
      for (const auto& e : std::filesystem::recursive_directory_iterator(p)) {
        if (e.is_regular_file() && e.path().extension() == ".test")
          files.push_back(e.path().string());
      }
    } else {
      files.push_back(p);
    }
  }
  std::sort(files.begin(), files.end());
  SltCounts total;
  for (const std::string& f : files) {
    SltCounts c = RunSltFile(f, options, out);
    total.passed += c.passed;
    total.failed += c.failed;
    total.skipped += c.skipped;
    std::fflush(out);
  }
  std::fprintf(out, "%lld passed, %lld failed, %lld skipped\n",
               static_cast<long long>(total.passed), static_cast<long long>(total.failed),
               static_cast<long long>(total.skipped));
  return total;
}

}  // namespace sluice::sql
