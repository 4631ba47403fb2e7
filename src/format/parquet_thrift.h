// What the Parquet writer (parquet.cc) and reader (parquet_reader.cc) share:
// the numbers the Parquet format gives its enums, and the Thrift compact
// protocol that its metadata (FileMetaData, PageHeader) is written in.
//
// Compact protocol, as far as Parquet uses it:
//   field header  one byte (delta << 4 | type) when the field id is 1..15
//                 above the previous one in the same struct, else the byte
//                 (type) followed by the id as a zigzag varint
//   i8            one byte; i16, i32, i64: zigzag varint
//   bool field    its value is the field's type (1 true, 2 false)
//   binary        varint length, then the bytes
//   list          one byte (size << 4 | element type) for sizes below 15,
//                 else (0xf0 | element type) and the size as a varint;
//                 then the elements (a bool element is one byte)
//   struct        its fields, then a 0 byte (stop)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace sluice::format::parquet {

// parquet.thrift's enums, with their numbers on the wire.
enum Phys : int32_t {
  kBoolean = 0,
  kInt32 = 1,
  kInt64 = 2,
  kInt96 = 3,
  kFloat = 4,
  kDouble = 5,
  kByteArray = 6,
  kFixed = 7  // FIXED_LEN_BYTE_ARRAY
};
enum Repetition : int32_t { kRequired = 0, kOptional = 1, kRepeated = 2 };
enum Encoding : int32_t {
  kPlain = 0,
  kPlainDictionary = 2,
  kRle = 3,
  kBitPacked = 4,
  kDeltaBinaryPacked = 5,
  kDeltaLengthByteArray = 6,
  kDeltaByteArray = 7,
  kRleDictionary = 8,
  kByteStreamSplit = 9
};
enum Codec : int32_t {
  kUncompressed = 0,
  kSnappy = 1,
  kGzip = 2,
  kLzo = 3,
  kBrotli = 4,
  kLz4 = 5,
  kZstd = 6,
  kLz4Raw = 7
};
enum PageType : int32_t { kDataPage = 0, kIndexPage = 1, kDictionaryPage = 2, kDataPageV2 = 3 };
// ConvertedType, the older annotation of a schema element.
enum Converted : int32_t {
  kUtf8 = 0,
  kMap = 1,
  kMapKeyValue = 2,
  kList = 3,
  kEnum = 4,
  kDecimal = 5,
  kDate = 6,
  kTimeMillis = 7,
  kTimeMicros = 8,
  kTimestampMillis = 9,
  kTimestampMicros = 10,
  kUint8 = 11,
  kUint16 = 12,
  kUint32 = 13,
  kUint64 = 14,
  kInt8 = 15,
  kInt16 = 16,
  kInt32Converted = 17,
  kInt64Converted = 18,
  kJson = 19,
  kBson = 20,
  kInterval = 21
};

// The compact protocol's type codes.
namespace thrift {
enum Type : uint8_t {
  kStop = 0,
  kTrue = 1,
  kFalse = 2,
  kByte = 3,
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,
  kUuid = 13
};
}  // namespace thrift

// Writes the compact protocol into a string.
// Thread safety: none; one encoder per message.
class ThriftEncoder {
 public:
  ThriftEncoder() { last_.push_back(0); }
  std::string& out() { return out_; }

  void I32(int id, int32_t v) {
    Field(id, thrift::kI32);
    Varint(ZigZag(v));
  }
  void I64(int id, int64_t v) {
    Field(id, thrift::kI64);
    Varint(ZigZag(v));
  }
  void Bool(int id, bool v) { Field(id, v ? thrift::kTrue : thrift::kFalse); }
  void Byte(int id, int8_t v) {
    Field(id, thrift::kByte);
    out_.push_back(static_cast<char>(v));
  }
  void Binary(int id, std::string_view s) {
    Field(id, thrift::kBinary);
    BinaryElem(s);
  }
  void BeginStruct(int id) {
    Field(id, thrift::kStruct);
    last_.push_back(0);
  }
  void EndStruct() {
    out_.push_back(0);
    last_.pop_back();
  }
  // An empty struct (a union's marker).
  void Empty(int id) {
    BeginStruct(id);
    EndStruct();
  }
  void BeginList(int id, uint8_t elem, size_t n) {
    Field(id, thrift::kList);
    if (n < 15) {
      out_.push_back(static_cast<char>((n << 4) | elem));
    } else {
      out_.push_back(static_cast<char>(0xf0 | elem));
      Varint(n);
    }
  }
  void I32Elem(int32_t v) { Varint(ZigZag(v)); }
  void BinaryElem(std::string_view s) {
    Varint(s.size());
    out_.append(s);
  }
  // A struct inside a list: its fields, then EndStruct().
  void BeginStructElem() { last_.push_back(0); }

 private:
  static uint64_t ZigZag(int64_t v) {
    return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  }
  void Varint(uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<char>(v));
  }
  void Field(int id, uint8_t type) {
    const int delta = id - last_.back();
    if (delta > 0 && delta <= 15) {
      out_.push_back(static_cast<char>((delta << 4) | type));
    } else {
      out_.push_back(static_cast<char>(type));
      Varint(ZigZag(id));
    }
    last_.back() = id;
  }

  std::string out_;
  std::vector<int> last_;
};

// Reads the compact protocol from a byte range it does not own. Every read
// is checked against the bytes left: a damaged message gives an error, never
// a read outside the range. Sizes (of lists and binaries) are checked
// against the bytes left too, so a caller may reserve that many elements.
//
// Usage, for a struct:
//   int16_t id; uint8_t type;
//   while (d.NextField(&id, &type)) {   // false at the stop byte or an error
//     switch (id) { case 1: d.ReadI32(&x); break; default: d.Skip(type); }
//   }
//   SLUICE_RETURN_IF_ERROR(d.status());
// Thread safety: none; one decoder per message.
class ThriftDecoder {
 public:
  ThriftDecoder(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}

  // The next field of the current struct. False at its end (the stop byte
  // is consumed) or on an error.
  bool NextField(int16_t* id, uint8_t* type);
  // Enters a struct-typed field or list element; NextField() then walks its
  // fields. Fails past a nesting depth that no Parquet message needs.
  void BeginStruct();
  // Leaves it (after NextField() returned false).
  void EndStruct();

  void ReadI32(int32_t* v);
  void ReadI64(int64_t* v);
  void ReadByte(int8_t* v);
  // A bool field's value is in its type; a bool list element is a byte.
  bool BoolOf(uint8_t type) const { return type == thrift::kTrue; }
  void ReadBinary(std::string* v);
  void ReadString(std::string_view* v);
  // A list's header: its element type and size (at most the bytes left).
  void ReadListHeader(uint8_t* elem, uint32_t* size);
  // Skips a value of `type` (a field's or a list element's).
  void Skip(uint8_t type);

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  // Bytes consumed so far.
  size_t consumed(const uint8_t* start) const { return static_cast<size_t>(p_ - start); }
  const uint8_t* position() const { return p_; }
  // Marks the message damaged (for checks the caller makes, e.g. a
  // negative size), keeping the first error.
  void Fail(std::string what);

 private:
  static constexpr int kMaxDepth = 64;
  uint64_t Varint();
  void SkipValue(uint8_t type, int depth);
  void SkipElement(uint8_t type, int depth);

  const uint8_t* p_;
  const uint8_t* end_;
  std::vector<int16_t> last_{0};  // the last field id of each open struct
  Status status_;
};

}  // namespace sluice::format::parquet
