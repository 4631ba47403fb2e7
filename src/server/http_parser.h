// HTTP/1.1 requests as they arrive (RFC 9112): the request line and the
// header fields, then the body, framed by Content-Length or by the chunked
// transfer coding. The parser is fed bytes as they come, in pieces of any
// size, and keeps what it has not consumed; it never reads past the end of
// a request, so that the next one on a kept-alive connection (pipelining)
// stays in the buffer.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sluice::server {

// One request: what the parser read, and what the router adds (`matches`).
struct HttpRequest {
  std::string method;  // as sent: "GET", "POST"...
  std::string target;  // the request target, as sent
  std::string path;    // the target before '?', %XX decoded
  int version_minor = 1;  // HTTP/1.0 or HTTP/1.1
  // Field names in lower case, in the order they came.
  std::vector<std::pair<std::string, std::string>> headers;
  std::multimap<std::string, std::string> params;  // the query string's
  std::string body;
  std::vector<std::string> matches;  // the route's captures; [0] is the path
  std::string remote_address;

  // The first field of that name (case-insensitive), or "".
  const std::string& header(std::string_view name) const;
  bool has_header(std::string_view name) const;
  // The first value of the query parameter `name`, or "".
  const std::string& param(std::string_view name) const;
  bool has_param(std::string_view name) const { return params.count(std::string(name)) > 0; }
  // Whether the client asked to keep the connection open after the answer
  // (HTTP/1.1 unless "Connection: close"; HTTP/1.0 with "keep-alive").
  bool keep_alive() const;
};

// Whether two field names (or options) are equal ignoring ASCII case, as
// HTTP compares them.
bool EqualsIgnoreCase(std::string_view a, std::string_view b);

// The parameters of a query string (the part of a target after '?'),
// decoded exactly: split at every '&', each at its first '=' only, then
// %XX and '+' (a space) decoded in names and values.
std::multimap<std::string, std::string> ParseQueryString(std::string_view query);
// %XX decoded ('+' stays: it is a space only in query strings).
std::string DecodePath(std::string_view path);

class HttpRequestParser {
 public:
  enum class State {
    kHead,      // reading the request line and header fields
    kBody,      // the head is in (head_done()); reading the body
    kComplete,  // a whole request is in
    kError,     // the request is malformed: error_status() and error()
  };

  // `max_header_bytes` bounds the request line and the fields together
  // (431 beyond it, 414 when the request line alone exceeds it);
  // `max_body_bytes` the body: beyond it the body is read to its end and
  // dropped, and body_too_large() says so.
  HttpRequestParser(uint64_t max_header_bytes, uint64_t max_body_bytes)
      : max_header_bytes_(max_header_bytes), max_body_bytes_(max_body_bytes) {}

  // Takes bytes from the front of `*in` (removing what it used) and returns
  // the state. Consumes nothing once the head is in until ContinueBody() is
  // called, so that the caller can decide whether to read the body at all.
  State Feed(std::string* in);
  // After the head: go on reading the body.
  void ContinueBody() { body_allowed_ = true; }
  // Before ContinueBody: the body's bytes go to `sink` as they are parsed,
  // rather than into request().body.
  void set_body_sink(std::function<void(std::string_view)> sink) { sink_ = std::move(sink); }

  State state() const { return state_; }
  bool head_done() const { return state_ != State::kHead && state_ != State::kError; }
  // The request has a body (a Content-Length above 0, or chunked).
  bool has_body() const { return chunked_ || content_length_ > 0; }
  // Content-Length, or 0 when chunked or absent.
  uint64_t content_length() const { return content_length_; }
  bool body_too_large() const { return too_large_; }
  // Bytes of body received so far (counted even when dropped).
  uint64_t body_received() const { return body_received_; }
  int error_status() const { return error_status_; }
  const std::string& error() const { return error_; }

  HttpRequest& request() { return request_; }
  // Takes the request, and starts over for the next one.
  HttpRequest Take();

 private:
  State Fail(int status, std::string message);
  State ParseHead(std::string_view head);
  State FeedBody(std::string* in);
  void AppendBody(std::string_view data);

  const uint64_t max_header_bytes_;
  const uint64_t max_body_bytes_;
  State state_ = State::kHead;
  HttpRequest request_;
  int error_status_ = 0;
  std::string error_;
  bool body_allowed_ = false;
  bool chunked_ = false;
  uint64_t content_length_ = 0;
  uint64_t body_received_ = 0;
  bool too_large_ = false;
  std::function<void(std::string_view)> sink_;
  // Chunked coding: where in it the parser is.
  enum class ChunkState { kSize, kData, kDataEnd, kTrailers };
  ChunkState chunk_state_ = ChunkState::kSize;
  uint64_t chunk_left_ = 0;
  uint64_t trailer_bytes_ = 0;
};

// The reason phrase of a status code ("Not Found").
const char* HttpReason(int status);

}  // namespace sluice::server
