#include "server/http_parser.h"

#include <gtest/gtest.h>

#include <random>

namespace sluice::server {
namespace {

using State = HttpRequestParser::State;

// Feeds `text` in pieces of `piece` bytes; returns the final state.
State FeedInPieces(HttpRequestParser& p, const std::string& text, size_t piece,
                   std::string* rest = nullptr) {
  std::string in;
  State s = State::kHead;
  for (size_t i = 0; i < text.size(); i += piece) {
    in += text.substr(i, piece);
    s = p.Feed(&in);
    if (s == State::kBody && !in.empty()) {
      p.ContinueBody();
      s = p.Feed(&in);
    } else if (s == State::kBody) {
      p.ContinueBody();
    }
    if (s == State::kError || s == State::kComplete) break;
  }
  if (rest != nullptr) *rest = in;
  return s;
}

TEST(HttpParser, RequestLineHeadersAndQuery) {
  HttpRequestParser p(16 << 10, 1 << 20);
  std::string in =
      "GET /query?sql=SELECT+1%3D1&format=csv&x HTTP/1.1\r\nHost: a\r\nX-Two:  b c  \r\n\r\n";
  ASSERT_EQ(p.Feed(&in), State::kComplete);
  EXPECT_TRUE(in.empty());
  HttpRequest r = p.Take();
  EXPECT_EQ(r.method, "GET");
  EXPECT_EQ(r.path, "/query");
  EXPECT_EQ(r.param("sql"), "SELECT 1=1");
  EXPECT_EQ(r.param("format"), "csv");
  EXPECT_TRUE(r.has_param("x"));
  EXPECT_EQ(r.header("x-two"), "b c");
  EXPECT_EQ(r.header("HOST"), "a");
  EXPECT_TRUE(r.keep_alive());
}

TEST(HttpParser, PathIsDecodedButPlusStays) {
  HttpRequestParser p(16 << 10, 1 << 20);
  std::string in = "GET /egress/my%20view+x HTTP/1.1\r\n\r\n";
  ASSERT_EQ(p.Feed(&in), State::kComplete);
  EXPECT_EQ(p.request().path, "/egress/my view+x");
}

TEST(HttpParser, ContentLengthBodyInAnyPieces) {
  const std::string body = "{\"insert\":{\"a\":1}}\n{\"insert\":{\"a\":2}}\n";
  const std::string text = "POST /ingress/t HTTP/1.1\r\nContent-Length: " +
                           std::to_string(body.size()) + "\r\n\r\n" + body + "GET /next";
  for (size_t piece : {1, 2, 3, 7, 64, 4096}) {
    HttpRequestParser p(16 << 10, 1 << 20);
    std::string rest;
    ASSERT_EQ(FeedInPieces(p, text, piece, &rest), State::kComplete) << piece;
    EXPECT_EQ(p.request().body, body) << piece;
    // What follows the body is the next request's, left in the buffer.
    EXPECT_EQ(std::string("GET /next").rfind(rest, 0), 0u) << piece << ": " << rest;
  }
}

TEST(HttpParser, PipelinedRequestsStayInTheBuffer) {
  HttpRequestParser p(16 << 10, 1 << 20);
  std::string in =
      "POST /a HTTP/1.1\r\nContent-Length: 3\r\n\r\nxyzGET /b HTTP/1.1\r\n\r\nGET /c HTTP/1.0\r\n\r\n";
  ASSERT_EQ(p.Feed(&in), State::kBody);
  p.ContinueBody();
  ASSERT_EQ(p.Feed(&in), State::kComplete);
  EXPECT_EQ(p.Take().body, "xyz");
  ASSERT_EQ(p.Feed(&in), State::kComplete);
  EXPECT_EQ(p.Take().path, "/b");
  ASSERT_EQ(p.Feed(&in), State::kComplete);
  HttpRequest c = p.Take();
  EXPECT_EQ(c.path, "/c");
  EXPECT_FALSE(c.keep_alive());  // HTTP/1.0 without keep-alive
  EXPECT_TRUE(in.empty());
}

TEST(HttpParser, ChunkedBodyWithExtensionsAndTrailers) {
  const std::string text =
      "POST /ingress/t HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5;ext=1\r\nhello\r\n1\r\n \r\nA\r\n0123456789\r\n0\r\nX-Trailer: y\r\n\r\nNEXT";
  for (size_t piece : {1, 2, 5, 13, 4096}) {
    HttpRequestParser p(16 << 10, 1 << 20);
    std::string rest;
    ASSERT_EQ(FeedInPieces(p, text, piece, &rest), State::kComplete) << piece;
    EXPECT_EQ(p.request().body, "hello 0123456789") << piece;
  }
}

TEST(HttpParser, BodyBeyondTheLimitIsReadAndDropped) {
  HttpRequestParser p(16 << 10, 10);
  std::string in = "POST /x HTTP/1.1\r\nContent-Length: 20\r\n\r\n01234567890123456789";
  ASSERT_EQ(p.Feed(&in), State::kBody);
  p.ContinueBody();
  ASSERT_EQ(p.Feed(&in), State::kComplete);
  EXPECT_TRUE(p.body_too_large());
  EXPECT_EQ(p.body_received(), 20u);
  EXPECT_TRUE(p.request().body.empty());
}

TEST(HttpParser, HeadThatIsTooLargeIs431) {
  HttpRequestParser p(256, 1 << 20);
  std::string in = "GET / HTTP/1.1\r\nX: " + std::string(300, 'a') + "\r\n";
  ASSERT_EQ(p.Feed(&in), State::kError);
  EXPECT_EQ(p.error_status(), 431);
  HttpRequestParser q(256, 1 << 20);
  std::string line = "GET /" + std::string(300, 'a');
  ASSERT_EQ(q.Feed(&line), State::kError);
  EXPECT_EQ(q.error_status(), 414);
}

TEST(HttpParser, MalformedRequestsSayWhat) {
  struct Case {
    std::string text;
    int status;
  };
  const Case cases[] = {
      {"GET\r\n\r\n", 400},
      {"GET / HTTP/1.1 extra\r\n\r\n", 400},
      {"G(T / HTTP/1.1\r\n\r\n", 400},
      {"GET / FTP/1.1\r\n\r\n", 400},
      {"GET / HTTP/2.0\r\n\r\n", 505},
      {"GET / HTTP/1.1\r\nno colon\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nA: b\r\n folded\r\n\r\n", 400},
      {"POST / HTTP/1.1\r\nContent-Length: 12x\r\n\r\n", 400},
      {"POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400},
      {"POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501},
      {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n", 400},
      {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400},
      {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcdef\r\n", 400},
  };
  for (const Case& c : cases) {
    HttpRequestParser p(16 << 10, 1 << 20);
    const State s = FeedInPieces(p, c.text, c.text.size());
    EXPECT_EQ(s, State::kError) << c.text;
    EXPECT_EQ(p.error_status(), c.status) << c.text << ": " << p.error();
    EXPECT_FALSE(p.error().empty());
  }
}

TEST(HttpParser, FieldNamesCompareIgnoringLetterCaseOnly) {
  EXPECT_TRUE(EqualsIgnoreCase("Content-Length", "content-LENGTH"));
  EXPECT_FALSE(EqualsIgnoreCase("x@", "x`"));  // 0x40 and 0x60 differ only in bit 5
  EXPECT_FALSE(EqualsIgnoreCase("ab", "abc"));
}

TEST(HttpParser, KeepAliveFollowsConnectionOptions) {
  auto parse = [](const std::string& text) {
    HttpRequestParser p(16 << 10, 1 << 20);
    std::string in = text;
    p.Feed(&in);
    return p.Take();
  };
  EXPECT_FALSE(parse("GET / HTTP/1.1\r\nConnection: Close\r\n\r\n").keep_alive());
  EXPECT_FALSE(parse("GET / HTTP/1.1\r\nConnection: keep-alive, close\r\n\r\n").keep_alive());
  EXPECT_TRUE(parse("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n").keep_alive());
  EXPECT_TRUE(parse("GET / HTTP/1.1\r\nConnection: upgrade\r\n\r\n").keep_alive());
}

// Random bytes, and damaged valid requests, fed in random pieces: the parser
// ends in an error or a request, never reads out of bounds, never takes a
// body it was not asked to read beyond its limit.
TEST(HttpParser, DamagedInputNeverCrashes) {
  const std::string valid =
      "POST /ingress/t?format=csv HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
      "4\r\n1,2\n\r\n0\r\n\r\n";
  std::mt19937 rng(7);
  int errors = 0, complete = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text = valid;
    const int damage = static_cast<int>(rng() % 4);
    for (int d = 0; d <= damage; ++d) {
      const size_t at = rng() % text.size();
      switch (rng() % 3) {
        case 0: text[at] = static_cast<char>(rng()); break;
        case 1: text.erase(at, 1 + rng() % 8); break;
        default: text.insert(at, std::string(1 + rng() % 4, static_cast<char>(rng()))); break;
      }
      if (text.empty()) text = "x";
    }
    HttpRequestParser p(128, 64);
    const State s = FeedInPieces(p, text, 1 + rng() % 16);
    if (s == State::kError) {
      ++errors;
      EXPECT_GE(p.error_status(), 400);
    } else if (s == State::kComplete) {
      ++complete;
      EXPECT_LE(p.request().body.size(), 64u);
    }
  }
  EXPECT_GT(errors, 0);
  EXPECT_GT(complete, 0);
}

}  // namespace
}  // namespace sluice::server
