#include "connector/delta_filter.h"

#include <nlohmann/json.hpp>

#include "sql/binder.h"
#include "sql/catalog.h"
#include "sql/parser.h"

namespace sluice::connector {
namespace {

bool Orderable(const SqlType& t) {
  return t.IsInteger() || t.id() == TypeId::kDecimal || t.id() == TypeId::kReal ||
         t.id() == TypeId::kDouble || t.id() == TypeId::kDate || t.id() == TypeId::kTimestamp;
}

// The column `e` reads, if it is one (or one cast to a type whose order is
// its own): its index; -1 otherwise.
int ColumnOf(const sql::Expr& e) {
  if (e.kind == sql::ExprKind::kColumn) return e.column;
  if (e.kind == sql::ExprKind::kCast && e.args.size() == 1 &&
      e.args[0]->kind == sql::ExprKind::kColumn && Orderable(e.type) &&
      Orderable(e.args[0]->type)) {
    return e.args[0]->column;
  }
  return -1;
}

bool HasColumns(const sql::Expr& e) {
  if (e.kind == sql::ExprKind::kColumn) return true;
  for (const sql::ExprPtr& a : e.args) {
    if (HasColumns(*a)) return true;
  }
  return false;
}

// The value of a constant expression, or false.
bool Constant(const sql::Expr& e, Value* out) {
  if (HasColumns(e)) return false;
  return sql::Eval(e, sql::Row{}, out).ok() && !out->is_null();
}

}  // namespace

Result<std::shared_ptr<const DeltaFilter>> DeltaFilter::Parse(const std::string& condition,
                                                              const format::Relation& rel) {
  const std::string prefix = "SELECT 1 FROM t WHERE ";
  const std::string sql = prefix + condition;
  auto tree = sql::ParseSql(sql);
  if (!tree.ok()) {
    return Status::InvalidArgument("filter \"" + condition + "\": " + tree.status().message());
  }
  const sql::Json& stmts = (*tree)["stmts"];
  if (stmts.size() != 1 || !stmts[0]["stmt"].contains("SelectStmt") ||
      !stmts[0]["stmt"]["SelectStmt"].contains("whereClause")) {
    return Status::InvalidArgument("filter \"" + condition + "\" is not one condition");
  }
  const sql::Json& select = stmts[0]["stmt"]["SelectStmt"];
  // Nothing after the condition (a second clause would bind elsewhere).
  for (const char* k :
       {"groupClause", "havingClause", "sortClause", "limitCount", "windowClause"}) {
    if (select.contains(k)) {
      return Status::InvalidArgument("filter \"" + condition + "\" is not one condition");
    }
  }
  std::vector<sql::Column> columns;
  for (size_t i = 0; i < rel.columns.size(); ++i)
    columns.push_back({rel.columns[i], rel.schema[i]});
  sql::Catalog catalog;
  auto e = sql::BindOverColumns(catalog, sql, columns, rel.name, select["whereClause"]);
  if (!e.ok()) {
    return Status::InvalidArgument("filter \"" + condition + "\": " + e.status().message());
  }
  if ((*e)->type.id() != TypeId::kBoolean) {
    return Status::InvalidArgument("filter \"" + condition + "\" is " + (*e)->type.ToString() +
                                   ", not a condition");
  }
  auto f = std::make_shared<DeltaFilter>();
  f->text_ = condition;
  f->expr_ = *e;
  f->rel_ = rel;
  return std::shared_ptr<const DeltaFilter>(std::move(f));
}

Status DeltaFilter::Matches(const std::vector<Value>& row, bool* pass) const {
  Status s = sql::EvalPredicate(*expr_, row, pass);
  if (!s.ok()) return Status::InvalidArgument("filter \"" + text_ + "\": " + s.message());
  return Status::OK();
}

bool DeltaFilter::MayMatch(const std::vector<ColumnBounds>& bounds, int64_t rows) const {
  return MayMatchExpr(*expr_, bounds, rows);
}

bool DeltaFilter::MayMatchExpr(const sql::Expr& e, const std::vector<ColumnBounds>& bounds,
                               int64_t rows) const {
  using sql::ExprKind;
  auto bound = [&](int col) -> const ColumnBounds* {
    return col >= 0 && static_cast<size_t>(col) < bounds.size() ? &bounds[static_cast<size_t>(col)]
                                                                : nullptr;
  };
  auto all_null = [&](const ColumnBounds* b) {
    return b != nullptr && rows >= 0 && b->null_count == rows;
  };
  // The column's bounds as values of `type` (the comparison's).
  auto range = [&](int col, const SqlType& type, Value* lo, Value* hi) {
    const ColumnBounds* b = bound(col);
    if (b == nullptr || !b->has_min_max) return false;
    const SqlType& from = rel_.schema[static_cast<size_t>(col)];
    return sql::CastValue(b->min, from, type, lo).ok() &&
           sql::CastValue(b->max, from, type, hi).ok() && !lo->is_null() && !hi->is_null();
  };
  switch (e.kind) {
    case ExprKind::kAnd:
      for (const sql::ExprPtr& a : e.args) {
        if (!MayMatchExpr(*a, bounds, rows)) return false;
      }
      return true;
    case ExprKind::kOr:
      for (const sql::ExprPtr& a : e.args) {
        if (MayMatchExpr(*a, bounds, rows)) return true;
      }
      return false;
    case ExprKind::kIsNull: {
      const int col = e.args.empty() ? -1 : ColumnOf(*e.args[0]);
      const ColumnBounds* b = bound(col);
      if (b == nullptr || b->null_count < 0) return true;
      if (!e.negated) return b->null_count > 0;
      return !all_null(b);
    }
    case ExprKind::kInList: {
      if (e.negated || e.args.empty()) return true;
      const int col = ColumnOf(*e.args[0]);
      if (col < 0) return true;
      if (all_null(bound(col))) return false;
      Value lo, hi;
      if (!range(col, e.args[0]->type, &lo, &hi)) return true;
      for (size_t i = 1; i < e.args.size(); ++i) {
        Value v;
        if (!Constant(*e.args[i], &v)) return true;
        if (sql::CompareValues(v, lo) >= 0 && sql::CompareValues(v, hi) <= 0) return true;
      }
      return false;
    }
    case ExprKind::kCall: {
      if (e.args.size() != 2) return true;
      std::string op = e.fn_name;
      int col = ColumnOf(*e.args[0]);
      const sql::Expr* other = e.args[1].get();
      if (col < 0) {
        col = ColumnOf(*e.args[1]);
        other = e.args[0].get();
        // lit < col is col > lit.
        if (op == "<") {
          op = ">";
        } else if (op == "<=") {
          op = ">=";
        } else if (op == ">") {
          op = "<";
        } else if (op == ">=") {
          op = "<=";
        }
      }
      if (col < 0 || (op != "=" && op != "<" && op != "<=" && op != ">" && op != ">=")) {
        return true;
      }
      if (all_null(bound(col))) return false;  // a comparison with NULL is never TRUE
      Value v, lo, hi;
      if (!Constant(*other, &v)) return true;
      if (!range(col, other->type, &lo, &hi)) return true;
      if (op == "=") return sql::CompareValues(v, lo) >= 0 && sql::CompareValues(v, hi) <= 0;
      if (op == "<") return sql::CompareValues(lo, v) < 0;
      if (op == "<=") return sql::CompareValues(lo, v) <= 0;
      if (op == ">") return sql::CompareValues(hi, v) > 0;
      return sql::CompareValues(hi, v) >= 0;  // >=
    }
    default:
      return true;
  }
}

}  // namespace sluice::connector
