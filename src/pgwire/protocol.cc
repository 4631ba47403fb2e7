#include "pgwire/protocol.h"

#include <cstring>
#include <regex>

namespace sluice::pgwire {

void Writer::Begin(char type) {
  buf_.push_back(type);
  start_ = buf_.size();
  buf_.append(4, '\0');
}

void Writer::Int16(int16_t v) {
  const auto u = static_cast<uint16_t>(v);
  buf_.push_back(static_cast<char>(u >> 8));
  buf_.push_back(static_cast<char>(u & 0xff));
}

void Writer::Int32(int32_t v) {
  const auto u = static_cast<uint32_t>(v);
  for (int shift = 24; shift >= 0; shift -= 8)
    buf_.push_back(static_cast<char>((u >> shift) & 0xff));
}

void Writer::CString(std::string_view s) {
  buf_.append(s);
  buf_.push_back('\0');
}

void Writer::End() {
  const auto len = static_cast<uint32_t>(buf_.size() - start_);
  for (int i = 0; i < 4; ++i)
    buf_[start_ + static_cast<size_t>(i)] = static_cast<char>((len >> (24 - 8 * i)) & 0xff);
}

bool Reader::Int16(int16_t* v) {
  if (data_.size() - pos_ < 2) return false;
  const auto* p = reinterpret_cast<const unsigned char*>(data_.data() + pos_);
  *v = static_cast<int16_t>((p[0] << 8) | p[1]);
  pos_ += 2;
  return true;
}

bool Reader::Int32(int32_t* v) {
  if (data_.size() - pos_ < 4) return false;
  const auto* p = reinterpret_cast<const unsigned char*>(data_.data() + pos_);
  *v = static_cast<int32_t>((uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) |
                            (uint32_t{p[2]} << 8) | uint32_t{p[3]});
  pos_ += 4;
  return true;
}

bool Reader::CString(std::string* s) {
  const size_t end = data_.find('\0', pos_);
  if (end == std::string_view::npos) return false;
  s->assign(data_.substr(pos_, end - pos_));
  pos_ = end + 1;
  return true;
}

bool Reader::Bytes(size_t n, std::string_view* out) {
  if (data_.size() - pos_ < n) return false;
  *out = data_.substr(pos_, n);
  pos_ += n;
  return true;
}

void WriteError(Writer& w, const PgError& e, char type) {
  w.Begin(type);
  w.Int8('S');
  w.CString(e.severity);
  w.Int8('V');  // the severity, never localized
  w.CString(e.severity);
  w.Int8('C');
  w.CString(e.code);
  w.Int8('M');
  w.CString(e.message);
  if (!e.detail.empty()) {
    w.Int8('D');
    w.CString(e.detail);
  }
  if (!e.hint.empty()) {
    w.Int8('H');
    w.CString(e.hint);
  }
  if (e.position > 0) {
    w.Int8('P');
    w.CString(std::to_string(e.position));
  }
  w.Int8(0);
  w.End();
}

std::string SqlStateOf(const Status& s) {
  const std::string& m = s.message();
  auto has = [&](const char* what) { return m.find(what) != std::string::npos; };
  switch (s.code()) {
    case StatusCode::kUnimplemented:
      return "0A000";  // feature_not_supported
    case StatusCode::kOverflow:
      return "22003";  // numeric_value_out_of_range
    case StatusCode::kUnavailable:
      return "53000";  // insufficient_resources
    case StatusCode::kInternal:
    case StatusCode::kCorruption:
      return "XX000";
    case StatusCode::kIOError:
      return "58030";  // io_error
    case StatusCode::kAborted:
      return "57014";  // query_canceled
    default:
      break;
  }
  if (has("syntax error")) return "42601";
  if (has("not supported")) return "0A000";
  if (has("division by zero")) return "22012";
  if (has("out of range") || has("overflow")) return "22003";
  if (has("invalid input syntax")) return "22P02";
  if (has("NOT NULL") || has("null value in column")) return "23502";  // not_null_violation
  if (has("violates check constraint")) return "23514";                // check_violation
  if (has("is not materialized")) return "55000";  // object_not_in_prerequisite_state
  if (has("does not exist")) {
    if (has("relation \"") || has("table \"") || has("view \"")) return "42P01";
    if (has("column \"")) return "42703";
    if (has("function ")) return "42883";
    if (has("type \"")) return "42704";
    return "42704";  // undefined_object
  }
  if (has("is ambiguous")) return "42702";
  if (s.code() == StatusCode::kNotFound) return "42704";
  if (has("cannot cast") || has("invalid") || has("must be"))
    return "22023";  // invalid_parameter_value
  return "42000";    // syntax_error_or_access_rule_violation
}

PgError ErrorFromStatus(const Status& s, std::string_view query, std::string_view statement,
                        size_t offset) {
  PgError e;
  e.code = SqlStateOf(s);
  e.message = s.message();
  static const std::regex kWhere(R"(^line (\d+), column (\d+): )");
  std::smatch m;
  if (!statement.empty() && std::regex_search(e.message, m, kWhere)) {
    const size_t line = std::stoul(m[1]);
    const size_t column = std::stoul(m[2]);
    // The byte the message points at, in `statement`.
    size_t at = 0;
    for (size_t l = 1; l < line && at < statement.size(); ++at) {
      if (statement[at] == '\n') ++l;
    }
    at = std::min(at + column - 1, statement.size());
    e.message = e.message.substr(static_cast<size_t>(m.length(0)));
    // The SQL layer's own copy of the line and its caret go: the client
    // draws them from the position.
    if (const size_t nl = e.message.find("\n  "); nl != std::string::npos) e.message.resize(nl);
    const std::string_view before = query.substr(0, std::min(offset + at, query.size()));
    int chars = 0;
    for (char c : before) chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    e.position = chars + 1;
  }
  // A check constraint's failing row is PostgreSQL's DETAIL.
  // "... (failing row contains (1, 2))": the message, then "(1, 2)".
  static constexpr std::string_view kFailing = " (failing row contains ";
  if (const size_t at = e.message.find(kFailing);
      e.code == "23514" && at != std::string::npos && e.message.back() == ')') {
    const size_t row = at + kFailing.size();
    e.detail = "Failing row contains " + e.message.substr(row, e.message.size() - 1 - row) + ".";
    e.message.resize(at);
  }
  return e;
}

}  // namespace sluice::pgwire
