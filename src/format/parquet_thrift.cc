#include "format/parquet_thrift.h"

namespace sluice::format::parquet {

void ThriftDecoder::Fail(std::string what) {
  if (status_.ok()) status_ = Status::Corruption("thrift: " + what);
  p_ = end_;  // nothing more is read
}

uint64_t ThriftDecoder::Varint() {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (p_ >= end_) {
      Fail("truncated varint");
      return 0;
    }
    const uint8_t b = *p_++;
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return v;
  }
  Fail("varint longer than 10 bytes");
  return 0;
}

static int64_t UnZigZag(uint64_t v) {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

bool ThriftDecoder::NextField(int16_t* id, uint8_t* type) {
  if (!ok()) return false;
  if (p_ >= end_) {
    Fail("truncated struct");
    return false;
  }
  const uint8_t b = *p_++;
  if (b == thrift::kStop) return false;
  *type = b & 0x0f;
  const int delta = b >> 4;
  if (delta != 0) {
    *id = static_cast<int16_t>(last_.back() + delta);
  } else {
    const int64_t v = UnZigZag(Varint());
    if (v < INT16_MIN || v > INT16_MAX) {
      Fail("field id out of range");
      return false;
    }
    *id = static_cast<int16_t>(v);
  }
  last_.back() = *id;
  if (*type == thrift::kStop || *type > thrift::kUuid) {
    Fail("unknown field type " + std::to_string(*type));
    return false;
  }
  return ok();
}

void ThriftDecoder::BeginStruct() {
  if (last_.size() > kMaxDepth) {
    Fail("structs nested too deep");
    return;
  }
  last_.push_back(0);
}

void ThriftDecoder::EndStruct() {
  if (last_.size() > 1) last_.pop_back();
}

void ThriftDecoder::ReadI32(int32_t* v) {
  const int64_t x = UnZigZag(Varint());
  if (x < INT32_MIN || x > INT32_MAX) {
    Fail("i32 out of range");
    *v = 0;
    return;
  }
  *v = static_cast<int32_t>(x);
}

void ThriftDecoder::ReadI64(int64_t* v) { *v = UnZigZag(Varint()); }

void ThriftDecoder::ReadByte(int8_t* v) {
  if (p_ >= end_) {
    Fail("truncated byte");
    *v = 0;
    return;
  }
  *v = static_cast<int8_t>(*p_++);
}

void ThriftDecoder::ReadString(std::string_view* v) {
  const uint64_t n = Varint();
  if (!ok()) return;
  if (n > static_cast<uint64_t>(end_ - p_)) {
    Fail("binary of " + std::to_string(n) + " bytes, past the end");
    *v = {};
    return;
  }
  *v = std::string_view(reinterpret_cast<const char*>(p_), n);
  p_ += n;
}

void ThriftDecoder::ReadBinary(std::string* v) {
  std::string_view s;
  ReadString(&s);
  v->assign(s.data(), s.size());
}

void ThriftDecoder::ReadListHeader(uint8_t* elem, uint32_t* size) {
  *size = 0;
  *elem = 0;
  if (p_ >= end_) {
    Fail("truncated list");
    return;
  }
  const uint8_t b = *p_++;
  *elem = b & 0x0f;
  uint64_t n = b >> 4;
  if (n == 15) n = Varint();
  if (!ok()) return;
  // Every element takes at least one byte.
  if (n > static_cast<uint64_t>(end_ - p_)) {
    Fail("list of " + std::to_string(n) + " elements, past the end");
    return;
  }
  *size = static_cast<uint32_t>(n);
}

void ThriftDecoder::Skip(uint8_t type) { SkipValue(type, 0); }

void ThriftDecoder::SkipElement(uint8_t type, int depth) {
  if (type == thrift::kTrue || type == thrift::kFalse) {
    int8_t b;
    ReadByte(&b);  // a bool inside a list or map is a byte
    return;
  }
  SkipValue(type, depth);
}

void ThriftDecoder::SkipValue(uint8_t type, int depth) {
  if (!ok()) return;
  if (depth > kMaxDepth) {
    Fail("values nested too deep");
    return;
  }
  switch (type) {
    case thrift::kTrue:
    case thrift::kFalse:
      return;  // a bool field: the value is the type
    case thrift::kByte: {
      int8_t b;
      ReadByte(&b);
      return;
    }
    case thrift::kI16:
    case thrift::kI32:
    case thrift::kI64:
      (void)Varint();
      return;
    case thrift::kDouble:
      if (end_ - p_ < 8) {
        Fail("truncated double");
        return;
      }
      p_ += 8;
      return;
    case thrift::kUuid:
      if (end_ - p_ < 16) {
        Fail("truncated uuid");
        return;
      }
      p_ += 16;
      return;
    case thrift::kBinary: {
      std::string_view s;
      ReadString(&s);
      return;
    }
    case thrift::kList:
    case thrift::kSet: {
      uint8_t elem;
      uint32_t n;
      ReadListHeader(&elem, &n);
      for (uint32_t i = 0; i < n && ok(); ++i) SkipElement(elem, depth + 1);
      return;
    }
    case thrift::kMap: {
      const uint64_t n = Varint();
      if (!ok() || n == 0) return;
      if (p_ >= end_ || n > static_cast<uint64_t>(end_ - p_)) {
        Fail("truncated map");
        return;
      }
      const uint8_t kv = *p_++;
      for (uint64_t i = 0; i < n && ok(); ++i) {
        SkipElement(kv >> 4, depth + 1);
        SkipElement(kv & 0x0f, depth + 1);
      }
      return;
    }
    case thrift::kStruct: {
      BeginStruct();
      int16_t id;
      uint8_t t;
      while (NextField(&id, &t)) SkipValue(t, depth + 1);
      EndStruct();
      return;
    }
    default:
      Fail("unknown type " + std::to_string(type));
  }
}

}  // namespace sluice::format::parquet
