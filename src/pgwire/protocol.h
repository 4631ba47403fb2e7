// PostgreSQL's frontend/backend protocol, version 3: how messages are framed
// and read, and errors as ErrorResponse fields with SQLSTATE codes.
//
// A backend message is a type byte, a 4-byte big-endian length that counts
// itself and the body, then the body. Frontend messages after startup are
// framed the same way; the startup packet has no type byte.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace sluice::pgwire {

// Builds backend messages into one buffer: Begin(type), the fields, End().
class Writer {
 public:
  void Begin(char type);
  void Int8(uint8_t v) { buf_.push_back(static_cast<char>(v)); }
  void Int16(int16_t v);
  void Int32(int32_t v);
  void CString(std::string_view s);  // the bytes, then a zero byte
  void Bytes(std::string_view s) { buf_.append(s); }
  void End();  // fills in the length of the message begun last

  const std::string& buffer() const { return buf_; }
  void Clear() { buf_.clear(); }

 private:
  std::string buf_;
  size_t start_ = 0;
};

// Reads the fields of one message body; each call fails (false) past its end.
class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  bool Int16(int16_t* v);
  bool Int32(int32_t* v);
  bool CString(std::string* s);
  bool Bytes(size_t n, std::string_view* out);
  bool AtEnd() const { return pos_ == data_.size(); }

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

// The protocol's magic numbers in a startup packet's version field.
constexpr int32_t kProtocolVersion3 = 196608;  // 3.0
constexpr int32_t kSslRequest = 80877103;
constexpr int32_t kGssEncRequest = 80877104;
constexpr int32_t kCancelRequest = 80877102;

// The fields of an ErrorResponse or NoticeResponse.
struct PgError {
  std::string severity = "ERROR";
  std::string code;  // SQLSTATE
  std::string message;
  std::string detail;
  std::string hint;
  int position = 0;  // 1-based character of the query string; 0: none
};

// An ErrorResponse ('E') or, with type 'N', a NoticeResponse.
void WriteError(Writer& w, const PgError& e, char type = 'E');

// The SQLSTATE of an error from the engine: from its code, refined by what
// the message says (an unknown relation is 42P01, an unknown column 42703,
// a syntax error 42601, division by zero 22012, an unsupported feature
// 0A000...).
std::string SqlStateOf(const Status& s);

// `s` as an error to a client. When its message points into the SQL ("line
// L, column C: what" and the line with a caret, as the SQL layer writes it)
// about `statement`, which starts at byte `offset` of the query string
// `query`, the message is just "what" and the position is the character of
// `query` it points at, so that the client draws its own caret.
PgError ErrorFromStatus(const Status& s, std::string_view query = {},
                        std::string_view statement = {}, size_t offset = 0);

}  // namespace sluice::pgwire
