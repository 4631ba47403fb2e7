#include "sql/over.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <limits>

#include "sql/datetime.h"
#include "types/big_decimal.h"
#include "types/time_tz.h"

namespace sluice::sql {
namespace {

using Bound = WindowFrame::Bound;
using Unit = WindowFrame::Unit;
using Exclude = WindowFrame::Exclude;

// The rows [lo, hi) of a frame, less the excluded ones [xlo, xhi) (except
// `keep`, for EXCLUDE TIES).
struct Frame {
  size_t lo = 0, hi = 0, xlo = 0, xhi = 0, keep = SIZE_MAX;
  bool In(size_t j) const { return j >= lo && j < hi && (j < xlo || j >= xhi || j == keep); }
  bool Plain() const { return xlo >= xhi; }
};

class Partition {
 public:
  explicit Partition(const PartitionRows& p) : p_(p), n_(p.rows.size()) {
    for (size_t i = 0; i < n_; ++i) {
      if (i == 0 || p.peer[i] != p.peer[i - 1]) group_start_.push_back(i);
    }
    for (size_t g = 0; g < group_start_.size(); ++g)
      group_end_.push_back(g + 1 < group_start_.size() ? group_start_[g + 1] : n_);
    // The rows whose RANGE key is not NULL: one run, NULLs sort to an end.
    if (!p.range_key.empty()) {
      nn_lo_ = 0;
      while (nn_lo_ < n_ && !p.range_key[nn_lo_]) ++nn_lo_;
      nn_hi_ = nn_lo_;
      while (nn_hi_ < n_ && p.range_key[nn_hi_]) ++nn_hi_;
    }
  }

  size_t size() const { return n_; }
  size_t GroupStart(size_t i) const { return group_start_[p_.peer[i]]; }
  size_t GroupEnd(size_t i) const { return group_end_[p_.peer[i]]; }
  size_t Groups() const { return group_start_.size(); }

  Frame FrameOf(const WindowFrame& f, size_t i) const {
    Frame r;
    r.lo = Edge(f, f.start, f.start_offset, f.start_months, /*start=*/true, i);
    r.hi = std::max(r.lo, Edge(f, f.end, f.end_offset, f.end_months, /*start=*/false, i));
    switch (f.exclude) {
      case Exclude::kNoOthers:
        break;
      case Exclude::kCurrentRow:
        r.xlo = i, r.xhi = i + 1;
        break;
      case Exclude::kGroup:
        r.xlo = GroupStart(i), r.xhi = GroupEnd(i);
        break;
      case Exclude::kTies:
        r.xlo = GroupStart(i), r.xhi = GroupEnd(i), r.keep = i;
        break;
    }
    return r;
  }

 private:
  // Where a frame bound puts the frame's start (the first row in it) or its
  // end (one past the last) for row i.
  size_t Edge(const WindowFrame& f, Bound b, long double off, int32_t months, bool start,
              size_t i) const {
    switch (b) {
      case Bound::kUnboundedPreceding:
        return 0;
      case Bound::kUnboundedFollowing:
        return n_;
      case Bound::kCurrentRow:
        if (f.unit == Unit::kRows) return start ? i : i + 1;
        return start ? GroupStart(i) : GroupEnd(i);
      case Bound::kPreceding:
      case Bound::kFollowing: {
        const long double delta = b == Bound::kPreceding ? -off : off;
        if (f.unit == Unit::kRows) {
          long double at = static_cast<long double>(i) + delta + (start ? 0 : 1);
          return static_cast<size_t>(std::clamp<long double>(at, 0, static_cast<long double>(n_)));
        }
        if (f.unit == Unit::kGroups) {
          long double at = static_cast<long double>(p_.peer[i]) + delta;
          if (at < 0) return 0;
          if (at >= static_cast<long double>(Groups())) return n_;
          return (start ? group_start_ : group_end_)[static_cast<size_t>(at)];
        }
        return RangeBound(i, delta, b == Bound::kPreceding ? -months : months, start);
      }
    }
    return start ? 0 : n_;
  }

  // RANGE with an offset: the frame of row i reaches the rows whose key is
  // within `delta` of its own (delta < 0: preceding). A NULL key's frame is
  // its NULL peers; non-NULL keys never reach the NULLs.
  size_t RangeBound(size_t i, long double delta, int32_t months, bool start) const {
    if (!p_.range_key[i]) return start ? GroupStart(i) : GroupEnd(i);
    // In window order, "preceding" is toward smaller keys when ascending,
    // toward larger ones when descending. The start bound takes the rows
    // not before base -/+ offset, the end bound those not after it.
    long double base = *p_.range_key[i];
    const bool preceding = delta < 0 || months < 0;
    const long double off = delta < 0 ? -delta : delta;
    const bool sub = preceding != p_.desc;
    const bool less = start == p_.desc;
    if (months != 0) base = AddMonths(base, sub ? -std::abs(months) : std::abs(months));
    auto in_range = [&](size_t j) { return InRange(*p_.range_key[j], base, off, sub, less); };
    // The rows in range are a run that starts at the start bound's row (the
    // ones before it are out of range) or ends at the end bound's.
    size_t lo = nn_lo_, hi = nn_hi_;
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (in_range(mid) != start) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  // A date or timestamp key moved by `months` on the calendar (a date as
  // its midnight, in days again), as PostgreSQL adds an interval.
  long double AddMonths(long double key, int32_t months) const {
    if (std::isinf(key) || std::abs(key) >= 9.2e18L) return key;
    const int64_t micros = static_cast<int64_t>(p_.range_key_days ? key * 86400e6L : key);
    int64_t moved;
    if (!AddInterval(micros, Interval{months, 0, 0}, 1, &moved)) return key;
    return p_.range_key_days ? static_cast<long double>(moved) / 86400e6L
                             : static_cast<long double>(moved);
  }

  // PostgreSQL's in_range for floats and numerics: whether `val` is within
  // `off` of `base` (below base - off if `sub`, else base + off; at or below
  // it if `less`, at or above it if not). NaN sorts after every other value
  // and equals NaN; an infinite offset from an infinite base that would
  // give NaN (Infinity - Infinity) reaches every value.
  static bool InRange(long double val, long double base, long double off, bool sub, bool less) {
    if (std::isnan(val)) return std::isnan(base) ? true : !less;
    if (std::isnan(base)) return less;
    if (std::isinf(off) && std::isinf(base) && (sub ? base > 0 : base < 0)) return true;
    const long double sum = sub ? base - off : base + off;
    return less ? val <= sum : val >= sum;
  }

  const PartitionRows& p_;
  size_t n_;
  std::vector<size_t> group_start_, group_end_;
  size_t nn_lo_ = 0, nn_hi_ = 0;
};

Status EvalArg(const WindowCall& c, size_t k, const Row& row, Value* out) {
  return Eval(*c.args[k], row, out);
}

// An aggregate over a frame's rows, added one at a time.
class FrameAgg {
 public:
  FrameAgg(const WindowCall& c) : c_(c) {
    if (!c.args.empty()) arg_type_ = c.args[0]->type;
  }
  void Reset() {
    count_ = 0;
    isum_ = 0;
    dsum_ = 0;
    best_ = Value::Null();
    stats_ = LinearAcc();
    dec_ = LinearAcc();
    yc_ = YoungsCramer();
    items_.clear();
  }
  // REQUIRES: a row leaves (sign -1) only after it entered, and rows leave
  // in the order they entered (a frame slides forward).
  Status Add(const Row& row, int sign) {
    bool passes = true;
    if (c_.filter != nullptr) {
      Value pass;
      SLUICE_RETURN_IF_ERROR(Eval(*c_.filter, row, &pass));
      passes = !pass.is_null() && pass.bool_value();
    }
    if (Collects()) {
      if (sign < 0) {
        items_.pop_front();
        return Status::OK();
      }
      std::optional<Value> item;
      if (passes) {
        Value v;
        SLUICE_RETURN_IF_ERROR(EvalArg(c_, 0, row, &v));
        if (!v.is_null() || c_.agg == AggKind::kArrayAgg) item = std::move(v);
      }
      items_.push_back(std::move(item));
      return Status::OK();
    }
    if (!passes) return Status::OK();
    if (IsStatistical(c_.agg)) {
      Value y, x;
      SLUICE_RETURN_IF_ERROR(EvalArg(c_, 0, row, &y));
      if (c_.args.size() > 1) SLUICE_RETURN_IF_ERROR(EvalArg(c_, 1, row, &x));
      if (!Floats()) return StatsAdd(StatSpec(), arg_type_, y, x, sign, &stats_);
      if (y.is_null() || (c_.args.size() > 1 && x.is_null())) return Status::OK();
      return c_.args.size() > 1 ? yc_.Add(y.double_value(), x.double_value())
                                : yc_.Add(y.double_value());
    }
    if (c_.agg == AggKind::kCountStar) {
      count_ += sign;
      return Status::OK();
    }
    Value v;
    SLUICE_RETURN_IF_ERROR(EvalArg(c_, 0, row, &v));
    if (v.is_null()) return Status::OK();
    count_ += sign;
    switch (c_.agg) {
      case AggKind::kSum:
      case AggKind::kAvg:
        if (v.kind() == Value::Kind::kInt) {
          isum_ += sign * static_cast<int128>(v.int_value());
        } else if (arg_type_.id() == TypeId::kInterval) {
          SLUICE_RETURN_IF_ERROR(AccAddInterval(v.interval_value(), sign, &dec_));
          dec_.count += sign;
        } else if (v.kind() == Value::Kind::kDecimal) {
          SLUICE_RETURN_IF_ERROR(AddDecimal(arg_type_, v, sign, &dec_));
          dec_.count += sign;
        } else {
          dsum_ += sign * v.double_value();
        }
        break;
      case AggKind::kMin:
      case AggKind::kMax: {
        int cmp = best_.is_null() ? 1 : CompareValues(v, best_);
        if (best_.is_null() || (c_.agg == AggKind::kMin ? cmp < 0 : cmp > 0)) best_ = v;
        break;
      }
      default:
        break;
    }
    return Status::OK();
  }
  // Whether Add(row, -1) undoes an Add(row, +1) exactly.
  bool Invertible() const {
    if (c_.agg == AggKind::kCountStar || c_.agg == AggKind::kCount || Collects()) return true;
    if (c_.agg == AggKind::kMin || c_.agg == AggKind::kMax) return false;
    // Exact sums of integers and decimals; doubles accumulate in the frame's
    // order as PostgreSQL does, which has no inverse.
    if (IsStatistical(c_.agg)) return !Floats();
    return arg_type_.IsInteger() || arg_type_.id() == TypeId::kDecimal ||
           arg_type_.id() == TypeId::kInterval;
  }
  // The aggregate's value, then `finish` applied to it if the call has one.
  Status Result(Value* out) const {
    SLUICE_RETURN_IF_ERROR(Aggregated(out));
    if (c_.finish == nullptr) return Status::OK();
    Row one = {std::move(*out)};
    return Eval(*c_.finish, one, out);
  }

 private:
  Status Aggregated(Value* out) const {
    if (Collects()) {
      std::vector<Value> values;
      for (const std::optional<Value>& v : items_) {
        if (v.has_value()) values.push_back(*v);
      }
      AggSpec spec{c_.agg, 0};
      spec.separator = c_.separator;
      const SqlType vt = arg_type_.WithNullable(true);
      SLUICE_ASSIGN_OR_RETURN(SqlType out_type, AggOutputType(spec, {vt}));
      SLUICE_ASSIGN_OR_RETURN(*out, CollectedResult(spec, out_type, vt, std::move(values)));
      return Status::OK();
    }
    if (IsStatistical(c_.agg) && Floats()) {
      *out = yc_.Result(c_.agg);
      return Status::OK();
    }
    if (IsStatistical(c_.agg)) {
      SLUICE_ASSIGN_OR_RETURN(*out, StatsResult(StatSpec(), arg_type_, stats_));
      return Status::OK();
    }
    switch (c_.agg) {
      case AggKind::kCountStar:
      case AggKind::kCount:
        *out = Value::Int(count_);
        return Status::OK();
      case AggKind::kMin:
      case AggKind::kMax:
        *out = best_;
        return Status::OK();
      case AggKind::kSum:
        if (count_ == 0) {
          *out = Value::Null();
        } else if (arg_type_.id() == TypeId::kInterval) {
          SLUICE_ASSIGN_OR_RETURN(*out, IntervalSum(dec_));
        } else if (arg_type_.pg_kind() == PgKind::kMoney) {
          if (isum_ > INT64_MAX || isum_ < INT64_MIN) return Status::Overflow("money out of range");
          *out = Value::Int(static_cast<int64_t>(isum_));
        } else if (arg_type_.id() == TypeId::kBigInt) {  // NUMERIC, as in PostgreSQL
          *out = BigDecimal::FromInt128(isum_, 0).ToValue();
        } else if (arg_type_.IsInteger()) {
          if (isum_ > INT64_MAX || isum_ < INT64_MIN)
            return Status::Overflow("bigint out of range in SUM");
          *out = Value::Int(static_cast<int64_t>(isum_));
        } else if (arg_type_.id() == TypeId::kDecimal) {
          *out = DecimalSum(arg_type_, dec_);
        } else {
          *out = Value::Double(dsum_);
        }
        return Status::OK();
      case AggKind::kAvg:
        if (count_ == 0) {
          *out = Value::Null();
        } else if (arg_type_.id() == TypeId::kInterval) {
          SLUICE_ASSIGN_OR_RETURN(*out, IntervalAvg(dec_));
        } else if (arg_type_.IsInteger()) {
          SLUICE_ASSIGN_OR_RETURN(*out, AvgNumeric(isum_, 0, count_));
        } else if (arg_type_.id() == TypeId::kDecimal) {
          SLUICE_ASSIGN_OR_RETURN(*out, DecimalAvg(arg_type_, dec_));
        } else {
          *out = Value::Double(dsum_ / static_cast<double>(count_));
        }
        return Status::OK();
      default:
        return Status::Internal("an aggregate the window cannot compute");
    }
  }

  bool Collects() const { return c_.agg == AggKind::kArrayAgg || c_.agg == AggKind::kStringAgg; }
  bool Floats() const {
    return c_.args.size() > 1 || arg_type_.id() == TypeId::kDouble ||
           arg_type_.id() == TypeId::kReal;
  }
  AggSpec StatSpec() const {
    AggSpec spec{c_.agg, 0};
    if (c_.args.size() > 1) spec.column2 = 1;
    return spec;
  }

  const WindowCall& c_;
  SqlType arg_type_;
  LinearAcc stats_;   // the statistics of integers and decimals
  LinearAcc dec_;     // SUM and AVG of decimals and intervals
  YoungsCramer yc_;  // of doubles
  int64_t count_ = 0;
  int128 isum_ = 0;
  double dsum_ = 0;
  Value best_;
  // ARRAY_AGG, STRING_AGG: the values of the frame's rows in order, nullopt
  // for a row left out (by FILTER, or a NULL of STRING_AGG).
  std::deque<std::optional<Value>> items_;
};

Status EvalAggregate(const WindowCall& c, const Partition& part, const PartitionRows& p,
                     std::vector<Row>* out) {
  FrameAgg agg(c);
  agg.Reset();
  size_t lo = 0, hi = 0;  // what `agg` holds
  for (size_t i = 0; i < part.size(); ++i) {
    Frame f = part.FrameOf(c.frame, i);
    Value v;
    if (!f.Plain()) {
      FrameAgg once(c);
      once.Reset();
      for (size_t j = f.lo; j < f.hi; ++j) {
        if (f.In(j)) SLUICE_RETURN_IF_ERROR(once.Add(p.rows[j], +1));
      }
      SLUICE_RETURN_IF_ERROR(once.Result(&v));
      (*out)[i].push_back(std::move(v));
      continue;
    }
    // Slide [lo, hi) to [f.lo, f.hi): add what enters, remove what leaves
    // when removal is exact; otherwise start over at the new start, as
    // PostgreSQL restarts an aggregate without an inverse.
    if (f.lo < lo || f.hi < hi || (f.lo > lo && !agg.Invertible())) {
      agg.Reset();
      lo = hi = f.lo;
    }
    for (; lo < f.lo; ++lo) {
      if (lo < hi) SLUICE_RETURN_IF_ERROR(agg.Add(p.rows[lo], -1));
    }
    if (hi < lo) hi = lo;
    for (; hi < f.hi; ++hi) SLUICE_RETURN_IF_ERROR(agg.Add(p.rows[hi], +1));
    SLUICE_RETURN_IF_ERROR(agg.Result(&v));
    (*out)[i].push_back(std::move(v));
  }
  return Status::OK();
}

// Whether `e` reads no column (so it has one value for every row).
bool IsConstant(const Expr& e) {
  if (e.kind == ExprKind::kColumn) return false;
  for (const ExprPtr& a : e.args) {
    if (!IsConstant(*a)) return false;
  }
  return true;
}

// Counts beyond this reach as good as the whole partition.
constexpr long double kMaxReach = 1e9L;

// Where a ROWS frame bound puts its edge, relative to the current row.
std::optional<long double> RowsEdge(Bound b, long double off) {
  switch (b) {
    case Bound::kPreceding:
      return -off;
    case Bound::kFollowing:
      return off;
    case Bound::kCurrentRow:
      return 0;
    case Bound::kUnboundedPreceding:
    case Bound::kUnboundedFollowing:
      break;
  }
  return std::nullopt;
}

// Sets a frame's offsets that are expressions (of subqueries) to their
// values, the same in every row: here, `row`'s.
Status ResolveOffsets(const Row& row, WindowFrame* f) {
  auto resolve = [&](ExprPtr* e, long double* out, const char* which) -> Status {
    if (*e == nullptr) return Status::OK();
    Value v;
    SLUICE_RETURN_IF_ERROR(Eval(**e, row, &v));
    if (v.is_null())
      return Status::InvalidArgument(std::string("frame ") + which + " offset must not be null");
    if (v.int_value() < 0)
      return Status::InvalidArgument(std::string("frame ") + which +
                                     " offset must not be negative");
    *out = static_cast<long double>(v.int_value());
    *e = nullptr;
    return Status::OK();
  };
  SLUICE_RETURN_IF_ERROR(resolve(&f->start_expr, &f->start_offset, "starting"));
  return resolve(&f->end_expr, &f->end_offset, "ending");
}

}  // namespace

std::optional<OverReach> WindowReach(const std::vector<WindowCall>& calls) {
  long double before = 0, after = 0;
  auto reach = [&](long double at) {
    before = std::max(before, -at);
    after = std::max(after, at);
  };
  for (const WindowCall& c : calls) {
    switch (c.kind) {
      case WindowFnKind::kLag:
      case WindowFnKind::kLead: {
        long double off = 1;
        if (c.args.size() >= 2) {
          if (!IsConstant(*c.args[1])) return std::nullopt;
          Value v;
          if (!Eval(*c.args[1], Row{}, &v).ok()) return std::nullopt;
          if (v.is_null()) break;  // NULL for every row
          if (v.kind() != Value::Kind::kInt) return std::nullopt;
          off = static_cast<long double>(v.int_value());
        }
        reach(c.kind == WindowFnKind::kLag ? -off : off);
        break;
      }
      case WindowFnKind::kFirstValue:
      case WindowFnKind::kLastValue:
      case WindowFnKind::kNthValue:
      case WindowFnKind::kAggregate: {
        const WindowFrame& f = c.frame;
        if (f.unit != Unit::kRows || f.start_expr != nullptr || f.end_expr != nullptr)
          return std::nullopt;
        std::optional<long double> lo = RowsEdge(f.start, f.start_offset);
        std::optional<long double> hi = RowsEdge(f.end, f.end_offset);
        if (!lo || !hi) return std::nullopt;
        reach(*lo);
        reach(*hi);
        break;
      }
      default:
        return std::nullopt;
    }
  }
  if (!(before <= kMaxReach) || !(after <= kMaxReach)) return std::nullopt;
  return OverReach{static_cast<size_t>(std::ceil(before)), static_cast<size_t>(std::ceil(after))};
}

std::optional<long double> RangeNumber(const Value& v, const SqlType& type) {
  if (v.is_null()) return std::nullopt;
  switch (v.kind()) {
    case Value::Kind::kInt:
      return static_cast<long double>(v.int_value());
    case Value::Kind::kDouble:
      return static_cast<long double>(v.double_value());
    case Value::Kind::kDecimal: {
      switch (v.decimal_special()) {
        case DecimalSpecial::kNaN:
          return std::numeric_limits<long double>::quiet_NaN();
        case DecimalSpecial::kPosInf:
          return HUGE_VALL;
        case DecimalSpecial::kNegInf:
          return -HUGE_VALL;
        case DecimalSpecial::kFinite:
          break;
      }
      if (v.decimal_wide() != nullptr) {
        return std::strtold(v.decimal_wide()->ToString().c_str(), nullptr);
      }
      long double u = static_cast<long double>(v.decimal_unscaled());
      for (int s = 0; s < v.decimal_scale(); ++s) u /= 10;
      return u;
    }
    case Value::Kind::kInterval: {
      const Interval& iv = v.interval_value();
      // A time's offset is its interval's time alone, the months and days
      // ignored, as PostgreSQL's in_range for time and timetz ignores them;
      // a time with time zone's key counts microseconds in units of
      // 2^kZoneBits (types/time_tz.h), so that key + offset keeps the zone.
      // An interval key's is its span, a month as 30 days, as PostgreSQL
      // compares intervals (interval_cmp_value).
      if (type.id() == TypeId::kInterval) {
        return (static_cast<long double>(iv.months) * 30 + static_cast<long double>(iv.days)) *
                   86400e6L +
               static_cast<long double>(iv.micros);
      }
      if (type.id() == TypeId::kTime) {
        const long double m = static_cast<long double>(iv.micros);
        return type.IsTimeTz() ? m * static_cast<long double>(int64_t{1} << TimeTz::kZoneBits) : m;
      }
      long double micros =
          static_cast<long double>(iv.days) * 86400e6L + static_cast<long double>(iv.micros);
      return type.id() == TypeId::kDate ? micros / 86400e6L : micros;
    }
    default:
      return std::nullopt;
  }
}

Status EvalWindowCalls(const std::vector<WindowCall>& calls, const PartitionRows& p,
                       std::vector<Row>* out) {
  Partition part(p);
  const size_t n = part.size();
  out->resize(n);
  for (const WindowCall& given : calls) {
    WindowCall with_offsets;
    const bool resolve =
        n > 0 && (given.frame.start_expr != nullptr || given.frame.end_expr != nullptr);
    if (resolve) {
      with_offsets = given;
      SLUICE_RETURN_IF_ERROR(ResolveOffsets(p.rows[0], &with_offsets.frame));
    }
    const WindowCall& c = resolve ? with_offsets : given;
    if (c.kind == WindowFnKind::kAggregate) {
      SLUICE_RETURN_IF_ERROR(EvalAggregate(c, part, p, out));
      continue;
    }
    int64_t ntile = 0;
    if (c.kind == WindowFnKind::kNtile && n > 0) {
      Value k;
      SLUICE_RETURN_IF_ERROR(EvalArg(c, 0, p.rows[0], &k));
      if (!k.is_null() && k.int_value() <= 0)
        return Status::InvalidArgument("argument of ntile must be greater than zero");
      ntile = k.is_null() ? 0 : k.int_value();
    }
    for (size_t i = 0; i < n; ++i) {
      Value v;
      const size_t g = p.peer[i];
      switch (c.kind) {
        case WindowFnKind::kRowNumber:
          v = Value::Int(static_cast<int64_t>(i + 1));
          break;
        case WindowFnKind::kRank:
          v = Value::Int(static_cast<int64_t>(part.GroupStart(i) + 1));
          break;
        case WindowFnKind::kDenseRank:
          v = Value::Int(static_cast<int64_t>(g + 1));
          break;
        case WindowFnKind::kPercentRank:
          v = Value::Double(
              n > 1 ? static_cast<double>(part.GroupStart(i)) / static_cast<double>(n - 1) : 0.0);
          break;
        case WindowFnKind::kCumeDist:
          v = Value::Double(static_cast<double>(part.GroupEnd(i)) / static_cast<double>(n));
          break;
        case WindowFnKind::kNtile: {
          if (ntile == 0) break;  // NULL
          const size_t k = static_cast<size_t>(ntile), per = n / k, extra = n % k;
          size_t bucket = i < extra * (per + 1)
                              ? i / (per + 1) + 1
                              : (i - extra * (per + 1)) / std::max<size_t>(per, 1) + extra + 1;
          v = Value::Int(static_cast<int64_t>(bucket));
          break;
        }
        case WindowFnKind::kLag:
        case WindowFnKind::kLead: {
          int64_t off = 1;
          if (c.args.size() >= 2) {
            Value o;
            SLUICE_RETURN_IF_ERROR(EvalArg(c, 1, p.rows[i], &o));
            if (o.is_null()) break;
            off = o.int_value();
          }
          int64_t j = static_cast<int64_t>(i) + (c.kind == WindowFnKind::kLag ? -off : off);
          if (j >= 0 && j < static_cast<int64_t>(n)) {
            SLUICE_RETURN_IF_ERROR(EvalArg(c, 0, p.rows[static_cast<size_t>(j)], &v));
          } else if (c.args.size() >= 3) {
            SLUICE_RETURN_IF_ERROR(EvalArg(c, 2, p.rows[i], &v));
          }
          break;
        }
        case WindowFnKind::kFirstValue:
        case WindowFnKind::kLastValue:
        case WindowFnKind::kNthValue: {
          Frame f = part.FrameOf(c.frame, i);
          int64_t want = 1;
          if (c.kind == WindowFnKind::kNthValue) {
            Value k;
            SLUICE_RETURN_IF_ERROR(EvalArg(c, 1, p.rows[i], &k));
            if (k.is_null()) break;
            if (k.int_value() <= 0)
              return Status::InvalidArgument("argument of nth_value must be greater than zero");
            want = k.int_value();
          }
          if (c.kind == WindowFnKind::kLastValue) {
            for (size_t j = f.hi; j-- > f.lo;) {
              if (f.In(j)) {
                SLUICE_RETURN_IF_ERROR(EvalArg(c, 0, p.rows[j], &v));
                break;
              }
            }
          } else {
            int64_t seen = 0;
            for (size_t j = f.lo; j < f.hi; ++j) {
              if (f.In(j) && ++seen == want) {
                SLUICE_RETURN_IF_ERROR(EvalArg(c, 0, p.rows[j], &v));
                break;
              }
            }
          }
          break;
        }
        case WindowFnKind::kAggregate:
          break;
      }
      (*out)[i].push_back(std::move(v));
    }
  }
  return Status::OK();
}

}  // namespace sluice::sql
