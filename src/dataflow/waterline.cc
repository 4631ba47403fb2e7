#include "dataflow/waterline.h"

#include <algorithm>

#include "types/row_codec.h"

namespace sluice {
namespace {

int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t out;
  if (__builtin_add_overflow(a, b, &out)) {
    return b > 0 ? std::numeric_limits<int64_t>::max() : Waterline::kNone + 1;
  }
  return out;
}

}  // namespace

int64_t ColumnBound::Value() const {
  if (terms.empty()) return Waterline::kNone;
  int64_t out = std::numeric_limits<int64_t>::max();
  for (const auto& [w, offset] : terms) {
    const int64_t v = w->value();
    if (v == Waterline::kNone) return Waterline::kNone;
    out = std::min(out, SaturatingAdd(v, offset));
  }
  return out;
}

ColumnBound ColumnBound::Shifted(int64_t offset) const {
  ColumnBound out = *this;
  for (auto& t : out.terms) t.second = SaturatingAdd(t.second, offset);
  return out;
}

ColumnBound ColumnBound::Min(const ColumnBound& a, const ColumnBound& b) {
  if (a.empty() || b.empty()) return ColumnBound{};  // one side is unbounded
  ColumnBound out = a;
  out.terms.insert(out.terms.end(), b.terms.begin(), b.terms.end());
  return out;
}

bool HasIntegerOrder(const SqlType& type) {
  switch (type.id()) {
    case TypeId::kTinyInt:
    case TypeId::kSmallInt:
    case TypeId::kInteger:
    case TypeId::kBigInt:
    case TypeId::kDate:
    case TypeId::kTime:
    case TypeId::kTimestamp:
      return true;
    default:
      return false;
  }
}

std::function<bool(std::string_view key)> RetainAtOrAfter(Schema key_schema, int column,
                                                          ColumnBound bound, bool keep_null) {
  return [key_schema = std::move(key_schema), column, bound = std::move(bound),
          keep_null](std::string_view key) {
    const int64_t b = bound.Value();
    if (b == Waterline::kNone) return true;
    std::string_view in = key;
    for (int i = 0; i < column; ++i) {
      if (!SkipValue(key_schema[static_cast<size_t>(i)], &in).ok()) return true;
    }
    const SqlType& t = key_schema[static_cast<size_t>(column)];
    if (in.empty() || (t.nullable() && in[0] != 0x01 && in[0] != 0x02)) return true;
    if (t.nullable() && in[0] == 0x02) return keep_null;  // NULL sorts last
    if (static_cast<int>(in.size()) < IntWidth(t.id()) + (t.nullable() ? 1 : 0)) return true;
    int64_t v;
    if (!ReadInt(t.id(), t.nullable(), &in, &v)) return keep_null;
    return v >= b;
  };
}

}  // namespace sluice
