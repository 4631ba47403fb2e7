#include "server/http_parser.h"

#include <algorithm>
#include <charconv>

namespace sluice::server {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string Decode(std::string_view s, bool plus_is_space) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (plus_is_space && s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%' && i + 2 < s.size() && HexDigit(s[i + 1]) >= 0 &&
               HexDigit(s[i + 2]) >= 0) {
      out += static_cast<char>(HexDigit(s[i + 1]) * 16 + HexDigit(s[i + 2]));
      i += 2;
    } else {
      out += s[i];  // a '%' without two hex digits stays as it is
    }
  }
  return out;
}

// RFC 9110's tchar: what a method and a field name are made of.
bool IsTokenChar(unsigned char c) {
  if (c >= '0' && c <= '9') return true;
  if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
}

bool IsToken(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return IsTokenChar(static_cast<unsigned char>(c));
  });
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The next line of `s` from `*pos` (without its CRLF or LF), or false when
// no whole line is there yet.
bool NextLine(std::string_view s, size_t* pos, std::string_view* line) {
  const size_t nl = s.find('\n', *pos);
  if (nl == std::string_view::npos) return false;
  size_t end = nl;
  if (end > *pos && s[end - 1] == '\r') --end;
  *line = s.substr(*pos, end - *pos);
  *pos = nl + 1;
  return true;
}

const std::string kEmpty;

}  // namespace

std::multimap<std::string, std::string> ParseQueryString(std::string_view query) {
  std::multimap<std::string, std::string> params;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    params.emplace(Decode(pair.substr(0, eq), true),
                   eq == std::string_view::npos ? std::string() : Decode(pair.substr(eq + 1), true));
  }
  return params;
}

std::string DecodePath(std::string_view path) { return Decode(path, false); }

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [&](char x, char y) {
           return lower(x) == lower(y);
         });
}

const std::string& HttpRequest::header(std::string_view name) const {
  for (const auto& [n, v] : headers) {
    if (EqualsIgnoreCase(n, name)) return v;
  }
  return kEmpty;
}

bool HttpRequest::has_header(std::string_view name) const {
  return std::any_of(headers.begin(), headers.end(),
                     [&](const auto& h) { return EqualsIgnoreCase(h.first, name); });
}

const std::string& HttpRequest::param(std::string_view name) const {
  auto it = params.find(std::string(name));
  return it == params.end() ? kEmpty : it->second;
}

bool HttpRequest::keep_alive() const {
  // "Connection" is a list of options; close wins.
  bool close = false, keep = false;
  for (const auto& [n, v] : headers) {
    if (n != "connection") continue;
    std::string_view list(v);
    while (!list.empty()) {
      const size_t comma = list.find(',');
      const std::string_view option = Trim(list.substr(0, comma));
      if (EqualsIgnoreCase(option, "close")) close = true;
      if (EqualsIgnoreCase(option, "keep-alive")) keep = true;
      list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    }
  }
  if (close) return false;
  return version_minor >= 1 || keep;
}

HttpRequestParser::State HttpRequestParser::Fail(int status, std::string message) {
  error_status_ = status;
  error_ = std::move(message);
  return state_ = State::kError;
}

HttpRequest HttpRequestParser::Take() {
  HttpRequest r = std::move(request_);
  request_ = HttpRequest();
  state_ = State::kHead;
  body_allowed_ = false;
  chunked_ = false;
  content_length_ = 0;
  body_received_ = 0;
  too_large_ = false;
  sink_ = nullptr;
  chunk_state_ = ChunkState::kSize;
  chunk_left_ = 0;
  trailer_bytes_ = 0;
  return r;
}

HttpRequestParser::State HttpRequestParser::Feed(std::string* in) {
  if (state_ == State::kHead) {
    // Empty lines before a request line are ignored (RFC 9112 2.2).
    size_t skip = 0;
    while (skip < in->size() && ((*in)[skip] == '\r' || (*in)[skip] == '\n')) ++skip;
    if (skip > 0) in->erase(0, skip);
    // The head ends at the first empty line.
    size_t pos = 0, end = std::string::npos;
    std::string_view line;
    while (NextLine(*in, &pos, &line)) {
      if (line.empty()) {
        end = pos;
        break;
      }
      if (pos > max_header_bytes_) break;
    }
    if (end == std::string::npos) {
      if (in->size() <= max_header_bytes_) return state_;
      const bool request_line = in->find('\n') == std::string::npos ||
                                in->find('\n') > max_header_bytes_;
      return request_line
                 ? Fail(414, "the request line is longer than " +
                                 std::to_string(max_header_bytes_) + " bytes")
                 : Fail(431, "the request's header fields are larger than " +
                                 std::to_string(max_header_bytes_) + " bytes");
    }
    if (end > max_header_bytes_) {
      return Fail(431, "the request's header fields are larger than " +
                           std::to_string(max_header_bytes_) + " bytes");
    }
    const State s = ParseHead(std::string_view(*in).substr(0, end));
    in->erase(0, end);
    if (s == State::kError) return s;
    state_ = has_body() ? State::kBody : State::kComplete;
    return state_;
  }
  if (state_ == State::kBody && body_allowed_) return FeedBody(in);
  return state_;
}

HttpRequestParser::State HttpRequestParser::ParseHead(std::string_view head) {
  size_t pos = 0;
  std::string_view line;
  NextLine(head, &pos, &line);
  // method SP target SP HTTP-version
  const size_t sp1 = line.find(' ');
  const size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) {
    return Fail(400, "the request line is not \"METHOD target HTTP/1.1\"");
  }
  const std::string_view method = line.substr(0, sp1);
  const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = line.substr(sp2 + 1);
  if (!IsToken(method)) return Fail(400, "the request's method is not a token");
  if (target.empty() || std::any_of(target.begin(), target.end(), [](char c) {
        return static_cast<unsigned char>(c) <= 0x20 || c == 0x7f;
      })) {
    return Fail(400, "the request target is empty or holds control characters");
  }
  if (version.size() != 8 || version.substr(0, 5) != "HTTP/" || version[6] != '.' ||
      version[5] < '0' || version[5] > '9' || version[7] < '0' || version[7] > '9') {
    return Fail(400, "the request's protocol is not HTTP/1.x");
  }
  if (version[5] != '1') {
    return Fail(505, "HTTP/" + std::string(version.substr(5)) + " is not served: use HTTP/1.1");
  }
  request_.method = std::string(method);
  request_.target = std::string(target);
  request_.version_minor = version[7] - '0';
  const size_t q = target.find('?');
  request_.path = DecodePath(target.substr(0, q));
  if (q != std::string_view::npos) request_.params = ParseQueryString(target.substr(q + 1));

  bool has_length = false, has_encoding = false;
  while (NextLine(head, &pos, &line) && !line.empty()) {
    if (line.front() == ' ' || line.front() == '\t') {
      return Fail(400, "a header field is folded over lines (obsolete, RFC 9112 5.2)");
    }
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || !IsToken(line.substr(0, colon))) {
      return Fail(400, "the header line \"" + std::string(line.substr(0, 80)) +
                           "\" is not \"Name: value\"");
    }
    std::string name(line.substr(0, colon));
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const std::string_view value = Trim(line.substr(colon + 1));
    if (name == "content-length") {
      uint64_t n = 0;
      auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (ec != std::errc() || end != value.data() + value.size() || value.empty()) {
        return Fail(400, "Content-Length: " + std::string(value.substr(0, 40)) +
                             " is not a number of bytes");
      }
      if (has_length && n != content_length_) {
        return Fail(400, "the request has two different Content-Length fields");
      }
      has_length = true;
      content_length_ = n;
    } else if (name == "transfer-encoding") {
      // Only chunked is understood, and it must come last.
      std::string_view v = value;
      const size_t comma = v.rfind(',');
      const std::string_view last = Trim(comma == std::string_view::npos ? v : v.substr(comma + 1));
      if (!EqualsIgnoreCase(last, "chunked") || comma != std::string_view::npos) {
        return Fail(501, "Transfer-Encoding: " + std::string(value.substr(0, 40)) +
                             " is not supported (only chunked is)");
      }
      has_encoding = true;
    }
    request_.headers.emplace_back(std::move(name), std::string(value));
  }
  if (has_length && has_encoding) {
    return Fail(400, "the request has both Content-Length and Transfer-Encoding");
  }
  chunked_ = has_encoding;
  if (chunked_) content_length_ = 0;
  return State::kHead;
}

void HttpRequestParser::AppendBody(std::string_view data) {
  body_received_ += data.size();
  if (too_large_) return;
  if (body_received_ > max_body_bytes_) {
    too_large_ = true;
    std::string().swap(request_.body);
    return;
  }
  if (sink_) {
    if (!data.empty()) sink_(data);
    return;
  }
  request_.body.append(data);
}

HttpRequestParser::State HttpRequestParser::FeedBody(std::string* in) {
  if (!chunked_) {
    const uint64_t want = content_length_ - body_received_;
    const size_t take = static_cast<size_t>(std::min<uint64_t>(want, in->size()));
    if (body_received_ == 0 && !too_large_ && !sink_ && content_length_ <= max_body_bytes_) {
      request_.body.reserve(static_cast<size_t>(content_length_));
    }
    AppendBody(std::string_view(*in).substr(0, take));
    in->erase(0, take);
    if (body_received_ == content_length_) state_ = State::kComplete;
    return state_;
  }
  size_t pos = 0;
  std::string_view data(*in);
  while (state_ == State::kBody) {
    if (chunk_state_ == ChunkState::kSize) {
      std::string_view line;
      size_t p = pos;
      if (!NextLine(data, &p, &line)) {
        if (data.size() - pos > 1024) {
          in->erase(0, pos);
          return Fail(400, "a chunk's size line is longer than 1024 bytes");
        }
        break;
      }
      const std::string_view digits = Trim(line.substr(0, line.find(';')));
      uint64_t n = 0;
      if (digits.empty() || digits.size() > 15) {
        in->erase(0, pos);
        return Fail(400, "a chunk's size is not a hexadecimal number of bytes");
      }
      for (char c : digits) {
        if (HexDigit(c) < 0) {
          in->erase(0, pos);
          return Fail(400, "a chunk's size is not a hexadecimal number of bytes");
        }
        n = n * 16 + static_cast<uint64_t>(HexDigit(c));
      }
      pos = p;
      chunk_left_ = n;
      chunk_state_ = n == 0 ? ChunkState::kTrailers : ChunkState::kData;
    } else if (chunk_state_ == ChunkState::kData) {
      const size_t take = static_cast<size_t>(std::min<uint64_t>(chunk_left_, data.size() - pos));
      if (take == 0) break;
      AppendBody(data.substr(pos, take));
      pos += take;
      chunk_left_ -= take;
      if (chunk_left_ == 0) chunk_state_ = ChunkState::kDataEnd;
    } else if (chunk_state_ == ChunkState::kDataEnd) {
      std::string_view line;
      size_t p = pos;
      if (!NextLine(data, &p, &line)) {
        if (data.size() - pos > 2) {
          in->erase(0, pos);
          return Fail(400, "a chunk's data is longer than its size says");
        }
        break;
      }
      if (!line.empty()) {
        in->erase(0, pos);
        return Fail(400, "a chunk's data is longer than its size says");
      }
      pos = p;
      chunk_state_ = ChunkState::kSize;
    } else {  // trailers, then an empty line
      std::string_view line;
      size_t p = pos;
      if (!NextLine(data, &p, &line)) {
        if (trailer_bytes_ + (data.size() - pos) > max_header_bytes_) {
          in->erase(0, pos);
          return Fail(431, "the request's trailer fields are larger than " +
                               std::to_string(max_header_bytes_) + " bytes");
        }
        break;
      }
      trailer_bytes_ += p - pos;
      pos = p;
      if (line.empty()) state_ = State::kComplete;
    }
  }
  in->erase(0, pos);
  return state_;
}

const char* HttpReason(int status) {
  switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 204: return "No Content";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 422: return "Unprocessable Content";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
    case 507: return "Insufficient Storage";
    default: return status < 300 ? "OK" : status < 500 ? "Client Error" : "Server Error";
  }
}

}  // namespace sluice::server
