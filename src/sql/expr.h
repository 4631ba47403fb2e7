// Bound, typed scalar expressions and their evaluation over decoded rows.
//
// The binder (binder.h) turns parse-tree expressions into Expr trees: every
// column reference is an index into the input row, every operator and
// function is resolved to a ScalarFn with its argument types already cast to
// what it expects (PostgreSQL's implicit casts), so evaluation does no name
// lookups and no type dispatch beyond the value's own.
//
// Semantics follow PostgreSQL: three-valued logic (AND, OR, NOT, IN, CASE),
// NULL in -> NULL out for strict functions, and errors where PostgreSQL raises
// them ("integer out of range", "division by zero", bad casts).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "sql/datetime.h"
#include "types/sql_type.h"
#include "types/value.h"

namespace sluice::sql {

using Row = std::vector<Value>;

// A strict scalar function: called only when no argument is NULL (unless the
// Expr says otherwise); `type` is the result type.
using ScalarFn = Status (*)(const SqlType& type, const Value* args, size_t n, Value* out);

enum class ExprKind {
  kColumn,      // row[column]
  kLiteral,     // value
  kCall,        // fn(args...), NULL if any argument is NULL
  kCast,        // CAST(args[0] AS type)
  kAnd,         // three-valued AND of args
  kOr,          // three-valued OR of args
  kNot,         // NOT args[0]
  kIsNull,      // args[0] IS [NOT] NULL
  kCase,        // args: when_1, then_1, ..., when_n, then_n [, else]
  kCoalesce,    // first non-NULL arg
  kInList,      // args[0] [NOT] IN (args[1..]) with SQL's NULL rules
  kIsDistinct,  // args[0] IS [NOT] DISTINCT FROM args[1]
  kArray,       // ARRAY[args...]
  kRow,         // ROW(args...): a value of a ROW type, never NULL itself
  kField,       // field `column` of the row args[0] (NULL if the row is NULL)
  kFold,        // `transition` folded over the list args[1], from the state args[0]
  kDraw,        // random(): a DOUBLE in [0, 1) drawn for the row, at call site `column`
                // (its position in the SQL text). Never evaluated: the planner lifts
                // every draw into a kDraw plan node (draws.h) and reads its column.
  kVolatile,    // volatile->Call(args...): a call that reads or changes state its owner
                // keeps (nextval() and its kin, sequences.h), so each evaluation may
                // give another value. Never folded into a constant.
};

// The state behind a kVolatile call. Calls may come from several workers at
// once: an implementation guards its state itself.
class VolatileFn {
 public:
  virtual ~VolatileFn() = default;
  // `args` are the call's evaluated arguments (NULLs included).
  virtual Status Call(const Value* args, size_t n, Value* out) const = 0;
};

// The session settings a cast depends on: DateStyle's order and
// IntervalStyle for the text it reads, IntervalStyle and bytea_output
// (escape: true; else hex) for the text it writes. Each thread has current
// ones, PostgreSQL's defaults unless a CastSettingsScope says otherwise;
// a cast keeps those current when it was bound, so that a view casts as
// the session that created it did, on whatever thread evaluates it.
struct CastSettings {
  DateOrder date_order = DateOrder::kMDY;
  IntervalStyle interval_style = IntervalStyle::kPostgres;
  bool bytea_escape = false;
  bool operator==(const CastSettings&) const = default;
};
CastSettings CurrentCastSettings();
// Sets the thread's cast settings while it lives.
class CastSettingsScope {
 public:
  explicit CastSettingsScope(const CastSettings& settings);
  ~CastSettingsScope();
  CastSettingsScope(const CastSettingsScope&) = delete;
  CastSettingsScope& operator=(const CastSettingsScope&) = delete;

 private:
  DateOrderScope date_order_;
  IntervalStyleScope interval_style_;
  bool saved_bytea_escape_;
};

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

struct Expr {
  ExprKind kind = ExprKind::kLiteral;
  SqlType type;
  int column = -1;
  Value value;
  ScalarFn fn = nullptr;
  const char* fn_name = "";       // for messages
  bool negated = false;           // IS NOT NULL, NOT IN, IS NOT DISTINCT FROM
  bool has_else = false;          // kCase
  bool untyped = false;           // a string or NULL literal whose type comes from context
  bool strict = true;             // kCall: NULL if any argument is NULL (else fn sees NULLs)
  bool numeric_specials = false;  // kCall: fn handles NaN and infinite DECIMALs
  // kCast: the session's settings when it was bound (CastSettings).
  CastSettings cast_settings;
  std::vector<ExprPtr> args;
  // kFold: a user-defined aggregate's transition function, bound over a row
  // of its own: the state (column 0), then the fields of one element of the
  // list (each a ROW of the aggregate's arguments). Evaluation folds it over
  // the elements in their order: state = transition(state, element...);
  // a NULL list is an empty one. It is not among `args`, so what walks an
  // expression's columns (shifts, needed columns) never mistakes its
  // columns for the outer row's.
  ExprPtr transition;
  // kFold: a NULL initial state is replaced by the first element's first
  // field (cast to the state's type), and the fold goes on from the second:
  // PostgreSQL's rule for a STRICT transition function without INITCOND.
  bool fold_from_first = false;
  // kFold: the final function, over a row of the last state alone; null: the
  // state is the result. Part of the fold, so the fold is computed once
  // however often the function reads the state.
  ExprPtr finish;
  // kVolatile: what the call does (fn_name names it).
  std::shared_ptr<const VolatileFn> volatile_fn;

  std::string ToString() const;
};

ExprPtr MakeColumn(int index, SqlType type);
ExprPtr MakeLiteral(Value v, SqlType type);
// `numeric_specials`: `fn` handles NaN and the infinities in DECIMAL
// arguments (ResolvedFn::numeric_specials); if false, they are an error.
ExprPtr MakeCall(ScalarFn fn, const char* name, SqlType type, std::vector<ExprPtr> args,
                 bool strict = true, bool numeric_specials = false);
ExprPtr MakeNode(ExprKind kind, SqlType type, std::vector<ExprPtr> args, bool negated = false);
// random() at call site `site` (ExprKind::kDraw).
ExprPtr MakeDraw(int site);
// Whether `e` holds a draw (a volatile call), which must not be folded,
// copied or evaluated as an ordinary expression.
bool ContainsDraw(const Expr& e);
// Whether `e` holds a kVolatile call, which must be evaluated where and as
// often as the query says, never folded at binding.
bool ContainsVolatile(const Expr& e);

// Evaluates `e` over `row`. Errors name the function or operator.
Status Eval(const Expr& e, const Row& row, Value* out);

// Evaluates a predicate: true only if `e` is TRUE (NULL and FALSE are false).
Status EvalPredicate(const Expr& e, const Row& row, bool* out);

// A table's CHECK constraint: a row for which `predicate`, over the table's
// columns, is false is refused; true and NULL pass, as in PostgreSQL.
struct CheckConstraint {
  std::string name;
  ExprPtr predicate;
};
// OK when `row` (of `table`, whose columns have `types`) passes every one
// of `checks`; else PostgreSQL's error for the first it fails (an
// InvalidArgument naming the constraint and the row), or the error of
// evaluating it.
Status CheckRow(const std::string& table, const std::vector<CheckConstraint>& checks,
                const Schema& types, const Row& row);

// Casts `v` of type `from` to type `to`, as PostgreSQL's CAST does.
Status CastValue(const Value& v, const SqlType& from, const SqlType& to, Value* out);
// `v` of type `from` stored in a column of type `to`, as PostgreSQL assigns
// it: as CastValue, but a value whose text is longer than a CHAR(n) or
// VARCHAR(n) column is refused (unless what would be cut is spaces).
Status AssignValue(const Value& v, const SqlType& from, const SqlType& to, Value* out);
// Wraps `e` in a cast to `to`, or returns it if it already has that type.
ExprPtr MakeCast(ExprPtr e, const SqlType& to);

// Text of a value as PostgreSQL prints it (for casts to text and output).
// With `pg_output`, as PostgreSQL's output sends it to a client: booleans
// are t and f (also inside arrays), as ValueToPgText gives.
std::string ValueToText(const Value& v, const SqlType& type, bool pg_output = false);
// How a client's session has values printed: PostgreSQL's IntervalStyle and
// bytea_output (hex, or escape: printable bytes as they are, others octal).
// extra_float_digits: 1 or more prints a REAL or DOUBLE in the fewest
// digits that read back as it; less prints 6 + it (REAL) or 15 + it
// (DOUBLE) significant digits, as printf's %g does.
struct OutputStyle {
  IntervalStyle interval = IntervalStyle::kPostgres;
  bool bytea_escape = false;
  int extra_float_digits = 1;
};
// Text of a value as PostgreSQL's output sends it to a client.
std::string ValueToPgText(const Value& v, const SqlType& type, const OutputStyle& style = {});

// A multidimensional array is a list of lists, one level per dimension of
// its type (INT[][] is ARRAY(ARRAY(INT))). Its lengths, outermost first, as
// its first elements have them; none if it is empty.
std::vector<int64_t> ArrayDims(const Value& v);
// Whether every sub-array of `v` has the lengths ArrayDims says (PostgreSQL's
// arrays are rectangular).
bool IsRectangular(const Value& v);
// The number of dimensions of PostgreSQL's array text (its leading braces;
// 0 if it does not start with one).
int ArrayTextDimensions(std::string_view text);

// Compares two non-NULL values of the same type: <0, 0, >0.
int CompareValues(const Value& a, const Value& b);

}  // namespace sluice::sql
