// JSON and JSONB operators and functions, as PostgreSQL has them. Values
// are documents kept as text (sql/json_value.h): each function reads the
// text it needs, and a JSONB result is canonical text again.
#include <string>
#include <vector>

#include "sql/functions_internal.h"
#include "sql/json_value.h"

namespace sluice::sql {
namespace {

SqlType Text() { return SqlType::Varchar(); }

Status Parse(const Value& v, JsonNode* n) { return ParseJson(v.string_value(), n); }

// The text of node `n` of document `doc`: its own span (a JSONB document's
// parts are canonical already).
std::string Slice(const Value& doc, const JsonNode& n) {
  return doc.string_value().substr(n.begin, n.end - n.begin);
}

// The member `key` of an object, or nullptr.
const JsonNode* Member(const JsonNode& n, const std::string& key) {
  if (n.kind != JsonNode::Kind::kObject) return nullptr;
  const JsonNode* found = nullptr;
  for (const auto& [k, v] : n.members) {
    if (k == key) found = &v;  // the last of a repeated key (json)
  }
  return found;
}

// Element i of an array (negative: from the end), or nullptr.
const JsonNode* Element(const JsonNode& n, int64_t i) {
  if (n.kind != JsonNode::Kind::kArray) return nullptr;
  const auto size = static_cast<int64_t>(n.items.size());
  if (i < 0) i += size;
  if (i < 0 || i >= size) return nullptr;
  return &n.items[static_cast<size_t>(i)];
}

// The node a path of keys and indexes (text, as #> takes it) leads to.
const JsonNode* Path(const JsonNode& root, const std::vector<Value>& path) {
  const JsonNode* at = &root;
  for (const Value& step : path) {
    if (at == nullptr || step.is_null()) return nullptr;
    const std::string& s = step.string_value();
    if (at->kind == JsonNode::Kind::kObject) {
      at = Member(*at, s);
    } else if (at->kind == JsonNode::Kind::kArray) {
      char* end = nullptr;
      const long long i = std::strtoll(s.c_str(), &end, 10);
      if (s.empty() || *end != '\0') return nullptr;
      at = Element(*at, i);
    } else {
      return nullptr;
    }
  }
  return at;
}

// A node as -> gives it (its document text) or as ->> does (a string's
// value, NULL for JSON's null).
void AsJson(const Value& doc, const JsonNode* n, Value* out) {
  *out = n == nullptr ? Value::Null() : Value::String(Slice(doc, *n));
}
void AsText(const Value& doc, const JsonNode* n, Value* out) {
  if (n == nullptr || n->kind == JsonNode::Kind::kNull) {
    *out = Value::Null();
  } else if (n->kind == JsonNode::Kind::kString) {
    *out = Value::String(n->text);
  } else {
    *out = Value::String(Slice(doc, *n));
  }
}

Status GetKey(const SqlType&, const Value* a, size_t, Value* out) {
  JsonNode n;
  SLUICE_RETURN_IF_ERROR(Parse(a[0], &n));
  AsJson(a[0], Member(n, a[1].string_value()), out);
  return Status::OK();
}
Status GetKeyText(const SqlType&, const Value* a, size_t, Value* out) {
  JsonNode n;
  SLUICE_RETURN_IF_ERROR(Parse(a[0], &n));
  AsText(a[0], Member(n, a[1].string_value()), out);
  return Status::OK();
}
// Element i of a document's top: PostgreSQL keeps a scalar document as an
// array of one, so its element 0 (or -1) is the scalar.
const JsonNode* TopElement(const JsonNode& n, int64_t i) {
  if (n.kind != JsonNode::Kind::kArray && n.kind != JsonNode::Kind::kObject)
    return i == 0 || i == -1 ? &n : nullptr;
  return Element(n, i);
}
Status GetIndex(const SqlType& type, const Value* a, size_t, Value* out) {
  JsonNode n;
  SLUICE_RETURN_IF_ERROR(Parse(a[0], &n));
  AsJson(a[0], type.is_jsonb() ? TopElement(n, a[1].int_value()) : Element(n, a[1].int_value()),
         out);
  return Status::OK();
}
Status GetIndexText(const SqlType&, const Value* a, size_t, Value* out) {
  JsonNode n;
  SLUICE_RETURN_IF_ERROR(Parse(a[0], &n));
  AsText(a[0], Element(n, a[1].int_value()), out);
  return Status::OK();
}
Status GetPath(const SqlType&, const Value* a, size_t, Value* out) {
  JsonNode n;
  SLUICE_RETURN_IF_ERROR(Parse(a[0], &n));
  AsJson(a[0], Path(n, a[1].list()), out);
  return Status::OK();
}
Status GetPathText(const SqlType&, const Value* a, size_t, Value* out) {
  JsonNode n;
  SLUICE_RETURN_IF_ERROR(Parse(a[0], &n));
  AsText(a[0], Path(n, a[1].list()), out);
  return Status::OK();
}

// PostgreSQL's jsonb containment: an object contains an object whose every
// key it has, with a value that contains that key's value; an array
// contains an array whose every element some element of it contains (and,
// at the top, a scalar it holds); scalars contain equal scalars.
bool Contains(const JsonNode& a, const JsonNode& b, bool top) {
  if (a.kind == JsonNode::Kind::kArray && b.kind != JsonNode::Kind::kArray &&
      b.kind != JsonNode::Kind::kObject && top) {
    for (const JsonNode& x : a.items) {
      if (Contains(x, b, false)) return true;
    }
    return false;
  }
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case JsonNode::Kind::kNull:
      return true;
    case JsonNode::Kind::kBool:
      return a.boolean == b.boolean;
    case JsonNode::Kind::kNumber:
    case JsonNode::Kind::kString:
      return a.text == b.text;
    case JsonNode::Kind::kObject:
      for (const auto& [k, v] : b.members) {
        const JsonNode* x = Member(a, k);
        if (x == nullptr || !Contains(*x, v, false)) return false;
      }
      return true;
    case JsonNode::Kind::kArray:
      for (const JsonNode& y : b.items) {
        bool found = false;
        for (const JsonNode& x : a.items) {
          // Within arrays, a scalar matches a scalar only.
          if ((x.kind == JsonNode::Kind::kArray || x.kind == JsonNode::Kind::kObject) !=
              (y.kind == JsonNode::Kind::kArray || y.kind == JsonNode::Kind::kObject))
            continue;
          if (Contains(x, y, false)) {
            found = true;
            break;
          }
        }
        if (!found) return false;
      }
      return true;
  }
  return false;
}

Status ContainsFn(const SqlType&, const Value* a, size_t, Value* out) {
  JsonNode x, y;
  SLUICE_RETURN_IF_ERROR(Parse(a[0], &x));
  SLUICE_RETURN_IF_ERROR(Parse(a[1], &y));
  *out = Value::Bool(Contains(x, y, true));
  return Status::OK();
}
Status ContainedFn(const SqlType&, const Value* a, size_t, Value* out) {
  JsonNode x, y;
  SLUICE_RETURN_IF_ERROR(Parse(a[0], &x));
  SLUICE_RETURN_IF_ERROR(Parse(a[1], &y));
  *out = Value::Bool(Contains(y, x, true));
  return Status::OK();
}

// Whether a top-level key, or a string element of a top-level array, is `s`.
bool HasKey(const JsonNode& n, const std::string& s) {
  if (n.kind == JsonNode::Kind::kObject) return Member(n, s) != nullptr;
  if (n.kind == JsonNode::Kind::kArray) {
    for (const JsonNode& x : n.items) {
      if (x.kind == JsonNode::Kind::kString && x.text == s) return true;
    }
    return false;
  }
  return n.kind == JsonNode::Kind::kString && n.text == s;
}
Status HasKeyFn(const SqlType&, const Value* a, size_t, Value* out) {
  JsonNode n;
  SLUICE_RETURN_IF_ERROR(Parse(a[0], &n));
  *out = Value::Bool(HasKey(n, a[1].string_value()));
  return Status::OK();
}
template <bool kAll>
Status HasKeysFn(const SqlType&, const Value* a, size_t, Value* out) {
  JsonNode n;
  SLUICE_RETURN_IF_ERROR(Parse(a[0], &n));
  bool any = false, all = true;
  for (const Value& k : a[1].list()) {
    if (k.is_null()) continue;
    const bool has = HasKey(n, k.string_value());
    any |= has;
    all &= has;
  }
  *out = Value::Bool(kAll ? all : any);
  return Status::OK();
}

// jsonb || jsonb: objects merge (the right's keys win), arrays concatenate,
// and anything else is an array of both.
Status ConcatFn(const SqlType&, const Value* a, size_t, Value* out) {
  JsonNode x, y;
  SLUICE_RETURN_IF_ERROR(Parse(a[0], &x));
  SLUICE_RETURN_IF_ERROR(Parse(a[1], &y));
  JsonNode r;
  if (x.kind == JsonNode::Kind::kObject && y.kind == JsonNode::Kind::kObject) {
    r = std::move(x);
    for (auto& m : y.members) r.members.push_back(std::move(m));
  } else {
    r.kind = JsonNode::Kind::kArray;
    auto add = [&](JsonNode& n) {
      if (n.kind == JsonNode::Kind::kArray) {
        for (JsonNode& i : n.items) r.items.push_back(std::move(i));
      } else {
        r.items.push_back(std::move(n));
      }
    };
    add(x);
    add(y);
  }
  SLUICE_RETURN_IF_ERROR(Canonicalize(&r));
  *out = Value::String(JsonbText(r));
  return Status::OK();
}

// jsonb - text: without that key (or, in an array, those strings).
Status DeleteKeyFn(const SqlType&, const Value* a, size_t, Value* out) {
  JsonNode n;
  SLUICE_RETURN_IF_ERROR(Parse(a[0], &n));
  const std::string& key = a[1].string_value();
  if (n.kind == JsonNode::Kind::kObject) {
    std::erase_if(n.members, [&](const auto& m) { return m.first == key; });
  } else if (n.kind == JsonNode::Kind::kArray) {
    std::erase_if(n.items, [&](const JsonNode& x) {
      return x.kind == JsonNode::Kind::kString && x.text == key;
    });
  } else {
    return Status::InvalidArgument("cannot delete from scalar");
  }
  *out = Value::String(JsonbText(n));
  return Status::OK();
}
Status DeleteIndexFn(const SqlType&, const Value* a, size_t, Value* out) {
  JsonNode n;
  SLUICE_RETURN_IF_ERROR(Parse(a[0], &n));
  if (n.kind == JsonNode::Kind::kObject) {
    return Status::InvalidArgument("cannot delete from object using integer index");
  }
  if (n.kind != JsonNode::Kind::kArray) return Status::InvalidArgument("cannot delete from scalar");
  int64_t i = a[1].int_value();
  const auto size = static_cast<int64_t>(n.items.size());
  if (i < 0) i += size;
  if (i >= 0 && i < size) n.items.erase(n.items.begin() + i);
  *out = Value::String(JsonbText(n));
  return Status::OK();
}

Status TypeofFn(const SqlType&, const Value* a, size_t, Value* out) {
  JsonNode n;
  SLUICE_RETURN_IF_ERROR(Parse(a[0], &n));
  *out = Value::String(JsonKindName(n));
  return Status::OK();
}
Status ArrayLengthFn(const SqlType&, const Value* a, size_t, Value* out) {
  JsonNode n;
  SLUICE_RETURN_IF_ERROR(Parse(a[0], &n));
  if (n.kind != JsonNode::Kind::kArray) {
    return Status::InvalidArgument(n.kind == JsonNode::Kind::kObject
                                       ? "cannot get array length of a non-array"
                                       : "cannot get array length of a scalar");
  }
  *out = Value::Int(static_cast<int64_t>(n.items.size()));
  return Status::OK();
}

// to_jsonb(text) (other types are cast to JSONB on the way in).
Status QuoteFn(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::String(JsonQuote(a[0].string_value()));
  return Status::OK();
}
Status IdentityFn(const SqlType&, const Value* a, size_t, Value* out) {
  *out = a[0];
  return Status::OK();
}

// row_to_json(record, pretty): the record as json; with `pretty`, a line
// feed and a space after each comma between its fields, as PostgreSQL
// prints it.
Status RowToJsonFn(const SqlType&, const Value* a, size_t n, Value* out) {
  if (n < 2 || a[1].is_null() || !a[1].bool_value()) {
    *out = a[0];
    return Status::OK();
  }
  const std::string& text = a[0].string_value();
  std::string pretty;
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    pretty.push_back(c);
    if (in_string) {
      if (c == '\\' && i + 1 < text.size()) {
        pretty.push_back(text[++i]);
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') in_string = true;
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') --depth;
    if (c == ',' && depth == 1) pretty += "\n ";
  }
  *out = Value::String(std::move(pretty));
  return Status::OK();
}

// jsonb_build_object(key, value, ...) over text keys and JSONB values (the
// binder makes them so; a NULL value is JSON's null).
Status BuildObjectFn(const SqlType& type, const Value* a, size_t n, Value* out) {
  if (n % 2 != 0) {
    return Status::InvalidArgument(
        "argument list must have even number of elements (the arguments of " +
        std::string(type.is_jsonb() ? "jsonb" : "json") +
        "_build_object() must consist of alternating keys and values)");
  }
  std::string s = "{";
  for (size_t i = 0; i < n; i += 2) {
    if (a[i].is_null()) {
      return Status::InvalidArgument("argument " + std::to_string(i + 1) +
                                     ": key must not be null");
    }
    if (i) s += ", ";
    // PostgreSQL's json_build_object puts spaces around the colon.
    s += JsonQuote(a[i].string_value()) + (type.is_jsonb() ? ": " : " : ") +
         (a[i + 1].is_null() ? "null" : a[i + 1].string_value());
  }
  s += "}";
  std::string doc;
  SLUICE_RETURN_IF_ERROR(JsonFromText(s, type.is_jsonb(), &doc));
  *out = Value::String(std::move(doc));
  return Status::OK();
}
Status BuildArrayFn(const SqlType& type, const Value* a, size_t n, Value* out) {
  std::string s = "[";
  for (size_t i = 0; i < n; ++i) {
    if (i) s += ", ";
    s += a[i].is_null() ? "null" : a[i].string_value();
  }
  s += "]";
  std::string doc;
  SLUICE_RETURN_IF_ERROR(JsonFromText(s, type.is_jsonb(), &doc));
  *out = Value::String(std::move(doc));
  return Status::OK();
}

// jsonb_object_agg's last step: an array of [key, value] pairs as an object
// (a NULL key is an error, as in PostgreSQL).
Status ObjectOfPairsFn(const SqlType& type, const Value* a, size_t, Value* out) {
  // PostgreSQL's json_object_agg writes { "k" : v, ... }.
  const bool binary = type.is_jsonb();
  std::string s = binary ? "{" : "{ ";
  bool first = true;
  for (const Value& p : a[0].list()) {
    JsonNode pair;
    SLUICE_RETURN_IF_ERROR(Parse(p, &pair));
    if (pair.items.size() != 2) continue;
    if (pair.items[0].kind == JsonNode::Kind::kNull) {
      return Status::InvalidArgument("field name must not be null");
    }
    if (!first) s += ", ";
    first = false;
    s += JsonQuote(pair.items[0].kind == JsonNode::Kind::kString ? pair.items[0].text
                                                                 : Slice(p, pair.items[0]));
    s += (binary ? ": " : " : ") + Slice(p, pair.items[1]);
  }
  s += binary ? "}" : first ? "}" : " }";
  std::string doc;
  SLUICE_RETURN_IF_ERROR(JsonFromText(s, type.is_jsonb(), &doc));
  *out = Value::String(std::move(doc));
  return Status::OK();
}

// json_agg's last step: the documents of array_agg(to_json(x)) as one
// array, as json_build_array writes its arguments ([a, b]; a NULL is null).
Status ArrayOfElementsFn(const SqlType& type, const Value* a, size_t, Value* out) {
  const auto& items = a[0].list();
  return BuildArrayFn(type, items.data(), items.size(), out);
}

// The rows of the set-returning functions, as arrays: the elements as
// documents, or (kText) as ->> gives them.
template <bool kText>
Status ElementsFn(const SqlType&, const Value* a, size_t, Value* out) {
  JsonNode n;
  SLUICE_RETURN_IF_ERROR(Parse(a[0], &n));
  if (n.kind != JsonNode::Kind::kArray) {
    return Status::InvalidArgument(n.kind == JsonNode::Kind::kObject
                                       ? "cannot extract elements from an object"
                                       : "cannot extract elements from a scalar");
  }
  std::vector<Value> rows;
  for (const JsonNode& x : n.items) {
    Value v;
    kText ? AsText(a[0], &x, &v) : AsJson(a[0], &x, &v);
    rows.push_back(std::move(v));
  }
  *out = Value::List(std::move(rows));
  return Status::OK();
}
Status ObjectKeysFn(const SqlType&, const Value* a, size_t, Value* out) {
  JsonNode n;
  SLUICE_RETURN_IF_ERROR(Parse(a[0], &n));
  if (n.kind != JsonNode::Kind::kObject) {
    return Status::InvalidArgument(std::string("cannot call jsonb_object_keys on ") +
                                   (n.kind == JsonNode::Kind::kArray ? "an array" : "a scalar"));
  }
  std::vector<Value> rows;
  for (const auto& [k, v] : n.members) rows.push_back(Value::String(k));
  *out = Value::List(std::move(rows));
  return Status::OK();
}

// "jsonb_x" or "json_x": which, and x.
bool Split(std::string_view name, bool* binary, std::string_view* rest) {
  if (name.substr(0, 6) == "jsonb_") {
    *binary = true;
    *rest = name.substr(6);
    return true;
  }
  if (name.substr(0, 5) == "json_") {
    *binary = false;
    *rest = name.substr(5);
    return true;
  }
  return false;
}

}  // namespace

bool ResolveJson(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r) {
  const size_t n = args.size();
  const bool doc0 = n >= 1 && args[0].is_json();
  const bool bin0 = doc0 && args[0].is_jsonb();
  auto text_at = [&](size_t i) { return i < n && args[i].IsString(); };
  auto int_at = [&](size_t i) { return i < n && args[i].IsInteger(); };
  auto text_array_at = [&](size_t i) {
    return i < n && args[i].id() == TypeId::kArray && args[i].children()[0].IsString();
  };
  const SqlType doc = doc0 ? args[0].WithNullable(true) : SqlType::Json(true);
  const SqlType jb = SqlType::Json(true);
  if (n == 2 && doc0) {
    if (name == "->" && text_at(1)) return Resolve(r, GetKey, "->", doc, {doc, Text()});
    if (name == "->" && int_at(1))
      return Resolve(r, GetIndex, "->", doc, {doc, SqlType::Integer()});
    if (name == "->>" && text_at(1)) return Resolve(r, GetKeyText, "->>", Text(), {doc, Text()});
    if (name == "->>" && int_at(1))
      return Resolve(r, GetIndexText, "->>", Text(), {doc, SqlType::Integer()});
    if (name == "#>" && text_array_at(1))
      return Resolve(r, GetPath, "#>", doc, {doc, SqlType::Array(Text())});
    if (name == "#>>" && text_array_at(1))
      return Resolve(r, GetPathText, "#>>", Text(), {doc, SqlType::Array(Text())});
  }
  if (n == 2 && bin0) {
    if (name == "@>" && args[1].is_jsonb())
      return Resolve(r, ContainsFn, "@>", SqlType::Boolean(), {jb, jb});
    if (name == "<@" && args[1].is_jsonb())
      return Resolve(r, ContainedFn, "<@", SqlType::Boolean(), {jb, jb});
    if (name == "?" && text_at(1))
      return Resolve(r, HasKeyFn, "?", SqlType::Boolean(), {jb, Text()});
    if (name == "?|" && text_array_at(1))
      return Resolve(r, HasKeysFn<false>, "?|", SqlType::Boolean(), {jb, SqlType::Array(Text())});
    if (name == "?&" && text_array_at(1))
      return Resolve(r, HasKeysFn<true>, "?&", SqlType::Boolean(), {jb, SqlType::Array(Text())});
    if (name == "||" && args[1].is_jsonb()) return Resolve(r, ConcatFn, "||", jb, {jb, jb});
    if (name == "-" && text_at(1)) return Resolve(r, DeleteKeyFn, "-", jb, {jb, Text()});
    if (name == "-" && int_at(1))
      return Resolve(r, DeleteIndexFn, "-", jb, {jb, SqlType::Integer()});
  }
  bool binary = false;
  std::string_view fn;
  if (name == "to_jsonb" || name == "to_json") {
    if (n != 1) return false;
    const SqlType out = SqlType::Json(name == "to_jsonb");
    if (args[0].IsString())
      return Resolve(r, QuoteFn, name == "to_jsonb" ? "to_jsonb" : "to_json", out, {Text()});
    return Resolve(r, IdentityFn, name == "to_jsonb" ? "to_jsonb" : "to_json", out, {out});
  }
  if (name == "row_to_json" && (n == 1 || n == 2) && args[0].id() == TypeId::kRow &&
      (n == 1 || args[1].id() == TypeId::kBoolean)) {
    const SqlType json = SqlType::Json(false);
    std::vector<SqlType> types{json};
    if (n == 2) types.push_back(SqlType::Boolean());
    return Resolve(r, RowToJsonFn, "row_to_json", json, types);
  }
  if (!Split(name, &binary, &fn)) return false;
  const SqlType own = SqlType::Json(binary);
  // A document argument: of the function's type, or text read as one.
  const bool own0 = n >= 1 && ((doc0 && bin0 == binary) || args[0].IsString());
  if (fn == "typeof" && n == 1 && own0)
    return Resolve(r, TypeofFn, binary ? "jsonb_typeof" : "json_typeof", Text(), {own});
  if (fn == "array_length" && n == 1 && own0) {
    return Resolve(r, ArrayLengthFn, binary ? "jsonb_array_length" : "json_array_length",
                   SqlType::Integer(), {own});
  }
  if (fn == "build_object" || fn == "build_array") {
    // The binder hands the values over as documents already (to_jsonb or
    // to_json of each).
    std::vector<SqlType> types;
    for (size_t i = 0; i < n; ++i) {
      const bool key = fn == "build_object" && i % 2 == 0;
      if (key ? !(args[i].IsString()) : !(args[i].is_json() && args[i].is_jsonb() == binary))
        return false;
      types.push_back(key ? Text() : own);
    }
    r->strict = false;
    if (fn == "build_object")
      return Resolve(r, BuildObjectFn, binary ? "jsonb_build_object" : "json_build_object", own,
                     types);
    return Resolve(r, BuildArrayFn, binary ? "jsonb_build_array" : "json_build_array", own, types);
  }
  if (fn == "object_of_pairs" && n == 1 && args[0].id() == TypeId::kArray) {
    return Resolve(r, ObjectOfPairsFn, binary ? "jsonb_object_agg" : "json_object_agg", own,
                   {SqlType::Array(own)});
  }
  if (fn == "array_of_elements" && !binary && n == 1 && args[0].id() == TypeId::kArray) {
    return Resolve(r, ArrayOfElementsFn, "json_agg", own, {SqlType::Array(own)});
  }
  return false;
}

bool ResolveJsonSet(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r) {
  bool binary = false;
  std::string_view fn;
  if (!Split(name, &binary, &fn) || args.size() != 1 ||
      !((args[0].is_json() && args[0].is_jsonb() == binary) || args[0].IsString()))
    return false;
  const SqlType own = SqlType::Json(binary);
  if (fn == "array_elements")
    return Resolve(r, ElementsFn<false>, binary ? "jsonb_array_elements" : "json_array_elements",
                   SqlType::Array(own), {own});
  if (fn == "array_elements_text") {
    return Resolve(r, ElementsFn<true>,
                   binary ? "jsonb_array_elements_text" : "json_array_elements_text",
                   SqlType::Array(Text()), {own});
  }
  if (fn == "object_keys")
    return Resolve(r, ObjectKeysFn, binary ? "jsonb_object_keys" : "json_object_keys",
                   SqlType::Array(Text()), {own});
  return false;
}

}  // namespace sluice::sql
