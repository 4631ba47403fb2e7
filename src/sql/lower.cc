#include "sql/lower.h"

#include <functional>

#include "dataflow/operators/aggregate.h"
#include "dataflow/operators/constant.h"
#include "dataflow/operators/distinct.h"
#include "dataflow/operators/draw.h"
#include "dataflow/operators/filter.h"
#include "dataflow/operators/flat_map.h"
#include "dataflow/operators/input.h"
#include "dataflow/operators/intersect.h"
#include "dataflow/operators/join.h"
#include "dataflow/operators/map.h"
#include "dataflow/operators/output.h"
#include "dataflow/operators/over.h"
#include "dataflow/operators/recursive.h"
#include "dataflow/operators/rolling_aggregate.h"
#include "dataflow/operators/sum.h"
#include "dataflow/operators/temporal_filter.h"
#include "dataflow/operators/top_k.h"
#include "sql/over.h"
#include "types/row_codec.h"
#include "zset/batch_builder.h"

namespace sluice::sql {
namespace {

Status DecodeInto(const Schema& schema, std::string_view bytes, Row* row) {
  auto r = DecodeRow(schema, bytes);
  if (!r.ok()) return r.status();
  *row = std::move(r).value();
  return Status::OK();
}

// What a column that no reader needs (NeededColumns) holds instead of its
// value: NULL where the type allows it, else the type's zero (0, '', an
// empty array). False for the types without one at hand (maps, variants,
// TIME WITH TIME ZONE, rows holding them): those columns keep their values.
bool StandIn(const SqlType& t, Value* v) {
  if (t.nullable()) {
    *v = Value::Null();
    return true;
  }
  switch (t.id()) {
    case TypeId::kBoolean:
      *v = Value::Bool(false);
      return true;
    case TypeId::kTinyInt:
    case TypeId::kSmallInt:
    case TypeId::kInteger:
    case TypeId::kBigInt:
    case TypeId::kDate:
    case TypeId::kTimestamp:
      *v = Value::Int(0);
      return true;
    case TypeId::kTime:
      if (t.IsTimeTz()) return false;
      *v = Value::Int(0);
      return true;
    case TypeId::kDecimal:
      *v = Value::Decimal(0, t.dynamic_scale() ? 0 : t.scale());
      return true;
    case TypeId::kReal:
    case TypeId::kDouble:
      *v = Value::Double(0);
      return true;
    case TypeId::kChar:
    case TypeId::kVarchar:
    case TypeId::kBinary:
    case TypeId::kVarbinary:
      *v = Value::String("");
      return true;
    case TypeId::kInterval:
      *v = Value::MakeInterval(0, 0, 0);
      return true;
    case TypeId::kArray:
      *v = Value::List({});
      return true;
    case TypeId::kRow: {
      std::vector<Value> fields(t.children().size());
      for (size_t i = 0; i < fields.size(); ++i) {
        if (!StandIn(t.children()[i], &fields[i])) return false;
      }
      *v = Value::List(std::move(fields));
      return true;
    }
    case TypeId::kMap:
    case TypeId::kVariant:
      return false;
  }
  return false;
}

// The stand-ins of the first `width` columns of `schema` that `needed` does
// not mark, by column.
std::vector<std::pair<size_t, Value>> StandIns(const Schema& schema,
                                               const std::vector<bool>& needed, size_t width) {
  std::vector<std::pair<size_t, Value>> out;
  for (size_t i = 0; i < width && i < schema.size() && i < needed.size(); ++i) {
    Value v;
    if (!needed[i] && StandIn(schema[i], &v)) out.emplace_back(i, std::move(v));
  }
  return out;
}

// Which columns of a row of `width` the expressions read.
void MarkUsed(const Expr& e, std::vector<bool>* used) {
  if (e.kind == ExprKind::kColumn && e.column >= 0 &&
      static_cast<size_t>(e.column) < used->size()) {
    (*used)[static_cast<size_t>(e.column)] = true;
  }
  for (const ExprPtr& a : e.args) MarkUsed(*a, used);
}

std::vector<bool> UsedColumns(const std::vector<ExprPtr>& exprs, size_t width) {
  std::vector<bool> used(width, false);
  for (const ExprPtr& e : exprs) MarkUsed(*e, &used);
  return used;
}

// Decodes only the columns that `used` marks into `row` (the others are
// left as they are): a filter on one column of a wide row reads one field.
Status DecodeUsed(const Schema& schema, const std::vector<bool>& used, std::string_view bytes,
                  Row* row) {
  row->resize(schema.size());
  size_t last = schema.size();
  while (last > 0 && !used[last - 1]) --last;
  for (size_t i = 0; i < last; ++i) {
    SLUICE_RETURN_IF_ERROR(used[i] ? DecodeValue(schema[i], &bytes, &(*row)[i])
                                   : SkipValue(schema[i], &bytes));
  }
  return Status::OK();
}

// Walks a row's fields up to the last one that `decode` or `slice` marks:
// decodes those `decode` marks into `row` (the others are left as they
// are) and keeps the bytes of those `slice` marks in `slices` (the row
// encoding is self-delimiting, so a field's bytes are its encoding, and a
// column passed on with its type is copied without decoding it).
Status DecodeAndSlice(const Schema& schema, const std::vector<bool>& decode,
                      const std::vector<bool>& slice, std::string_view bytes, Row* row,
                      std::vector<std::string_view>* slices) {
  row->resize(schema.size());
  slices->resize(schema.size());
  size_t last = schema.size();
  while (last > 0 && !decode[last - 1] && !slice[last - 1]) --last;
  for (size_t i = 0; i < last; ++i) {
    const std::string_view before = bytes;
    SLUICE_RETURN_IF_ERROR(decode[i] ? DecodeValue(schema[i], &bytes, &(*row)[i])
                                     : SkipValue(schema[i], &bytes));
    if (slice[i]) (*slices)[i] = before.substr(0, before.size() - bytes.size());
  }
  return Status::OK();
}

// Evaluates `exprs` over `row` and appends their encodings as `types`.
Status EncodeExprs(const std::vector<ExprPtr>& exprs, const Schema& types, const Row& row,
                   std::string* out) {
  for (size_t i = 0; i < exprs.size(); ++i) {
    Value v;
    SLUICE_RETURN_IF_ERROR(Eval(*exprs[i], row, &v));
    Status s = EncodeValue(types[i], v, out);
    if (!s.ok()) return s.WithContext("column " + std::to_string(i + 1));
  }
  return Status::OK();
}

// An evaluation error names the row it happened on (a row without columns,
// as SELECT 1/0 reads, says nothing).
Status OnRow(const Status& s, const Schema& schema, std::string_view row) {
  if (s.ok() || schema.empty()) return s;
  return Status(s.code(), s.message() + " (in row " + RowToString(schema, row) + ")");
}

// A field of a sort key: own NULL tag so that NULLS FIRST/LAST can differ from
// the encoding's default, and inverted for DESC.
void AppendSortField(const SqlType& type, const Value& v, const SortKey& k, std::string* out) {
  size_t start = out->size();
  if (v.is_null()) {
    out->push_back(k.nulls_first != k.desc ? 0x00 : 0x02);
  } else {
    out->push_back(0x01);
    (void)EncodeValue(type.WithNullable(false), v, out);
  }
  if (k.desc) InvertBytes(out->data() + start, out->size() - start);
}

// Skips one sort field (see AppendSortField).
Status SkipSortField(const SqlType& type, const SortKey& k, std::string_view* in) {
  std::string plain(*in);
  if (k.desc) InvertBytes(plain.data(), plain.size());
  std::string_view p = plain;
  if (p.empty()) return Status::Corruption("truncated sort key");
  char tag = p[0];
  p.remove_prefix(1);
  if (tag == 0x01) SLUICE_RETURN_IF_ERROR(SkipValue(type.WithNullable(false), &p));
  in->remove_prefix(plain.size() - p.size());
  return Status::OK();
}

bool IsEvalError(const Status& s) {
  return s.code() == StatusCode::kInvalidArgument || s.code() == StatusCode::kOverflow;
}

}  // namespace

bool CountedRowError(const Status& s, EvalErrors* errors) {
  if (errors == nullptr || !IsEvalError(s)) return false;
  errors->Add(s);
  return true;
}

void EvalErrors::Add(const Status& s) {
  MutexLock l(&mu_);
  ++count_;
  if (samples_.size() < kMaxSamples) samples_.push_back(s.message());
}

void EvalErrors::AddIgnoredDeletes(const std::string& table, int64_t n) {
  MutexLock l(&mu_);
  ignored_deletes_[table] += static_cast<uint64_t>(n);
}

std::map<std::string, uint64_t> EvalErrors::ignored_deletes() const {
  MutexLock l(&mu_);
  return ignored_deletes_;
}

void EvalErrors::AddRecursionStep(const std::string& query, bool from_scratch, int64_t iterations) {
  MutexLock l(&mu_);
  Recursion& r = recursions_[query];
  ++(from_scratch ? r.from_scratch_steps : r.incremental_steps);
  r.last_iterations = static_cast<uint64_t>(iterations);
  r.iterations += static_cast<uint64_t>(iterations);
}

std::map<std::string, EvalErrors::Recursion> EvalErrors::recursions() const {
  MutexLock l(&mu_);
  return recursions_;
}

int64_t EvalErrors::count() const {
  MutexLock l(&mu_);
  return count_;
}

std::vector<std::string> EvalErrors::samples() const {
  MutexLock l(&mu_);
  return samples_;
}

Stream* Lowering::EvalMap(Stream* in, MapFn fn) {
  EvalErrors* errors = errors_;
  // `ok` and `ov` are this worker's scratch buffers (each worker lowers its
  // own plan): a row's output does not allocate once they have grown.
  return FlatMap(c_, in,
                 [fn, errors, ok = std::string(), ov = std::string()](
                     std::string_view k, std::string_view v, const EmitFn& emit) mutable {
                   ok.clear();
                   ov.clear();
                   Status s = fn(k, v, &ok, &ov);
                   if (s.ok()) {
                     emit(ok, ov);
                     return s;
                   }
                   return CountedRowError(s, errors) ? Status::OK() : s;
                 });
}

Stream* Lowering::EvalFilter(Stream* in, FilterFn fn) {
  EvalErrors* errors = errors_;
  return Filter(c_, in, [fn, errors](std::string_view k, std::string_view v, bool* keep) {
    Status s = fn(k, v, keep);
    if (s.ok() || !CountedRowError(s, errors)) return s;
    *keep = false;
    return Status::OK();
  });
}

namespace {

// The input column that `e` passes through unchanged (a column, or a cast
// that changes only nullability), or -1. A TIME cast to TIME WITH TIME ZONE
// (or back) changes the value's encoding (types/time_tz.h): not passed.
int PassedColumn(const Expr& e) {
  if (e.kind == ExprKind::kColumn) return e.column;
  if (e.kind == ExprKind::kCast && e.args.size() == 1 && e.args[0]->type.id() == e.type.id() &&
      e.args[0]->type.IsTimeTz() == e.type.IsTimeTz() && HasIntegerOrder(e.type)) {
    return PassedColumn(*e.args[0]);
  }
  return -1;
}

void Conjuncts(const Expr& e, std::vector<const Expr*>* out) {
  if (e.kind == ExprKind::kAnd) {
    for (const ExprPtr& a : e.args) Conjuncts(*a, out);
  } else {
    out->push_back(&e);
  }
}

// `e` as column + offset: a passed column, or one plus or minus a constant
// (an integer for an integer column; an interval of days and smaller units
// for a TIMESTAMP, in microseconds). Months have no fixed length, and TIME
// wraps around: neither is read.
bool AsShiftedColumn(const Expr& e, int* column, int64_t* offset) {
  *column = PassedColumn(e);
  *offset = 0;
  if (*column >= 0) return HasIntegerOrder(e.type);
  if (e.kind != ExprKind::kCall || e.args.size() != 2) return false;
  const std::string op = e.fn_name;
  if (op != "+" && op != "-") return false;
  const TypeId t = e.type.id();
  if (t != TypeId::kTimestamp && !e.type.IsInteger()) return false;
  // col + c, col - c, or c + col.
  size_t at = 0;
  if (PassedColumn(*e.args[0]) < 0 && op == "+") at = 1;
  const int col = PassedColumn(*e.args[at]);
  const Expr* c = e.args[1 - at].get();
  if (col < 0 || e.args[at]->type.id() != t) return false;
  // Only a literal, maybe cast: no column and nothing that changes with time.
  const Expr* lit = c;
  while (lit->kind == ExprKind::kCast && lit->args.size() == 1) lit = lit->args[0].get();
  if (lit->kind != ExprKind::kLiteral) return false;
  Value v;
  if (!Eval(*c, Row(), &v).ok() || v.is_null()) return false;
  int64_t by;
  if (t == TypeId::kTimestamp) {
    if (c->type.id() != TypeId::kInterval || v.interval_value().months != 0) return false;
    const Interval& iv = v.interval_value();
    if (__builtin_mul_overflow(int64_t{iv.days}, int64_t{86400000000}, &by) ||
        __builtin_add_overflow(by, iv.micros, &by)) {
      return false;
    }
  } else {
    if (!c->type.IsInteger()) return false;
    by = v.int_value();
  }
  if (op == "-" && __builtin_sub_overflow(int64_t{0}, by, &by)) return false;
  *column = col;
  *offset = by;
  return true;
}

}  // namespace

const std::vector<ColumnBound>& Lowering::Bounds(const PlanNode& n) {
  auto it = bounds_.find(&n);
  if (it != bounds_.end()) return it->second;
  std::vector<ColumnBound> out(n.columns.size());
  auto passed = [&](const PlanNode& in, const ExprPtr& e) -> ColumnBound {
    const int col = e ? PassedColumn(*e) : -1;
    if (col < 0) return {};
    const std::vector<ColumnBound>& b = Bounds(in);
    return static_cast<size_t>(col) < b.size() ? b[static_cast<size_t>(col)] : ColumnBound{};
  };
  if (waterlines_ != nullptr) {
    switch (n.kind) {
      case PlanKind::kScan: {
        auto w = waterlines_->find(n.table);
        if (w != waterlines_->end() && static_cast<size_t>(w->second.first) < out.size()) {
          out[static_cast<size_t>(w->second.first)].terms.push_back({w->second.second, 0});
        }
        break;
      }
      case PlanKind::kFilter:
      case PlanKind::kTemporalFilter:
      case PlanKind::kDistinct:
        out = Bounds(*n.inputs[0]);
        break;
      case PlanKind::kDraw: {
        const std::vector<ColumnBound>& in = Bounds(*n.inputs[0]);
        for (size_t i = 0; i < in.size() && i < out.size(); ++i) out[i] = in[i];
        break;
      }
      case PlanKind::kProject:
        for (size_t i = 0; i < n.exprs.size() && i < out.size(); ++i) {
          out[i] = passed(*n.inputs[0], n.exprs[i]);
        }
        break;
      case PlanKind::kWindow: {
        // A window holds its row's timestamp ts: start > ts - size, end > ts.
        const std::vector<ColumnBound>& in = Bounds(*n.inputs[0]);
        for (size_t i = 0; i < in.size() && i < out.size(); ++i) out[i] = in[i];
        const ColumnBound& ts = in[static_cast<size_t>(n.window.ts_column)];
        if (!ts.empty() && out.size() >= in.size() + 2) {
          out[in.size()] = ts.Shifted(1 - n.window.size);
          out[in.size() + 1] = ts.Shifted(1);
        }
        break;
      }
      case PlanKind::kUnionAll:
        for (size_t i = 0; i < out.size(); ++i) {
          for (size_t k = 0; k < n.inputs.size(); ++k) {
            const ColumnBound& b = Bounds(*n.inputs[k])[i];
            out[i] = k == 0 ? b : ColumnBound::Min(out[i], b);
          }
        }
        break;
      case PlanKind::kJoin: {
        // An output row comes from a later change of either side, so a key
        // holds the smaller of the two sides' bounds.
        const size_t lw = n.inputs[0]->columns.size();
        for (size_t i = 0; i < n.left_keys.size(); ++i) {
          const int lc = PassedColumn(*n.left_keys[i]), rc = PassedColumn(*n.right_keys[i]);
          if (lc < 0 || rc < 0) continue;
          ColumnBound b = ColumnBound::Min(passed(*n.inputs[0], n.left_keys[i]),
                                           passed(*n.inputs[1], n.right_keys[i]));
          if (static_cast<size_t>(lc) < lw) out[static_cast<size_t>(lc)] = b;
          if (lw + static_cast<size_t>(rc) < out.size()) out[lw + static_cast<size_t>(rc)] = b;
        }
        break;
      }
      case PlanKind::kRank:
        // Only the partitions a later change touches emit rows.
        if (n.limit >= 0) {
          for (const ExprPtr& e : n.partition) {
            const int col = PassedColumn(*e);
            if (col >= 0 && static_cast<size_t>(col) < out.size()) {
              out[static_cast<size_t>(col)] = passed(*n.inputs[0], e);
            }
          }
        }
        break;
      case PlanKind::kAggregate:
        // Only the groups a later change touches emit rows.
        if (n.domain == nullptr && !n.global) {
          for (size_t i = 0; i < n.group_keys.size() && i < out.size(); ++i) {
            out[i] = passed(*n.inputs[0], n.group_keys[i]);
          }
        }
        break;
      default:
        break;
    }
  }
  return bounds_[&n] = std::move(out);
}

bool Lowering::InsertOnly(const PlanNode& n) {
  auto it = insert_only_.find(&n);
  if (it != insert_only_.end()) return it->second;
  auto all_inputs = [&] {
    for (const PlanPtr& in : n.inputs) {
      if (!InsertOnly(*in)) return false;
    }
    return true;
  };
  bool out = false;
  switch (n.kind) {
    case PlanKind::kScan:
      out = insert_only_tables_.count(n.table) > 0;
      break;
    case PlanKind::kValues:  // inserted once, at step 0
      out = true;
      break;
    case PlanKind::kFilter:
    case PlanKind::kProject:
    case PlanKind::kDistinct:  // a count that only grows never falls to zero
    case PlanKind::kUnionAll:
    case PlanKind::kWindow:
    case PlanKind::kSeries:
    case PlanKind::kDraw:  // a row's draws leave only with it
      out = all_inputs();
      break;
    case PlanKind::kJoin:
      out = n.join_type == JoinType::kInner && all_inputs();
      break;
    default:
      break;
  }
  return insert_only_[&n] = out;
}

Stream* Lowering::Filtered(Stream* in, const PlanNode& filter) {
  Schema schema = filter.inputs[0]->schema();
  ExprPtr pred = filter.predicate;
  std::vector<bool> used = UsedColumns({pred}, schema.size());
  // `row` is this worker's scratch row (each worker lowers its own plan).
  return EvalFilter(in, [schema, pred, used, row = Row()](std::string_view k, std::string_view,
                                                          bool* keep) mutable {
    SLUICE_RETURN_IF_ERROR(DecodeUsed(schema, used, k, &row));
    return OnRow(EvalPredicate(*pred, row, keep), schema, k);
  });
}

Result<Stream*> Lowering::Lower(const PlanPtr& plan) {
  auto it = memo_.find(plan.get());
  if (it != memo_.end()) return it->second;
  SLUICE_ASSIGN_OR_RETURN(Stream * s, LowerNode(*plan));
  memo_[plan.get()] = s;
  return s;
}

Result<Stream*> Lowering::LowerNode(const PlanNode& n) {
  switch (n.kind) {
    case PlanKind::kScan:
      return scan_(n.table);
    case PlanKind::kClock: {
      if (clock_ == nullptr) {
        return Status::Internal("a view that reads NOW() was built without the step clock");
      }
      const Schema schema = n.schema();
      return StepClockRelation(c_, clock_, [schema](int64_t micros, std::string* row) {
        return EncodeRow(schema, Row{Value::Int(micros)}, row);
      });
    }
    case PlanKind::kValues: {
      BatchBuilder b;
      Schema schema = n.schema();
      for (const Row& r : n.rows) {
        std::string row;
        SLUICE_RETURN_IF_ERROR(EncodeRow(schema, r, &row));
        b.Push(row, 1);
      }
      SLUICE_ASSIGN_OR_RETURN(MemBatchPtr batch, b.Finish());
      return Constant(c_, std::move(batch));
    }
    case PlanKind::kFilter: {
      // A WHERE over one FROM item (`a JOIN b ON ... WHERE c1 AND c2`)
      // becomes a filter per conjunct, stacked: together they may bound an
      // inner join's sides by each other, as one filter would.
      std::vector<const PlanNode*> filters = {&n};
      while (filters.back()->inputs[0]->kind == PlanKind::kFilter) {
        filters.push_back(filters.back()->inputs[0].get());
      }
      const PlanNode& below = *filters.back()->inputs[0];
      std::vector<const Expr*> predicates;
      for (const PlanNode* f : filters) predicates.push_back(f->predicate.get());
      JoinRangeRetain range = JoinRangeRetains(below, predicates);
      if (!range.a && !range.b) {
        SLUICE_ASSIGN_OR_RETURN(Stream * in, Lower(n.inputs[0]));
        return Filtered(in, n);
      }
      // This join is the filters' own (not the shared node's stream): it
      // forgets pairs that the filters remove anyway. The filters apply
      // over it in their order, innermost first.
      SLUICE_ASSIGN_OR_RETURN(Stream * in, LowerJoin(below, std::move(range)));
      for (auto f = filters.rbegin(); f != filters.rend(); ++f) in = Filtered(in, **f);
      return in;
    }
    case PlanKind::kProject: {
      SLUICE_ASSIGN_OR_RETURN(Stream * in, Lower(n.inputs[0]));
      Schema in_schema = n.inputs[0]->schema();
      Schema out_schema = n.schema();
      std::vector<ExprPtr> exprs = n.exprs;
      // A column passed on with its type is copied as bytes; the others
      // are evaluated over the columns they read.
      std::vector<int> passed(exprs.size(), -1);
      std::vector<ExprPtr> evaluated;
      std::vector<bool> slice(in_schema.size(), false);
      for (size_t i = 0; i < exprs.size(); ++i) {
        const Expr& e = *exprs[i];
        if (e.kind == ExprKind::kColumn && e.column >= 0 &&
            static_cast<size_t>(e.column) < in_schema.size() &&
            in_schema[static_cast<size_t>(e.column)] == out_schema[i]) {
          passed[i] = e.column;
          slice[static_cast<size_t>(e.column)] = true;
        } else {
          evaluated.push_back(exprs[i]);
        }
      }
      std::vector<bool> used = UsedColumns(evaluated, in_schema.size());
      return EvalMap(
          in, [in_schema, out_schema, exprs, passed, used, slice, row = Row(),
               slices = std::vector<std::string_view>()](std::string_view k, std::string_view,
                                                         std::string* ok, std::string*) mutable {
            SLUICE_RETURN_IF_ERROR(DecodeAndSlice(in_schema, used, slice, k, &row, &slices));
            for (size_t i = 0; i < exprs.size(); ++i) {
              if (passed[i] >= 0) {
                ok->append(slices[static_cast<size_t>(passed[i])]);
                continue;
              }
              Value v;
              SLUICE_RETURN_IF_ERROR(OnRow(Eval(*exprs[i], row, &v), in_schema, k));
              Status s = EncodeValue(out_schema[i], v, ok);
              if (!s.ok())
                return OnRow(s.WithContext("column " + std::to_string(i + 1)), in_schema, k);
            }
            return Status::OK();
          });
    }
    case PlanKind::kJoin:
      return LowerJoin(n);
    case PlanKind::kAggregate:
      return LowerAggregate(n);
    case PlanKind::kDistinct: {
      SLUICE_ASSIGN_OR_RETURN(Stream * in, Lower(n.inputs[0]));
      // A row behind a bound on one of its columns never changes count.
      const Schema schema = n.schema();
      const std::vector<ColumnBound>& bounds = Bounds(n);
      for (size_t i = 0; i < bounds.size(); ++i) {
        if (!bounds[i].empty() && HasIntegerOrder(schema[i])) {
          return Distinct(c_, in, RetainAtOrAfter(schema, static_cast<int>(i), bounds[i]));
        }
      }
      return Distinct(c_, in);
    }
    case PlanKind::kUnionAll: {
      std::vector<Stream*> ins;
      for (const PlanPtr& p : n.inputs) {
        SLUICE_ASSIGN_OR_RETURN(Stream * s, Lower(p));
        // A branch's nullability may differ from the result's.
        SLUICE_ASSIGN_OR_RETURN(s, Reencode(s, p->schema(), n.schema()));
        ins.push_back(s);
      }
      return Union(c_, ins);
    }
    case PlanKind::kExcept:
      return LowerSetOp(n, JoinType::kAnti);
    case PlanKind::kIntersect:
      return LowerSetOp(n, JoinType::kSemi);
    case PlanKind::kExceptAll:
    case PlanKind::kIntersectAll:
      return LowerSetOpAll(n);
    case PlanKind::kTopK:
      return LowerTopK(n);
    case PlanKind::kRank:
      return LowerRank(n);
    case PlanKind::kOver:
      return LowerOver(n);
    case PlanKind::kRecursive:
      return LowerRecursive(n);
    case PlanKind::kWorkingTable:
      return Status::Internal("the working table of a recursive query outside its recursive term");
    case PlanKind::kRolling:
      return LowerRolling(n);
    case PlanKind::kWindow: {
      SLUICE_ASSIGN_OR_RETURN(Stream * in, Lower(n.inputs[0]));
      return Window(c_, in, n.inputs[0]->schema(), n.window);
    }
    case PlanKind::kSeries:
      return LowerSeries(n);
    case PlanKind::kTemporalFilter:
      return LowerTemporalFilter(n);
    case PlanKind::kDraw:
      return LowerDraw(n);
  }
  return Status::Internal("unknown plan node");
}

// The rows of the input while the step clock passes every bound: each
// bound's instant, evaluated over the row, narrows the row's span. A NULL
// instant, or one that fails to evaluate (counted as an evaluation error),
// leaves the row out at every instant, as its comparison would.
Result<Stream*> Lowering::LowerTemporalFilter(const PlanNode& n) {
  if (clock_ == nullptr) {
    return Status::Internal("a view that reads NOW() was built without the step clock");
  }
  SLUICE_ASSIGN_OR_RETURN(Stream * in, Lower(n.inputs[0]));
  const Schema schema = n.inputs[0]->schema();
  const std::vector<TimeBound> bounds = n.time_bounds;
  std::vector<ExprPtr> ats;
  for (const TimeBound& b : bounds) ats.push_back(b.at);
  const std::vector<bool> used = UsedColumns(ats, schema.size());
  EvalErrors* errors = errors_;
  return TemporalFilter(c_, in, clock_,
                        [schema, bounds, used, errors, row = Row()](
                            std::string_view k, std::string_view, TimeSpan* span) mutable {
                          const TimeSpan never{TimeSpan::kNever, TimeSpan::kAlways};
                          SLUICE_RETURN_IF_ERROR(DecodeUsed(schema, used, k, &row));
                          for (const TimeBound& b : bounds) {
                            Value at;
                            Status s = OnRow(Eval(*b.at, row, &at), schema, k);
                            if (!s.ok()) {
                              if (!CountedRowError(s, errors)) return s;
                              *span = never;
                              return Status::OK();
                            }
                            if (at.is_null()) {
                              *span = never;
                              return Status::OK();
                            }
                            const int64_t t = at.int_value();
                            // NOW() >= t or > t (the instant after), NOW() <= t or < t.
                            if (b.lower) {
                              const int64_t from = b.inclusive || t == TimeSpan::kNever ? t : t + 1;
                              span->from = std::max(span->from, from);
                            } else {
                              const int64_t until =
                                  !b.inclusive || t == TimeSpan::kNever ? t : t + 1;
                              span->until = std::min(span->until, until);
                            }
                          }
                          return Status::OK();
                        });
}

// The input's rows, each copy with its own draws, kept until it leaves
// (DrawOp).
Result<Stream*> Lowering::LowerDraw(const PlanNode& n) {
  SLUICE_ASSIGN_OR_RETURN(Stream * in, Lower(n.inputs[0]));
  const Schema in_schema = n.inputs[0]->schema();
  const Schema out_schema = n.schema();
  DrawSpec spec;
  spec.seed = draw_seed_;
  for (int site : n.draw_sites) spec.sites.push_back(static_cast<uint64_t>(site));
  spec.append = [in_schema, out_schema, row = Row()](std::string_view k, const double* draws,
                                                     std::string* out) mutable {
    SLUICE_RETURN_IF_ERROR(DecodeInto(in_schema, k, &row));
    for (size_t i = in_schema.size(); i < out_schema.size(); ++i) {
      row.push_back(Value::Double(draws[i - in_schema.size()]));
    }
    return EncodeRow(out_schema, row, out);
  };
  return Draw(c_, in, std::move(spec));
}

// generate_series(start, stop [, step]) over integers, or unnest(array),
// of each input row: the row once per value, the value appended. Linear: a
// change's rows map to theirs alone. As PostgreSQL: a NULL argument gives no
// rows, a zero step is an error.
namespace {

constexpr int64_t kMaxSeriesRows = 10000000;

// Hands `push` the values of one series over its arguments `vals` (none
// NULL): an array's elements (every dimension's, in order, when `flatten`),
// or generate_series's integers. A series that cannot be (a step of zero,
// too many rows) sets `*bad` after the values pushed so far; what `push`
// fails with is returned.
Status ForEachSeriesValue(SeriesFn fn, const std::vector<Value>& vals, bool flatten,
                          const std::function<Status(const Value&)>& push, Status* bad) {
  if (fn == SeriesFn::kUnnest) {
    std::function<Status(const Value&)> each = [&](const Value& a) -> Status {
      for (const Value& v : a.list()) {
        SLUICE_RETURN_IF_ERROR(flatten && v.kind() == Value::Kind::kList ? each(v) : push(v));
      }
      return Status::OK();
    };
    return each(vals[0]);
  }
  const int64_t start = vals[0].int_value(), stop = vals[1].int_value();
  const int64_t step = vals.size() > 2 ? vals[2].int_value() : 1;
  if (step == 0) {
    *bad = Status::InvalidArgument("step size cannot equal zero");
    return Status::OK();
  }
  int64_t count = 0;
  for (int64_t cur = start; step > 0 ? cur <= stop : cur >= stop; cur += step) {
    if (++count > kMaxSeriesRows) {
      *bad = Status::InvalidArgument("generate_series() of more than 10000000 rows");
      return Status::OK();
    }
    SLUICE_RETURN_IF_ERROR(push(Value::Int(cur)));
    if ((step > 0 && cur > INT64_MAX - step) || (step < 0 && cur < INT64_MIN - step)) break;
  }
  return Status::OK();
}

// Whether unnest() of an array of `elem` takes every dimension's elements:
// when its element is no array, row or variant.
bool FlattensArrays(const SqlType& elem) {
  return elem.id() != TypeId::kArray && elem.id() != TypeId::kRow && elem.id() != TypeId::kVariant;
}

}  // namespace

// Several series in lockstep, per input row: as many rows as the longest
// series, each series' column NULL past its end (PostgreSQL's ProjectSet).
Result<Stream*> Lowering::LowerSeriesInStep(const PlanNode& n) {
  SLUICE_ASSIGN_OR_RETURN(Stream * in, Lower(n.inputs[0]));
  const Schema in_schema = n.inputs[0]->schema();
  const Schema out_schema = n.schema();
  const std::vector<ExprPtr> args = n.exprs;
  const auto zip = n.zip;
  const size_t first_col = out_schema.size() - zip.size();
  const std::vector<std::pair<size_t, Value>> stand_ins =
      StandIns(in_schema, needed_.Of(n), in_schema.size());
  EvalErrors* errors = errors_;
  return FlatMap(c_, in, [=](std::string_view k, std::string_view, const EmitFn& emit) -> Status {
    Row row;
    SLUICE_RETURN_IF_ERROR(DecodeInto(in_schema, k, &row));
    std::vector<std::vector<Value>> series(zip.size());
    size_t at = 0, rows = 0;
    for (size_t f = 0; f < zip.size(); ++f) {
      std::vector<Value> vals(zip[f].second);
      bool null = false;
      for (Value& v : vals) {
        Status s = OnRow(Eval(*args[at++], row, &v), in_schema, k);
        if (!s.ok()) return CountedRowError(s, errors) ? Status::OK() : s;
        null = null || v.is_null();  // a NULL argument: no rows of this one
      }
      if (!null) {
        Status bad;
        std::vector<Value>& values = series[f];
        SLUICE_RETURN_IF_ERROR(ForEachSeriesValue(
            zip[f].first, vals, FlattensArrays(out_schema[first_col + f]),
            [&](const Value& v) {
              values.push_back(v);
              return Status::OK();
            },
            &bad));
        if (!bad.ok()) {
          if (errors == nullptr) return bad;
          errors->Add(bad);
          return Status::OK();
        }
      }
      rows = std::max(rows, series[f].size());
    }
    for (const auto& [i, v] : stand_ins) row[i] = v;
    std::string out;
    for (size_t r = 0; r < rows; ++r) {
      for (size_t f = 0; f < zip.size(); ++f) {
        row.push_back(r < series[f].size() ? series[f][r] : Value::Null());
      }
      out.clear();
      SLUICE_RETURN_IF_ERROR(EncodeRow(out_schema, row, &out));
      emit(out, "");
      row.resize(row.size() - zip.size());
    }
    return Status::OK();
  });
}

Result<Stream*> Lowering::LowerSeries(const PlanNode& n) {
  if (!n.zip.empty()) return LowerSeriesInStep(n);
  SLUICE_ASSIGN_OR_RETURN(Stream * in, Lower(n.inputs[0]));
  const Schema in_schema = n.inputs[0]->schema();
  const Schema out_schema = n.schema();
  const std::vector<ExprPtr> args = n.exprs;
  const SeriesFn fn = n.series;
  const bool ordinality = n.ordinality;
  // Each value's row copies the input row: the columns no reader needs are
  // left out of the copies.
  const std::vector<std::pair<size_t, Value>> stand_ins =
      StandIns(in_schema, needed_.Of(n), in_schema.size());
  EvalErrors* errors = errors_;
  return FlatMap(c_, in, [=](std::string_view k, std::string_view, const EmitFn& emit) -> Status {
    Row row;
    SLUICE_RETURN_IF_ERROR(DecodeInto(in_schema, k, &row));
    std::vector<Value> vals(args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      Status s = OnRow(Eval(*args[i], row, &vals[i]), in_schema, k);
      if (!s.ok()) return CountedRowError(s, errors) ? Status::OK() : s;
      if (vals[i].is_null()) return Status::OK();
    }
    for (const auto& [i, v] : stand_ins) row[i] = v;
    std::string out;
    int64_t place = 0;
    auto push = [&](const Value& v) -> Status {
      row.push_back(v);
      if (ordinality) row.push_back(Value::Int(++place));
      out.clear();
      Status s = EncodeRow(out_schema, row, &out);
      row.resize(in_schema.size());
      if (s.ok()) emit(out, "");
      return s;
    };
    Status bad;
    SLUICE_RETURN_IF_ERROR(
        ForEachSeriesValue(fn, vals, FlattensArrays(out_schema[in_schema.size()]), push, &bad));
    if (!bad.ok()) {
      if (errors == nullptr) return bad;
      errors->Add(bad);
    }
    return Status::OK();
  });
}

Lowering::JoinRangeRetain Lowering::JoinRangeRetains(const PlanNode& join,
                                                     const std::vector<const Expr*>& filters) {
  JoinRangeRetain out;
  if (waterlines_ == nullptr || join.kind != PlanKind::kJoin ||
      join.join_type != JoinType::kInner) {
    return out;
  }
  const Schema schema = join.schema();
  const int lw = static_cast<int>(join.inputs[0]->columns.size());
  const Schema sides[2] = {Schema(schema.begin(), schema.begin() + lw),
                           Schema(schema.begin() + lw, schema.end())};
  std::vector<std::function<bool(std::string_view)>> keep[2];
  std::vector<const Expr*> conjuncts;
  for (const Expr* f : filters) Conjuncts(*f, &conjuncts);
  for (const Expr* c : conjuncts) {
    if (c->kind != ExprKind::kCall || c->args.size() != 2) continue;
    const std::string op = c->fn_name;
    if (op != "<" && op != "<=" && op != ">" && op != ">=") continue;
    if (c->args[0]->type.id() != c->args[1]->type.id()) continue;
    int x, y;
    int64_t xo, yo;
    if (!AsShiftedColumn(*c->args[0], &x, &xo) || !AsShiftedColumn(*c->args[1], &y, &yo)) {
      continue;
    }
    // As hi >= lo + by (a strict comparison read as the weaker one).
    const bool ge = op == ">" || op == ">=";
    const int hi = ge ? x : y, lo = ge ? y : x;
    int64_t by;
    if (__builtin_sub_overflow(ge ? yo : xo, ge ? xo : yo, &by)) continue;
    const int hi_side = hi < lw ? 0 : 1, lo_side = lo < lw ? 0 : 1;
    if (hi_side == lo_side) continue;
    const int hi_col = hi - (hi_side == 0 ? 0 : lw), lo_col = lo - (lo_side == 0 ? 0 : lw);
    // Every later row of lo's side has lo >= its bound, so a row of hi's
    // side with hi < bound + by matches none of them: its side forgets it.
    const ColumnBound& b =
        Bounds(*join.inputs[static_cast<size_t>(lo_side)])[static_cast<size_t>(lo_col)];
    if (b.empty()) continue;
    // A NULL passes no comparison.
    keep[hi_side].push_back(
        RetainAtOrAfter(sides[hi_side], hi_col, b.Shifted(by), /*keep_null=*/false));
  }
  auto all = [](std::vector<std::function<bool(std::string_view)>> fs)
      -> std::function<bool(std::string_view, std::string_view)> {
    if (fs.empty()) return nullptr;
    return [fs = std::move(fs)](std::string_view, std::string_view val) {
      for (const auto& f : fs) {
        if (!f(val)) return false;
      }
      return true;
    };
  };
  out.a = all(std::move(keep[0]));
  out.b = all(std::move(keep[1]));
  return out;
}

Result<Stream*> Lowering::LowerJoin(const PlanNode& n, JoinRangeRetain range) {
  SLUICE_ASSIGN_OR_RETURN(Stream * l, Lower(n.inputs[0]));
  SLUICE_ASSIGN_OR_RETURN(Stream * r, Lower(n.inputs[1]));
  const Schema out = n.schema();
  const size_t lw = n.inputs[0]->columns.size();
  const Schema lout(out.begin(), out.begin() + static_cast<ptrdiff_t>(lw));
  const Schema rout(out.begin() + static_cast<ptrdiff_t>(lw), out.end());
  Schema key_types;
  for (const ExprPtr& k : n.left_keys) key_types.push_back(k->type.WithNullable(true));
  // Keys with a NULL never match (unless the join is null-safe, as joins on
  // the outer values of a correlated subquery are); such rows get a key of
  // their own side that no row of the other side has, so outer joins still
  // pad them.
  const bool null_safe = n.null_safe;
  // A side's columns that no reader of the join needs hold a stand-in (NULL
  // or the type's zero) in its integral and in the join's output, so wide
  // rows do not travel through the join for the sake of a few columns.
  const std::vector<bool> needed = needed_.Of(n);
  auto index = [&](Stream* s, const Schema& in, const Schema& as, const std::vector<ExprPtr>& keys,
                   size_t from, char null_marker) {
    std::vector<bool> drop(as.size());
    std::vector<Value> stand_in(as.size());
    for (size_t i = 0; i < as.size(); ++i) {
      drop[i] = !needed[from + i] && StandIn(as[i], &stand_in[i]);
    }
    // The keys' columns are decoded; a kept column of the same type is
    // copied as bytes, one whose type changes (nullable on an outer
    // join's side) decoded and encoded again.
    std::vector<bool> read = UsedColumns(keys, in.size());
    std::vector<bool> slice(in.size(), false);
    for (size_t i = 0; i < read.size(); ++i) {
      slice[i] = !drop[i] && in[i] == as[i];
      read[i] = read[i] || (!drop[i] && !slice[i]);
    }
    // `row` is this worker's scratch row (each worker lowers its own plan).
    return EvalMap(
        s, [in, as, keys, key_types, null_marker, null_safe, drop, stand_in, read, slice,
            row = Row(), slices = std::vector<std::string_view>()](
               std::string_view k, std::string_view, std::string* ok, std::string* ov) mutable {
          SLUICE_RETURN_IF_ERROR(DecodeAndSlice(in, read, slice, k, &row, &slices));
          for (size_t i = 0; i < keys.size(); ++i) {
            Value v;
            SLUICE_RETURN_IF_ERROR(OnRow(Eval(*keys[i], row, &v), in, k));
            if (v.is_null() && !null_safe) {
              ok->assign(1, null_marker);
              break;
            }
            // NUMERIC values equal but for their scale (1.5, 1.50) match.
            if (key_types[i].dynamic_scale() && !v.is_null()) v = DecimalWithoutTrailingZeros(v);
            SLUICE_RETURN_IF_ERROR(EncodeValue(key_types[i], v, ok));
          }
          for (size_t i = 0; i < as.size(); ++i) {
            if (slice[i]) {
              ov->append(slices[i]);
            } else {
              Status st = EncodeValue(as[i], drop[i] ? stand_in[i] : row[i], ov);
              if (!st.ok()) return OnRow(st.WithContext("column " + std::to_string(i + 1)), in, k);
            }
          }
          return Status::OK();
        });
  };
  Stream* li = index(l, n.inputs[0]->schema(), lout, n.left_keys, 0, '\xfe');
  Stream* ri = index(r, n.inputs[1]->schema(), rout, n.right_keys, lw, '\xfd');
  JoinSpec spec;
  spec.type = n.join_type;
  spec.matched = [](std::string_view, std::string_view va, std::string_view vb, std::string* ok,
                    std::string*) {
    ok->append(va);
    ok->append(vb);
    return Status::OK();
  };
  // A key of one side's integral behind the other side's bound on it is
  // never looked up again by an inner join. Outer, semi and anti joins also
  // read a side's integral at the keys of that side's own changes (to know
  // whether a key's presence flips), so they keep what either side may
  // still touch.
  for (size_t i = 0; i < n.left_keys.size(); ++i) {
    if (!HasIntegerOrder(key_types[i])) continue;
    const int lc = PassedColumn(*n.left_keys[i]), rc = PassedColumn(*n.right_keys[i]);
    const ColumnBound lb = lc >= 0 ? Bounds(*n.inputs[0])[static_cast<size_t>(lc)] : ColumnBound{};
    const ColumnBound rb = rc >= 0 ? Bounds(*n.inputs[1])[static_cast<size_t>(rc)] : ColumnBound{};
    const bool inner = n.join_type == JoinType::kInner;
    const ColumnBound for_b = inner ? lb : ColumnBound::Min(lb, rb);
    const ColumnBound for_a = inner ? rb : ColumnBound::Min(lb, rb);
    if (!spec.retain_b && !for_b.empty()) {
      spec.retain_b = RetainAtOrAfter(key_types, static_cast<int>(i), for_b);
    }
    if (!spec.retain_a && !for_a.empty()) {
      spec.retain_a = RetainAtOrAfter(key_types, static_cast<int>(i), for_a);
    }
  }
  spec.retain_a_values = std::move(range.a);
  spec.retain_b_values = std::move(range.b);
  const size_t rn = rout.size(), ln = lout.size();
  spec.left_pad = [rn](std::string_view, std::string_view va, std::string* ok, std::string*) {
    ok->append(va);
    for (size_t i = 0; i < rn; ++i) AppendNull(ok);
    return Status::OK();
  };
  spec.right_pad = [ln](std::string_view, std::string_view vb, std::string* ok, std::string*) {
    for (size_t i = 0; i < ln; ++i) AppendNull(ok);
    ok->append(vb);
    return Status::OK();
  };
  return Join(c_, li, ri, std::move(spec));
}

Result<Stream*> Lowering::LowerAggregate(const PlanNode& n) {
  SLUICE_ASSIGN_OR_RETURN(Stream * in, Lower(n.inputs[0]));
  const Schema in_schema = n.inputs[0]->schema();
  const Schema out = n.schema();
  const Schema key_types(out.begin(), out.begin() + static_cast<ptrdiff_t>(n.group_keys.size()));
  std::vector<ExprPtr> args;
  Schema arg_types;
  std::vector<AggSpec> specs;
  for (const AggCall& a : n.aggs) {
    AggSpec spec{a.kind, -1};
    spec.desc = a.desc;
    spec.distinct = a.distinct;
    spec.separator = a.separator;
    spec.keyed_order = a.keyed_order;
    if (a.arg) {
      spec.column = static_cast<int>(args.size());
      args.push_back(a.arg);
      arg_types.push_back(a.arg->type.WithNullable(true));
    }
    if (a.arg2) {
      spec.column2 = static_cast<int>(args.size());
      args.push_back(a.arg2);
      arg_types.push_back(a.arg2->type.WithNullable(true));
    }
    if (a.filter) {
      spec.filter_column = static_cast<int>(args.size());
      args.push_back(a.filter);
      arg_types.push_back(SqlType::Boolean());
    }
    specs.push_back(spec);
  }
  std::vector<ExprPtr> keys = n.group_keys;
  std::vector<ExprPtr> read = keys;
  read.insert(read.end(), args.begin(), args.end());
  const std::vector<bool> used = UsedColumns(read, in_schema.size());
  Stream* indexed = EvalMap(
      in, [in_schema, keys, key_types, args, arg_types, used, row = Row()](
              std::string_view k, std::string_view, std::string* ok, std::string* ov) mutable {
        SLUICE_RETURN_IF_ERROR(DecodeUsed(in_schema, used, k, &row));
        SLUICE_RETURN_IF_ERROR(OnRow(EncodeExprs(keys, key_types, row, ok), in_schema, k));
        return OnRow(EncodeExprs(args, arg_types, row, ov), in_schema, k);
      });
  // A group behind a bound on one of its keys gets no more changes.
  std::function<bool(std::string_view)> retain;
  const std::vector<ColumnBound>& bounds = Bounds(n);
  for (size_t i = 0; i < n.group_keys.size() && i < bounds.size(); ++i) {
    if (!bounds[i].empty() && HasIntegerOrder(key_types[i])) {
      retain = RetainAtOrAfter(key_types, static_cast<int>(i), bounds[i]);
      break;
    }
  }
  Stream* agg =
      Aggregate(c_, indexed, arg_types, specs, std::move(retain), InsertOnly(*n.inputs[0]));
  if (n.domain != nullptr) {
    SLUICE_ASSIGN_OR_RETURN(Stream * dom, Lower(n.domain));
    return AddDefaults(n, agg, dom, n.domain->schema());
  }
  if (!n.global) return agg;
  // Without GROUP BY there is one row even over no input: the defaults over
  // a domain of one empty row.
  OrderedBuilder one;
  SLUICE_RETURN_IF_ERROR(one.Push("", "", 1));
  return AddDefaults(n, agg, Constant(c_, one.Finish()), Schema{});
}

Result<Stream*> Lowering::AddDefaults(const PlanNode& n, Stream* agg, Stream* dom,
                                      const Schema& dom_schema) {
  // Every row d of the domain whose group has no row gets (d, COUNT 0, NULL
  // aggregates): Out = G + (D x defaults where G has no row for d).
  const Schema out = n.schema();
  const size_t k = dom_schema.size();
  const Schema key_schema(out.begin(), out.begin() + static_cast<ptrdiff_t>(k));
  std::string defaults;
  for (size_t i = 0; i < n.aggs.size(); ++i) {
    bool count = IsCount(n.aggs[i].kind);
    SLUICE_RETURN_IF_ERROR(
        EncodeValue(out[k + i], count ? Value::Int(0) : Value::Null(), &defaults));
  }
  Stream* d = Map(c_, dom,
                  [dom_schema, key_schema, defaults](std::string_view row, std::string_view,
                                                     std::string* ok, std::string* ov) {
                    SLUICE_ASSIGN_OR_RETURN(Row r, DecodeRow(dom_schema, row));
                    SLUICE_RETURN_IF_ERROR(EncodeRow(key_schema, r, ok));
                    ov->assign(*ok);
                    ov->append(defaults);
                    return Status::OK();
                  });
  Stream* g = Map(
      c_, agg, [out, k](std::string_view row, std::string_view, std::string* ok, std::string* ov) {
        std::vector<std::string_view> fields;
        SLUICE_RETURN_IF_ERROR(SplitRow(out, row, &fields));
        for (size_t i = 0; i < k; ++i) ok->append(fields[i]);
        ov->assign(row);
        return Status::OK();
      });
  JoinSpec anti;
  anti.type = JoinType::kAnti;
  Stream* missing = Join(c_, d, g, std::move(anti));
  Stream* rows =
      Map(c_, missing, [](std::string_view, std::string_view v, std::string* ok, std::string*) {
        ok->assign(v);
        return Status::OK();
      });
  return Union(c_, {agg, rows});
}

Result<Stream*> Lowering::LowerSetOp(const PlanNode& n, JoinType type) {
  SLUICE_ASSIGN_OR_RETURN(Stream * a, Lower(n.inputs[0]));
  SLUICE_ASSIGN_OR_RETURN(Stream * b, Lower(n.inputs[1]));
  SLUICE_ASSIGN_OR_RETURN(a, Reencode(a, n.inputs[0]->schema(), n.schema()));
  SLUICE_ASSIGN_OR_RETURN(Stream * db, Reencode(b, n.inputs[1]->schema(), n.schema()));
  Stream* da = Distinct(c_, a);
  JoinSpec spec;
  spec.type = type;
  return Join(c_, da, db, std::move(spec));
}

Result<Stream*> Lowering::LowerRank(const PlanNode& n) {
  if (n.limit < 0) {
    // No filter bounds the ranking: number every row of its partition.
    PlanNode over = n;
    over.kind = PlanKind::kOver;
    WindowCall call;
    call.kind = n.rank_kind == RankKind::kRank        ? WindowFnKind::kRank
                : n.rank_kind == RankKind::kDenseRank ? WindowFnKind::kDenseRank
                                                      : WindowFnKind::kRowNumber;
    call.type = SqlType::BigInt(false);
    over.window_calls = {call};
    return LowerOver(over);
  }
  SLUICE_ASSIGN_OR_RETURN(Stream * in, Lower(n.inputs[0]));
  if (n.limit == 0) return NoRows(in);
  TopKSpec spec;
  spec.k = static_cast<size_t>(n.limit);
  spec.row_number = n.rank_kind == RankKind::kRowNumber;
  spec.rank = n.rank_kind;
  spec.insert_only = InsertOnly(*n.inputs[0]);
  // A partition behind a bound on one of its keys (a window) gets no more
  // changes.
  Schema part_types;
  for (const ExprPtr& e : n.partition) part_types.push_back(e->type.WithNullable(true));
  for (size_t i = 0; i < n.partition.size(); ++i) {
    const int col = PassedColumn(*n.partition[i]);
    if (col < 0 || !HasIntegerOrder(part_types[i])) continue;
    const ColumnBound& b = Bounds(*n.inputs[0])[static_cast<size_t>(col)];
    if (b.empty()) continue;
    spec.retain = RetainAtOrAfter(part_types, static_cast<int>(i), b);
    break;
  }
  return SortedTopK(in, n.inputs[0]->schema(), n.partition, n.order_exprs, n.order, spec);
}

Result<Stream*> Lowering::LowerSetOpAll(const PlanNode& n) {
  std::vector<Stream*> sides;
  for (const PlanPtr& in : n.inputs) {
    SLUICE_ASSIGN_OR_RETURN(Stream * s, Lower(in));
    SLUICE_ASSIGN_OR_RETURN(s, Reencode(s, in->schema(), n.schema()));
    sides.push_back(s);
  }
  // INTERSECT ALL keeps min(A, B) of each row; EXCEPT ALL keeps
  // max(A - B, 0) = A - min(A, B).
  Stream* both = Intersect(c_, sides[0], sides[1]);
  if (n.kind == PlanKind::kIntersectAll) return both;
  return Subtract(c_, sides[0], both);
}

Result<Stream*> Lowering::Reencode(Stream* s, const Schema& from, const Schema& to) {
  if (from == to) return s;
  return Map(c_, s,
             [from, to](std::string_view k, std::string_view, std::string* ok, std::string*) {
               SLUICE_ASSIGN_OR_RETURN(Row row, DecodeRow(from, k));
               return EncodeRow(to, row, ok);
             });
}

Result<Stream*> Lowering::LowerRolling(const PlanNode& n) {
  SLUICE_ASSIGN_OR_RETURN(Stream * in, Lower(n.inputs[0]));
  const Schema schema = n.inputs[0]->schema();
  Schema part_types;
  for (const ExprPtr& e : n.partition) part_types.push_back(e->type.WithNullable(true));
  const ExprPtr key = n.order_exprs[0];
  const ExprPtr arg = n.rolling.arg;
  // Values: the order key (NOT NULL, so that it sorts and seeks), the
  // argument, then the row itself.
  Schema val_schema = {key->type.WithNullable(false),
                       arg ? arg->type.WithNullable(true) : SqlType::BigInt()};
  val_schema.insert(val_schema.end(), schema.begin(), schema.end());
  std::vector<ExprPtr> partition = n.partition;
  std::vector<ExprPtr> read = partition;
  read.push_back(key);
  if (arg) read.push_back(arg);
  const std::vector<bool> used = UsedColumns(read, schema.size());
  Stream* keyed = EvalMap(
      in, [schema, partition, part_types, key, arg, val_schema, used, row = Row()](
              std::string_view k, std::string_view, std::string* ok, std::string* ov) mutable {
        SLUICE_RETURN_IF_ERROR(DecodeUsed(schema, used, k, &row));
        SLUICE_RETURN_IF_ERROR(OnRow(EncodeExprs(partition, part_types, row, ok), schema, k));
        Value kv, av;
        SLUICE_RETURN_IF_ERROR(OnRow(Eval(*key, row, &kv), schema, k));
        if (kv.is_null()) {
          // A NULL order key has no place in a range: the row gets no result.
          return Status::InvalidArgument("a RANGE window's ORDER BY value is NULL (in row " +
                                         RowToString(schema, k) + ")");
        }
        if (arg) SLUICE_RETURN_IF_ERROR(OnRow(Eval(*arg, row, &av), schema, k));
        SLUICE_RETURN_IF_ERROR(EncodeValue(val_schema[0], kv, ov));
        SLUICE_RETURN_IF_ERROR(EncodeValue(val_schema[1], arg ? av : Value::Null(), ov));
        ov->append(k);
        return Status::OK();
      });
  RollingSpec spec;
  spec.range = n.range;
  spec.agg = AggSpec{n.rolling.kind, arg ? 1 : -1};
  Stream* rolled = RollingAggregate(c_, keyed, val_schema, spec);
  // The row (after the order key and the argument), then the aggregate.
  const Schema head(val_schema.begin(), val_schema.begin() + 2);
  return Map(c_, rolled,
             [head](std::string_view, std::string_view v, std::string* ok, std::string*) {
               for (const SqlType& t : head) SLUICE_RETURN_IF_ERROR(SkipValue(t, &v));
               ok->assign(v);
               return Status::OK();
             });
}

Result<Stream*> Lowering::LowerTopK(const PlanNode& n) {
  SLUICE_ASSIGN_OR_RETURN(Stream * in, Lower(n.inputs[0]));
  if (n.limit == 0) return NoRows(in);
  const Schema schema = n.schema();
  std::vector<ExprPtr> order_exprs;
  for (const SortKey& sk : n.order) {
    order_exprs.push_back(MakeColumn(sk.column, schema[static_cast<size_t>(sk.column)]));
  }
  // One partition: the first limit + offset rows, numbered when there is an
  // OFFSET so that the first ones can be dropped.
  TopKSpec spec;
  spec.k = static_cast<size_t>(n.limit < 0 ? INT64_MAX : n.limit + n.offset);
  spec.row_number = n.offset > 0;
  spec.insert_only = InsertOnly(*n.inputs[0]);
  Stream* top = SortedTopK(in, schema, {}, order_exprs, n.order, spec);
  const int64_t offset = n.offset;
  if (offset == 0) return top;
  Stream* kept = Filter(c_, top, [offset](std::string_view k, std::string_view, bool* keep) {
    std::string_view rn = k.substr(k.size() - 8);
    int64_t n;
    ReadInt(TypeId::kBigInt, false, &rn, &n);
    *keep = n > offset;
    return Status::OK();
  });
  return Map(c_, kept, [](std::string_view k, std::string_view, std::string* ok, std::string*) {
    ok->assign(k.substr(0, k.size() - 8));
    return Status::OK();
  });
}

Stream* Lowering::NoRows(Stream* in) {
  return Filter(c_, in, [](std::string_view, std::string_view, bool* keep) {
    *keep = false;
    return Status::OK();
  });
}

Stream* Lowering::InSortOrder(Stream* in, const Schema& schema,
                              const std::vector<ExprPtr>& partition,
                              const std::vector<ExprPtr>& order_exprs,
                              const std::vector<SortKey>& order) {
  Schema part_types;
  for (const ExprPtr& e : partition) part_types.push_back(e->type.WithNullable(true));
  std::vector<ExprPtr> read = partition;
  read.insert(read.end(), order_exprs.begin(), order_exprs.end());
  const std::vector<bool> used = UsedColumns(read, schema.size());
  return EvalMap(
      in, [schema, partition, part_types, order_exprs, order, used, row = Row()](
              std::string_view k, std::string_view, std::string* ok, std::string* ov) mutable {
        SLUICE_RETURN_IF_ERROR(DecodeUsed(schema, used, k, &row));
        SLUICE_RETURN_IF_ERROR(OnRow(EncodeExprs(partition, part_types, row, ok), schema, k));
        for (size_t i = 0; i < order_exprs.size(); ++i) {
          Value v;
          SLUICE_RETURN_IF_ERROR(OnRow(Eval(*order_exprs[i], row, &v), schema, k));
          AppendSortField(order_exprs[i]->type, v, order[i], ov);
        }
        ov->append(k);
        return Status::OK();
      });
}

namespace {

// The working tables of the recursive queries within `n`, into `out`.
void InnerWorkingTables(const PlanNode* n, std::set<const PlanNode*>* seen,
                        std::set<const PlanNode*>* out) {
  if (!seen->insert(n).second) return;
  if (n->kind == PlanKind::kRecursive && n->working != nullptr) out->insert(n->working.get());
  if (n->domain != nullptr) InnerWorkingTables(n->domain.get(), seen, out);
  for (const PlanPtr& in : n->inputs) InnerWorkingTables(in.get(), seen, out);
}

// Whether `n` reads one of the working tables `leaves` (memoized in `memo`).
bool ReadsWorkingTable(const PlanNode* n, const std::set<const PlanNode*>& leaves,
                       std::map<const PlanNode*, bool>* memo) {
  if (leaves.count(n)) return true;
  auto it = memo->find(n);
  if (it != memo->end()) return it->second;
  bool reads = n->domain != nullptr && ReadsWorkingTable(n->domain.get(), leaves, memo);
  for (const PlanPtr& in : n->inputs) reads = reads || ReadsWorkingTable(in.get(), leaves, memo);
  (*memo)[n] = reads;
  return reads;
}

// The largest parts of `n` that read none of the working tables `leaves`
// (the recursion's own, and those of recursions within its step, which only
// their own step can compute), in a fixed order, each once.
void StepInputs(const PlanPtr& n, const std::set<const PlanNode*>& leaf,
                std::map<const PlanNode*, bool>* memo, std::vector<PlanPtr>* out) {
  if (!ReadsWorkingTable(n.get(), leaf, memo)) {
    for (const PlanPtr& p : *out) {
      if (p == n) return;
    }
    out->push_back(n);
    return;
  }
  if (n->domain != nullptr) StepInputs(n->domain, leaf, memo, out);
  for (const PlanPtr& in : n->inputs) StepInputs(in, leaf, memo, out);
}

// How many ways `n` reads the working table `leaf`, through operators
// that keep the result linear in it (RecursiveSpec::linear): filters,
// projections, UNION ALL, per-row series and windows, and joins that pair
// each of its rows with rows of other relations (inner; outer and semi or
// anti joins with it on the side whose rows they keep). 2 stands for "not
// linear": read twice, or through any other operator.
int LinearReads(const PlanNode* n, const std::set<const PlanNode*>& leaf,
                std::map<const PlanNode*, bool>* memo) {
  if (leaf.count(n) != 0) return 1;
  if (!ReadsWorkingTable(n, leaf, memo)) return 0;
  if (n->domain != nullptr && ReadsWorkingTable(n->domain.get(), leaf, memo)) return 2;
  std::vector<int> reads;
  int total = 0;
  for (const PlanPtr& in : n->inputs) {
    reads.push_back(LinearReads(in.get(), leaf, memo));
    total += reads.back();
  }
  if (total > 1) return 2;
  switch (n->kind) {
    case PlanKind::kFilter:
    case PlanKind::kProject:
    case PlanKind::kUnionAll:
    case PlanKind::kSeries:
    case PlanKind::kWindow:
      return total;
    case PlanKind::kJoin: {
      const bool left = reads[0] == 1;
      switch (n->join_type) {
        case JoinType::kInner:
          return total;
        case JoinType::kLeft:
        case JoinType::kSemi:
        case JoinType::kAnti:
          return left ? total : 2;
        case JoinType::kRight:
          return left ? 2 : total;
        default:
          return 2;
      }
    }
    default:
      return 2;
  }
}

}  // namespace

// The recursive term runs in a circuit of its own (RecursiveOp), once per
// iteration; what it reads besides the working table is computed here, in
// this circuit, and becomes that circuit's inputs.
Result<Stream*> Lowering::LowerRecursive(const PlanNode& n) {
  SLUICE_ASSIGN_OR_RETURN(Stream * base, Lower(n.inputs[0]));
  SLUICE_ASSIGN_OR_RETURN(base, Reencode(base, n.inputs[0]->schema(), n.schema()));
  const PlanPtr step = n.inputs[1];
  const PlanPtr working = n.working;
  std::map<const PlanNode*, bool> memo;
  std::vector<PlanPtr> parts;
  std::set<const PlanNode*> seen, leaves = {working.get()};
  InnerWorkingTables(step.get(), &seen, &leaves);
  StepInputs(step, leaves, &memo, &parts);
  std::vector<Stream*> others;
  for (const PlanPtr& p : parts) {
    SLUICE_ASSIGN_OR_RETURN(Stream * s, Lower(p));
    others.push_back(s);
  }
  RecursiveSpec spec;
  spec.name = n.table;
  spec.set = n.set_union;
  spec.linear = LinearReads(step.get(), leaves, &memo) == 1;
  spec.runaway_error = n.runaway_error;
  spec.max_iterations = recursion_limits_.iterations;
  spec.max_rows = static_cast<uint64_t>(recursion_limits_.rows);
  spec.max_bytes = static_cast<uint64_t>(std::min<int64_t>(recursion_limits_.mb, int64_t{1} << 40))
                   << 20;
  EvalErrors* errors = errors_;
  spec.on_error = [errors](const Status& s) { errors->Add(s); };
  // By the view it serves: "view:v" owns the operators being added.
  std::string query = c_.owner();
  if (query.rfind("view:", 0) == 0) query.erase(0, 5);
  query += (query.empty() ? "" : ".") + n.table;
  spec.on_step = [errors, query](bool from_scratch, int64_t iterations) {
    errors->AddRecursionStep(query, from_scratch, iterations);
  };
  const Schema out_schema = n.schema();
  spec.build = [step, working, parts, errors, out_schema](Circuit& c) -> Status {
    Lowering inner(
        c, [&c](const std::string&) { return AddInput(c, "unused"); }, errors);
    inner.memo_[working.get()] = AddInput(c, "w");
    for (size_t i = 0; i < parts.size(); ++i) {
      inner.memo_[parts[i].get()] = AddInput(c, "in" + std::to_string(i));
    }
    SLUICE_ASSIGN_OR_RETURN(Stream * out, inner.Lower(step));
    SLUICE_ASSIGN_OR_RETURN(out, inner.Reencode(out, step->schema(), out_schema));
    AddOutput(c, out, "out");
    return Status::OK();
  };
  return Recursive(c_, base, others, std::move(spec));
}

Result<Stream*> Lowering::LowerOver(const PlanNode& n) {
  SLUICE_ASSIGN_OR_RETURN(Stream * in, Lower(n.inputs[0]));
  const Schema schema = n.inputs[0]->schema();
  const Schema out_schema = n.schema();
  const std::vector<ExprPtr>& order_exprs = n.order_exprs;
  const std::vector<SortKey>& order = n.order;
  // Sorted by the order keys, then the tie keys, which do not make peers.
  std::vector<ExprPtr> sort_exprs = order_exprs;
  std::vector<SortKey> sort_order = order;
  sort_exprs.insert(sort_exprs.end(), n.tie_exprs.begin(), n.tie_exprs.end());
  sort_order.insert(sort_order.end(), n.tie_order.begin(), n.tie_order.end());
  Stream* keyed = InSortOrder(in, schema, n.partition, sort_exprs, sort_order);
  bool range_keys = false;
  for (const WindowCall& c : n.window_calls) {
    const auto& f = c.frame;
    range_keys |=
        f.unit == WindowFrame::Unit::kRange &&
        (f.start == WindowFrame::Bound::kPreceding || f.start == WindowFrame::Bound::kFollowing ||
         f.end == WindowFrame::Bound::kPreceding || f.end == WindowFrame::Bound::kFollowing);
  }
  const bool desc = !order.empty() && order[0].desc;
  std::vector<WindowCall> calls = n.window_calls;
  OverSpec spec;
  spec.reach = WindowReach(calls);
  // Whole partitions: a partition whose functions fail to evaluate (a NULL
  // frame offset of a subquery, ntile(0)) has no output rows, and the
  // error is counted, as a row that fails a projection is. Its contents
  // decide its output alone, so the change stays the difference of two
  // states. (With a reach, a run's outputs are not a partition's: an error
  // stops the step.)
  EvalErrors* errors = spec.reach ? nullptr : errors_;
  spec.compute = [schema, out_schema, order_exprs, order, sort_exprs, sort_order, calls, range_keys,
                  desc, errors](const OverSpec::Rows& rows, size_t from, size_t to,
                                std::vector<std::pair<std::string, Weight>>* out) -> Status {
    PartitionRows p;
    p.desc = desc;
    p.range_key_days = order_exprs.size() == 1 && order_exprs[0]->type.id() == TypeId::kDate;
    std::string_view last_key;
    size_t group = 0;
    for (const auto& [stored, w] : rows) {
      const std::string_view val = stored;
      std::string_view rest = val;
      for (size_t i = 0; i < order_exprs.size(); ++i) {
        SLUICE_RETURN_IF_ERROR(SkipSortField(order_exprs[i]->type, order[i], &rest));
      }
      std::string_view key = val.substr(0, val.size() - rest.size());
      if (!p.rows.empty() && key != last_key) ++group;
      last_key = key;
      for (size_t i = order_exprs.size(); i < sort_exprs.size(); ++i) {
        SLUICE_RETURN_IF_ERROR(SkipSortField(sort_exprs[i]->type, sort_order[i], &rest));
      }
      Row row;
      SLUICE_RETURN_IF_ERROR(DecodeInto(schema, rest, &row));
      std::optional<long double> rk;
      if (range_keys) {
        Value v;
        SLUICE_RETURN_IF_ERROR(Eval(*order_exprs[0], row, &v));
        rk = RangeNumber(v, order_exprs[0]->type);
      }
      for (Weight i = 0; i < w; ++i) {
        p.rows.push_back(row);
        p.peer.push_back(group);
        if (range_keys) p.range_key.push_back(rk);
      }
    }
    std::vector<Row> values;
    Status evaluated = EvalWindowCalls(calls, p, &values);
    if (!evaluated.ok()) return CountedRowError(evaluated, errors) ? Status::OK() : evaluated;
    for (size_t i = from; i < to && i < p.rows.size(); ++i) {
      Row r = p.rows[i];
      for (Value& v : values[i]) r.push_back(std::move(v));
      std::string enc;
      SLUICE_RETURN_IF_ERROR(EncodeRow(out_schema, r, &enc));
      out->emplace_back(std::move(enc), 1);
    }
    return Status::OK();
  };
  return Over(c_, keyed, std::move(spec));
}

Stream* Lowering::SortedTopK(Stream* in, const Schema& schema, std::vector<ExprPtr> partition,
                             std::vector<ExprPtr> order_exprs, std::vector<SortKey> order,
                             TopKSpec spec) {
  Stream* keyed = InSortOrder(in, schema, partition, order_exprs, order);
  // The sort key's length: peers for RANK and DENSE_RANK share it, and it is
  // dropped from the output.
  auto key_length = [order_exprs, order](std::string_view val) {
    std::string_view rest = val;
    for (size_t i = 0; i < order_exprs.size(); ++i) {
      if (!SkipSortField(order_exprs[i]->type, order[i], &rest).ok()) return val.size();
    }
    return val.size() - rest.size();
  };
  spec.order_key = key_length;
  Stream* top = TopK(c_, keyed, spec);
  // The row, then its number or rank when the spec asks for one.
  return Map(c_, top,
             [key_length](std::string_view, std::string_view v, std::string* ok, std::string*) {
               ok->assign(v.substr(key_length(v)));
               return Status::OK();
             });
}

}  // namespace sluice::sql
