// Array functions: subscripts, cardinality, array_length, array_to_string,
// array_position and the containment operators @>, <@ and &&, with
// PostgreSQL's one-based, NULL-when-absent rules.
#include "sql/functions_internal.h"

namespace sluice::sql {
namespace {

// a[i]: NULL when i is out of range, as in PostgreSQL.
Status Subscript(const SqlType&, const Value* a, size_t, Value* out) {
  const std::vector<Value>& items = a[0].list();
  int64_t i = a[1].int_value();
  *out = i >= 1 && static_cast<uint64_t>(i) <= items.size() ? items[static_cast<size_t>(i - 1)]
                                                            : Value::Null();
  return Status::OK();
}

// cardinality(a): the number of elements, of all dimensions.
Status Cardinality(const SqlType&, const Value* a, size_t, Value* out) {
  const std::vector<int64_t> dims = ArrayDims(a[0]);
  int64_t n = dims.empty() ? 0 : 1;
  for (int64_t d : dims) n *= d;
  *out = Value::Int(n);
  return Status::OK();
}

// array_length(a, d) and array_upper(a, d): the length of dimension d
// (subscripts start at 1), NULL for an empty array or a dimension it does
// not have.
Status ArrayLength(const SqlType&, const Value* a, size_t, Value* out) {
  const std::vector<int64_t> dims = ArrayDims(a[0]);
  const int64_t d = a[1].int_value();
  *out = d >= 1 && d <= static_cast<int64_t>(dims.size())
             ? Value::Int(dims[static_cast<size_t>(d - 1)])
             : Value::Null();
  return Status::OK();
}

// array_lower(a, d): 1 for a dimension the array has.
Status ArrayLower(const SqlType&, const Value* a, size_t, Value* out) {
  const int64_t d = a[1].int_value();
  *out =
      d >= 1 && d <= static_cast<int64_t>(ArrayDims(a[0]).size()) ? Value::Int(1) : Value::Null();
  return Status::OK();
}

// array_ndims(a): NULL for an empty array.
Status ArrayNdims(const SqlType&, const Value* a, size_t, Value* out) {
  const size_t n = ArrayDims(a[0]).size();
  *out = n == 0 ? Value::Null() : Value::Int(static_cast<int64_t>(n));
  return Status::OK();
}

// array_dims(a): "[1:2][1:3]", NULL for an empty array.
Status ArrayDimsText(const SqlType&, const Value* a, size_t, Value* out) {
  const std::vector<int64_t> dims = ArrayDims(a[0]);
  std::string s;
  for (int64_t d : dims) s += "[1:" + std::to_string(d) + "]";
  *out = dims.empty() ? Value::Null() : Value::String(std::move(s));
  return Status::OK();
}

void Flatten(const Value& v, std::vector<const Value*>* out);

// IS NOT DISTINCT FROM, of two values of one type.
bool NotDistinct(const Value& x, const Value& y) {
  if (x.is_null() || y.is_null()) return x.is_null() && y.is_null();
  return CompareValues(x, y) == 0;
}

Status OneDimension(const Value& a, const char* what) {
  if (ArrayDims(a).size() > 1) {
    return Status::InvalidArgument(std::string(what) +
                                   " in multidimensional arrays is not supported");
  }
  return Status::OK();
}

// array_remove(a, x): a without the elements not distinct from x.
Status ArrayRemove(const SqlType&, const Value* a, size_t, Value* out) {
  if (a[0].is_null()) {
    *out = Value::Null();
    return Status::OK();
  }
  SLUICE_RETURN_IF_ERROR(OneDimension(a[0], "removing elements"));
  std::vector<Value> items;
  for (const Value& x : a[0].list()) {
    if (!NotDistinct(x, a[1])) items.push_back(x);
  }
  *out = Value::List(std::move(items));
  return Status::OK();
}

// array_replace(a, x, y): a with y for each element not distinct from x.
Value Replace(const Value& v, const Value& x, const Value& y) {
  if (v.kind() != Value::Kind::kList) return NotDistinct(v, x) ? y : v;
  std::vector<Value> items;
  for (const Value& e : v.list()) items.push_back(Replace(e, x, y));
  return Value::List(std::move(items));
}
Status ArrayReplace(const SqlType&, const Value* a, size_t, Value* out) {
  *out = a[0].is_null() ? Value::Null() : Replace(a[0], a[1], a[2]);
  return Status::OK();
}

// array_positions(a, x): the one-based positions of the elements not
// distinct from x.
Status ArrayPositions(const SqlType&, const Value* a, size_t, Value* out) {
  if (a[0].is_null()) {
    *out = Value::Null();
    return Status::OK();
  }
  SLUICE_RETURN_IF_ERROR(OneDimension(a[0], "searching for elements"));
  std::vector<Value> at;
  const std::vector<Value>& items = a[0].list();
  for (size_t i = 0; i < items.size(); ++i) {
    if (NotDistinct(items[i], a[1])) at.push_back(Value::Int(static_cast<int64_t>(i + 1)));
  }
  *out = Value::List(std::move(at));
  return Status::OK();
}

// array_to_string(a, sep [, null text]): the elements' text (of every
// dimension), joined; NULLs are left out, or written as the null text.
Status ArrayToString(const SqlType&, const Value* a, size_t n, Value* out) {
  if (a[0].is_null() || a[1].is_null()) {
    *out = Value::Null();
    return Status::OK();
  }
  std::vector<const Value*> items;
  Flatten(a[0], &items);
  const bool show_null = n == 3 && !a[2].is_null();
  std::string s;
  bool first = true;
  for (const Value* x : items) {
    if (x->is_null() && !show_null) continue;
    if (!first) s += a[1].string_value();
    first = false;
    s += x->is_null() ? a[2].string_value() : x->string_value();
  }
  *out = Value::String(std::move(s));
  return Status::OK();
}

// array_position(a, x): the first one-based position of x, or NULL.
Status ArrayPosition(const SqlType&, const Value* a, size_t, Value* out) {
  const std::vector<Value>& items = a[0].list();
  for (size_t i = 0; i < items.size(); ++i) {
    if (!items[i].is_null() && CompareValues(items[i], a[1]) == 0) {
      *out = Value::Int(static_cast<int64_t>(i + 1));
      return Status::OK();
    }
  }
  *out = Value::Null();
  return Status::OK();
}

// Every element of a multidimensional array, in order.
void Flatten(const Value& v, std::vector<const Value*>* out) {
  for (const Value& x : v.list()) {
    if (!x.is_null() && x.kind() == Value::Kind::kList) {
      Flatten(x, out);
    } else {
      out->push_back(&x);
    }
  }
}

// Whether every element of b equals an element of a (a NULL element
// equals nothing), as PostgreSQL's a @> b; array dimensions are ignored.
bool Contains(const Value& a, const Value& b) {
  std::vector<const Value*> as, bs;
  Flatten(a, &as);
  Flatten(b, &bs);
  for (const Value* y : bs) {
    if (y->is_null()) return false;
    bool found = false;
    for (const Value* x : as) {
      if (!x->is_null() && CompareValues(*x, *y) == 0) {
        found = true;
        break;
      }
    }
    if (!found) return false;
  }
  return true;
}

Status ArrayContains(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Bool(Contains(a[0], a[1]));
  return Status::OK();
}

Status ArrayContainedBy(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::Bool(Contains(a[1], a[0]));
  return Status::OK();
}

// a && b: an element (not NULL) in both.
Status ArrayOverlaps(const SqlType&, const Value* a, size_t, Value* out) {
  std::vector<const Value*> as, bs;
  Flatten(a[0], &as);
  Flatten(a[1], &bs);
  for (const Value* x : as) {
    if (x->is_null()) continue;
    for (const Value* y : bs) {
      if (!y->is_null() && CompareValues(*x, *y) == 0) {
        *out = Value::Bool(true);
        return Status::OK();
      }
    }
  }
  *out = Value::Bool(false);
  return Status::OK();
}

// a || b (array_cat): the elements of both; a NULL side adds none, as in
// PostgreSQL (NULL only if both are).
Status ArrayCat(const SqlType&, const Value* a, size_t, Value* out) {
  if (a[0].is_null() && a[1].is_null()) {
    *out = Value::Null();
    return Status::OK();
  }
  std::vector<Value> items;
  for (int i = 0; i < 2; ++i) {
    if (!a[i].is_null()) items.insert(items.end(), a[i].list().begin(), a[i].list().end());
  }
  *out = Value::List(std::move(items));
  return Status::OK();
}

// a || x (array_append): x after a's elements; NULL x is an element too.
Status ArrayAppend(const SqlType&, const Value* a, size_t, Value* out) {
  std::vector<Value> items;
  if (!a[0].is_null()) items = a[0].list();
  items.push_back(a[1]);
  *out = Value::List(std::move(items));
  return Status::OK();
}

// x = ANY (a), as any=(a, x): true if a holds x, else NULL if a holds a
// NULL, else false (SQL's three-valued logic, as PostgreSQL's).
Status ArrayHolds(const SqlType&, const Value* a, size_t, Value* out) {
  bool null = false;
  for (const Value& item : a[0].list()) {
    if (item.is_null()) {
      null = true;
    } else if (CompareValues(item, a[1]) == 0) {
      *out = Value::Bool(true);
      return Status::OK();
    }
  }
  *out = null ? Value::Null() : Value::Bool(false);
  return Status::OK();
}

// Array type `array` (of any dimensions) with innermost element type `t`.
SqlType WithInnermost(const SqlType& array, const SqlType& t) {
  if (array.id() != TypeId::kArray) return t;
  return SqlType::Array(WithInnermost(array.children()[0], t));
}

}  // namespace

bool ResolveArray(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r) {
  if (args.empty() || args[0].id() != TypeId::kArray) return false;
  const SqlType elem = args[0].children()[0];
  const SqlType array = args[0].WithNullable(true);
  if (name == "[]" && args.size() == 2 && args[1].IsInteger()) {
    r->fn = Subscript;
    r->name = "[]";
    r->result = elem.WithNullable(true);
    r->arg_types = {array, SqlType::BigInt()};
    return true;
  }
  if (name == "cardinality" && args.size() == 1) {
    r->fn = Cardinality;
    r->name = "cardinality";
    r->result = SqlType::Integer();
    r->arg_types = {array};
    return true;
  }
  if (name == "array_length" && args.size() == 2 && args[1].IsInteger()) {
    r->fn = ArrayLength;
    r->name = "array_length";
    r->result = SqlType::Integer();
    r->arg_types = {array, SqlType::BigInt()};
    return true;
  }
  if (name == "array_upper" && args.size() == 2 && args[1].IsInteger()) {
    r->fn = ArrayLength;  // subscripts start at 1: the last one is the length
    r->name = "array_upper";
    r->result = SqlType::Integer();
    r->arg_types = {array, SqlType::BigInt()};
    return true;
  }
  if (name == "array_lower" && args.size() == 2 && args[1].IsInteger())
    return Resolve(r, ArrayLower, "array_lower", SqlType::Integer(), {array, SqlType::BigInt()});
  if (name == "array_ndims" && args.size() == 1)
    return Resolve(r, ArrayNdims, "array_ndims", SqlType::Integer(), {array});
  if (name == "array_dims" && args.size() == 1)
    return Resolve(r, ArrayDimsText, "array_dims", SqlType::Varchar(), {array});
  if (name == "array_to_string" && (args.size() == 2 || args.size() == 3) && args[1].IsString() &&
      (args.size() == 2 || args[2].IsString())) {
    // Elements become text first, as PostgreSQL prints them.
    Resolve(r, ArrayToString, "array_to_string", SqlType::Varchar(),
            std::vector<SqlType>(args.size(), SqlType::Varchar()));
    r->arg_types[0] = WithInnermost(args[0], SqlType::Varchar());
    r->strict = false;  // a NULL null text is none
    return true;
  }
  if (name == "||" && args.size() == 2) {
    const bool both = args[1].id() == TypeId::kArray;
    auto t = CommonType(elem, both ? args[1].children()[0] : args[1]);
    if (!t.ok()) return false;
    const SqlType a = SqlType::Array(t->WithNullable(true));
    r->fn = both ? ArrayCat : ArrayAppend;
    r->name = both ? "array_cat" : "array_append";
    r->result = a;
    r->arg_types = {a, both ? a : *t};
    r->strict = false;
    return true;
  }
  if (name == "any=" && args.size() == 2) {
    auto t = CommonType(elem, args[1]);
    if (!t.ok()) return false;
    r->fn = ArrayHolds;
    r->name = "= ANY";
    r->result = SqlType::Boolean();
    r->arg_types = {SqlType::Array(*t), *t};
    return true;
  }
  if ((name == "@>" || name == "<@" || name == "&&") && args.size() == 2 &&
      args[1].id() == TypeId::kArray) {
    // The innermost element types, in common (arrays of any dimensions).
    const SqlType* x = &args[0];
    const SqlType* y = &args[1];
    while (x->id() == TypeId::kArray) x = &x->children()[0];
    while (y->id() == TypeId::kArray) y = &y->children()[0];
    // As PostgreSQL's anyarray operators: one element type on both sides.
    if (x->WithNullable(true) != y->WithNullable(true)) return false;
    const SqlType* t = x;
    r->fn = name == "@>" ? ArrayContains : name == "<@" ? ArrayContainedBy : ArrayOverlaps;
    r->name = name == "@>" ? "@>" : name == "<@" ? "<@" : "&&";
    r->result = SqlType::Boolean();
    auto rewrap = [&](const SqlType& array) {
      int depth = 0;
      for (const SqlType* e = &array; e->id() == TypeId::kArray; e = &e->children()[0]) ++depth;
      SqlType out = *t;
      for (int i = 0; i < depth; ++i) out = SqlType::Array(out);
      return out;
    };
    r->arg_types = {rewrap(args[0]), rewrap(args[1])};
    return true;
  }
  if ((name == "array_remove" || name == "array_positions") && args.size() == 2) {
    auto t = CommonType(elem, args[1]);
    if (!t.ok()) return false;
    const bool remove = name == "array_remove";
    Resolve(r, remove ? ArrayRemove : ArrayPositions, remove ? "array_remove" : "array_positions",
            remove ? WithInnermost(args[0], *t) : SqlType::Array(SqlType::Integer()),
            {WithInnermost(args[0], *t), *t});
    r->strict = false;  // NULL is an element to look for
    return true;
  }
  if (name == "array_replace" && args.size() == 3) {
    const SqlType* inner = &args[0];
    while (inner->id() == TypeId::kArray) inner = &inner->children()[0];
    auto t = CommonType(*inner, args[1]);
    if (!t.ok()) return false;
    auto u = CommonType(*t, args[2]);
    if (!u.ok()) return false;
    Resolve(r, ArrayReplace, "array_replace", WithInnermost(args[0], *u),
            {WithInnermost(args[0], *u), *u, *u});
    r->strict = false;
    return true;
  }
  if (name == "array_position" && args.size() == 2) {
    auto t = CommonType(elem, args[1]);
    if (!t.ok()) return false;
    r->fn = ArrayPosition;
    r->name = "array_position";
    r->result = SqlType::Integer();
    r->arg_types = {SqlType::Array(*t), *t};
    return true;
  }
  return false;
}

}  // namespace sluice::sql
