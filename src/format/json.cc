// JSON records, read with simdjson's on-demand parser and written by hand.
//
// Input: one record per line (or one array of records with `array`), each an
// object: with update_format insert_delete, {"insert": ROW}, {"delete": ROW}
// or (tables with a primary key) {"update": ROW with the key and the changed
// columns}; with raw, ROW itself is an insert. ROW maps column names (case
// insensitive, as unquoted SQL names) to values; a missing column takes its
// DEFAULT, or is NULL.
//
// Values by type: numbers for numeric types (DECIMAL keeps every digit of
// the number's text; NaN, Infinity and -Infinity are strings, as for
// doubles), strings for text, dates, times, timestamps and
// intervals (also accepted for numbers and booleans), arrays for ARRAY and
// BINARY (bytes as numbers), objects for MAP and ROW, anything for VARIANT.
#include "format/json.h"

#include <simdjson.h>

#include <charconv>
#include <cmath>

#include "dataflow/operators/upsert.h"
#include "sql/datetime.h"
#include "sql/expr.h"
#include "sql/json_value.h"
#include "types/row_codec.h"

namespace sluice::format {
namespace {

namespace od = simdjson::ondemand;

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool IsJsonSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
// std::isspace, without a call per character.
bool IsSpace(char c) { return IsJsonSpace(c) || c == '\v' || c == '\f'; }

// A value's failure, with the byte where it was found.
struct Fail {
  const char* at = nullptr;
  std::string reason;
};

Status FromText(std::string_view text, const SqlType& type, Value* out) {
  return sql::CastValue(Value::String(std::string(text)), SqlType::Varchar(), type, out);
}

bool JsonToValue(od::value v, const SqlType& type, Value* out, Fail* fail);

bool VariantFromJson(od::value v, Value* out, Fail* fail) {
  const char* at = v.raw_json_token().data();
  od::json_type jt;
  if (v.type().get(jt) != simdjson::SUCCESS) {
    *fail = {at, "malformed JSON value"};
    return false;
  }
  switch (jt) {
    case od::json_type::null:
      *out = Value::JsonNull();
      return true;
    case od::json_type::boolean: {
      bool b;
      if (v.get_bool().get(b) != simdjson::SUCCESS) break;
      *out = Value::Bool(b);
      return true;
    }
    case od::json_type::number: {
      int64_t i;
      if (v.get_int64().get(i) == simdjson::SUCCESS) {
        *out = Value::Int(i);
        return true;
      }
      double d;
      if (v.get_double().get(d) != simdjson::SUCCESS) break;
      *out = Value::Double(d);
      return true;
    }
    case od::json_type::string: {
      std::string_view s;
      if (v.get_string().get(s) != simdjson::SUCCESS) break;
      *out = Value::String(std::string(s));
      return true;
    }
    case od::json_type::array: {
      od::array a;
      if (v.get_array().get(a) != simdjson::SUCCESS) break;
      std::vector<Value> items;
      for (auto e : a) {
        od::value ev;
        if (e.get(ev) != simdjson::SUCCESS) {
          *fail = {at, "malformed JSON array"};
          return false;
        }
        items.emplace_back();
        if (!VariantFromJson(ev, &items.back(), fail)) return false;
      }
      *out = Value::List(std::move(items));
      return true;
    }
    case od::json_type::object: {
      od::object o;
      if (v.get_object().get(o) != simdjson::SUCCESS) break;
      std::vector<std::pair<std::string, Value>> fields;
      for (auto f : o) {
        std::string_view k;
        od::value fv;
        if (f.unescaped_key().get(k) != simdjson::SUCCESS ||
            f.value().get(fv) != simdjson::SUCCESS) {
          *fail = {at, "malformed JSON object"};
          return false;
        }
        fields.emplace_back(std::string(k), Value());
        if (!VariantFromJson(fv, &fields.back().second, fail)) return false;
      }
      // A MAP's entries are sorted by key, as the row encoding requires.
      std::sort(fields.begin(), fields.end(),
                [](const auto& a, const auto& b) { return a.first < b.first; });
      std::vector<Value> keys, values;
      for (auto& [k, fv] : fields) {
        keys.push_back(Value::String(k));
        values.push_back(std::move(fv));
      }
      *out = Value::Map(std::move(keys), std::move(values));
      return true;
    }
  }
  *fail = {at, "malformed JSON value"};
  return false;
}

bool JsonToValue(od::value v, const SqlType& type, Value* out, Fail* fail) {
  std::string_view raw = v.raw_json_token();
  const char* at = raw.data();
  od::json_type jt;
  if (v.type().get(jt) != simdjson::SUCCESS) {
    *fail = {at, "malformed JSON value"};
    return false;
  }
  if (jt == od::json_type::null) {
    bool is_null = false;
    if (v.is_null().get(is_null) == simdjson::SUCCESS && is_null) {
      *out = Value::Null();  // SQL NULL; a JSON null nested in a VARIANT stays JSON
      return true;
    }
    *fail = {at, "malformed JSON value"};
    return false;
  }
  if (type.id() == TypeId::kVariant) return VariantFromJson(v, out, fail);
  if (type.is_json()) {
    // A JSON or JSONB column takes the field's own JSON, whatever it holds.
    std::string_view whole = raw;
    if (jt == od::json_type::object) {
      od::object o;
      if (v.get_object().get(o) != simdjson::SUCCESS ||
          o.raw_json().get(whole) != simdjson::SUCCESS) {
        *fail = {at, "malformed JSON object"};
        return false;
      }
    } else if (jt == od::json_type::array) {
      od::array a;
      if (v.get_array().get(a) != simdjson::SUCCESS ||
          a.raw_json().get(whole) != simdjson::SUCCESS) {
        *fail = {at, "malformed JSON array"};
        return false;
      }
    }
    while (!whole.empty() && IsJsonSpace(whole.back())) whole.remove_suffix(1);
    std::string doc;
    Status s = sql::JsonFromText(whole, type.is_jsonb(), &doc);
    if (!s.ok()) {
      *fail = {at, s.message()};
      return false;
    }
    *out = Value::String(std::move(doc));
    return true;
  }
  auto expected = [&](const std::string& what) {
    *fail = {at, "expected " + what + " for type " + type.ToString() + ", found " +
                     std::string(raw.substr(0, std::min<size_t>(raw.size(), 40)))};
    return false;
  };
  auto from_text = [&](std::string_view text) {
    Status s = FromText(text, type, out);
    if (!s.ok()) {
      *fail = {at, s.message()};
      return false;
    }
    return true;
  };
  const TypeId id = type.id();
  // int2vector, oidvector and point take their text ('1 2', '(1,2)').
  if (jt == od::json_type::string &&
      ((id != TypeId::kArray && id != TypeId::kMap && id != TypeId::kRow && !type.IsBinary()) ||
       type.IsPgArrayKind())) {
    std::string_view s;
    if (v.get_string().get(s) != simdjson::SUCCESS) return expected("a string");
    if (type.IsVerbatimText()) {
      *out = Value::String(std::string(s));
      return true;
    }
    // The common forms directly; the rest (and the error) as a cast.
    int64_t x;
    if ((id == TypeId::kTimestamp && sql::ParseTimestampInput(s, &x)) ||
        (id == TypeId::kDate && sql::ParseDate(s, &x)) ||
        (id == TypeId::kTime && !type.IsTimeTz() && sql::ParseTime(s, &x))) {
      *out = Value::Int(x);
      return true;
    }
    return from_text(s);
  }
  switch (id) {
    case TypeId::kBoolean: {
      bool b;
      if (v.get_bool().get(b) != simdjson::SUCCESS) return expected("true or false");
      *out = Value::Bool(b);
      return true;
    }
    case TypeId::kTinyInt:
    case TypeId::kSmallInt:
    case TypeId::kInteger:
    case TypeId::kBigInt: {
      if (type.pg_kind() == PgKind::kMoney && jt == od::json_type::number) {
        // An amount of money as a number of dollars (12.5 is $12.50).
        size_t end = raw.size();
        while (end > 0 && IsJsonSpace(raw[end - 1])) --end;
        Value amount;
        Status st = sql::CastValue(Value::String(std::string(raw.substr(0, end))),
                                   SqlType::Varchar(), SqlType::Numeric(), &amount);
        if (st.ok()) st = sql::CastValue(amount, SqlType::Numeric(), type, out);
        if (!st.ok()) {
          *fail = {at, st.message()};
          return false;
        }
        return true;
      }
      int64_t i;
      if (jt != od::json_type::number || v.get_int64().get(i) != simdjson::SUCCESS) {
        return expected("an integer");
      }
      *out = Value::Int(i);
      return true;
    }
    case TypeId::kDecimal: {
      if (jt != od::json_type::number) return expected("a number");
      // The number's own digits, not a double's.
      size_t end = raw.size();
      while (end > 0 && IsJsonSpace(raw[end - 1])) --end;
      int128 u;
      const std::string_view text = raw.substr(0, end);
      const int scale =
          type.dynamic_scale() && IsDecimalText(text) ? DecimalTextScale(text) : type.scale();
      if (scale >= 0 && ParseDecimal(text, scale, &u)) {
        *out = Value::Decimal(u, scale);
        return true;
      }
      return from_text(raw.substr(0, end));
    }
    case TypeId::kTimestamp: {
      // A number is milliseconds since 1970-01-01 00:00:00 UTC, as
      // JavaScript's Date.now() gives it (a fraction down to microseconds).
      if (jt != od::json_type::number) return expected("a string or a number of milliseconds");
      size_t end = raw.size();
      while (end > 0 && IsJsonSpace(raw[end - 1])) --end;
      int128 micros;
      // The range of years 1 to 9999.
      constexpr int64_t kMin = -62135596800000000, kMax = 253402300799999999;
      if (!ParseDecimal(raw.substr(0, end), 3, &micros) || micros < kMin || micros > kMax) {
        return expected("milliseconds since 1970 (years 1 to 9999)");
      }
      *out = Value::Int(static_cast<int64_t>(micros));
      return true;
    }
    case TypeId::kReal:
    case TypeId::kDouble: {
      double d;
      if (jt != od::json_type::number || v.get_double().get(d) != simdjson::SUCCESS) {
        return expected("a number");
      }
      *out = Value::Double(d);
      return true;
    }
    case TypeId::kChar:
    case TypeId::kVarchar:
      return expected("a string");
    case TypeId::kBinary:
    case TypeId::kVarbinary: {
      od::array a;
      if (v.get_array().get(a) != simdjson::SUCCESS) return expected("an array of bytes");
      std::string bytes;
      for (auto e : a) {
        int64_t b;
        if (e.get_int64().get(b) != simdjson::SUCCESS || b < 0 || b > 255) {
          return expected("an array of bytes (0 to 255)");
        }
        bytes.push_back(static_cast<char>(b));
      }
      *out = Value::String(std::move(bytes));
      return true;
    }
    case TypeId::kArray: {
      od::array a;
      if (v.get_array().get(a) != simdjson::SUCCESS) return expected("an array");
      std::vector<Value> items;
      for (auto e : a) {
        od::value ev;
        if (e.get(ev) != simdjson::SUCCESS) return expected("an array");
        items.emplace_back();
        // A JSON array inside: a sub-array, when the type holds them.
        od::json_type et;
        const bool sub = ArrayHoldsSubArrays(type) && ev.type().get(et) == simdjson::SUCCESS &&
                         et == od::json_type::array;
        if (!JsonToValue(ev, sub ? type : type.children()[0], &items.back(), fail)) return false;
      }
      if (type.IsPgArrayKind()) {
        // An int2vector or oidvector as the array of its elements; a point
        // only as its text, as PostgreSQL's to_json writes it.
        if (type.pg_kind() == PgKind::kPoint) return expected("a point's text, \"(x,y)\"");
        for (const Value& x : items) {
          if (x.is_null()) return expected("an array without nulls");
        }
        *out = items.empty() ? Value::List({}) : Value::BoundedList(std::move(items), {0});
        return true;
      }
      *out = Value::List(std::move(items));
      return true;
    }
    case TypeId::kMap: {
      od::object o;
      if (v.get_object().get(o) != simdjson::SUCCESS) return expected("an object");
      std::vector<std::pair<Value, Value>> entries;
      for (auto f : o) {
        std::string_view k;
        od::value fv;
        if (f.unescaped_key().get(k) != simdjson::SUCCESS ||
            f.value().get(fv) != simdjson::SUCCESS) {
          return expected("an object");
        }
        Value key, val;
        Status s = FromText(k, type.children()[0], &key);
        if (!s.ok()) {
          *fail = {at, "map key: " + s.message()};
          return false;
        }
        if (!JsonToValue(fv, type.children()[1], &val, fail)) return false;
        entries.emplace_back(std::move(key), std::move(val));
      }
      std::vector<Value> keys, values;
      for (auto& [k, val] : entries) {
        keys.push_back(std::move(k));
        values.push_back(std::move(val));
      }
      *out = Value::Map(std::move(keys), std::move(values));
      return true;
    }
    case TypeId::kRow: {
      od::object o;
      if (v.get_object().get(o) != simdjson::SUCCESS) return expected("an object");
      const auto& names = type.field_names();
      std::vector<Value> fields(names.size());
      for (auto f : o) {
        std::string_view k;
        od::value fv;
        if (f.unescaped_key().get(k) != simdjson::SUCCESS ||
            f.value().get(fv) != simdjson::SUCCESS) {
          return expected("an object");
        }
        std::string lk = Lower(k);
        size_t i = 0;
        while (i < names.size() && Lower(names[i]) != lk) ++i;
        if (i == names.size()) {
          *fail = {at, "unknown field \"" + std::string(k) + "\" of " + type.ToString()};
          return false;
        }
        if (!JsonToValue(fv, type.children()[i], &fields[i], fail)) return false;
      }
      *out = Value::List(std::move(fields));
      return true;
    }
    default:
      if (jt == od::json_type::number || jt == od::json_type::boolean) {
        size_t end = raw.size();
        while (end > 0 && std::isspace(static_cast<unsigned char>(raw[end - 1]))) --end;
        return from_text(raw.substr(0, end));
      }
      return expected("a string");
  }
}

// The common scalar types, encoded straight from the JSON token into the
// field's bytes (no Value). Returns false if `type` is not one of them or
// the token is not of the usual form; then nothing was read from `v`, and
// JsonToValue takes over. Errors of a value of the usual form are reported
// here, through `fail`.
bool FastField(od::value v, od::json_type jt, std::string_view raw, const SqlType& type,
               std::string* enc, bool* ok, Fail* fail) {
  const TypeId id = type.id();
  const char* at = raw.data();
  auto misfit = [&](const Value& x) {
    std::string tmp;
    Status s = EncodeValue(type, x, &tmp);
    *fail = {at, s.ok() ? "value out of range for " + type.ToString() : s.message()};
    *ok = false;
    return true;
  };
  *ok = true;
  if (type.IsInteger() && jt == od::json_type::number) {
    int64_t x;
    if (v.get_int64().get(x) != simdjson::SUCCESS) {
      *fail = {at, "expected an integer for type " + type.ToString() + ", found " +
                       std::string(raw.substr(0, std::min<size_t>(raw.size(), 40)))};
      *ok = false;
      return true;
    }
    return AppendIntField(type, x, enc) || misfit(Value::Int(x));
  }
  if (id == TypeId::kDecimal && jt == od::json_type::number) {
    size_t end = raw.size();
    while (end > 0 && IsJsonSpace(raw[end - 1])) --end;
    int128 u;
    const std::string_view text = raw.substr(0, end);
    const int scale =
        type.dynamic_scale() && IsDecimalText(text) ? DecimalTextScale(text) : type.scale();
    // Beyond 38 digits (or an exponent past them): JsonToValue's
    // arbitrary precision, and the type's own checks.
    if (scale < 0 || !ParseDecimal(text, scale, &u)) return false;
    if (type.dynamic_scale()) {
      return AppendNumericField(type, u, scale, enc) || misfit(Value::Decimal(u, scale));
    }
    return AppendDecimalField(type, u, enc) || misfit(Value::Decimal(u, type.scale()));
  }
  if (jt != od::json_type::string) return false;
  // A TIME WITH TIME ZONE is read as a cast reads it, by the slow path.
  const bool time =
      id == TypeId::kTimestamp || id == TypeId::kDate || (id == TypeId::kTime && !type.IsTimeTz());
  // A jsonpath is read by the slow path too (a cast).
  if (!time && !type.IsVerbatimText()) return false;
  std::string_view s;
  if (v.get_string().get(s) != simdjson::SUCCESS) {
    *fail = {at, "malformed JSON string"};
    *ok = false;
    return true;
  }
  if (type.IsString()) {
    return AppendStringField(type, s, enc) || misfit(Value::String(std::string(s)));
  }
  int64_t x;
  const bool parsed = id == TypeId::kTimestamp ? sql::ParseTimestampInput(s, &x)
                      : id == TypeId::kDate    ? sql::ParseDate(s, &x)
                                               : sql::ParseTime(s, &x);
  if (!parsed) {
    Value tmp;
    Status st = FromText(s, type, &tmp);
    if (st.ok()) {  // a form the fast parsers do not take, but the cast does
      std::string bytes;
      st = EncodeValue(type, tmp, &bytes);
      if (st.ok()) {
        enc->append(bytes);
        return true;
      }
    }
    *fail = {at, st.message()};
    *ok = false;
    return true;
  }
  return AppendIntField(type, x, enc) || misfit(Value::Int(x));
}

class JsonDecoder final : public Decoder {
 public:
  JsonDecoder(const FormatOptions& o, const Relation& rel) : opts_(o), rel_(rel) {
    for (const std::string& c : rel_.columns) lower_.push_back(Lower(c));
    for (int k : rel_.key) key_schema_.push_back(rel_.schema[static_cast<size_t>(k)]);
    // A column left out takes its DEFAULT; with none, it is NULL.
    defaults_.resize(rel_.columns.size());
    for (size_t i = 0; i < rel_.defaults.size() && i < defaults_.size(); ++i) {
      if (rel_.defaults[i].is_null()) continue;
      if (!EncodeValue(rel_.schema[i], rel_.defaults[i], &defaults_[i]).ok()) defaults_[i].clear();
    }
  }

  Position Decode(std::string_view data, Position at, ChangeBuffer* out,
                  std::vector<RecordError>* errors, uint64_t* error_count) override {
    // One padded copy, so that every record can be parsed in place.
    simdjson::padded_string buf(data);
    return DecodeFrom(buf.data(), data.size(), at, out, errors, error_count);
  }

  Position DecodePadded(std::string_view data, Position at, ChangeBuffer* out,
                        std::vector<RecordError>* errors, uint64_t* error_count) override {
    static_assert(kPadding >= simdjson::SIMDJSON_PADDING);
    return DecodeFrom(data.data(), data.size(), at, out, errors, error_count);
  }

  // Decodes the `size` bytes at `base`, after which SIMDJSON_PADDING bytes
  // are readable.
  Position DecodeFrom(const char* base, size_t size, Position at, ChangeBuffer* out,
                      std::vector<RecordError>* errors, uint64_t* error_count) {
    const std::string_view data(base, size);
    // Room for about as many rows as the text suggests (rows are smaller).
    out->ReserveMore(data.size() / 64, data.size() / 3);
    errors_ = errors;
    error_count_ = error_count;
    if (opts_.array) {
      DecodeArray(base, data.size(), &at, out);
      return at;
    }
    size_t pos = 0;
    while (pos < data.size()) {
      size_t nl = data.find('\n', pos);
      size_t end = nl == std::string_view::npos ? data.size() : nl;
      std::string_view line(base + pos, end - pos);
      size_t first = 0;
      while (first < line.size() && IsSpace(line[first])) ++first;
      if (first < line.size()) {
        line_start_ = base + pos;
        line_ = at.line;
        simdjson::padded_string_view psv(line.data(), line.size(),
                                         data.size() + simdjson::SIMDJSON_PADDING - pos);
        od::document doc;
        auto err = parser_.iterate(psv).get(doc);
        if (err != simdjson::SUCCESS) {
          Error(at.record, line.data(), simdjson::error_message(err));
        } else {
          od::value root;
          if (doc.get_value().get(root) != simdjson::SUCCESS) {
            Error(at.record, line.data(), "malformed JSON");
          } else {
            Record(root, at.record, out);
            // Anything after the record's value on its line is an error.
            const char* loc = nullptr;
            if (failed_record_ != at.record &&
                doc.current_location().get(loc) == simdjson::SUCCESS &&
                loc < line.data() + line.size()) {
              Error(at.record, loc, "trailing characters after the record");
              Rollback(out);
            }
          }
        }
        ++at.record;
      }
      ++at.line;
      pos = end + 1;
    }
    return at;
  }

  size_t CompleteRecords(std::string_view data) const override {
    if (opts_.array) return data.size();
    size_t nl = data.rfind('\n');
    return nl == std::string_view::npos ? 0 : nl + 1;
  }

 private:
  void DecodeArray(const char* base, size_t len, Position* at, ChangeBuffer* out) {
    line_start_ = base;
    line_ = at->line;
    simdjson::padded_string_view psv(base, len, len + simdjson::SIMDJSON_PADDING);
    od::document doc;
    auto err = parser_.iterate(psv).get(doc);
    od::array arr;
    if (err == simdjson::SUCCESS) err = doc.get_array().get(arr);
    if (err != simdjson::SUCCESS) {
      Error(at->record, base,
            std::string("expected an array of records: ") + simdjson::error_message(err));
      return;
    }
    for (auto item : arr) {
      od::value v;
      if (item.get(v) != simdjson::SUCCESS) {
        const char* loc = nullptr;
        if (doc.current_location().get(loc) != simdjson::SUCCESS) loc = base;
        Error(at->record, loc, "malformed JSON");
        return;  // the parser cannot go on after a syntax error
      }
      Record(v, at->record, out);
      ++at->record;
    }
  }

  // Line and column of `p`, counting newlines from the chunk's start.
  void Error(uint64_t record, const char* p, const std::string& reason) {
    ++*error_count_;
    if (failed_record_ == record) return;  // one error per record
    failed_record_ = record;
    if (errors_->size() >= kMaxErrors) return;
    uint64_t line = line_;
    const char* start = line_start_;
    if (p != nullptr && p >= start) {
      for (const char* q = start; q < p; ++q) {
        if (*q == '\n') {
          ++line;
          start = q + 1;
        }
      }
    } else {
      p = start;
    }
    errors_->push_back({record, line, static_cast<uint64_t>(p - start) + 1, reason});
  }

  void Rollback(ChangeBuffer* out) {
    if (out->size() > mark_) out->Truncate(mark_);
  }

  // Decodes one record object; on failure adds nothing.
  void Record(od::value v, uint64_t record, ChangeBuffer* out) {
    mark_ = out->size();
    const char* at = v.raw_json_token().data();
    od::object obj;
    if (v.get_object().get(obj) != simdjson::SUCCESS) {
      Error(record, at, "a record must be a JSON object");
      return;
    }
    if (raw_) {
      Row(obj, ChangeKind::kInsert, record, at, out);
      return;
    }
    bool seen = false;
    for (auto f : obj) {
      std::string_view k;
      od::value body;
      if (f.unescaped_key().get(k) != simdjson::SUCCESS ||
          f.value().get(body) != simdjson::SUCCESS) {
        Error(record, at, "malformed JSON object");
        Rollback(out);
        return;
      }
      const char* bat = body.raw_json_token().data();
      if (seen) {
        Error(record, bat, "a record holds one of \"insert\", \"delete\" or \"update\"");
        Rollback(out);
        return;
      }
      seen = true;
      ChangeKind kind;
      if (k == "insert") {
        kind = ChangeKind::kInsert;
      } else if (k == "delete") {
        if (rel_.append_only) {
          Error(record, bat, "table " + rel_.name + " is append_only: it takes no deletes");
          Rollback(out);
          return;
        }
        kind = ChangeKind::kDelete;
      } else if (k == "update") {
        if (rel_.key.empty()) {
          Error(record, bat,
                "\"update\" needs a primary key, and table " + rel_.name + " has none");
          return;
        }
        kind = ChangeKind::kUpdate;
      } else {
        Error(record, bat,
              "unknown operation \"" + std::string(k) +
                  "\": expected \"insert\", \"delete\" or \"update\" (or update_format=raw)");
        return;
      }
      od::object row;
      if (body.get_object().get(row) != simdjson::SUCCESS) {
        Error(record, bat, "the " + std::string(k) + " must be a JSON object");
        return;
      }
      if (!Row(row, kind, record, bat, out)) return;
    }
    if (!seen) Error(record, at, "empty record: expected \"insert\", \"delete\" or \"update\"");
  }

  bool Row(od::object obj, ChangeKind kind, uint64_t record, const char* at, ChangeBuffer* out) {
    // The row of a table without a key, its fields in column order (the
    // usual case), is encoded straight into `out`; a field out of order
    // moves what was written to the columns' own buffers.
    in_place_ = rel_.key.empty() && kind != ChangeKind::kUpdate ? out->StartChange() : nullptr;
    in_order_ = 0;
    if (Fields(obj, record, at, out) && Encode(kind, record, at, out)) return true;
    if (in_place_ != nullptr) out->CancelChange();
    return false;
  }

  // The columns written in place so far, [0, in_order_), each to its own
  // buffer; the change in `out` is dropped.
  void LeavePlace(ChangeBuffer* out) {
    starts_[in_order_] = in_place_->size();
    for (size_t c = 0; c < in_order_; ++c) {
      enc_[c].assign(*in_place_, starts_[c], starts_[c + 1] - starts_[c]);
    }
    out->CancelChange();
    in_place_ = nullptr;
  }

  bool Fields(od::object obj, uint64_t record, const char* at, ChangeBuffer* out) {
    const size_t n = rel_.columns.size();
    present_.assign(n, false);
    size_t hint = 0;  // fields usually come in column order
    for (auto f : obj) {
      std::string_view k;
      od::value fv;
      // The expected column's name is compared with the key as written;
      // any other key is unescaped and looked up.
      od::raw_json_string raw;
      size_t i = n;
      if (f.key().get(raw) != simdjson::SUCCESS) {
        Error(record, at, "malformed JSON object");
        return false;
      }
      if (hint < n && raw.is_equal(rel_.columns[hint])) {
        i = hint;
      } else {
        if (f.unescaped_key().get(k) != simdjson::SUCCESS) {
          Error(record, at, "malformed JSON object");
          return false;
        }
        i = Column(k);
      }
      if (f.value().get(fv) != simdjson::SUCCESS) {
        Error(record, at, "malformed JSON object");
        return false;
      }
      hint = i + 1;
      const char* fat = fv.raw_json_token().data();
      if (i == n) {
        Error(record, fat, "unknown column \"" + std::string(k) + "\" of table " + rel_.name);
        return false;
      }
      if (present_[i]) {
        Error(record, fat, "column \"" + rel_.columns[i] + "\" given twice");
        return false;
      }
      present_[i] = true;
      // Each value is encoded as it is read, in place or into its column's
      // buffer: the common types directly, the others through a Value.
      std::string* enc = &enc_[i];
      if (in_place_ != nullptr && i == in_order_) {
        starts_[i] = in_place_->size();
        ++in_order_;
        enc = in_place_;
      } else {
        if (in_place_ != nullptr) LeavePlace(out);
        enc->clear();
      }
      Fail fail;
      od::json_type jt;
      bool ok = true;
      if (fv.type().get(jt) == simdjson::SUCCESS && jt != od::json_type::null &&
          FastField(fv, jt, fv.raw_json_token(), rel_.schema[i], enc, &ok, &fail)) {
        if (!ok) {
          Error(record, fail.at ? fail.at : fat,
                "column \"" + rel_.columns[i] + "\": " + fail.reason);
          return false;
        }
        continue;
      }
      if (!JsonToValue(fv, rel_.schema[i], &value_, &fail)) {
        Error(record, fail.at ? fail.at : fat,
              "column \"" + rel_.columns[i] + "\": " + fail.reason);
        return false;
      }
      Status st = EncodeValue(rel_.schema[i], value_, enc);
      if (!st.ok()) {
        Error(record, fat,
              "column \"" + rel_.columns[i] +
                  "\": " + (value_.is_null() ? "NOT NULL column is null" : st.message()));
        return false;
      }
    }
    return true;
  }

  bool Encode(ChangeKind kind, uint64_t record, const char* at, ChangeBuffer* out) {
    const size_t n = rel_.columns.size();
    if (in_place_ != nullptr) {
      // Columns [0, in_order_) are written; the others are missing.
      for (size_t i = in_order_; i < n; ++i) {
        if (!defaults_[i].empty()) {
          in_place_->append(defaults_[i]);
          continue;
        }
        if (!rel_.schema[i].nullable()) {
          Error(record, at, "column \"" + rel_.columns[i] + "\": NOT NULL column is missing");
          return false;
        }
        AppendNull(in_place_);
      }
      out->FinishChange(kind, 0);
      return true;
    }
    row_.clear();
    key_.clear();
    for (int k : rel_.key) {
      const size_t i = static_cast<size_t>(k);
      if (!present_[i]) {
        Error(record, at, "the primary key column \"" + rel_.columns[i] + "\" is missing");
        return false;
      }
      key_.append(enc_[i]);
    }
    if (kind == ChangeKind::kUpdate) {
      for (size_t i = 0; i < n; ++i) {
        if (present_[i]) row_.append(enc_[i]);
      }
      out->Add(kind, key_, EncodeUpdatePatch(present_, row_));
      return true;
    }
    if (kind == ChangeKind::kDelete && !rel_.key.empty()) {
      out->Add(kind, key_, "");
      return true;
    }
    // A missing column takes its DEFAULT, or is NULL.
    for (size_t i = 0; i < n; ++i) {
      if (present_[i]) {
        row_.append(enc_[i]);
      } else if (!defaults_[i].empty()) {
        row_.append(defaults_[i]);
      } else if (rel_.schema[i].nullable()) {
        AppendNull(&row_);
      } else {
        Error(record, at, "column \"" + rel_.columns[i] + "\": NOT NULL column is missing");
        return false;
      }
    }
    out->Add(kind, key_, row_);
    return true;
  }

  size_t Column(std::string_view k) const {
    for (size_t i = 0; i < rel_.columns.size(); ++i) {
      if (rel_.columns[i] == k) return i;
    }
    std::string lk = Lower(k);
    for (size_t i = 0; i < lower_.size(); ++i) {
      if (lower_[i] == lk) return i;
    }
    return rel_.columns.size();
  }

  const FormatOptions opts_;
  const Relation rel_;
  const bool raw_ = opts_.update_format == "raw";
  std::vector<std::string> lower_;
  std::vector<std::string> defaults_;  // encoded; empty: none
  Schema key_schema_;
  od::parser parser_;
  std::vector<RecordError>* errors_ = nullptr;
  uint64_t* error_count_ = nullptr;
  uint64_t failed_record_ = 0;
  const char* line_start_ = nullptr;
  uint64_t line_ = 1;
  size_t mark_ = 0;
  Value value_;
  std::vector<bool> present_;
  std::vector<std::string> enc_ = std::vector<std::string>(rel_.columns.size());
  std::string row_, key_;
  // A row written in place (Row): the change's arena in `out`, the number
  // of columns written to it, and where each starts.
  std::string* in_place_ = nullptr;
  size_t in_order_ = 0;
  std::vector<size_t> starts_ = std::vector<size_t>(rel_.columns.size() + 1);
};

// ---------------------------------------------------------------- output

}  // namespace

void AppendJsonString(std::string_view s, std::string* out) {
  out->push_back('"');
  for (char c : s) {
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(c));
          out->append(buf);
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('"');
}

namespace {

class JsonEncoder final : public Encoder {
 public:
  JsonEncoder(const Relation& rel, std::string terminator)
      : rel_(rel), terminator_(std::move(terminator)) {}

  Status Encode(std::string_view row, int64_t weight, std::string* out) override {
    SLUICE_ASSIGN_OR_RETURN(std::vector<Value> values, DecodeRow(rel_.schema, row));
    object_.clear();
    object_.push_back('{');
    for (size_t i = 0; i < values.size(); ++i) {
      if (i > 0) object_.push_back(',');
      AppendJsonString(rel_.columns[i], &object_);
      object_.push_back(':');
      AppendJsonValue(values[i], rel_.schema[i], &object_);
    }
    object_.push_back('}');
    const char* op = weight > 0 ? "{\"insert\":" : "{\"delete\":";
    for (int64_t n = weight > 0 ? weight : -weight; n > 0; --n) {
      out->append(op);
      out->append(object_);
      out->push_back('}');
      out->append(terminator_);
    }
    return Status::OK();
  }

 private:
  const Relation rel_;
  const std::string terminator_;
  std::string object_;
};

}  // namespace

Status ParseJsonValue(std::string_view text, const SqlType& type, Value* out) {
  // On demand, a scalar document is read differently from a value inside
  // one: the text goes inside an array, so that every value is an element.
  thread_local od::parser parser;
  std::string wrapped;
  wrapped.reserve(text.size() + 2);
  wrapped.push_back('[');
  wrapped.append(text);
  wrapped.push_back(']');
  simdjson::padded_string buf(wrapped);
  od::document doc;
  od::array arr;
  auto err = parser.iterate(buf).get(doc);
  if (err == simdjson::SUCCESS) err = doc.get_array().get(arr);
  if (err != simdjson::SUCCESS) {
    return Status::InvalidArgument(std::string("malformed JSON: ") + simdjson::error_message(err));
  }
  size_t n = 0;
  for (auto e : arr) {
    od::value v;
    if (e.get(v) != simdjson::SUCCESS || ++n > 1) {
      return Status::InvalidArgument("not one JSON value");
    }
    Fail fail;
    if (!JsonToValue(v, type, out, &fail)) return Status::InvalidArgument(fail.reason);
  }
  const char* loc = nullptr;
  if (n != 1 ||
      (doc.current_location().get(loc) == simdjson::SUCCESS && loc < buf.data() + wrapped.size())) {
    return Status::InvalidArgument("not one JSON value");
  }
  return Status::OK();
}

void AppendJsonValue(const Value& v, const SqlType& type, std::string* out) {
  if (type.is_json() && v.kind() == Value::Kind::kString) {
    out->append(v.string_value());  // a document is JSON already
    return;
  }
  switch (v.kind()) {
    case Value::Kind::kNull:
    case Value::Kind::kJsonNull:
      out->append("null");
      return;
    case Value::Kind::kBool:
      out->append(v.bool_value() ? "true" : "false");
      return;
    case Value::Kind::kInt:
      if ((type.IsInteger() && type.pg_kind() != PgKind::kMoney) || type.id() == TypeId::kVariant) {
        out->append(std::to_string(v.int_value()));
      } else {
        AppendJsonString(sql::ValueToText(v, type), out);
      }
      return;
    case Value::Kind::kDecimal:
      if (v.decimal_is_special()) {
        AppendJsonString(sql::ValueToText(v, type), out);  // "NaN", "Infinity", "-Infinity"
      } else {
        out->append(sql::ValueToText(v, type));
      }
      return;
    case Value::Kind::kDouble: {
      double d = v.double_value();
      if (!std::isfinite(d)) {
        AppendJsonString(sql::ValueToText(v, type), out);  // "NaN", "Infinity"
      } else {
        out->append(sql::ValueToText(v, type));
      }
      return;
    }
    case Value::Kind::kString:
      if (type.IsBinary()) {
        out->push_back('[');
        for (size_t i = 0; i < v.string_value().size(); ++i) {
          if (i > 0) out->push_back(',');
          out->append(std::to_string(static_cast<uint8_t>(v.string_value()[i])));
        }
        out->push_back(']');
      } else {
        AppendJsonString(v.string_value(), out);
      }
      return;
    case Value::Kind::kInterval:
      AppendJsonString(sql::ValueToText(v, type), out);
      return;
    case Value::Kind::kList: {
      if (type.pg_kind() == PgKind::kPoint) {  // its text, as PostgreSQL's to_json
        AppendJsonString(sql::ValueToText(v, type), out);
        return;
      }
      if (type.id() == TypeId::kRow) {
        out->push_back('{');
        for (size_t i = 0; i < v.list().size(); ++i) {
          if (i > 0) out->push_back(',');
          AppendJsonString(type.field_names()[i], out);
          out->push_back(':');
          AppendJsonValue(v.list()[i], type.children()[i], out);
        }
        out->push_back('}');
        return;
      }
      const SqlType elem = type.id() == TypeId::kArray ? type.children()[0] : SqlType::Variant();
      const bool sub_arrays = ArrayHoldsSubArrays(type);
      out->push_back('[');
      for (size_t i = 0; i < v.list().size(); ++i) {
        if (i > 0) out->push_back(',');
        const Value& x = v.list()[i];
        // A sub-array of a multidimensional array: a JSON array inside.
        AppendJsonValue(x, sub_arrays && x.kind() == Value::Kind::kList ? type : elem, out);
      }
      out->push_back(']');
      return;
    }
    case Value::Kind::kMap: {
      const bool is_map = type.id() == TypeId::kMap;
      const SqlType kt = is_map ? type.children()[0] : SqlType::Varchar();
      const SqlType vt = is_map ? type.children()[1] : SqlType::Variant();
      out->push_back('{');
      for (size_t i = 0; i < v.map_keys().size(); ++i) {
        if (i > 0) out->push_back(',');
        const Value& k = v.map_keys()[i];
        AppendJsonString(
            k.kind() == Value::Kind::kString ? k.string_value() : sql::ValueToText(k, kt), out);
        out->push_back(':');
        AppendJsonValue(v.map_values()[i], vt, out);
      }
      out->push_back('}');
      return;
    }
  }
}

std::unique_ptr<Decoder> MakeJsonDecoder(const FormatOptions& options, const Relation& rel) {
  return std::make_unique<JsonDecoder>(options, rel);
}

std::unique_ptr<Encoder> MakeJsonEncoder(const Relation& rel, std::string terminator) {
  return std::make_unique<JsonEncoder>(rel, std::move(terminator));
}

}  // namespace sluice::format
