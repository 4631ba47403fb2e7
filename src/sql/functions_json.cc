// JSON and JSONB operators and functions, as PostgreSQL has them. Values
// are documents kept as text (sql/json_value.h): each function reads the
// text it needs, and a JSONB result is canonical text again.
#include <algorithm>
#include <cerrno>
#include <climits>
#include <string>
#include <vector>

#include "sql/functions_internal.h"
#include "sql/json_path.h"
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

// row_to_json(record, pretty) and array_to_json(array, pretty): the value
// as json; with `pretty`, a line feed and a space after each comma between
// its fields or elements, as PostgreSQL prints it.
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

// json(b)_build_array(VARIADIC a) and json(b)_build_object(VARIADIC a),
// given to_json(b)(a): the array's elements at every level, in order, as
// the arguments (a NULL array gives NULL).
void Spread(const JsonNode& n, std::vector<const JsonNode*>* out) {
  for (const JsonNode& x : n.items) {
    if (x.kind == JsonNode::Kind::kArray) {
      Spread(x, out);
    } else {
      out->push_back(&x);
    }
  }
}
Status SpreadFn(const SqlType& type, const Value* a, size_t, Value* out, bool object) {
  JsonNode n;
  SLUICE_RETURN_IF_ERROR(Parse(a[0], &n));
  if (n.kind != JsonNode::Kind::kArray)
    return Status::InvalidArgument("VARIADIC argument must be an array");
  std::vector<const JsonNode*> items;
  Spread(n, &items);
  std::vector<Value> args;
  for (size_t i = 0; i < items.size(); ++i) {
    const JsonNode& x = *items[i];
    if (object && i % 2 == 0) {
      if (x.kind == JsonNode::Kind::kNull) {
        return Status::InvalidArgument("argument " + std::to_string(i + 1) +
                                       ": key must not be null");
      }
      args.push_back(Value::String(x.kind == JsonNode::Kind::kString ? x.text : Slice(a[0], x)));
    } else {
      args.push_back(Value::String(Slice(a[0], x)));
    }
  }
  return object ? BuildObjectFn(type, args.data(), args.size(), out)
                : BuildArrayFn(type, args.data(), args.size(), out);
}
Status SpreadArrayFn(const SqlType& type, const Value* a, size_t n, Value* out) {
  return SpreadFn(type, a, n, out, false);
}
Status SpreadObjectFn(const SqlType& type, const Value* a, size_t n, Value* out) {
  return SpreadFn(type, a, n, out, true);
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

// ---- editing a document along a path: jsonb_set, jsonb_set_lax,
// jsonb_insert and #- (PostgreSQL's setPath).
enum class PathEdit { kReplace, kCreate, kInsertBefore, kInsertAfter, kDelete };

bool AddsMissing(PathEdit op) { return op != PathEdit::kReplace && op != PathEdit::kDelete; }

// Path step i as an array index, as PostgreSQL reads one (strtoint).
Status PathIndex(const std::vector<Value>& path, size_t i, int64_t* out) {
  const std::string& s = path[i].string_value();
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || errno != 0 || v < INT32_MIN || v > INT32_MAX) {
    return Status::InvalidArgument("path element at position " + std::to_string(i + 1) +
                                   " is not an integer: \"" + s + "\"");
  }
  *out = v;
  return Status::OK();
}

// Applies `op` at path step `i` under `n`: a step into a scalar, or into
// a key or index that is not there, changes nothing, except that the last
// step adds `value` where the operation adds (a key; before the first
// element for an index before it, after the last for one past it).
Status EditPath(JsonNode* n, const std::vector<Value>& path, size_t i, PathEdit op,
                const JsonNode* value) {
  if (path[i].is_null()) {
    return Status::InvalidArgument("path element at position " + std::to_string(i + 1) +
                                   " is null");
  }
  const bool last = i + 1 == path.size();
  if (n->kind == JsonNode::Kind::kObject) {
    const std::string& key = path[i].string_value();
    for (size_t m = 0; m < n->members.size(); ++m) {
      if (n->members[m].first != key) continue;
      if (!last) return EditPath(&n->members[m].second, path, i + 1, op, value);
      if (op == PathEdit::kInsertBefore || op == PathEdit::kInsertAfter) {
        return Status::InvalidArgument(
            "cannot replace existing key (try using the function jsonb_set to replace key "
            "value)");
      }
      if (op == PathEdit::kDelete) {
        n->members.erase(n->members.begin() + static_cast<ptrdiff_t>(m));
      } else {
        n->members[m].second = *value;
      }
      return Status::OK();
    }
    if (last && AddsMissing(op)) n->members.emplace_back(key, *value);
    return Status::OK();
  }
  if (n->kind != JsonNode::Kind::kArray) return Status::OK();
  int64_t at = 0;
  SLUICE_RETURN_IF_ERROR(PathIndex(path, i, &at));
  const auto size = static_cast<int64_t>(n->items.size());
  bool before_all = false;
  if (at < 0) {
    before_all = -at > size;
    at += size;
  }
  if (before_all || size == 0 || at >= size) {
    if (last && AddsMissing(op)) {
      const bool front = before_all || size == 0;
      n->items.insert(front ? n->items.begin() : n->items.end(), *value);
    }
    return Status::OK();
  }
  const auto it = n->items.begin() + at;
  if (!last) return EditPath(&*it, path, i + 1, op, value);
  switch (op) {
    case PathEdit::kDelete:
      n->items.erase(it);
      break;
    case PathEdit::kInsertBefore:
      n->items.insert(it, *value);
      break;
    case PathEdit::kInsertAfter:
      n->items.insert(it + 1, *value);
      break;
    default:
      *it = *value;
  }
  return Status::OK();
}

// The whole edit: a scalar document refuses it, an empty path leaves the
// document as it is.
Status EditDocument(const Value& doc, const Value& path, PathEdit op, const Value* value,
                    Value* out) {
  JsonNode n, v;
  SLUICE_RETURN_IF_ERROR(Parse(doc, &n));
  if (n.kind != JsonNode::Kind::kObject && n.kind != JsonNode::Kind::kArray) {
    return Status::InvalidArgument(op == PathEdit::kDelete ? "cannot delete path in scalar"
                                                           : "cannot set path in scalar");
  }
  // Nothing to delete from an empty document, whatever the path says.
  const bool empty = n.items.empty() && n.members.empty();
  if (path.list().empty() || (op == PathEdit::kDelete && empty)) {
    *out = doc;
    return Status::OK();
  }
  if (value != nullptr) SLUICE_RETURN_IF_ERROR(Parse(*value, &v));
  SLUICE_RETURN_IF_ERROR(EditPath(&n, path.list(), 0, op, &v));
  SLUICE_RETURN_IF_ERROR(Canonicalize(&n));
  *out = Value::String(JsonbText(n));
  return Status::OK();
}

// jsonb_set(target, path, new_value [, create_if_missing]).
Status SetFn(const SqlType&, const Value* a, size_t n, Value* out) {
  const bool create = n < 4 || a[3].bool_value();
  return EditDocument(a[0], a[1], create ? PathEdit::kCreate : PathEdit::kReplace, &a[2], out);
}
// jsonb_set_lax(target, path, new_value [, create_if_missing
// [, null_value_treatment]]): as jsonb_set, but a NULL new value does what
// the treatment says. Not strict: NULL target or path is NULL.
Status SetLaxFn(const SqlType& t, const Value* a, size_t n, Value* out) {
  if (a[0].is_null() || a[1].is_null() || (n >= 4 && a[3].is_null())) {
    *out = Value::Null();
    return Status::OK();
  }
  // A NULL treatment is no treatment, as an unknown one is.
  const std::string treatment = n < 5 ? "use_json_null" : a[4].is_null() ? "" : a[4].string_value();
  if (treatment != "delete_key" && treatment != "return_target" && treatment != "use_json_null" &&
      treatment != "raise_exception") {
    return Status::InvalidArgument(
        "null_value_treatment must be \"delete_key\", \"return_target\", \"use_json_null\", or "
        "\"raise_exception\"");
  }
  if (!a[2].is_null()) return SetFn(t, a, std::min<size_t>(n, 4), out);
  if (treatment == "raise_exception") {
    return Status::InvalidArgument(
        "JSON value must not be null (null_value_treatment is \"raise_exception\")");
  }
  if (treatment == "return_target") {
    *out = a[0];
    return Status::OK();
  }
  if (treatment == "delete_key") return EditDocument(a[0], a[1], PathEdit::kDelete, nullptr, out);
  const Value null_doc = Value::String("null");
  const bool create = n < 4 || a[3].bool_value();
  return EditDocument(a[0], a[1], create ? PathEdit::kCreate : PathEdit::kReplace, &null_doc, out);
}
// jsonb_insert(target, path, new_value [, insert_after]).
Status InsertFn(const SqlType&, const Value* a, size_t n, Value* out) {
  const bool after = n >= 4 && a[3].bool_value();
  return EditDocument(a[0], a[1], after ? PathEdit::kInsertAfter : PathEdit::kInsertBefore, &a[2],
                      out);
}
// jsonb #- text[] (jsonb_delete_path).
Status DeletePathFn(const SqlType&, const Value* a, size_t, Value* out) {
  return EditDocument(a[0], a[1], PathEdit::kDelete, nullptr, out);
}

// jsonb - text[] (and jsonb_delete(j, VARIADIC keys)): without any of
// those keys, or, in an array, those strings.
Status DeleteKeysFn(const SqlType&, const Value* a, size_t, Value* out) {
  JsonNode n;
  SLUICE_RETURN_IF_ERROR(Parse(a[0], &n));
  auto listed = [&](const std::string& s) {
    for (const Value& k : a[1].list()) {
      if (!k.is_null() && k.string_value() == s) return true;
    }
    return false;
  };
  if (n.kind == JsonNode::Kind::kObject) {
    std::erase_if(n.members, [&](const auto& m) { return listed(m.first); });
  } else if (n.kind == JsonNode::Kind::kArray) {
    std::erase_if(n.items, [&](const JsonNode& x) {
      return x.kind == JsonNode::Kind::kString && listed(x.text);
    });
  } else {
    return Status::InvalidArgument("cannot delete from scalar");
  }
  *out = Value::String(JsonbText(n));
  return Status::OK();
}

Status DeleteKeyListFn(const SqlType& t, const Value* a, size_t n, Value* out) {
  const Value keys[2] = {a[0], Value::List(std::vector<Value>(a + 1, a + n))};
  return DeleteKeysFn(t, keys, 2, out);
}

// json(b)_extract_path(doc, key, ...): #> with the keys as arguments;
// (kText) _extract_path_text: #>>.
template <bool kText>
Status ExtractPathFn(const SqlType&, const Value* a, size_t n, Value* out) {
  JsonNode d;
  SLUICE_RETURN_IF_ERROR(Parse(a[0], &d));
  const JsonNode* found = Path(d, std::vector<Value>(a + 1, a + n));
  kText ? AsText(a[0], found, out) : AsJson(a[0], found, out);
  return Status::OK();
}

// json(b)_strip_nulls: without the object members whose value is null, at
// every level (array elements stay).
void StripNulls(JsonNode* n) {
  if (n->kind == JsonNode::Kind::kObject) {
    std::erase_if(n->members, [](const auto& m) { return m.second.kind == JsonNode::Kind::kNull; });
    for (auto& m : n->members) StripNulls(&m.second);
  } else if (n->kind == JsonNode::Kind::kArray) {
    for (JsonNode& x : n->items) StripNulls(&x);
  }
}
Status StripNullsFn(const SqlType& type, const Value* a, size_t, Value* out) {
  JsonNode n;
  SLUICE_RETURN_IF_ERROR(Parse(a[0], &n));
  StripNulls(&n);
  *out = Value::String(JsonText(n, type.is_jsonb() ? JsonStyle::kJsonb : JsonStyle::kCompact));
  return Status::OK();
}
Status PrettyFn(const SqlType&, const Value* a, size_t, Value* out) {
  JsonNode n;
  SLUICE_RETURN_IF_ERROR(Parse(a[0], &n));
  *out = Value::String(JsonText(n, JsonStyle::kPretty));
  return Status::OK();
}

// json(b)_object(text[]): a one-dimensional array of keys and values in
// turn, or a two-dimensional one of [key, value] pairs; json(b)_object(keys,
// values): two arrays side by side. Values are strings, a NULL is null.
Status ObjectOfTextFn(const SqlType& type, const Value* a, size_t n, Value* out) {
  std::vector<std::pair<const Value*, const Value*>> pairs;
  auto dims = [](const Value& v) {
    int d = 1;
    for (const Value* x = &v; !x->list().empty() && x->list()[0].kind() == Value::Kind::kList;
         x = &x->list()[0])
      ++d;
    return d;
  };
  const Value null = Value::Null();
  if (n == 1) {
    const auto& items = a[0].list();
    const int d = items.empty() ? 1 : dims(a[0]);
    if (d == 1) {
      if (items.size() % 2 != 0) {
        return Status::InvalidArgument("array must have even number of elements");
      }
      for (size_t i = 0; i < items.size(); i += 2) pairs.emplace_back(&items[i], &items[i + 1]);
    } else if (d == 2) {
      for (const Value& p : items) {
        if (p.list().size() != 2) return Status::InvalidArgument("array must have two columns");
        pairs.emplace_back(&p.list()[0], &p.list()[1]);
      }
    } else {
      return Status::InvalidArgument("wrong number of array subscripts");
    }
  } else {
    const auto& keys = a[0].list();
    const auto& values = a[1].list();
    if ((!keys.empty() && dims(a[0]) > 1) || (!values.empty() && dims(a[1]) > 1)) {
      return Status::InvalidArgument("wrong number of array subscripts");
    }
    if (keys.size() != values.size()) {
      return Status::InvalidArgument("mismatched array dimensions");
    }
    for (size_t i = 0; i < keys.size(); ++i) pairs.emplace_back(&keys[i], &values[i]);
  }
  const bool binary = type.is_jsonb();
  std::string s = "{";
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (pairs[i].first->is_null()) {
      return Status::InvalidArgument("null value not allowed for object key");
    }
    if (i) s += ", ";
    s += JsonQuote(pairs[i].first->string_value()) + (binary ? ": " : " : ");
    s += pairs[i].second->is_null() ? "null" : JsonQuote(pairs[i].second->string_value());
  }
  s += "}";
  std::string doc;
  SLUICE_RETURN_IF_ERROR(JsonFromText(s, binary, &doc));
  *out = Value::String(std::move(doc));
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

// json(b)_each and json(b)_each_text: an object's members as (key, value)
// rows, the value a document or (kText) as ->> gives it.
template <bool kText, bool kBinary>
Status EachFn(const SqlType&, const Value* a, size_t, Value* out) {
  JsonNode n;
  SLUICE_RETURN_IF_ERROR(Parse(a[0], &n));
  if (n.kind != JsonNode::Kind::kObject) {
    return Status::InvalidArgument(std::string("cannot call ") + (kBinary ? "jsonb" : "json") +
                                   (kText ? "_each_text" : "_each") + " on a non-object");
  }
  std::vector<Value> rows;
  for (const auto& [k, v] : n.members) {
    Value value;
    kText ? AsText(a[0], &v, &value) : AsJson(a[0], &v, &value);
    rows.push_back(Value::List({Value::String(k), std::move(value)}));
  }
  *out = Value::List(std::move(rows));
  return Status::OK();
}

// A document's value as a value of SQL type `t`, as json(b)_populate_record
// converts a member: null is NULL, an object fills a composite type, an
// array an array type, a string is read as its text, anything else as its
// document's text (a json or jsonb field takes the document).
Status FromJson(const Value& doc, const JsonNode& n, const SqlType& t, Value* out);
Status FillRecord(const Value& doc, const JsonNode& n, const SqlType& t, const Value* base,
                  Value* out) {
  const auto& names = t.field_names();
  std::vector<Value> fields(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    const JsonNode* m = Member(n, names[i]);
    if (m != nullptr) {
      SLUICE_RETURN_IF_ERROR(FromJson(doc, *m, t.children()[i], &fields[i]));
    } else if (base != nullptr && !base->is_null()) {
      fields[i] = base->list()[i];
    }
  }
  *out = Value::List(std::move(fields));
  return Status::OK();
}
Status FromJson(const Value& doc, const JsonNode& n, const SqlType& t, Value* out) {
  if (n.kind == JsonNode::Kind::kNull) {
    *out = Value::Null();
    return Status::OK();
  }
  if (t.is_json()) {
    std::string text;
    SLUICE_RETURN_IF_ERROR(JsonFromText(Slice(doc, n), t.is_jsonb(), &text));
    *out = Value::String(std::move(text));
    return Status::OK();
  }
  if (t.id() == TypeId::kRow && n.kind == JsonNode::Kind::kObject)
    return FillRecord(doc, n, t, nullptr, out);
  if (t.IsSqlArray() && n.kind == JsonNode::Kind::kArray) {
    // A nested array is a dimension of an array that holds sub-arrays.
    const SqlType& elem = t.children()[0];
    std::vector<Value> items;
    for (const JsonNode& x : n.items) {
      Value v;
      const bool dimension = x.kind == JsonNode::Kind::kArray && ArrayHoldsSubArrays(t);
      SLUICE_RETURN_IF_ERROR(FromJson(doc, x, dimension ? t : elem, &v));
      items.push_back(std::move(v));
    }
    *out = Value::List(std::move(items));
    return Status::OK();
  }
  const std::string text = n.kind == JsonNode::Kind::kString ? n.text : Slice(doc, n);
  return CastValue(Value::String(text), SqlType::Varchar(), t, out);
}

// json(b)_populate_record(base, doc) and json(b)_to_record(doc) (the
// binder passes a NULL of the column definition list's type as base); the
// _recordset forms over an array of objects. Rows as an array of one or
// more, for the series machinery.
template <bool kSet, bool kBinary, bool kTo>
Status PopulateFn(const SqlType& type, const Value* a, size_t, Value* out) {
  const std::string name = std::string(kBinary ? "jsonb_" : "json_") +
                           (kTo ? "to_record" : "populate_record") + (kSet ? "set" : "");
  if (a[1].is_null()) {
    *out = Value::List({});
    if (!kSet) *out = Value::List({kTo ? Value::Null() : a[0]});
    return Status::OK();
  }
  JsonNode n;
  SLUICE_RETURN_IF_ERROR(Parse(a[1], &n));
  const SqlType& row = type.children()[0];
  auto kind_words = [](const JsonNode& x) {
    return x.kind == JsonNode::Kind::kArray    ? "an array"
           : x.kind == JsonNode::Kind::kObject ? "an object"
                                               : "a scalar";
  };
  std::vector<Value> rows;
  if (!kSet) {
    if (n.kind != JsonNode::Kind::kObject)
      return Status::InvalidArgument("cannot call " + name + " on " + kind_words(n));
    Value r;
    SLUICE_RETURN_IF_ERROR(FillRecord(a[1], n, row, &a[0], &r));
    rows.push_back(std::move(r));
  } else {
    if (n.kind != JsonNode::Kind::kArray)
      return Status::InvalidArgument("cannot call " + name + " on " + kind_words(n));
    for (const JsonNode& x : n.items) {
      if (x.kind != JsonNode::Kind::kObject)
        return Status::InvalidArgument("argument of " + name + " must be an array of objects");
      Value r;
      SLUICE_RETURN_IF_ERROR(FillRecord(a[1], x, row, &a[0], &r));
      rows.push_back(std::move(r));
    }
  }
  *out = Value::List(std::move(rows));
  return Status::OK();
}

// ---- SQL/JSON paths: jsonb_path_query and its kin, @? and @@. A path
// is given as text (an untyped literal) and parsed once per thread while
// it is among the last few used.
Result<std::shared_ptr<const JsonPath>> CachedPath(const std::string& text) {
  thread_local RecentlyUsed<std::string, std::shared_ptr<const JsonPath>> cache;
  if (const auto* path = cache.Find(text)) return *path;
  SLUICE_ASSIGN_OR_RETURN(std::shared_ptr<const JsonPath> path, ParseJsonPath(text));
  return *cache.Add(text, std::move(path));
}

// The items of path a[1] over document a[0], with the variables a[2] and
// `silent` (a[3]) as the functions take them (NULL: no result). Sets
// *null when the call answers NULL.
Status PathItems(const Value* a, size_t n, bool silent_op, JsonPathItems* out, bool* null,
                 bool exists_only = false) {
  *null = false;
  for (size_t i = 0; i < n; ++i) {
    if (a[i].is_null()) {
      *null = true;
      return Status::OK();
    }
  }
  const bool silent = silent_op || (n >= 4 && a[3].bool_value());
  SLUICE_ASSIGN_OR_RETURN(std::shared_ptr<const JsonPath> path, CachedPath(a[1].string_value()));
  JsonNode doc, vars;
  SLUICE_RETURN_IF_ERROR(Parse(a[0], &doc));
  if (n >= 3) SLUICE_RETURN_IF_ERROR(Parse(a[2], &vars));
  SLUICE_ASSIGN_OR_RETURN(*out,
                          EvalJsonPath(*path, doc, n >= 3 ? &vars : nullptr, silent, exists_only));
  return Status::OK();
}

template <bool kOperator>
Status PathExistsFn(const SqlType&, const Value* a, size_t n, Value* out) {
  JsonPathItems r;
  bool null = false;
  SLUICE_RETURN_IF_ERROR(PathItems(a, n, kOperator, &r, &null, /*exists_only=*/true));
  *out = null || r.failed ? Value::Null() : Value::Bool(!r.items.empty());
  return Status::OK();
}
template <bool kOperator>
Status PathMatchFn(const SqlType&, const Value* a, size_t n, Value* out) {
  JsonPathItems r;
  bool null = false;
  SLUICE_RETURN_IF_ERROR(PathItems(a, n, kOperator, &r, &null));
  *out = Value::Null();
  if (null || r.failed) return Status::OK();
  if (r.items.size() == 1 && r.items[0].kind == JsonNode::Kind::kBool) {
    *out = Value::Bool(r.items[0].boolean);
  } else if (!(r.items.size() == 1 && r.items[0].kind == JsonNode::Kind::kNull) &&
             !(kOperator || (n >= 4 && a[3].bool_value()))) {
    return Status::InvalidArgument("single boolean result is expected");
  }
  return Status::OK();
}
std::string ItemText(JsonNode item) {
  (void)Canonicalize(&item);  // numbers as NUMERIC prints them
  return JsonbText(item);
}
Status PathQueryArrayFn(const SqlType&, const Value* a, size_t n, Value* out) {
  JsonPathItems r;
  bool null = false;
  SLUICE_RETURN_IF_ERROR(PathItems(a, n, false, &r, &null));
  if (null) {
    *out = Value::Null();
    return Status::OK();
  }
  JsonNode array;
  array.kind = JsonNode::Kind::kArray;
  array.items = std::move(r.items);
  *out = Value::String(ItemText(std::move(array)));
  return Status::OK();
}
Status PathQueryFirstFn(const SqlType&, const Value* a, size_t n, Value* out) {
  JsonPathItems r;
  bool null = false;
  SLUICE_RETURN_IF_ERROR(PathItems(a, n, false, &r, &null));
  *out = null || r.items.empty() ? Value::Null() : Value::String(ItemText(std::move(r.items[0])));
  return Status::OK();
}
// jsonb_path_query: its rows as an array, for the series machinery.
Status PathQueryFn(const SqlType&, const Value* a, size_t n, Value* out) {
  JsonPathItems r;
  bool null = false;
  SLUICE_RETURN_IF_ERROR(PathItems(a, n, false, &r, &null));
  std::vector<Value> rows;
  if (!null) {
    for (JsonNode& item : r.items) rows.push_back(Value::String(ItemText(std::move(item))));
  }
  *out = Value::List(std::move(rows));
  return Status::OK();
}

// Whether `name` is one of the path functions (with or without _tz) and
// its arguments fit: (jsonb, path [, vars jsonb [, silent bool]]).
bool PathArgs(const std::vector<SqlType>& args) {
  const size_t n = args.size();
  auto doc_at = [&](size_t i) { return args[i].is_jsonb() || args[i].IsString(); };
  return n >= 2 && n <= 4 && doc_at(0) && args[1].IsString() && (n < 3 || doc_at(2)) &&
         (n < 4 || args[3].id() == TypeId::kBoolean);
}
std::vector<SqlType> PathTypes(size_t n) {
  std::vector<SqlType> t{SqlType::Json(true), Text(), SqlType::Json(true), SqlType::Boolean()};
  t.resize(n);
  return t;
}
std::string WithoutTz(std::string_view name) {
  std::string s(name);
  if (s.ends_with("_tz")) s.resize(s.size() - 3);
  return s;
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
    if (name == "-" && text_array_at(1))
      return Resolve(r, DeleteKeysFn, "-", jb, {jb, SqlType::Array(Text())});
    if (name == "#-" && (text_array_at(1) || text_at(1)))
      return Resolve(r, DeletePathFn, "#-", jb, {jb, SqlType::Array(Text())});
  }
  // The function forms of the operators, which take text for a document
  // as well (an untyped literal).
  const bool jb0 = bin0 || (n >= 1 && args[0].IsString());
  const SqlType text_array = SqlType::Array(Text());
  auto path_at = [&](size_t i) { return text_array_at(i) || text_at(i); };
  auto doc_at = [&](size_t i) { return i < n && (args[i].is_jsonb() || args[i].IsString()); };
  auto bool_at = [&](size_t i) { return i < n && args[i].id() == TypeId::kBoolean; };
  if (jb0 && n == 2) {
    if (name == "jsonb_exists" && text_at(1))
      return Resolve(r, HasKeyFn, "jsonb_exists", SqlType::Boolean(), {jb, Text()});
    if (name == "jsonb_exists_any" && path_at(1))
      return Resolve(r, HasKeysFn<false>, "jsonb_exists_any", SqlType::Boolean(), {jb, text_array});
    if (name == "jsonb_exists_all" && path_at(1))
      return Resolve(r, HasKeysFn<true>, "jsonb_exists_all", SqlType::Boolean(), {jb, text_array});
    if (name == "jsonb_contains" && doc_at(1))
      return Resolve(r, ContainsFn, "jsonb_contains", SqlType::Boolean(), {jb, jb});
    if (name == "jsonb_contained" && doc_at(1))
      return Resolve(r, ContainedFn, "jsonb_contained", SqlType::Boolean(), {jb, jb});
    if (name == "jsonb_delete_path" && path_at(1))
      return Resolve(r, DeletePathFn, "jsonb_delete_path", jb, {jb, text_array});
    if (name == "jsonb_delete" && int_at(1))
      return Resolve(r, DeleteIndexFn, "jsonb_delete", jb, {jb, SqlType::Integer()});
    if (name == "jsonb_delete" && text_array_at(1))
      return Resolve(r, DeleteKeysFn, "jsonb_delete", jb, {jb, text_array});
  }
  if (jb0 && name == "jsonb_delete" && n >= 2) {
    // jsonb_delete(j, key, ...): each key a text.
    for (size_t i = 1; i < n; ++i) {
      if (!text_at(i)) return false;
    }
    if (n == 2) return Resolve(r, DeleteKeyFn, "jsonb_delete", jb, {jb, Text()});
    std::vector<SqlType> types(n, Text());
    types[0] = jb;
    return Resolve(r, DeleteKeyListFn, "jsonb_delete", jb, types);
  }
  if (jb0 && (name == "jsonb_set" || name == "jsonb_insert") && (n == 3 || n == 4) && path_at(1) &&
      doc_at(2) && (n == 3 || bool_at(3))) {
    std::vector<SqlType> types{jb, text_array, jb};
    if (n == 4) types.push_back(SqlType::Boolean());
    return name == "jsonb_set" ? Resolve(r, SetFn, "jsonb_set", jb, types)
                               : Resolve(r, InsertFn, "jsonb_insert", jb, types);
  }
  if (jb0 && name == "jsonb_set_lax" && n >= 3 && n <= 5 && path_at(1) && doc_at(2) &&
      (n < 4 || bool_at(3)) && (n < 5 || text_at(4))) {
    std::vector<SqlType> types{jb, text_array, jb};
    if (n >= 4) types.push_back(SqlType::Boolean());
    if (n == 5) types.push_back(Text());
    r->strict = false;
    return Resolve(r, SetLaxFn, "jsonb_set_lax", jb, types);
  }
  if (jb0 && name == "jsonb_pretty" && n == 1)
    return Resolve(r, PrettyFn, "jsonb_pretty", Text(), {jb});
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
  if ((name == "@?" || name == "@@") && n == 2 && bin0 && args[1].IsString()) {
    r->strict = false;
    return name == "@?" ? Resolve(r, PathExistsFn<true>, "@?", SqlType::Boolean(), PathTypes(2))
                        : Resolve(r, PathMatchFn<true>, "@@", SqlType::Boolean(), PathTypes(2));
  }
  const std::string path_fn = WithoutTz(name);
  if (PathArgs(args) &&
      (path_fn == "jsonb_path_exists" || path_fn == "jsonb_path_match" ||
       path_fn == "jsonb_path_query_array" || path_fn == "jsonb_path_query_first")) {
    const std::string& f = path_fn;
    r->strict = false;  // NULL arguments answer NULL, but silent may be NULL too
    if (f == "jsonb_path_exists")
      return Resolve(r, PathExistsFn<false>, "jsonb_path_exists", SqlType::Boolean(), PathTypes(n));
    if (f == "jsonb_path_match")
      return Resolve(r, PathMatchFn<false>, "jsonb_path_match", SqlType::Boolean(), PathTypes(n));
    if (f == "jsonb_path_query_array")
      return Resolve(r, PathQueryArrayFn, "jsonb_path_query_array", jb, PathTypes(n));
    if (f == "jsonb_path_query_first")
      return Resolve(r, PathQueryFirstFn, "jsonb_path_query_first", jb, PathTypes(n));
  }
  if (name == "array_to_json" && (n == 1 || n == 2) && args[0].IsSqlArray() &&
      (n == 1 || args[1].id() == TypeId::kBoolean)) {
    // to_json of the array; `pretty` breaks the line after each top-level
    // element, as row_to_json's does after each field.
    const SqlType json = SqlType::Json(false);
    std::vector<SqlType> types{json};
    if (n == 2) types.push_back(SqlType::Boolean());
    return Resolve(r, RowToJsonFn, "array_to_json", json, types);
  }
  if (name == "jsonb_concat" && n == 2 && (bin0 || args[0].IsString()) &&
      (args[1].is_jsonb() || args[1].IsString()))
    return Resolve(r, ConcatFn, "jsonb_concat", jb, {jb, jb});
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
  if ((fn == "extract_path" || fn == "extract_path_text") && n >= 1 && own0) {
    std::vector<SqlType> types{own};
    for (size_t i = 1; i < n; ++i) {
      if (!text_at(i)) return false;
      types.push_back(Text());
    }
    const bool text = fn == "extract_path_text";
    const char* names[2][2] = {{"json_extract_path", "json_extract_path_text"},
                               {"jsonb_extract_path", "jsonb_extract_path_text"}};
    return Resolve(r, text ? ExtractPathFn<true> : ExtractPathFn<false>, names[binary][text],
                   text ? Text() : own, types);
  }
  if (fn == "strip_nulls" && n == 1 && own0)
    return Resolve(r, StripNullsFn, binary ? "jsonb_strip_nulls" : "json_strip_nulls", own, {own});
  if (fn == "object" && (n == 1 || n == 2)) {
    for (size_t i = 0; i < n; ++i) {
      if (!path_at(i)) return false;
    }
    std::vector<SqlType> types(n, text_array);
    return Resolve(r, ObjectOfTextFn, binary ? "jsonb_object" : "json_object", own, types);
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
  if ((fn == "spread_array" || fn == "spread_object") && n == 1 && doc0 && bin0 == binary) {
    const bool object = fn == "spread_object";
    const char* names[2][2] = {{"json_build_array", "json_build_object"},
                               {"jsonb_build_array", "jsonb_build_object"}};
    return Resolve(r, object ? SpreadObjectFn : SpreadArrayFn, names[binary][object], own, {own});
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
  if (WithoutTz(name) == "jsonb_path_query" && PathArgs(args)) {
    r->strict = false;
    return Resolve(r, PathQueryFn, "jsonb_path_query", SqlType::Array(SqlType::Json(true)),
                   PathTypes(args.size()));
  }
  bool binary = false;
  std::string_view fn;
  if (!Split(name, &binary, &fn)) return false;
  const SqlType own = SqlType::Json(binary);
  auto doc_at = [&](size_t i) {
    return (args[i].is_json() && args[i].is_jsonb() == binary) || args[i].IsString();
  };
  if ((fn == "populate_record" || fn == "populate_recordset" || fn == "to_record" ||
       fn == "to_recordset") &&
      args.size() == 2 && args[0].id() == TypeId::kRow && doc_at(1)) {
    const bool set = fn.ends_with("set"), to = fn.starts_with("to");
    static constexpr ScalarFn kFns[2][2][2] = {
        {{PopulateFn<false, false, false>, PopulateFn<false, false, true>},
         {PopulateFn<false, true, false>, PopulateFn<false, true, true>}},
        {{PopulateFn<true, false, false>, PopulateFn<true, false, true>},
         {PopulateFn<true, true, false>, PopulateFn<true, true, true>}}};
    r->strict = false;
    static const std::string kNames[2][2][2] = {
        {{"json_populate_record", "json_to_record"}, {"jsonb_populate_record", "jsonb_to_record"}},
        {{"json_populate_recordset", "json_to_recordset"},
         {"jsonb_populate_recordset", "jsonb_to_recordset"}}};
    return Resolve(r, kFns[set][binary][to], kNames[set][binary][to].c_str(),
                   SqlType::Array(args[0].WithNullable(true)), {args[0], own});
  }
  if (args.size() != 1 || !doc_at(0)) return false;
  if (fn == "each" || fn == "each_text") {
    const bool text = fn == "each_text";
    const SqlType row = SqlType::Row({"key", "value"}, {Text(), text ? Text() : own});
    static const char* kNames[2][2] = {{"json_each", "json_each_text"},
                                       {"jsonb_each", "jsonb_each_text"}};
    static constexpr ScalarFn kFns[2][2] = {{EachFn<false, false>, EachFn<true, false>},
                                            {EachFn<false, true>, EachFn<true, true>}};
    return Resolve(r, kFns[binary][text], kNames[binary][text], SqlType::Array(row), {own});
  }
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
