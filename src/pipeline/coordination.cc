#include "pipeline/coordination.h"

#include <charconv>

#include "base/bytes.h"
#include "pipeline/journal.h"
#include "pipeline/message_json.h"
#include "zset/batch_codec.h"

namespace sluice::pipeline::coordination {
namespace {

using Json = nlohmann::json;

std::string UrlEncode(std::string_view s) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

// A request's scalar fields as query parameters.
class QueryWriter {
 public:
  template <class F>
  void operator()(const char* name, const F& f) {
    static_assert(
        std::is_same_v<F, std::string> || std::is_same_v<F, bool> || std::is_integral_v<F>,
        "only scalar fields travel in a query string");
    query_ += query_.empty() ? "?" : "&";
    query_ += name;
    query_ += "=";
    if constexpr (std::is_same_v<F, std::string>) {
      query_ += UrlEncode(f);
    } else if constexpr (std::is_same_v<F, bool>) {
      query_ += f ? "true" : "false";
    } else {
      query_ += std::to_string(f);
    }
  }
  const std::string& query() const { return query_; }

 private:
  std::string query_;
};

class QueryReader {
 public:
  explicit QueryReader(const QueryParams& params) : params_(params) {}
  template <class F>
  void operator()(const char* name, F& f) {
    if (!status_.ok()) return;
    auto it = params_.find(name);
    if (it == params_.end()) {
      status_ = Status::InvalidArgument(std::string("parameter \"") + name + "\" is missing");
      return;
    }
    const std::string& v = it->second;
    auto bad = [&](const char* what) {
      status_ = Status::InvalidArgument(std::string("parameter \"") + name + "\": expected " +
                                        what + ", got \"" + v.substr(0, 40) + "\"");
    };
    if constexpr (std::is_same_v<F, std::string>) {
      f = v;
    } else if constexpr (std::is_same_v<F, bool>) {
      if (v == "true" || v == "1") {
        f = true;
      } else if (v == "false" || v == "0") {
        f = false;
      } else {
        bad("true or false");
      }
    } else {
      static_assert(std::is_integral_v<F>, "only scalar fields travel in a query string");
      auto r = std::from_chars(v.data(), v.data() + v.size(), f);
      if (r.ec != std::errc() || r.ptr != v.data() + v.size()) bad("an integer");
    }
  }
  const Status& status() const { return status_; }

 private:
  const QueryParams& params_;
  Status status_;
};

class NameCollector {
 public:
  template <class F>
  void operator()(const char* name, F&) {
    names.push_back(name);
  }
  std::vector<std::string> names;
};

template <class T>
std::vector<std::string> FieldNames() {
  if constexpr (std::is_same_v<T, ScanAnswer>) {
    return {};
  } else {
    T t{};
    NameCollector c;
    t.Fields(c);
    return c.names;
  }
}

}  // namespace

const char* MethodName(Method m) { return m == Method::kGet ? "GET" : "POST"; }

template <class R>
WireRequest EncodeRequest(const R& request) {
  WireRequest w;
  w.target = R::kCall.path;
  if constexpr (R::kCall.method == Method::kGet || R::kCall.binary_request) {
    QueryWriter q;
    const_cast<R&>(request).Fields(q);
    w.target += q.query();
  } else {
    w.body = MessageToJson(request).dump();
  }
  if constexpr (std::is_same_v<R, IngestRequest>) {
    w.content_type = "application/octet-stream";
    if (request.changes) EncodeChanges(*request.changes, 0, request.changes->size(), &w.body);
  }
  return w;
}

template <class R>
Result<R> DecodeRequest(const QueryParams& params, std::string_view body) {
  R r{};
  if constexpr (R::kCall.method == Method::kGet || R::kCall.binary_request) {
    QueryReader q(params);
    r.Fields(q);
    SLUICE_RETURN_IF_ERROR(q.status());
  } else {
    SLUICE_ASSIGN_OR_RETURN(r, MessageFromText<R>(body));
  }
  if constexpr (std::is_same_v<R, IngestRequest>) {
    auto changes = std::make_shared<format::ChangeBuffer>();
    std::string_view in = body;
    if (!DecodeChanges(&in, changes.get()) || !in.empty()) {
      return Status::InvalidArgument("the body is not a whole set of changes");
    }
    r.changes = std::move(changes);
  }
  return r;
}

template <class R>
std::string EncodeAnswer(const typename R::Answer& answer) {
  using A = typename R::Answer;
  if constexpr (std::is_same_v<A, ScanAnswer>) {
    std::string out;
    for (const MemBatchPtr& b : answer.batches) {
      if (b->empty()) continue;
      std::string chunk;
      EncodeBatch(*b, &chunk);
      PutFixed64(&out, chunk.size());
      out += chunk;
    }
    return out;
  } else {
    return MessageToJson(answer).dump();
  }
}

template <class R>
Result<typename R::Answer> DecodeAnswer(std::string_view body) {
  using A = typename R::Answer;
  if constexpr (std::is_same_v<A, ScanAnswer>) {
    ScanAnswer a;
    while (!body.empty()) {
      if (body.size() < 8) return Status::Corruption("it ends in the middle of a length");
      const uint64_t n = GetFixed64(body.data());
      if (body.size() - 8 < n) return Status::Corruption("it ends in the middle of a batch");
      SLUICE_ASSIGN_OR_RETURN(MemBatchPtr b, DecodeBatch(body.substr(8, n)));
      a.batches.push_back(std::move(b));
      body.remove_prefix(8 + n);
    }
    return a;
  } else {
    return MessageFromText<A>(body);
  }
}

template <class R>
std::vector<std::string> RequestFields() {
  std::vector<std::string> names = FieldNames<R>();
  if constexpr (std::is_same_v<R, IngestRequest>) names.push_back("(body: changes)");
  return names;
}

template <class R>
std::vector<std::string> AnswerFields() {
  return FieldNames<typename R::Answer>();
}

#define SLUICE_INSTANTIATE(R)                                                \
  template WireRequest EncodeRequest<R>(const R&);                           \
  template Result<R> DecodeRequest<R>(const QueryParams&, std::string_view); \
  template std::string EncodeAnswer<R>(const R::Answer&);                    \
  template Result<R::Answer> DecodeAnswer<R>(std::string_view);              \
  template std::vector<std::string> RequestFields<R>();                      \
  template std::vector<std::string> AnswerFields<R>();
SLUICE_COORDINATION_CALLS(SLUICE_INSTANTIATE)
#undef SLUICE_INSTANTIATE

std::string CallTable() {
  auto list = [](const std::vector<std::string>& names) {
    std::string s;
    for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
    return s.empty() ? std::string("-") : s;
  };
  std::string out =
      "| call | request | answer | what it does |\n"
      "|---|---|---|---|\n";
  ForEachCall([&]<class R>() {
    const CallInfo& c = R::kCall;
    std::string answer;
    if (c.stream) {
      answer = "a stream of frames";
    } else if (c.binary_answer) {
      answer = "binary";
    } else if (std::is_same_v<typename R::Answer, PipelineStats>) {
      answer = "/stats of the host";
    } else if (std::is_same_v<typename R::Answer, PipelineStatus>) {
      answer = "/status of the host";
    } else {
      answer = list(AnswerFields<R>());
    }
    out += std::string("| `") + MethodName(c.method) + " " + c.path + "` | " +
           list(RequestFields<R>()) + " | " + answer + " | " + c.summary + " |\n";
  });
  return out;
}

HttpError HttpErrorFor(const Status& s) {
  switch (s.code()) {
    case StatusCode::kNotFound:
      return {404, "NotFound"};
    case StatusCode::kInvalidArgument:
      return {400, "InvalidRequest"};
    case StatusCode::kAborted:
      return {503, "PipelineStopping"};
    case StatusCode::kUnimplemented:
      return {501, "NotSupported"};
    case StatusCode::kUnavailable:
      return {429, "Busy"};
    default:
      return {500, "InternalError"};
  }
}

Status StatusFromHttp(int http, std::string message) {
  switch (http) {
    case 400:
      return Status::InvalidArgument(std::move(message));
    case 404:
      return Status::NotFound(std::move(message));
    case 501:
      return Status::Unimplemented(std::move(message));
    case 429:
      return Status::Unavailable(std::move(message));
    case 503:
      return Status::Aborted(std::move(message));
    default:
      return Status::IOError(std::move(message) + " (HTTP " + std::to_string(http) + ")");
  }
}

}  // namespace sluice::pipeline::coordination
