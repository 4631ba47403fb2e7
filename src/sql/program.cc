#include "sql/program.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/hash.h"
#include "dataflow/operators/clamp.h"
#include "dataflow/operators/exchange.h"
#include "dataflow/operators/filter.h"
#include "dataflow/operators/input.h"
#include "dataflow/operators/map.h"
#include "dataflow/operators/output.h"
#include "dataflow/operators/upsert.h"
#include "sql/binder.h"
#include "sql/deparse.h"
#include "sql/functions.h"
#include "sql/lateness.h"
#include "sql/parser.h"
#include "sql/query.h"
#include "sql/sequences.h"
#include "types/row_codec.h"

namespace sluice::sql {
namespace {

// WITH (connectors = '...', materialized = true) on a table or view,
// append_only = true on a table (`append_only` is null for a view), and the
// limits of its recursive queries on a view (`recursion` is null for a table).
Status ReadOptions(std::string_view sql, const Json& options, bool* materialized,
                   std::string* connectors, bool* append_only, RecursionLimits* recursion) {
  for (const Json& o : options) {
    const Json& def = o["DefElem"];
    std::string name = def.value("defname", "");
    const Json& arg = def.contains("arg") ? def["arg"] : Json();
    int64_t* limit = recursion == nullptr                 ? nullptr
                     : name == "max_recursion_iterations" ? &recursion->iterations
                     : name == "max_recursion_rows"       ? &recursion->rows
                     : name == "max_recursion_mb"         ? &recursion->mb
                                                          : nullptr;
    if (limit != nullptr) {
      // An integer, or a string of one ('1000', as Feldera's quoted form).
      int64_t v = 0;
      bool ok = false;
      if (arg.contains("Integer")) {
        v = arg["Integer"].value("ival", int64_t{0});
        ok = true;
      } else if (arg.contains("String") || arg.contains("Float")) {
        // A quoted value, or an integer past 32 bits (the parser's Float).
        const std::string text = arg.contains("String") ? arg["String"].value("sval", "")
                                                        : arg["Float"].value("fval", "");
        char* end = nullptr;
        errno = 0;
        v = std::strtoll(text.c_str(), &end, 10);
        ok = !text.empty() && *end == '\0' && errno == 0;
      }
      if (!ok || v <= 0) return SqlError(sql, o, name + " must be a positive integer");
      *limit = v;
    } else if (name == "connectors") {
      if (!arg.contains("String")) return SqlError(sql, o, "connectors must be a string of JSON");
      *connectors = arg["String"].value("sval", "");
      if (Json::parse(*connectors, nullptr, false).is_discarded()) {
        return SqlError(sql, o, "connectors is not valid JSON");
      }
    } else if (name == "materialized" || (name == "append_only" && append_only != nullptr)) {
      std::string v = arg.contains("String") ? arg["String"].value("sval", "")
                      : arg.contains("Boolean")
                          ? (arg["Boolean"].value("boolval", false) ? "true" : "false")
                          : "true";
      if (v != "true" && v != "false") return SqlError(sql, o, name + " must be true or false");
      *(name == "materialized" ? materialized : append_only) = v == "true";
    } else if (name == "emit_final" || name == "lateness") {
      return SqlUnsupported(sql, o, "The option " + name + " (of Feldera's time-series SQL)");
    } else {
      return SqlError(
          sql, o,
          "unknown option \"" + name + "\" (expected connectors, materialized" +
              (append_only != nullptr ? " or append_only)"
                                      : ", max_recursion_iterations, max_recursion_rows or "
                                        "max_recursion_mb)"));
    }
  }
  return Status::OK();
}

// `j` without the parser's locations (which move when unrelated text does).
Json WithoutLocations(const Json& j) {
  if (j.is_object()) {
    Json out = Json::object();
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key() != "location" && it.key() != "stmt_location" && it.key() != "stmt_len") {
        out[it.key()] = WithoutLocations(*it);
      }
    }
    return out;
  }
  if (j.is_array()) {
    Json out = Json::array();
    for (const Json& e : j) out.push_back(WithoutLocations(e));
    return out;
  }
  return j;
}

uint64_t DefinitionHash(const Json& j) { return Hash64(WithoutLocations(j).dump()); }

// The names of the catalog's relations that `j` (a query's tree) reads.
void CollectInputs(const Catalog& catalog, const Json& j, std::vector<std::string>* out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key() == "RangeVar" && it->contains("relname")) {
        const std::string name = (*it)["relname"];
        if ((catalog.FindTable(name) != nullptr || catalog.FindView(name) != nullptr) &&
            std::find(out->begin(), out->end(), name) == out->end()) {
          out->push_back(name);
        }
      }
      CollectInputs(catalog, *it, out);
    }
  } else if (j.is_array()) {
    for (const Json& e : j) CollectInputs(catalog, e, out);
  }
}

}  // namespace

namespace {

// A column's DEFAULT: a constant, evaluated once, in the column's type.
Result<Value> BindDefault(std::string_view sql, const std::string& column, const Json& expr,
                          const SqlType& type) {
  // What changes from row to row or with time is not a constant.
  std::function<const Json*(const Json&)> varying = [&](const Json& n) -> const Json* {
    if (n.is_object()) {
      if (n.contains("ColumnRef") || n.contains("SQLValueFunction") || n.contains("SubLink"))
        return &n;
      if (n.contains("FuncCall")) {
        static const std::set<std::string> kVolatile = {
            "now",          "random",           "clock_timestamp", "statement_timestamp",
            "timeofday",    "nextval",          "gen_random_uuid", "transaction_timestamp",
            "current_date", "current_timestamp"};
        const std::string f = n["FuncCall"]["funcname"].back()["String"].value("sval", "");
        if (kVolatile.count(f)) return &n;
      }
      for (auto it = n.begin(); it != n.end(); ++it) {
        if (const Json* v = varying(it.value())) return v;
      }
    } else if (n.is_array()) {
      for (const Json& x : n) {
        if (const Json* v = varying(x)) return v;
      }
    }
    return nullptr;
  };
  if (const Json* v = varying(expr)) {
    if (v->contains("ColumnRef"))
      return SqlError(sql, *v, "cannot use column reference in DEFAULT expression");
    return SqlUnsupported(sql, *v, "a DEFAULT that is not a constant (column \"" + column + "\")",
                          "Give the column a constant DEFAULT, or send its value with each row");
  }
  Catalog none;
  return EvalConstant(none, sql, expr, type);
}

}  // namespace

Result<std::optional<SequenceDef>> CreatedSequence(std::string_view sql, const Json& body,
                                                   const Catalog& catalog) {
  SLUICE_ASSIGN_OR_RETURN(SequenceDef def, BindCreateSequence(sql, body));
  if (body.value("if_not_exists", false) &&
      (catalog.FindSequence(def.name) != nullptr || catalog.FindTable(def.name) != nullptr ||
       catalog.FindView(def.name) != nullptr)) {
    return std::optional<SequenceDef>();
  }
  return std::optional<SequenceDef>(std::move(def));
}

Result<std::optional<SequenceDef>> AlteredSequence(std::string_view sql, const Json& body,
                                                   const Catalog& catalog,
                                                   std::optional<int64_t>* restart,
                                                   std::optional<int64_t> last_value) {
  const std::string name = body["sequence"].value("relname", "");
  const SequenceDef* was = catalog.FindSequence(name);
  if (was == nullptr) {
    if (body.value("missing_ok", false)) return std::optional<SequenceDef>();
    return SqlError(sql, body["sequence"], "relation \"" + name + "\" does not exist");
  }
  SequenceDef def = *was;
  SLUICE_RETURN_IF_ERROR(ReadSequenceOptions(sql, body.value("options", Json::array()),
                                             /*create=*/false, &def, restart, last_value));
  return std::optional<SequenceDef>(std::move(def));
}

Status AddSequenceStatement(std::string_view sql, const std::string& kind, const Json& body,
                            Catalog* catalog) {
  if (kind == "CreateSeqStmt") {
    SLUICE_ASSIGN_OR_RETURN(std::optional<SequenceDef> def, CreatedSequence(sql, body, *catalog));
    if (!def) return Status::OK();
    Status s = catalog->AddSequence(std::move(*def));
    if (!s.ok()) return SqlError(sql, body["sequence"], s.message());
    return Status::OK();
  }
  std::optional<int64_t> restart;
  SLUICE_ASSIGN_OR_RETURN(std::optional<SequenceDef> def,
                          AlteredSequence(sql, body, *catalog, &restart));
  if (!def) return Status::OK();
  if (restart) {
    // A program runs again at every start: it would restart each time.
    return SqlUnsupported(sql, body, "ALTER SEQUENCE ... RESTART in a program",
                          "Restart it with setval() in an ad hoc query");
  }
  return catalog->ReplaceSequence(std::move(*def));
}

bool IsCreateType(const std::string& kind) {
  return kind == "CompositeTypeStmt" || kind == "CreateEnumStmt" || kind == "CreateRangeStmt" ||
         kind == "CreateDomainStmt";
}

Status AddCreateType(std::string_view sql, const std::string& kind, const Json& body,
                     Catalog* catalog) {
  if (kind != "CompositeTypeStmt") {
    const char* what = kind == "CreateEnumStmt"    ? "CREATE TYPE ... AS ENUM"
                       : kind == "CreateRangeStmt" ? "CREATE TYPE ... AS RANGE"
                                                   : "CREATE DOMAIN";
    // Remembered, so that naming the type says why it is not there.
    const Json& names =
        body.value(kind == "CreateDomainStmt" ? "domainname" : "typeName", Json::array());
    if (!names.empty()) {
      catalog->AddRefusedType(names.back()["String"].value("sval", ""),
                              kind == "CreateEnumStmt"    ? "the enum type"
                              : kind == "CreateRangeStmt" ? "the range type"
                                                          : "the domain");
    }
    return SqlUnsupported(sql, body, what);
  }
  const Json& rel = body["typevar"];
  const std::string name = rel.value("relname", "");
  std::vector<std::string> names;
  std::vector<SqlType> fields;
  static const Json kNone = Json::array();
  for (const Json& elt : body.contains("coldeflist") ? body["coldeflist"] : kNone) {
    if (!elt.contains("ColumnDef")) continue;
    const Json& cd = elt["ColumnDef"];
    const std::string field = cd.value("colname", "");
    auto t = BindTypeName(sql, cd["typeName"], catalog);
    if (!t.ok() && t.status().code() == StatusCode::kUnimplemented) {
      // A field of a type not supported yet: so is this type, and a use of
      // it says so.
      catalog->AddRefusedType(name, "the type of field " + field + " of the composite type");
    }
    if (!t.ok()) return t.status();
    if (std::find(names.begin(), names.end(), field) != names.end())
      return SqlError(sql, elt, "column \"" + field + "\" specified more than once");
    names.push_back(field);
    fields.push_back(t->WithNullable(true));
  }
  Status s = catalog->AddType(name, SqlType::Row(std::move(names), std::move(fields)));
  if (!s.ok()) return SqlError(sql, rel, s.message());
  return Status::OK();
}

namespace {

// Binds a table's CHECK constraints (Constraint nodes, in the order they
// are written) over its columns, naming those without a name as
// PostgreSQL does: table_column_check when the expression reads one
// column, table_check otherwise, with a number added to a name taken.
Status BindChecks(std::string_view sql, const std::vector<Json>& nodes, const Catalog* catalog,
                  TableDef* t) {
  const Catalog empty;
  for (const Json& c : nodes) {
    if (!c.contains("raw_expr")) continue;
    SLUICE_ASSIGN_OR_RETURN(ExprPtr e, BindOverColumns(catalog != nullptr ? *catalog : empty, sql,
                                                       t->columns, t->name, c["raw_expr"]));
    if (e->type.id() != TypeId::kBoolean) {
      return SqlError(sql, c["raw_expr"],
                      "argument of CHECK must be type boolean, not type " + PgTypeName(e->type));
    }
    if (ContainsDraw(*e) || ContainsVolatile(*e)) {
      return SqlUnsupported(sql, c["raw_expr"], "a volatile function in a CHECK constraint");
    }
    auto taken = [&](const std::string& n) {
      return std::any_of(t->checks.begin(), t->checks.end(),
                         [&](const CheckConstraint& k) { return k.name == n; });
    };
    std::string name = c.value("conname", "");
    if (name.empty()) {
      std::set<int> read;
      std::function<void(const Expr&)> walk = [&](const Expr& x) {
        if (x.kind == ExprKind::kColumn) read.insert(x.column);
        for (const ExprPtr& a : x.args) walk(*a);
      };
      walk(*e);
      const std::string base =
          t->name + "_" +
          (read.size() == 1 ? t->columns[static_cast<size_t>(*read.begin())].name + "_" : "") +
          "check";
      name = base;
      for (int i = 1; taken(name); ++i) name = base + std::to_string(i);
    } else if (taken(name)) {
      return SqlError(
          sql, c, "constraint \"" + name + "\" for relation \"" + t->name + "\" already exists");
    }
    t->checks.push_back({std::move(name), std::move(e)});
  }
  return Status::OK();
}

}  // namespace

Result<TableDef> BindCreateTable(std::string_view sql, const Json& body, const Catalog* catalog) {
  TableDef t;
  t.name = body["relation"]["relname"];
  std::vector<Json> checks;  // CHECK constraints, bound once all columns are known
  for (const Json& elt : body.value("tableElts", Json::array())) {
    if (elt.contains("ColumnDef")) {
      const Json& cd = elt["ColumnDef"];
      const std::string name = cd["colname"];
      // SERIAL, BIGSERIAL and SMALLSERIAL: an integer column whose default
      // is the next value of a sequence of its own.
      const Json& type_names = cd["typeName"].value("names", Json::array());
      const std::string type_word =
          type_names.size() == 1 ? type_names[0]["String"].value("sval", "") : "";
      std::optional<SqlType> serial;
      if (type_word == "serial" || type_word == "serial4") serial = SqlType::Integer(false);
      if (type_word == "bigserial" || type_word == "serial8") serial = SqlType::BigInt(false);
      if (type_word == "smallserial" || type_word == "serial2") serial = SqlType::SmallInt(false);
      SqlType type;
      if (serial && !cd["typeName"].contains("arrayBounds")) {
        type = *serial;
      } else {
        SLUICE_ASSIGN_OR_RETURN(type, BindTypeName(sql, cd["typeName"], catalog));
      }
      const Json* default_expr = nullptr;
      const Json* identity = nullptr;
      static const Json kNone = Json::array();
      for (const Json& c : cd.contains("constraints") ? cd["constraints"] : kNone) {
        std::string ct = c["Constraint"].value("contype", "");
        if (ct == "CONSTR_CHECK") checks.push_back(c["Constraint"]);
        if (ct == "CONSTR_NOTNULL") type = type.WithNullable(false);
        if (ct == "CONSTR_PRIMARY") {
          type = type.WithNullable(false);
          t.primary_key.push_back(static_cast<int>(t.columns.size()));
        }
        if (ct == "CONSTR_DEFAULT" && c["Constraint"].contains("raw_expr")) {
          if (serial || identity != nullptr) {
            return SqlError(
                sql, c,
                std::string(serial ? "multiple default values" : "both default and identity") +
                    " specified for column \"" + name + "\" of table \"" + t.name + "\"");
          }
          default_expr = &c["Constraint"]["raw_expr"];
        }
        if (ct == "CONSTR_IDENTITY") {
          if (default_expr != nullptr || serial) {
            return SqlError(
                sql, c,
                std::string(serial ? "multiple default values" : "both default and identity") +
                    " specified for column \"" + name + "\" of table \"" + t.name + "\"");
          }
          identity = &c["Constraint"];
        }
      }
      std::string sequence;
      if (serial || identity != nullptr) {
        if (!type.IsInteger() || type.id() == TypeId::kTinyInt) {
          return SqlError(sql, *identity,
                          "identity column type must be smallint, integer, or bigint");
        }
        type = type.WithNullable(false);
        SequenceDef def = ColumnSequence(t.name, name, type);
        if (identity != nullptr) {
          SLUICE_RETURN_IF_ERROR(ReadSequenceOptions(sql, identity->value("options", Json::array()),
                                                     /*create=*/true, &def));
          (identity->value("generated_when", "") == "a" ? t.identity_always : t.identity_by_default)
              .push_back(static_cast<int>(t.columns.size()));
        }
        sequence = def.name;
        t.column_sequences.push_back(std::move(def));
      } else if (default_expr != nullptr && !DefaultSequence(*default_expr).empty()) {
        // DEFAULT nextval('s'): the next value of a sequence declared before.
        sequence = DefaultSequence(*default_expr);
        if (catalog != nullptr && catalog->FindSequence(sequence) == nullptr) {
          return SqlError(sql, *default_expr, "relation \"" + sequence + "\" does not exist");
        }
        if (!type.IsInteger() && !IsNumeric(type)) {
          return SqlError(sql, *default_expr,
                          "column \"" + name + "\" is of type " + PgTypeName(type) +
                              " but default expression is of type bigint");
        }
        default_expr = nullptr;
      }
      if (!sequence.empty()) {
        t.default_sequences.resize(t.columns.size());
        t.default_sequences.push_back(sequence);
      }
      if (default_expr != nullptr) {
        SLUICE_ASSIGN_OR_RETURN(Value v, BindDefault(sql, name, *default_expr, type));
        t.defaults.resize(t.columns.size(), Value::Null());
        t.defaults.push_back(std::move(v));
      }
      t.columns.push_back({name, type});
    } else if (elt.contains("Constraint")) {
      const Json& c = elt["Constraint"];
      if (c.value("contype", "") == "CONSTR_CHECK") checks.push_back(c);
      if (c.value("contype", "") != "CONSTR_PRIMARY") continue;
      for (const Json& k : c.value("keys", Json::array())) {
        std::string name = k["String"]["sval"];
        bool found = false;
        for (size_t i = 0; i < t.columns.size(); ++i) {
          if (t.columns[i].name == name) {
            t.primary_key.push_back(static_cast<int>(i));
            t.columns[i].type = t.columns[i].type.WithNullable(false);
            found = true;
          }
        }
        if (!found) {
          return SqlError(sql, elt, "column \"" + name + "\" named in key does not exist");
        }
      }
    }
  }
  SLUICE_RETURN_IF_ERROR(BindChecks(sql, checks, catalog, &t));
  if (!t.defaults.empty()) t.defaults.resize(t.columns.size(), Value::Null());
  if (!t.default_sequences.empty()) t.default_sequences.resize(t.columns.size());
  SLUICE_RETURN_IF_ERROR(ReadOptions(sql, body.value("options", Json::array()), &t.materialized,
                                     &t.connectors, &t.append_only, nullptr));
  if (t.append_only && !t.primary_key.empty()) {
    return SqlError(sql, body,
                    "table " + t.name +
                        " has a primary key, so it takes updates and deletes: it cannot be "
                        "append_only");
  }
  return t;
}

bool IsCreateView(const std::string& kind, const Json& body) {
  return kind == "ViewStmt" ||
         (kind == "CreateTableAsStmt" && body.value("objtype", "") == "OBJECT_MATVIEW");
}

const Json& ViewRelation(const std::string& kind, const Json& body) {
  return kind == "ViewStmt" ? body["view"] : body["into"]["rel"];
}

Result<ViewDef> BindCreateView(const Catalog& catalog, std::string_view sql,
                               const std::string& kind, const Json& body) {
  ViewDef v;
  v.name = ViewRelation(kind, body)["relname"];
  v.materialized = kind != "ViewStmt";
  SLUICE_ASSIGN_OR_RETURN(v.query, BindSelect(catalog, sql, body["query"]["SelectStmt"]));
  // The query and the column names it is given (not the options).
  const Json& names =
      kind == "ViewStmt" ? body.value("aliases", Json()) : body["into"].value("colNames", Json());
  if (names.is_array() && !names.empty()) {
    // CREATE VIEW v (a, b) AS ...: the first columns take these names.
    if (names.size() > v.query.visible) {
      return SqlError(sql, body, "CREATE VIEW specifies more column names than columns");
    }
    auto renamed = std::make_shared<PlanNode>(*v.query.plan);
    for (size_t i = 0; i < names.size(); ++i) {
      renamed->columns[i].name = names[i]["String"].value("sval", renamed->columns[i].name);
    }
    v.query.plan = renamed;
  }
  std::vector<std::string> column_names;  // CREATE VIEW v (a, b): a and b
  if (names.is_array()) {
    for (const Json& n : names) column_names.push_back(n["String"].value("sval", ""));
  }
  for (bool pretty : {false, true}) {
    Result<std::string> text =
        DeparseView(catalog, sql, body["query"]["SelectStmt"], column_names, pretty);
    // Left empty where it cannot print the query yet: SetViewText puts the
    // query as written there.
    if (text.ok()) (pretty ? v.pg_definition_pretty : v.pg_definition) = *text;
    if (!text.ok() && text.status().code() == StatusCode::kUnimplemented)
      v.pg_definition_missing = text.status().message();
  }
  // The SQL functions it calls (and they call) are part of its definition.
  Json functions = Json::array();
  std::set<std::string> seen;
  std::function<void(const Json&)> called = [&](const Json& n) {
    if (n.is_object()) {
      if (n.contains("FuncCall") && n["FuncCall"].contains("funcname")) {
        const std::string fname = n["FuncCall"]["funcname"].back()["String"].value("sval", "");
        const FunctionDef* f = catalog.FindFunction(fname);
        if (f != nullptr && seen.insert(fname).second) {
          functions.push_back(Json::array({f->name, f->arg_types, f->return_type, f->strict,
                                           f->returns_set, f->columns, f->body}));
          called(Json::parse(f->body));
        }
        // An aggregate's definition, and the functions it calls (`seen`
        // holds it apart from a function of the same name).
        const AggregateDef* a = catalog.FindAggregate(fname);
        if (a != nullptr && seen.insert("aggregate " + fname).second) {
          functions.push_back(
              Json::array({a->name, a->arg_types, a->sfunc, a->state_type, a->final_func,
                           a->initcond.value_or(""), a->initcond.has_value()}));
          for (const std::string& g : {a->sfunc, a->final_func}) {
            called(
                Json{{"FuncCall", {{"funcname", Json::array({Json{{"String", {{"sval", g}}}}})}}}});
          }
        }
      }
      for (auto it = n.begin(); it != n.end(); ++it) called(it.value());
    } else if (n.is_array()) {
      for (const Json& x : n) called(x);
    }
  };
  called(body["query"]);
  v.definition_hash = functions.empty()
                          ? DefinitionHash(Json::array({body["query"], names}))
                          : DefinitionHash(Json::array({body["query"], names, functions}));
  CollectInputs(catalog, body["query"], &v.inputs);
  const Json& options = kind == "ViewStmt" ? body.value("options", Json::array())
                                           : body["into"].value("options", Json::array());
  bool ignored = false;  // a view's materialization comes from its statement
  SLUICE_RETURN_IF_ERROR(ReadOptions(sql, options, &ignored, &v.connectors, nullptr, &v.recursion));
  return v;
}

// The smallest "location" inside `node` (a parse tree), or npos.
size_t FirstLocation(const Json& node) {
  size_t first = std::string::npos;
  if (node.is_object()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (it.key() == "location" && it->is_number_integer() && it->get<int64_t>() >= 0) {
        first = std::min(first, it->get<size_t>());
      } else {
        first = std::min(first, FirstLocation(*it));
      }
    }
  } else if (node.is_array()) {
    for (const Json& e : node) first = std::min(first, FirstLocation(e));
  }
  return first;
}

// A view's query as written in `statement` (its CREATE statement, which
// starts at offset `at` of the program): from the keyword that opens the
// query (SELECT, WITH, VALUES or TABLE, the last one before the query's
// first located node) to the statement's end. The parse tree does not locate
// a query's own start.
std::string ViewQueryText(std::string_view statement, size_t at, const Json& query) {
  size_t first = FirstLocation(query);
  size_t end = first == std::string::npos || first < at ? statement.size()
                                                        : std::min(first - at, statement.size());
  std::string lower(statement.substr(0, end));
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  size_t start = std::string::npos;
  for (const char* word : {"select", "with", "values", "table"}) {
    const size_t n = std::strlen(word);
    for (size_t p = lower.rfind(word); p != std::string::npos;
         p = p == 0 ? std::string::npos : lower.rfind(word, p - 1)) {
      const bool alone =
          (p == 0 || !std::isalnum(static_cast<unsigned char>(lower[p - 1]))) &&
          (p + n >= lower.size() || !std::isalnum(static_cast<unsigned char>(lower[p + n])));
      if (alone) {
        if (start == std::string::npos || p > start) start = p;
        break;
      }
    }
  }
  std::string out(statement.substr(start == std::string::npos ? 0 : start));
  while (!out.empty() &&
         (std::isspace(static_cast<unsigned char>(out.back())) || out.back() == ';'))
    out.pop_back();
  return out;
}

void SetViewText(std::string_view sql, const Json& st, ViewDef* v) {
  const size_t at = std::min(st.value("stmt_location", size_t{0}), sql.size());
  const Json& body = st["stmt"].begin().value();
  v->query_sql =
      ViewQueryText(sql.substr(at, st.value("stmt_len", sql.size() - at)), at, body["query"]);
  for (std::string* d : {&v->pg_definition, &v->pg_definition_pretty}) {
    if (d->empty()) *d = " " + v->query_sql + ";";
  }
}

IndexDef BindCreateIndex(const Json& body) {
  IndexDef idx;
  idx.relation = body["relation"]["relname"];
  idx.name = body.value("idxname", idx.relation + "_idx");
  for (const Json& e : body.value("indexParams", Json::array())) {
    idx.columns.push_back(e["IndexElem"].value("name", ""));
  }
  return idx;
}

namespace {

bool IsIdentifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Feldera's documentation writes table and view options with quoted keys,
// WITH ('connectors' = '[...]', 'materialized' = 'true'), which
// PostgreSQL's grammar does not take. In every WITH ( ... ) option list, a
// quoted key that is a plain identifier loses its quotes (they become
// spaces, so that every error's line and column stay where they were).
// Comments, strings and quoted identifiers are skipped as the lexer would.
std::string UnquoteOptionKeys(std::string_view text) {
  std::string out(text);
  const size_t n = out.size();
  std::string previous;       // the last token: a word (lower case) or a punctuation mark
  std::vector<bool> options;  // per open parenthesis: is it a WITH option list?
  size_t i = 0;
  auto skip_space = [&](size_t k) {
    for (;;) {
      while (k < n && std::isspace(static_cast<unsigned char>(out[k]))) ++k;
      if (k + 1 < n && out[k] == '-' && out[k + 1] == '-') {
        while (k < n && out[k] != '\n') ++k;
      } else if (k + 1 < n && out[k] == '/' && out[k + 1] == '*') {
        const size_t end = out.find("*/", k + 2);
        k = end == std::string::npos ? n : end + 2;
      } else {
        return k;
      }
    }
  };
  for (i = skip_space(0); i < n; i = skip_space(i)) {
    const char c = out[i];
    if (c == '\'' || c == '"') {
      size_t end = i + 1;
      for (; end < n; ++end) {
        if (out[end] != c) continue;
        if (end + 1 < n && out[end + 1] == c) {
          ++end;  // a doubled quote inside
          continue;
        }
        break;
      }
      if (c == '\'' && !options.empty() && options.back() && (previous == "(" || previous == ",") &&
          end < n) {
        const size_t after = skip_space(end + 1);
        bool plain = end > i + 1 && !std::isdigit(static_cast<unsigned char>(out[i + 1]));
        for (size_t k = i + 1; k < end && plain; ++k) plain = IsIdentifierChar(out[k]);
        if (plain && after < n && out[after] == '=') {
          out[i] = ' ';
          out[end] = ' ';
        }
      }
      previous = c == '\'' ? "'" : "ident";
      i = end + 1;
      continue;
    }
    if (IsIdentifierChar(c)) {
      size_t end = i;
      while (end < n && IsIdentifierChar(out[end])) ++end;
      previous = out.substr(i, end - i);
      for (char& ch : previous)
        ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      i = end;
      continue;
    }
    if (c == '(') {
      options.push_back(previous == "with");
    } else if (c == ')' && !options.empty()) {
      options.pop_back();
    }
    previous = std::string(1, c);
    ++i;
  }
  return out;
}

bool IsCreateAggregate(const Json& stmt) {
  return stmt.contains("DefineStmt") && stmt["DefineStmt"].value("kind", "") == "OBJECT_AGGREGATE";
}

}  // namespace

Status AddProgramDefinitions(std::string_view text, Catalog* catalog) {
  // Most programs declare none: no parse for them.
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const bool sequences = lower.find("sequence") != std::string::npos ||
                         lower.find("serial") != std::string::npos ||
                         lower.find("identity") != std::string::npos;
  if (lower.find("function") == std::string::npos && lower.find("type") == std::string::npos &&
      lower.find("aggregate") == std::string::npos && !sequences)
    return Status::OK();
  std::string stripped;
  std::vector<LatenessClause> lateness;
  StripLateness(UnquoteOptionKeys(text), &stripped, &lateness);
  SLUICE_ASSIGN_OR_RETURN(Json tree, ParseSql(stripped, text));
  for (const Json& st : tree["stmts"]) {
    const Json& stmt = st["stmt"];
    if (stmt.contains("CompositeTypeStmt")) {
      SLUICE_RETURN_IF_ERROR(
          AddCreateType(text, "CompositeTypeStmt", stmt["CompositeTypeStmt"], catalog));
    }
    if (IsCreateAggregate(stmt)) {
      SLUICE_ASSIGN_OR_RETURN(AggregateDef a,
                              BindCreateAggregate(*catalog, text, stmt["DefineStmt"]));
      SLUICE_RETURN_IF_ERROR(catalog->AddAggregate(std::move(a), /*replace=*/true));
    }
    if (sequences && (stmt.contains("CreateSeqStmt") || stmt.contains("AlterSeqStmt"))) {
      const std::string kind = stmt.begin().key();
      SLUICE_RETURN_IF_ERROR(AddSequenceStatement(text, kind, stmt.begin().value(), catalog));
    }
    if (sequences && stmt.contains("CreateStmt")) {
      // The sequences of its SERIAL and IDENTITY columns.
      SLUICE_ASSIGN_OR_RETURN(TableDef t, BindCreateTable(text, stmt["CreateStmt"], catalog));
      for (const SequenceDef& d : t.column_sequences) {
        if (catalog->FindSequence(d.name) == nullptr)
          SLUICE_RETURN_IF_ERROR(catalog->AddSequence(d));
      }
    }
    if (!stmt.contains("CreateFunctionStmt")) continue;
    SLUICE_ASSIGN_OR_RETURN(FunctionDef f, BindCreateFunction(text, stmt["CreateFunctionStmt"]));
    SLUICE_RETURN_IF_ERROR(catalog->AddFunction(std::move(f), /*replace=*/true));
  }
  return Status::OK();
}

Result<Program> CompileProgram(std::string_view text) {
  std::string stripped;
  std::vector<LatenessClause> lateness;
  StripLateness(UnquoteOptionKeys(text), &stripped, &lateness);
  SLUICE_ASSIGN_OR_RETURN(Json tree, ParseSql(stripped, text));
  Program p;
  for (const Json& st : tree["stmts"]) {
    const Json& stmt = st["stmt"];
    std::string kind = stmt.begin().key();
    const Json& body = stmt.begin().value();
    if (IsCreateType(kind)) {
      SLUICE_RETURN_IF_ERROR(AddCreateType(text, kind, body, &p.catalog));
    } else if (kind == "CreateStmt") {
      SLUICE_ASSIGN_OR_RETURN(TableDef t, BindCreateTable(text, body, &p.catalog));
      const size_t at = st.value("stmt_location", size_t{0});
      const size_t end = at + st.value("stmt_len", text.size() - std::min(at, text.size()));
      // A column's LATENESS belongs to the last column that starts before it.
      for (const LatenessClause& cl : lateness) {
        if (!cl.relation.empty() || cl.at < at || cl.at >= end) continue;
        int column = -1, best = -1;
        const Json& elts = body.value("tableElts", Json::array());
        for (size_t i = 0, c = 0; i < elts.size(); ++i) {
          if (!elts[i].contains("ColumnDef")) continue;
          const int loc = elts[i]["ColumnDef"].value("location", -1);
          if (loc >= 0 && static_cast<size_t>(loc) < cl.at && loc > best) {
            best = loc;
            column = static_cast<int>(c);
          }
          ++c;
        }
        if (column < 0) {
          return Status::InvalidArgument(FormatSqlError(text, static_cast<int>(cl.at),
                                                        "LATENESS must follow a column's type"));
        }
        SLUICE_RETURN_IF_ERROR(ApplyLateness(text, cl, column, &t));
      }
      Json definition = body;
      definition.erase("options");
      // Whether deletes are checked changes what state the table keeps; so
      // does a lateness (state behind the waterline is forgotten).
      if (t.append_only) definition["append_only"] = true;
      if (t.lateness_column >= 0) {
        definition["lateness"] = Json::array({t.lateness_column, t.lateness});
      }
      t.definition_hash = DefinitionHash(definition);
      t.sql =
          std::string(text.substr(std::min(at, text.size()),
                                  st.value("stmt_len", text.size() - std::min(at, text.size()))));
      std::string name = t.name;
      const std::vector<SequenceDef> sequences = t.column_sequences;
      Status s = p.catalog.AddTable(std::move(t));
      for (const SequenceDef& d : sequences) {
        if (s.ok()) s = p.catalog.AddSequence(d);
      }
      if (!s.ok()) return SqlError(text, body["relation"], s.message());
      p.tables.push_back(name);
    } else if (kind == "CreateSeqStmt" || kind == "AlterSeqStmt") {
      SLUICE_RETURN_IF_ERROR(AddSequenceStatement(text, kind, body, &p.catalog));
    } else if (IsCreateView(kind, body)) {
      SLUICE_ASSIGN_OR_RETURN(ViewDef v, BindCreateView(p.catalog, text, kind, body));
      SetViewText(text, st, &v);
      std::string name = v.name;
      Status s = p.catalog.AddView(std::move(v));
      if (!s.ok()) return SqlError(text, ViewRelation(kind, body), s.message());
      p.views.push_back(name);
    } else if (kind == "IndexStmt") {
      Status s = p.catalog.AddIndex(BindCreateIndex(body));
      if (!s.ok()) return SqlError(text, body["relation"], s.message());
    } else if (kind == "CreateFunctionStmt") {
      SLUICE_ASSIGN_OR_RETURN(FunctionDef f, BindCreateFunction(text, body));
      if (!f.unsupported.empty()) {
        const std::string message = f.unsupported + " (function " + f.name + ")";
        // A language Sluice does not run: the caret at LANGUAGE (its parse
        // tree node has no location).
        const size_t at = std::min(st.value("stmt_location", size_t{0}), text.size());
        std::string statement(text.substr(at, st.value("stmt_len", text.size() - at)));
        for (char& c : statement)
          c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        const size_t language = statement.find("language");
        if (f.unsupported.rfind("functions in language", 0) == 0 && language != std::string::npos) {
          return Status::Unimplemented(FormatSqlError(text, static_cast<int>(at + language),
                                                      message + " is not supported yet"));
        }
        return SqlUnsupported(text, body, message);
      }
      const std::string name = f.name;
      Status s = p.catalog.AddFunction(std::move(f), body.value("replace", false));
      if (!s.ok()) return SqlError(text, body, s.message());
      p.functions.push_back(name);
    } else if (IsCreateAggregate(stmt)) {
      SLUICE_ASSIGN_OR_RETURN(AggregateDef a, BindCreateAggregate(p.catalog, text, body));
      if (!a.unsupported.empty()) {
        return SqlUnsupported(text, body, a.unsupported + " (aggregate " + a.name + ")");
      }
      Status s = p.catalog.AddAggregate(std::move(a), body.value("replace", false));
      if (!s.ok()) return SqlError(text, body, s.message());
    } else {
      return SqlError(text, body,
                      kind +
                          " is not allowed in a program (CREATE TABLE, CREATE VIEW, CREATE "
                          "FUNCTION, CREATE AGGREGATE, CREATE TYPE, CREATE SEQUENCE and CREATE "
                          "INDEX are)");
    }
  }
  // LATENESS relation.column statements.
  for (const LatenessClause& cl : lateness) {
    if (cl.relation.empty()) continue;
    auto error = [&](const std::string& message) {
      return Status::InvalidArgument(FormatSqlError(text, static_cast<int>(cl.at), message));
    };
    if (cl.column.empty()) return error("LATENESS takes a column as relation.column");
    if (p.catalog.FindView(cl.relation) != nullptr) {
      return Status::Unimplemented(FormatSqlError(
          text, static_cast<int>(cl.at),
          "LATENESS on a view's column is not supported yet: declare it on the column of the "
          "table it comes from"));
    }
    TableDef* found = p.catalog.MutableTable(cl.relation);
    if (found == nullptr) return error("no table or view is named " + cl.relation);
    TableDef& t = *found;
    int column = -1;
    for (size_t i = 0; i < t.columns.size(); ++i) {
      if (t.columns[i].name == cl.column) column = static_cast<int>(i);
    }
    if (column < 0) return error("table " + t.name + " has no column " + cl.column);
    SLUICE_RETURN_IF_ERROR(ApplyLateness(text, cl, column, &t));
    // The definition changes with its lateness, as a column's annotation does.
    t.definition_hash =
        Hash64(std::to_string(t.definition_hash) + "/lateness/" +
               std::to_string(t.lateness_column) + "/" + std::to_string(t.lateness));
  }
  return p;
}

namespace {

// The check of a table's rows against its CHECK constraints, in the
// circuit: a row that fails one is counted among the evaluation errors (with
// PostgreSQL's message) and refused. None when the table has none.
RowCheckFn TableCheck(const TableDef& def, EvalErrors* errors) {
  if (def.checks.empty()) return nullptr;
  Schema schema;
  for (const Column& col : def.columns) schema.push_back(col.type);
  return [name = def.name, checks = def.checks, schema = std::move(schema),
          errors](std::string_view row) -> Result<bool> {
    SLUICE_ASSIGN_OR_RETURN(Row values, DecodeRow(schema, row));
    Status s = CheckRow(name, checks, schema, values);
    if (s.ok()) return true;
    if (CountedRowError(s, errors)) return false;
    return s;
  };
}

}  // namespace

Status BuildProgram(const Program& program, Circuit& c, EvalErrors* errors,
                    const std::set<std::string>* only_views, const HostLayout* layout,
                    const TableWaterlines* waterlines, StepClockPtr clock) {
  std::map<std::string, Stream*> inputs;
  auto output = [&](Stream* s, const std::string& name, bool materialized) {
    if (layout != nullptr) {
      auto it = layout->output_host.find(name);
      if (it == layout->output_host.end()) {
        return Status::Internal("no host is assigned to the output of " + name);
      }
      if (layout->parts.count(name) > 0) AddOutput(c, s, PartOutputName(name));
      if (layout->spread && materialized) {
        // Every row's changes meet on one worker, so that each host's
        // share of the integral is consolidated.
        s = Exchange(c, s);
        AddOutput(c, s, SpreadOutputName(name));
      }
      auto demand = layout->on_demand.find(name);
      s = ExchangeTo(c, s, it->second * layout->workers_per_host, layout->workers_per_host,
                     demand == layout->on_demand.end() ? nullptr : demand->second);
    }
    AddOutput(c, s, name);
    return Status::OK();
  };
  for (const std::string& t : program.tables) {
    c.SetOwner(TableOwner(t));
    // A table with a primary key takes keyed commands (upsert.h) and holds
    // one row per key; any other table takes its rows' changes as they are.
    Stream* in = AddInput(c, t);
    const TableDef& def = *program.catalog.FindTable(t);
    Schema schema;
    for (const Column& col : def.columns) schema.push_back(col.type);
    // Rows that fail a CHECK constraint are refused where they enter.
    RowCheckFn check = TableCheck(def, errors);
    if (!def.primary_key.empty()) {
      inputs[t] = Upsert(c, in, schema, std::move(check));
    } else if (def.append_only) {
      // The ingest refuses deletes: there is nothing to clamp.
      inputs[t] =
          !check ? in : Filter(c, in, [check](std::string_view k, std::string_view, bool* keep) {
            SLUICE_ASSIGN_OR_RETURN(*keep, check(k));
            return Status::OK();
          });
    } else {
      // A delete finds what there is to delete, and no more. On one host
      // the input is already sharded by row (InputQueues::Split).
      inputs[t] = Clamp(
          c, in, /*sharded=*/layout == nullptr,
          [errors, t](int64_t n) { errors->AddIgnoredDeletes(t, n); }, std::move(check));
    }
    SLUICE_RETURN_IF_ERROR(output(inputs[t], t, def.materialized));
  }
  Lowering lower(
      c, [&](const std::string& table) { return inputs.at(table); }, errors, waterlines,
      std::move(clock));
  std::set<std::string> append_only;
  for (const std::string& t : program.tables) {
    if (program.catalog.FindTable(t)->append_only) append_only.insert(t);
  }
  lower.SetInsertOnlyTables(std::move(append_only));
  std::vector<PlanPtr> plans;
  for (const std::string& name : program.views) {
    plans.push_back(program.catalog.FindView(name)->query.plan);
  }
  lower.SetPlans(plans);
  for (const std::string& name : program.views) {
    if (only_views != nullptr && only_views->count(name) == 0) continue;
    // On one host, a view whose evaluation fails fails alone (the
    // controller stops it and every view that reads it); on many, the hosts
    // would have to agree on it, and the pipeline fails.
    c.SetOwner(ViewOwner(name), /*fails_alone=*/layout == nullptr);
    const ViewDef& v = *program.catalog.FindView(name);
    lower.SetDrawSeed(Hash64(name));
    lower.SetRecursionLimits(v.recursion);
    SLUICE_ASSIGN_OR_RETURN(Stream * s, lower.Lower(v.query.plan));
    if (v.query.plan->columns.size() != v.query.visible) {
      // The hidden ORDER BY columns are presentation only: drop them.
      Schema full = v.query.plan->schema();
      size_t visible = v.query.visible;
      s = Map(c, s,
              [full, visible](std::string_view k, std::string_view, std::string* ok, std::string*) {
                std::vector<std::string_view> fields;
                SLUICE_RETURN_IF_ERROR(SplitRow(full, k, &fields));
                for (size_t i = 0; i < visible; ++i) ok->append(fields[i]);
                return Status::OK();
              });
    }
    SLUICE_RETURN_IF_ERROR(output(s, name, v.materialized));
  }
  return Status::OK();
}

namespace {

void CollectNodes(const PlanNode* n, std::set<const PlanNode*>* out) {
  if (n == nullptr || !out->insert(n).second) return;
  for (const PlanPtr& in : n->inputs) CollectNodes(in.get(), out);
  CollectNodes(n->domain.get(), out);
  CollectNodes(n->working.get(), out);
}

}  // namespace

std::map<std::string, std::vector<std::string>> ViewReaders(const Program& program) {
  std::map<std::string, std::set<const PlanNode*>> nodes;
  for (const std::string& v : program.views) {
    CollectNodes(program.catalog.FindView(v)->query.plan.get(), &nodes[v]);
  }
  std::map<std::string, std::vector<std::string>> readers;
  for (const std::string& a : program.views) {
    const PlanNode* root = program.catalog.FindView(a)->query.plan.get();
    for (const std::string& b : program.views) {
      if (b != a && nodes[b].count(root) > 0) readers[a].push_back(b);
    }
  }
  return readers;
}

bool ReadsStepClock(const Program& program) {
  return std::any_of(program.views.begin(), program.views.end(), [&](const std::string& v) {
    return ReadsStepClock(program.catalog.FindView(v)->query.plan);
  });
}

}  // namespace sluice::sql
