#include "sql/expr.h"

#include <gtest/gtest.h>

#include <limits>

#include "sql/functions.h"

namespace sluice::sql {
namespace {

Result<Value> Apply(const std::string& op, std::vector<std::pair<Value, SqlType>> args) {
  std::vector<SqlType> types;
  std::vector<ExprPtr> exprs;
  for (auto& [v, t] : args) {
    types.push_back(t);
    exprs.push_back(MakeLiteral(v, t));
  }
  SLUICE_ASSIGN_OR_RETURN(ResolvedFn f, ResolveFunction(op, types));
  for (size_t i = 0; i < exprs.size(); ++i) exprs[i] = MakeCast(exprs[i], f.arg_types[i]);
  ExprPtr e = MakeCall(f.fn, f.name, f.result, exprs);
  Value out;
  SLUICE_RETURN_IF_ERROR(Eval(*e, Row{}, &out));
  return out;
}

const SqlType kInt = SqlType::Integer();
const SqlType kBig = SqlType::BigInt();

TEST(ExprTest, IntegerArithmeticFollowsPostgres) {
  EXPECT_EQ(Apply("/", {{Value::Int(7), kInt}, {Value::Int(-2), kInt}})->int_value(), -3);
  EXPECT_EQ(Apply("%", {{Value::Int(-7), kInt}, {Value::Int(2), kInt}})->int_value(), -1);
  auto ovf = Apply("+", {{Value::Int(2147483647), kInt}, {Value::Int(1), kInt}});
  EXPECT_EQ(ovf.status().message(), "integer out of range");
  // int4 + int8 is int8: no overflow.
  EXPECT_EQ(Apply("+", {{Value::Int(2147483647), kInt}, {Value::Int(1), kBig}})->int_value(),
            2147483648LL);
  EXPECT_EQ(Apply("/", {{Value::Int(1), kInt}, {Value::Int(0), kInt}}).status().message(),
            "division by zero");
  EXPECT_EQ(Apply("-", {{Value::Int(INT64_MIN), kBig}}).status().message(), "bigint out of range");
  EXPECT_EQ(Apply("/", {{Value::Int(INT64_MIN), kBig}, {Value::Int(-1), kBig}}).status().message(),
            "bigint out of range");
}

// width_bucket over float8 bounds: the span may overflow a double, and the
// bounds must be finite (PostgreSQL 15 answered -2147483648 for the first,
// 16 and later 2).
TEST(ExprTest, WidthBucketOverBoundsWhoseSpanOverflows) {
  const SqlType d = SqlType::Double();
  auto wb = [&](double x, double lo, double hi, int64_t n) {
    return Apply("width_bucket", {{Value::Double(x), d},
                                  {Value::Double(lo), d},
                                  {Value::Double(hi), d},
                                  {Value::Int(n), kInt}});
  };
  EXPECT_EQ(wb(10.5, -1.797e308, 1.797e308, 2)->int_value(), 2);
  EXPECT_EQ(wb(-1e307, -1.797e308, 1.797e308, 2)->int_value(), 1);
  EXPECT_EQ(wb(1e307, 1.797e308, -1.797e308, 2)->int_value(), 1);
  EXPECT_EQ(wb(5, 0, 10, 4)->int_value(), 3);
  EXPECT_EQ(wb(10, 0, 10, 4)->int_value(), 5);
  EXPECT_EQ(wb(5, 10, 0, 4)->int_value(), 3);
  EXPECT_EQ(wb(1, 0, std::numeric_limits<double>::infinity(), 4).status().message(),
            "lower and upper bounds must be finite");
  EXPECT_EQ(wb(11, 0, 10, 2147483647).status().message(), "integer out of range");
}

TEST(ExprTest, MixedNumericTypes) {
  auto d = Apply("*", {{Value::Int(3), kInt}, {Value::Double(0.5), SqlType::Double()}});
  EXPECT_DOUBLE_EQ(d->double_value(), 1.5);
  auto n = Apply("+", {{Value::Decimal(150, 2), SqlType::Decimal(38, 2)}, {Value::Int(1), kInt}});
  EXPECT_EQ(DecimalToString(n->decimal_unscaled(), n->decimal_scale()), "2.50");
  auto q = Apply("/", {{Value::Decimal(10, 0), SqlType::Decimal(38, 0)},
                       {Value::Decimal(3, 0), SqlType::Decimal(38, 0)}});
  EXPECT_EQ(DecimalToString(q->decimal_unscaled(), q->decimal_scale()), "3.3333333333333333");
  EXPECT_FALSE(Apply("+", {{Value::String("a"), SqlType::Varchar()}, {Value::Int(1), kInt}}).ok());
  EXPECT_EQ(Apply("+", {{Value::String("a"), SqlType::Varchar()}, {Value::Int(1), kInt}})
                .status()
                .message(),
            "operator does not exist: text + integer");
}

TEST(ExprTest, ThreeValuedLogic) {
  ExprPtr t = MakeLiteral(Value::Bool(true), SqlType::Boolean());
  ExprPtr f = MakeLiteral(Value::Bool(false), SqlType::Boolean());
  ExprPtr n = MakeLiteral(Value::Null(), SqlType::Boolean());
  auto eval = [](ExprPtr e) {
    Value v;
    EXPECT_TRUE(Eval(*e, Row{}, &v).ok());
    return v;
  };
  EXPECT_TRUE(eval(MakeNode(ExprKind::kAnd, SqlType::Boolean(), {n, t})).is_null());
  EXPECT_FALSE(eval(MakeNode(ExprKind::kAnd, SqlType::Boolean(), {n, f})).bool_value());
  EXPECT_TRUE(eval(MakeNode(ExprKind::kOr, SqlType::Boolean(), {n, t})).bool_value());
  EXPECT_TRUE(eval(MakeNode(ExprKind::kNot, SqlType::Boolean(), {n})).is_null());
  // 1 IN (2, NULL) is NULL; 1 NOT IN (2, NULL) is NULL; 1 IN (1, NULL) is true.
  ExprPtr one = MakeLiteral(Value::Int(1), kInt), two = MakeLiteral(Value::Int(2), kInt);
  ExprPtr inull = MakeLiteral(Value::Null(), kInt);
  EXPECT_TRUE(eval(MakeNode(ExprKind::kInList, SqlType::Boolean(), {one, two, inull})).is_null());
  EXPECT_TRUE(
      eval(MakeNode(ExprKind::kInList, SqlType::Boolean(), {one, two, inull}, true)).is_null());
  EXPECT_TRUE(
      eval(MakeNode(ExprKind::kInList, SqlType::Boolean(), {one, one, inull})).bool_value());
}

TEST(ExprTest, CastsAndLike) {
  Value v;
  ASSERT_TRUE(CastValue(Value::Double(2.5), SqlType::Double(), kInt, &v).ok());
  EXPECT_EQ(v.int_value(), 2);  // float to int rounds half to even, as rint()
  ASSERT_TRUE(CastValue(Value::Decimal(25, 1), SqlType::Decimal(38, 1), kInt, &v).ok());
  EXPECT_EQ(v.int_value(), 3);  // numeric to int rounds half away from zero
  EXPECT_EQ(CastValue(Value::String("12x"), SqlType::Varchar(), kInt, &v).message(),
            "invalid input syntax for type integer: \"12x\"");
  EXPECT_EQ(CastValue(Value::Int(40000), kInt, SqlType::SmallInt(), &v).message(),
            "smallint out of range");
  ASSERT_TRUE(CastValue(Value::Double(0.1), SqlType::Double(), SqlType::Varchar(), &v).ok());
  EXPECT_EQ(v.string_value(), "0.1");
  EXPECT_TRUE(Apply("~~", {{Value::String("abcde"), SqlType::Varchar()},
                           {Value::String("a%d_"), SqlType::Varchar()}})
                  ->bool_value());
  EXPECT_FALSE(Apply("~~", {{Value::String("abcde"), SqlType::Varchar()},
                            {Value::String("a%x"), SqlType::Varchar()}})
                   ->bool_value());
  EXPECT_TRUE(Apply("~~*", {{Value::String("ABC"), SqlType::Varchar()},
                            {Value::String("a_c"), SqlType::Varchar()}})
                  ->bool_value());
  EXPECT_TRUE(Apply("~~", {{Value::String("a%"), SqlType::Varchar()},
                           {Value::String("a\\%"), SqlType::Varchar()}})
                  ->bool_value());
}

// kFold: state = state * 10 + the element's first field, over the list
// column 0 (an array of ROW(int)), from `init`.
Result<Value> Fold(Value init, Value list, bool from_first, ExprPtr finish = nullptr) {
  const SqlType row = SqlType::Row({"f1"}, {kBig}, false);
  auto ten = MakeLiteral(Value::Int(10), kBig);
  SLUICE_ASSIGN_OR_RETURN(ResolvedFn mul, ResolveFunction("*", {kBig, kBig}));
  SLUICE_ASSIGN_OR_RETURN(ResolvedFn add, ResolveFunction("+", {kBig, kBig}));
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kFold;
  e->type = finish ? finish->type : kBig;
  e->args = {MakeLiteral(init, kBig), MakeColumn(0, SqlType::Array(row))};
  e->transition =
      MakeCall(add.fn, add.name, kBig,
               {MakeCall(mul.fn, mul.name, kBig, {MakeColumn(0, kBig), ten}), MakeColumn(1, kBig)});
  e->fold_from_first = from_first;
  e->finish = std::move(finish);
  Value out;
  SLUICE_RETURN_IF_ERROR(Eval(*e, Row{std::move(list)}, &out));
  return out;
}

Value Rows(std::vector<int64_t> xs) {
  std::vector<Value> items;
  for (int64_t x : xs) items.push_back(Value::List({Value::Int(x)}));
  return Value::List(std::move(items));
}

TEST(ExprTest, FoldAppliesTheTransitionInOrder) {
  EXPECT_EQ(Fold(Value::Int(1), Rows({2, 3}), false)->int_value(), 123);
  // A NULL list is an empty one: the initial state.
  EXPECT_EQ(Fold(Value::Int(7), Value::Null(), false)->int_value(), 7);
  // A strict transition's NULL state stays NULL (the + and * are strict).
  EXPECT_TRUE(Fold(Value::Null(), Rows({2, 3}), false)->is_null());
  // Without an initial state, the first element is the first state.
  EXPECT_EQ(Fold(Value::Null(), Rows({2, 3, 4}), true)->int_value(), 234);
  EXPECT_TRUE(Fold(Value::Null(), Rows({}), true)->is_null());
  EXPECT_EQ(Fold(Value::Int(5), Rows({2}), true)->int_value(), 52);
  // The final function reads the last state once, as column 0.
  auto finish = MakeNode(ExprKind::kIsNull, SqlType::Boolean(false), {MakeColumn(0, kBig)});
  EXPECT_FALSE(Fold(Value::Int(1), Rows({2}), false, finish)->bool_value());
  EXPECT_TRUE(Fold(Value::Null(), Value::Null(), false, finish)->bool_value());
}

}  // namespace
}  // namespace sluice::sql
