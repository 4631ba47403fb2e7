#include "pgwire/session.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <thread>

#include "base/suggest.h"
#include "format/format.h"
#include "pgwire/codec.h"
#include "pgwire/protocol.h"
#include "pgwire/statement.h"
#include "pipeline/adhoc.h"
#include "sql/dml.h"
#include "sql/expr.h"
#include "sql/parser.h"
#include "sql/program.h"
#include "sql/sequences.h"
#include "types/row_codec.h"
#include "zset/cursor.h"

namespace sluice::pgwire {
namespace {

using pipeline::ApiScope;
using Clock = std::chrono::steady_clock;

constexpr size_t kMaxMessage = 1u << 30;   // a message longer than this ends the session
constexpr size_t kMaxStartup = 10000;      // as PostgreSQL
constexpr size_t kFlushBytes = 256 << 10;  // results are sent in pieces of about this much

// The parameters a client learns at startup, and that SHOW answers.
const std::vector<std::pair<std::string, std::string>>& ReportedParameters() {
  static const auto* p = new std::vector<std::pair<std::string, std::string>>{
      {"server_version", "15.0"},    {"server_encoding", "UTF8"},
      {"client_encoding", "UTF8"},   {"DateStyle", "ISO, MDY"},
      {"IntervalStyle", "postgres"}, {"TimeZone", "UTC"},
      {"integer_datetimes", "on"},   {"standard_conforming_strings", "on"},
      {"is_superuser", "off"},
  };
  return *p;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

PgError Error(std::string code, std::string message, std::string hint = "") {
  PgError e;
  e.code = std::move(code);
  e.message = std::move(message);
  e.hint = std::move(hint);
  return e;
}

// A prepared statement (Parse) and a portal (Bind).
struct Prepared {
  Statement statement;
  std::vector<uint32_t> param_oids;  // one per $n (0: unspecified)
};

struct Portal {
  std::shared_ptr<const Prepared> prepared;
  std::string text;              // the statement with its parameters in place
  std::vector<int16_t> formats;  // result column formats (0 text, 1 binary)
  // A SELECT's result, computed at Describe or the first Execute; Execute
  // with a row limit hands it out in pieces.
  std::optional<pipeline::QueryResult> result;
  std::string tag;  // a statement that changes tables: its command tag
  size_t next_row = 0;
  bool done = false;
};

}  // namespace

struct Session::Impl {
  Session* self;
  SessionContext* ctx;
  pipeline::PipelineApi* api;
  int fd;
  std::unique_ptr<TlsStream> tls;
  Writer out;
  std::string user;
  ApiScope scope = ApiScope::kAdmin;
  std::map<std::string, std::string> settings;  // SET, by lower-case name
  // What this session has seen of the pipeline's sequences: currval() and
  // lastval() are the session's own.
  std::shared_ptr<sql::SequenceSession> sequence_session = std::make_shared<sql::SequenceSession>();

  // How values print, as SET IntervalStyle and bytea_output have it.
  sql::OutputStyle Style() const {
    sql::OutputStyle style;
    if (auto it = settings.find("intervalstyle"); it != settings.end()) {
      const std::string v = Lower(it->second);
      style.interval = v == "postgres_verbose" ? sql::IntervalStyle::kPostgresVerbose
                       : v == "sql_standard"   ? sql::IntervalStyle::kSqlStandard
                       : v == "iso_8601"       ? sql::IntervalStyle::kIso8601
                                               : sql::IntervalStyle::kPostgres;
    }
    if (auto it = settings.find("bytea_output"); it != settings.end()) {
      style.bytea_escape = Lower(it->second) == "escape";
    }
    if (auto it = settings.find("extra_float_digits"); it != settings.end()) {
      style.extra_float_digits = std::atoi(it->second.c_str());
    }
    return style;
  }

  // What the session's casts read and write text in (SET DateStyle,
  // IntervalStyle and bytea_output).
  sql::CastSettings CastSettings() const {
    const sql::OutputStyle style = Style();
    return {DateOrder(), style.interval, style.bytea_escape};
  }

  // DateStyle's input order, as SET DateStyle has it (shown as "ISO, DMY").
  sql::DateOrder DateOrder() const {
    sql::DateOrder order = sql::DateOrder::kMDY;
    if (auto it = settings.find("datestyle"); it != settings.end()) {
      (void)sql::DateOrderFromStyle(it->second, order, &order);
    }
    return order;
  }

  // Transaction block: 'I' idle, 'T' in a block, 'E' in a failed block.
  char txn = 'I';
  // Changes that a block's INSERT, DELETE and COPY made, per table, in the
  // order the tables were first written; ingested at COMMIT.
  std::vector<std::pair<std::string, format::ChangeBuffer>> pending;

  std::map<std::string, std::shared_ptr<const Prepared>> prepared;
  std::map<std::string, Portal> portals;
  bool skip_until_sync = false;  // an extended-protocol error was sent

  Impl(Session* s, SessionContext* c, int f) : self(s), ctx(c), api(c->api), fd(f) {}
  ~Impl() {
    tls.reset();
    ::close(fd);
  }

  // ---- I/O
  // Plain connections read ahead into `in`: a COPY sends a message per
  // line, and two system calls each would cost more than the line.
  std::string in;
  size_t in_pos = 0;

  bool ReadExact(size_t n, std::string* into) {
    if (tls) {
      std::string got;
      if (!tls->ReadAll(n, &got)) return false;
      *into = std::move(got);
      return true;
    }
    while (in.size() - in_pos < n) {
      if (in_pos > 0) {
        in.erase(0, in_pos);
        in_pos = 0;
      }
      const size_t have = in.size();
      in.resize(std::max(have + (64 << 10), n));
      const ssize_t r = ::recv(fd, in.data() + have, in.size() - have, 0);
      in.resize(have + static_cast<size_t>(std::max<ssize_t>(r, 0)));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return false;
    }
    into->assign(in, in_pos, n);
    in_pos += n;
    return true;
  }
  bool Buffered() const { return in.size() > in_pos; }

  bool WriteRaw(std::string_view data) {
    if (tls) return tls->WriteAll(data);
    while (!data.empty()) {
      const ssize_t w = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return false;
      data.remove_prefix(static_cast<size_t>(w));
    }
    return true;
  }

  bool Flush() {
    if (out.buffer().empty()) return true;
    const bool ok = WriteRaw(out.buffer());
    out.Clear();
    return ok;
  }

  bool FlushIfLarge() { return out.buffer().size() < kFlushBytes || Flush(); }

  // One message after startup: its type and body.
  bool ReadMessage(char* type, std::string* body) {
    std::string head;
    if (!ReadExact(5, &head)) return false;
    *type = head[0];
    const uint32_t len = (uint32_t{static_cast<unsigned char>(head[1])} << 24) |
                         (uint32_t{static_cast<unsigned char>(head[2])} << 16) |
                         (uint32_t{static_cast<unsigned char>(head[3])} << 8) |
                         uint32_t{static_cast<unsigned char>(head[4])};
    if (len < 4 || len > kMaxMessage) {
      SendFatal(Error("08P01", "invalid message length " + std::to_string(len)));
      return false;
    }
    return ReadExact(len - 4, body);
  }

  void SendError(const PgError& e) { WriteError(out, e); }
  void SendFatal(PgError e) {
    e.severity = "FATAL";
    WriteError(out, e);
    Flush();
  }
  void SendNotice(const std::string& message) {
    PgError e;
    e.severity = "WARNING";
    e.code = "25001";
    e.message = message;
    WriteError(out, e, 'N');
  }
  void ReadyForQuery() {
    out.Begin('Z');
    out.Int8(static_cast<uint8_t>(txn));
    out.End();
  }
  // CopyInResponse ('G') or CopyOutResponse ('H'): text format, every
  // column in text.
  void CopyResponse(char type, size_t columns) {
    out.Begin(type);
    out.Int8(0);
    out.Int16(static_cast<int16_t>(columns));
    for (size_t i = 0; i < columns; ++i) out.Int16(0);
    out.End();
  }
  void CommandComplete(const std::string& tag) {
    out.Begin('C');
    out.CString(tag);
    out.End();
  }
  void ParameterStatus(const std::string& name, const std::string& value) {
    out.Begin('S');
    out.CString(name);
    out.CString(value);
    out.End();
  }

  // ---- startup
  bool Startup();
  bool Authenticate();

  // ---- queries
  void SimpleQuery(const std::string& text);
  void ExtendedMessage(char type, std::string_view body);

  // Runs a statement of a simple query or an Execute (`portal`: its
  // Describe already sent the row description; `max_rows`: 0 for all).
  // An error is returned for the caller to send.
  std::optional<PgError> Execute(const Statement& st, const std::string& text, Portal* portal,
                                 const std::vector<int16_t>& formats, int64_t max_rows,
                                 bool describe, size_t offset, std::string_view query);
  std::optional<PgError> RunSelect(const std::string& text, Portal* portal,
                                   const std::vector<int16_t>& formats, int64_t max_rows,
                                   bool describe, size_t offset, std::string_view query);
  std::optional<PgError> RunShow(const Statement& st, bool describe);
  std::optional<PgError> RunSet(const Statement& st);
  std::optional<PgError> RunTransaction(const Statement& st);
  std::optional<PgError> RunModify(const Statement& st, const std::string& text, Portal* portal,
                                   const std::vector<int16_t>& formats, int64_t max_rows,
                                   bool describe, size_t offset, std::string_view query);
  // A DELETE from a table that is not materialized, by the keys its WHERE
  // names; nullopt if the statement is not one.
  std::optional<std::optional<PgError>> DeleteByKey(const std::string& text, size_t offset,
                                                    std::string_view query);
  // The SQL layer's view of the pipeline's tables for INSERT, UPDATE and
  // DELETE; `describe`: queries give their columns only.
  sql::DmlEnv ModifyEnv(bool describe) const;
  // The columns a statement that changes tables answers with, planned over
  // no rows: no change is made.
  Result<std::vector<sql::Column>> ModifyColumns(const std::string& text) const;
  // Sends rows of `result` from `*next` on (up to `max_rows`, 0 for all),
  // then `tag` once all are sent.
  std::optional<PgError> SendRows(const pipeline::QueryResult& result, size_t* next,
                                  const std::vector<int16_t>& formats, int64_t max_rows,
                                  bool describe, Portal* portal, const std::string& tag);
  // Changes to tables, as one: a transaction's (kept for its COMMIT), or
  // applied now, the views seeing all of them at once.
  std::optional<PgError> ApplyAll(
      std::vector<std::pair<std::string, format::ChangeBuffer>> changes);
  std::optional<PgError> RunCopyFrom(const Statement& st);
  std::optional<PgError> RunCopyTo(const Statement& st);
  std::optional<PgError> RunSubscribe(const Statement& st, const std::vector<int16_t>& formats,
                                      bool describe);

  // Ingests one statement's changes (or keeps them for COMMIT in a block).
  std::optional<PgError> Apply(const std::string& table, format::ChangeBuffer changes);
  // Waits until `token`'s changes are processed.
  std::optional<PgError> WaitFor(uint64_t token);
  std::optional<PgError> NeedScope(ApiScope need, const std::string& what);

  void RowDescription(const std::vector<sql::Column>& columns, const std::vector<int16_t>& formats);
  std::optional<PgError> DataRow(const sql::Row& row, const std::vector<sql::Column>& columns,
                                 const std::vector<int16_t>& formats);
  std::map<std::string, pipeline::RelationInfo> Relations() const;
  // The columns a statement answers with, without running it (parameters
  // taken as NULL).
  Result<std::vector<sql::Column>> DescribeColumns(const Statement& st,
                                                   const std::vector<uint32_t>& oids) const;
  const pipeline::RelationInfo* Table(const std::string& name, std::optional<PgError>* error) const;
};

Session::Session(SessionContext* context, int fd, int32_t pid, int32_t secret)
    : impl_(std::make_unique<Impl>(this, context, fd)), pid_(pid), secret_(secret) {}

Session::~Session() = default;

void Session::Shutdown() { ::shutdown(impl_->fd, SHUT_RDWR); }

void Session::Run() {
  Impl& s = *impl_;
  if (s.Startup() && !cancel_target_.pid && s.Authenticate()) {
    s.ReadyForQuery();
    s.Flush();
    char type;
    std::string body;
    while (!s.ctx->stopping.load() && s.ReadMessage(&type, &body)) {
      if (type == 'X') break;  // Terminate
      if (type == 'Q') {
        s.skip_until_sync = false;
        std::string text(body);
        if (!text.empty() && text.back() == '\0') text.pop_back();
        s.SimpleQuery(text);
        s.ReadyForQuery();
      } else if (type == 'd' || type == 'c' || type == 'f') {
        // COPY data outside a COPY (after an error ended it): ignored, as
        // PostgreSQL does.
      } else {
        s.ExtendedMessage(type, body);
      }
      if (!s.Flush()) break;
    }
  }
}

// ---- startup and authentication

bool Session::Impl::Startup() {
  for (;;) {
    std::string len_bytes, body;
    if (!ReadExact(4, &len_bytes)) return false;
    Reader lr(len_bytes);
    int32_t len = 0;
    lr.Int32(&len);
    if (len < 8 || static_cast<size_t>(len) > kMaxStartup) {
      SendFatal(Error("08P01", "invalid length of startup packet"));
      return false;
    }
    if (!ReadExact(static_cast<size_t>(len) - 4, &body)) return false;
    Reader r(body);
    int32_t version = 0;
    r.Int32(&version);
    if (version == kSslRequest) {
      if (ctx->tls == nullptr || tls != nullptr) {
        if (!WriteRaw("N")) return false;
        continue;
      }
      if (!WriteRaw("S")) return false;
      auto stream = TlsStream::Accept(*ctx->tls, fd);
      if (!stream.ok()) return false;
      tls = std::move(stream).value();
      continue;
    }
    if (version == kGssEncRequest) {
      if (!WriteRaw("N")) return false;
      continue;
    }
    if (version == kCancelRequest) {
      r.Int32(&self->cancel_target_.pid);
      r.Int32(&self->cancel_target_.secret);
      return true;
    }
    if ((version >> 16) != 3) {
      SendFatal(Error("0A000", "unsupported frontend protocol " + std::to_string(version >> 16) +
                                   "." + std::to_string(version & 0xffff) +
                                   ": the server supports 3.0"));
      return false;
    }
    std::string name, value;
    while (r.CString(&name) && !name.empty() && r.CString(&value)) {
      if (name == "user") {
        user = value;
      } else if (name == "application_name" || name == "client_encoding" || name == "DateStyle") {
        settings[name] = value;
      }
    }
    if (user.empty()) {
      SendFatal(Error("28000", "no PostgreSQL user name specified in startup packet"));
      return false;
    }
    if (auto it = settings.find("client_encoding");
        it != settings.end() && Lower(it->second) != "utf8" && Lower(it->second) != "unicode" &&
        Lower(it->second) != "utf-8") {
      SendFatal(Error("22023", "client_encoding \"" + it->second +
                                   "\" is not supported: Sluice speaks UTF8 only"));
      return false;
    }
    settings.erase("client_encoding");
    if (auto it = settings.find("DateStyle"); it != settings.end()) {
      // A client's DateStyle (libpq's PGDATESTYLE): its input order, if it
      // names one we can keep; the output stays ISO.
      sql::DateOrder order;
      const std::string v = Lower(it->second);
      if (sql::DateOrderFromStyle(v, sql::DateOrder::kMDY, &order) &&
          v.find("sql") == std::string::npos && v.find("postgres") == std::string::npos &&
          v.find("german") == std::string::npos) {
        settings["datestyle"] = std::string("ISO, ") + sql::DateOrderName(order);
      }
      settings.erase(it);
    }
    return true;
  }
}

bool Session::Impl::Authenticate() {
  const pipeline::ApiKeys* keys = ctx->options.keys;
  if (keys != nullptr && !keys->empty()) {
    const PgError failed =
        Error("28P01", "password authentication failed for user \"" + user + "\"");
    std::optional<ApiScope> found;
    if (ctx->options.auth == "password") {
      out.Begin('R');
      out.Int32(3);  // AuthenticationCleartextPassword
      out.End();
      if (!Flush()) return false;
      char type;
      std::string body;
      if (!ReadMessage(&type, &body) || type != 'p') return false;
      std::string password;
      Reader(body).CString(&password);
      found = keys->Find(password);
    } else {
      out.Begin('R');
      out.Int32(10);  // AuthenticationSASL
      out.CString("SCRAM-SHA-256");
      out.Int8(0);
      out.End();
      if (!Flush()) return false;
      char type;
      std::string body;
      if (!ReadMessage(&type, &body) || type != 'p') return false;
      Reader r(body);
      std::string mechanism;
      int32_t len = 0;
      std::string_view first;
      if (!r.CString(&mechanism) || !r.Int32(&len) || len < 0 ||
          !r.Bytes(static_cast<size_t>(len), &first)) {
        SendFatal(Error("08P01", "malformed SASLInitialResponse"));
        return false;
      }
      if (mechanism != "SCRAM-SHA-256") {
        SendFatal(
            Error("28000", "SASL mechanism " + mechanism + " is not offered; use SCRAM-SHA-256"));
        return false;
      }
      ScramExchange scram(ctx->scram);
      auto server_first = scram.First(first);
      if (!server_first.ok()) {
        SendFatal(Error("08P01", server_first.status().message()));
        return false;
      }
      out.Begin('R');
      out.Int32(11);  // AuthenticationSASLContinue
      out.Bytes(*server_first);
      out.End();
      if (!Flush()) return false;
      if (!ReadMessage(&type, &body) || type != 'p') return false;
      size_t which = 0;
      auto server_final = scram.Final(body, &which);
      if (server_final.ok()) {
        found = keys->keys()[which].second;
        out.Begin('R');
        out.Int32(12);  // AuthenticationSASLFinal
        out.Bytes(*server_final);
        out.End();
      }
    }
    if (!found) {
      SendFatal(failed);
      return false;
    }
    scope = *found;
  }
  out.Begin('R');
  out.Int32(0);  // AuthenticationOk
  out.End();
  for (const auto& [name, value] : ReportedParameters()) {
    if (name == "DateStyle" && settings.count("datestyle")) continue;
    ParameterStatus(name, value);
  }
  if (settings.count("datestyle")) ParameterStatus("DateStyle", settings["datestyle"]);
  ParameterStatus("application_name",
                  settings.count("application_name") ? settings["application_name"] : "");
  ParameterStatus("session_authorization", user);
  out.Begin('K');  // BackendKeyData
  out.Int32(self->pid_);
  out.Int32(self->secret_);
  out.End();
  return true;
}

// ---- helpers

std::map<std::string, pipeline::RelationInfo> Session::Impl::Relations() const {
  std::map<std::string, pipeline::RelationInfo> out;
  for (const std::string& name : api->RelationNames()) {
    if (const pipeline::RelationInfo* info = api->FindRelation(name)) out.emplace(name, *info);
  }
  return out;
}

Result<std::vector<sql::Column>> Session::Impl::DescribeColumns(
    const Statement& st, const std::vector<uint32_t>& oids) const {
  std::vector<sql::Column> columns;
  if (st.kind == StatementKind::kSelect) {
    const std::vector<std::optional<std::string>> nulls(oids.size());
    SLUICE_ASSIGN_OR_RETURN(std::string text, SubstituteParams(st, nulls, oids));
    SLUICE_ASSIGN_OR_RETURN(pipeline::AdhocQuery q,
                            pipeline::BindAdhoc(Relations(), text, api->ProgramText()));
    columns.assign(q.query.plan->columns.begin(),
                   q.query.plan->columns.begin() + static_cast<ptrdiff_t>(q.query.visible));
  } else if (st.kind == StatementKind::kModify && st.returns_rows) {
    // Planned over no rows: the columns, and no change.
    const std::vector<std::optional<std::string>> nulls(oids.size());
    SLUICE_ASSIGN_OR_RETURN(std::string text, SubstituteParams(st, nulls, oids));
    SLUICE_ASSIGN_OR_RETURN(columns, ModifyColumns(text));
  } else if (st.kind == StatementKind::kShow) {
    if (st.name == "all") columns.push_back({"name", SqlType::Varchar()});
    columns.push_back({st.name == "all" ? "setting" : st.name, SqlType::Varchar()});
  } else if (st.kind == StatementKind::kSubscribe && !st.copy.to_stdout) {
    const pipeline::RelationInfo* info = api->FindRelation(st.name);
    if (info == nullptr)
      return Status::InvalidArgument("relation \"" + st.name + "\" does not exist");
    columns = {{"step", SqlType::BigInt(false)}, {"weight", SqlType::BigInt(false)}};
    for (size_t i = 0; i < info->rel.columns.size(); ++i) {
      columns.push_back({info->rel.columns[i], info->rel.schema[i]});
    }
  }
  return columns;
}

const pipeline::RelationInfo* Session::Impl::Table(const std::string& name,
                                                   std::optional<PgError>* error) const {
  const pipeline::RelationInfo* info = api->FindRelation(name);
  if (info == nullptr) {
    *error = Error("42P01", "relation \"" + name + "\" does not exist" +
                                DidYouMean(name, api->RelationNames()));
    return nullptr;
  }
  if (!info->is_table) {
    *error = Error("42809", "\"" + name + "\" is a view: only tables take changes",
                   "change the tables it reads");
    return nullptr;
  }
  return info;
}

std::optional<PgError> Session::Impl::NeedScope(ApiScope need, const std::string& what) {
  if (static_cast<int>(scope) >= static_cast<int>(need)) return std::nullopt;
  return Error("42501", "permission denied: " + what + " needs an API key of scope " +
                            pipeline::ScopeName(need) + ", and this session's is " +
                            pipeline::ScopeName(scope));
}

void Session::Impl::RowDescription(const std::vector<sql::Column>& columns,
                                   const std::vector<int16_t>& formats) {
  out.Begin('T');
  out.Int16(static_cast<int16_t>(columns.size()));
  for (size_t i = 0; i < columns.size(); ++i) {
    const PgTypeInfo t = PgTypeOf(columns[i].type);
    out.CString(columns[i].name);
    out.Int32(0);  // table OID
    out.Int16(0);  // column number
    out.Int32(static_cast<int32_t>(t.oid));
    out.Int16(t.size);
    out.Int32(t.typmod);
    out.Int16(ColumnFormat(formats, i));
  }
  out.End();
}

std::optional<PgError> Session::Impl::DataRow(const sql::Row& row,
                                              const std::vector<sql::Column>& columns,
                                              const std::vector<int16_t>& formats) {
  out.Begin('D');
  out.Int16(static_cast<int16_t>(columns.size()));
  std::string value;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (row[i].is_null()) {
      out.Int32(-1);
      continue;
    }
    value.clear();
    if (ColumnFormat(formats, i) == 1) {
      Status s = EncodeBinary(row[i], columns[i].type, &value);
      if (!s.ok()) {
        out.End();
        return Error("0A000", "column \"" + columns[i].name + "\": " + s.message());
      }
    } else {
      value = sql::ValueToPgText(row[i], columns[i].type, Style());
    }
    out.Int32(static_cast<int32_t>(value.size()));
    out.Bytes(value);
  }
  out.End();
  return std::nullopt;
}

std::optional<PgError> Session::Impl::WaitFor(uint64_t token) {
  auto delay = std::chrono::microseconds(200);
  for (;;) {
    auto c = api->CompletionOf(token);
    if (!c.ok()) return ErrorFromStatus(c.status());
    if (c->complete) return std::nullopt;
    if (api->state() == pipeline::PipelineState::kFailed) {
      return Error("XX000", "the pipeline failed before the changes were processed");
    }
    if (ctx->stopping.load()) return Error("57P01", "the pipeline is stopping");
    std::this_thread::sleep_for(delay);
    delay = std::min(delay * 2, std::chrono::microseconds(5000));
  }
}

std::optional<PgError> Session::Impl::Apply(const std::string& table,
                                            format::ChangeBuffer changes) {
  if (txn == 'T') {
    for (auto& [name, buffer] : pending) {
      if (name == table) {
        buffer.Append(changes);
        return std::nullopt;
      }
    }
    pending.emplace_back(table, std::move(changes));
    return std::nullopt;
  }
  if (changes.empty()) return std::nullopt;
  const uint64_t bytes = changes.bytes();
  auto token = api->Ingest(table, std::move(changes), false, bytes);
  if (!token.ok()) return ErrorFromStatus(token.status());
  return WaitFor(*token);
}

// ---- the simple query protocol

void Session::Impl::SimpleQuery(const std::string& text) {
  std::vector<Statement> statements;
  Status s = SplitStatements(text, &statements);
  if (!s.ok()) {
    SendError(ErrorFromStatus(s, text, text, 0));
    if (txn == 'T') txn = 'E';
    return;
  }
  if (statements.empty()) {
    out.Begin('I');  // EmptyQueryResponse
    out.End();
    return;
  }
  for (const Statement& st : statements) {
    std::optional<PgError> e =
        Execute(st, st.text, nullptr, {}, 0, /*describe=*/true, st.offset, text);
    if (e) {
      SendError(*e);
      if (txn == 'T') txn = 'E';
      return;
    }
    if (!FlushIfLarge()) return;
  }
}

std::optional<PgError> Session::Impl::Execute(const Statement& st, const std::string& text,
                                              Portal* portal, const std::vector<int16_t>& formats,
                                              int64_t max_rows, bool describe, size_t offset,
                                              std::string_view query) {
  const sql::CastSettingsScope cast_settings(CastSettings());
  if (txn == 'E' && st.kind != StatementKind::kCommit && st.kind != StatementKind::kRollback) {
    return Error("25P02",
                 "current transaction is aborted, commands ignored until end of transaction block");
  }
  switch (st.kind) {
    case StatementKind::kEmpty:
      out.Begin('I');
      out.End();
      return std::nullopt;
    case StatementKind::kSelect:
      return RunSelect(text, portal, formats, max_rows, describe, offset, query);
    case StatementKind::kShow:
      return RunShow(st, describe);
    case StatementKind::kSet:
      return RunSet(st);
    case StatementKind::kBegin:
    case StatementKind::kCommit:
    case StatementKind::kRollback:
      return RunTransaction(st);
    case StatementKind::kModify:
      return RunModify(st, text, portal, formats, max_rows, describe, offset, query);
    case StatementKind::kCopyFrom:
      return RunCopyFrom(st);
    case StatementKind::kCopyTo:
      return RunCopyTo(st);
    case StatementKind::kSubscribe:
      return RunSubscribe(st, formats, describe);
    case StatementKind::kIgnored:
      CommandComplete(st.tag);
      return std::nullopt;
    case StatementKind::kUnsupported:
      return Error("0A000", st.unsupported);
  }
  return std::nullopt;
}

std::optional<PgError> Session::Impl::RunSelect(const std::string& text, Portal* portal,
                                                const std::vector<int16_t>& formats,
                                                int64_t max_rows, bool describe, size_t offset,
                                                std::string_view query) {
  if (auto e = NeedScope(ApiScope::kRead, "SELECT")) return e;
  pipeline::QueryResult local;
  pipeline::QueryResult* result = &local;
  size_t* next = nullptr;
  size_t local_next = 0;
  if (portal != nullptr) {
    if (!portal->result) {
      auto r = api->Query(text, sequence_session);
      if (!r.ok()) return ErrorFromStatus(r.status(), query, text, offset);
      portal->result = std::move(r).value();
    }
    result = &*portal->result;
    next = &portal->next_row;
  } else {
    auto r = api->Query(text, sequence_session);
    if (!r.ok()) return ErrorFromStatus(r.status(), query, text, offset);
    local = std::move(r).value();
    next = &local_next;
  }
  return SendRows(*result, next, formats, max_rows, describe, portal,
                  "SELECT " + std::to_string(result->rows.size()));
}

std::optional<PgError> Session::Impl::SendRows(const pipeline::QueryResult& result, size_t* next,
                                               const std::vector<int16_t>& formats,
                                               int64_t max_rows, bool describe, Portal* portal,
                                               const std::string& tag) {
  if (describe) RowDescription(result.columns, formats);
  const size_t end = max_rows > 0
                         ? std::min(result.rows.size(), *next + static_cast<size_t>(max_rows))
                         : result.rows.size();
  for (; *next < end; ++*next) {
    if (auto e = DataRow(result.rows[*next], result.columns, formats)) return e;
    if (!FlushIfLarge()) return Error("08006", "the client went away");
  }
  if (*next < result.rows.size()) {
    out.Begin('s');  // PortalSuspended
    out.End();
    return std::nullopt;
  }
  if (portal != nullptr) portal->done = true;
  CommandComplete(tag);
  return std::nullopt;
}

std::optional<PgError> Session::Impl::RunShow(const Statement& st, bool describe) {
  std::vector<std::pair<std::string, std::string>> rows;
  auto value_of = [&](const std::string& name) -> std::optional<std::string> {
    if (auto it = settings.find(Lower(name)); it != settings.end()) return it->second;
    for (const auto& [n, v] : ReportedParameters()) {
      if (Lower(n) == Lower(name)) return v;
    }
    const std::string l = Lower(name);
    if (l == "transaction_isolation" || l == "default_transaction_isolation") return "serializable";
    if (l == "search_path") return "\"$user\", public";
    if (l == "max_identifier_length") return "63";
    if (l == "application_name") return "";
    if (l == "transaction_read_only" || l == "default_transaction_read_only") return "off";
    return std::nullopt;
  };
  if (Lower(st.name) == "all") {
    for (const auto& [n, v] : ReportedParameters()) rows.emplace_back(n, *value_of(n));
    for (const auto& [n, v] : settings) {
      bool reported = false;
      for (const auto& p : ReportedParameters()) reported = reported || Lower(p.first) == n;
      if (!reported) rows.emplace_back(n, v);
    }
  } else {
    auto v = value_of(st.name);
    if (!v) return Error("42704", "unrecognized configuration parameter \"" + st.name + "\"");
    rows.emplace_back(st.name, *v);
  }
  const bool all = Lower(st.name) == "all";
  std::vector<sql::Column> columns;
  if (all) columns.push_back({"name", SqlType::Varchar()});
  columns.push_back({all ? "setting" : Lower(st.name), SqlType::Varchar()});
  if (describe) RowDescription(columns, {});
  for (const auto& [n, v] : rows) {
    sql::Row row;
    if (all) row.push_back(Value::String(n));
    row.push_back(Value::String(v));
    if (auto e = DataRow(row, columns, {})) return e;
  }
  CommandComplete("SHOW");
  return std::nullopt;
}

std::optional<PgError> Session::Impl::RunSet(const Statement& st) {
  const std::string name = Lower(st.name);
  if (name == "client_encoding") {
    const std::string v = Lower(st.value);
    if (v != "utf8" && v != "unicode" && v != "utf-8") {
      return Error("22023", "client_encoding \"" + st.value +
                                "\" is not supported: Sluice speaks UTF8 only");
    }
  } else if (name == "datestyle") {
    // The output is always ISO; the input order (MDY, DMY, YMD) decides how
    // dates in text read, in this session's queries and statements.
    sql::DateOrder order = sql::DateOrder::kMDY;
    if (!st.reset) {
      if (!sql::DateOrderFromStyle(st.value, DateOrder(), &order)) {
        return Error("22023", "invalid value for parameter \"DateStyle\": \"" + st.value + "\"");
      }
      const std::string v = Lower(st.value);
      if (v.find("sql") != std::string::npos || v.find("postgres") != std::string::npos ||
          v.find("german") != std::string::npos) {
        return Error("0A000",
                     "DateStyle \"" + st.value + "\" is not supported: dates are written as ISO");
      }
    }
    const std::string shown = std::string("ISO, ") + sql::DateOrderName(order);
    ParameterStatus("DateStyle", shown);
    if (st.reset) {
      settings.erase(name);
    } else {
      settings[name] = shown;
    }
    CommandComplete(st.reset ? "RESET" : "SET");
    return std::nullopt;
  } else if (name == "intervalstyle" || name == "bytea_output") {
    const std::string v = Lower(st.value);
    const bool interval = name == "intervalstyle";
    if (!st.reset && (interval ? v != "postgres" && v != "postgres_verbose" &&
                                     v != "sql_standard" && v != "iso_8601"
                               : v != "hex" && v != "escape")) {
      return Error("22023",
                   "invalid value for parameter \"" +
                       std::string(interval ? "IntervalStyle" : "bytea_output") + "\": \"" +
                       st.value + "\"",
                   interval ? "Available values: postgres, postgres_verbose, sql_standard, "
                              "iso_8601."
                            : "Available values: escape, hex.");
    }
    if (interval) ParameterStatus("IntervalStyle", st.reset ? "postgres" : v);
  } else if (name == "extra_float_digits" && !st.reset) {
    // PostgreSQL's range: -15 to 3 (1 or more: the shortest exact text).
    char* end = nullptr;
    const long v = std::strtol(st.value.c_str(), &end, 10);
    if (st.value.empty() || *end != '\0') {
      return Error("22023",
                   "invalid value for parameter \"extra_float_digits\": \"" + st.value + "\"");
    }
    if (v < -15 || v > 3) {
      return Error("22023", std::to_string(v) +
                                " is outside the valid range for parameter \"extra_float_digits\" "
                                "(-15 .. 3)");
    }
  } else if (name == "timezone") {
    const std::string v = Lower(st.value);
    if (v != "utc" && v != "gmt" && v != "etc/utc" && v != "z" && v != "0" && v != "+00" &&
        v != "'utc'" && v != "default") {
      return Error("0A000",
                   "TimeZone \"" + st.value + "\" is not supported yet: sessions run in UTC");
    }
  }
  if (st.reset) {
    settings.erase(name);
  } else if (!st.name.empty()) {
    settings[name] = st.value;
    if (name == "application_name") ParameterStatus("application_name", st.value);
  }
  CommandComplete(st.reset ? "RESET" : "SET");
  return std::nullopt;
}

std::optional<PgError> Session::Impl::RunTransaction(const Statement& st) {
  if (st.kind == StatementKind::kBegin) {
    if (txn != 'I') {
      SendNotice("there is already a transaction in progress");
    } else {
      txn = 'T';
      pending.clear();
    }
    CommandComplete("BEGIN");
    return std::nullopt;
  }
  if (txn == 'I') {
    SendNotice("there is no transaction in progress");
    CommandComplete(st.kind == StatementKind::kCommit ? "COMMIT" : "ROLLBACK");
    return std::nullopt;
  }
  const bool commit = st.kind == StatementKind::kCommit && txn == 'T';
  auto changes = std::move(pending);
  pending.clear();
  txn = 'I';
  if (!commit) {
    CommandComplete("ROLLBACK");
    return std::nullopt;
  }
  if (auto e = ApplyAll(std::move(changes))) return e;
  CommandComplete("COMMIT");
  return std::nullopt;
}

std::optional<PgError> Session::Impl::ApplyAll(
    std::vector<std::pair<std::string, format::ChangeBuffer>> changes) {
  if (txn == 'T') {
    for (auto& [table, buffer] : changes) {
      if (auto e = Apply(table, std::move(buffer))) return e;
    }
    return std::nullopt;
  }
  // One table: one request, taken by one step. Several: one pipeline
  // transaction, so that every view sees all of them at once.
  std::vector<uint64_t> tokens;
  bool opened = false;
  if (changes.size() > 1) {
    Status s = api->StartTransaction();
    // A transaction already open (another client's) takes these changes
    // too; they become visible at its commit.
    opened = s.ok();
  }
  for (auto& [table, buffer] : changes) {
    if (buffer.empty()) continue;
    const uint64_t bytes = buffer.bytes();
    auto token = api->Ingest(table, std::move(buffer), false, bytes);
    if (!token.ok()) {
      if (opened) (void)api->CommitTransaction();
      return ErrorFromStatus(token.status());
    }
    tokens.push_back(*token);
  }
  if (opened) {
    auto step = api->CommitTransaction();
    if (!step.ok()) return ErrorFromStatus(step.status());
  }
  for (uint64_t t : tokens) {
    if (auto e = WaitFor(t)) return e;
  }
  return std::nullopt;
}

sql::DmlEnv Session::Impl::ModifyEnv(bool describe) const {
  sql::DmlEnv env;
  env.query = [this, describe](const std::string& text) -> Result<sql::QueryRows> {
    sql::QueryRows out;
    if (describe) {
      SLUICE_ASSIGN_OR_RETURN(pipeline::AdhocQuery q,
                              pipeline::BindAdhoc(Relations(), text, api->ProgramText()));
      out.columns.assign(q.query.plan->columns.begin(),
                         q.query.plan->columns.begin() + static_cast<ptrdiff_t>(q.query.visible));
      return out;
    }
    SLUICE_ASSIGN_OR_RETURN(pipeline::QueryResult r, api->Query(text, sequence_session));
    out.columns = std::move(r.columns);
    out.rows = std::move(r.rows);
    return out;
  };
  // The program's composite types (ad hoc queries know them), read from
  // its text once per statement, and only by a statement that needs them.
  auto types = std::make_shared<std::optional<sql::Catalog>>();
  env.type_name = [this, types](const SqlType& row) {
    if (!types->has_value()) {
      types->emplace();
      if (!sql::AddProgramDefinitions(api->ProgramText(), &**types).ok()) types->emplace();
    }
    return (*types)->RowTypeName(row);
  };
  env.table = [this](const std::string& name) -> Result<sql::DmlTable> {
    std::optional<PgError> error;
    const pipeline::RelationInfo* info = Table(name, &error);
    if (info == nullptr) return Status::InvalidArgument(error->message);
    sql::DmlTable t;
    for (size_t i = 0; i < info->rel.columns.size(); ++i)
      t.columns.push_back({info->rel.columns[i], info->rel.schema[i]});
    t.append_only = info->rel.append_only;
    t.key = info->rel.key;
    t.defaults = info->rel.defaults;
    t.default_sequences = info->default_sequences;
    t.identity_always = info->identity_always;
    t.identity_by_default = info->identity_by_default;
    t.checks = info->checks;
    return t;
  };
  return env;
}

Result<std::vector<sql::Column>> Session::Impl::ModifyColumns(const std::string& text) const {
  SLUICE_ASSIGN_OR_RETURN(sql::DmlOutcome plan, sql::RunDml(text, ModifyEnv(/*describe=*/true)));
  return std::move(plan.returned.columns);
}

// A DELETE from a table that is not materialized names the keys of the rows
// it deletes: WHERE key = constant (or key IN (constants)).
std::optional<std::optional<PgError>> Session::Impl::DeleteByKey(const std::string& text,
                                                                 size_t offset,
                                                                 std::string_view query) {
  auto tree = sql::ParseSql(text);
  if (!tree.ok() || (*tree)["stmts"].size() != 1) return std::nullopt;
  const sql::Json& stmt = (*tree)["stmts"][0]["stmt"];
  const bool update = stmt.contains("UpdateStmt");
  if (!stmt.contains("DeleteStmt") && !update) return std::nullopt;
  const sql::Json& body = stmt.begin().value();
  const pipeline::RelationInfo* info = api->FindRelation(body["relation"].value("relname", ""));
  if (info == nullptr || !info->is_table || info->materialized) return std::nullopt;
  const format::Relation& rel = info->rel;
  if (update) {
    return Error(
        "0A000", "UPDATE needs table " + rel.name + " materialized, to read the rows it changes",
        "declare it WITH ('materialized' = 'true'), or INSERT whole rows into a table with a "
        "primary key (an insert replaces the row of its key)");
  }
  if (rel.key.empty()) {
    return Error("0A000", "DELETE needs table " + rel.name + " materialized or with a primary key",
                 "declare it WITH ('materialized' = 'true'), or give it a PRIMARY KEY");
  }
  static const std::pair<const char*, const char*> kReads[] = {
      {"returningList", "RETURNING"}, {"usingClause", "USING"}, {"withClause", "WITH"}};
  for (const auto& [clause, keyword] : kReads) {
    if (body.contains(clause)) {
      return Error("0A000",
                   "DELETE with " + std::string(keyword) + " needs table " + rel.name +
                       " materialized, to read its rows",
                   "declare it WITH ('materialized' = 'true')");
    }
  }
  if (rel.append_only) {
    return Error("0A000", "table " + rel.name + " is append_only: it takes no deletes");
  }
  auto keys = KeysOfWhere(text, rel);
  if (!keys.ok()) return ErrorFromStatus(keys.status(), query, text, offset);
  format::ChangeBuffer changes;
  std::string row, key;
  for (const std::vector<Value>& values : *keys) {
    if (auto e = EncodeChange(rel, values, /*insert=*/false, &row, &key)) return Error("22023", *e);
    changes.Add(format::ChangeKind::kDelete, key, "");
  }
  const size_t n = changes.size();
  if (auto e = Apply(rel.name, std::move(changes))) return e;
  CommandComplete("DELETE " + std::to_string(n));
  return std::optional<PgError>();
}

// INSERT, UPDATE and DELETE, with RETURNING, and SELECTs whose WITH queries
// change data: the SQL layer plans them as ad hoc queries over the tables
// (materialized ones, for the rows UPDATE and DELETE read), and their
// changes apply as one.
std::optional<PgError> Session::Impl::RunModify(const Statement& st, const std::string& text,
                                                Portal* portal, const std::vector<int16_t>& formats,
                                                int64_t max_rows, bool describe, size_t offset,
                                                std::string_view query) {
  if (auto e = NeedScope(ApiScope::kWrite, st.tag)) return e;
  pipeline::QueryResult local;
  std::string local_tag;
  if (portal == nullptr || !portal->result) {
    if (auto by_key = DeleteByKey(text, offset, query)) return *by_key;
    auto outcome = sql::RunDml(text, ModifyEnv(/*describe=*/false));
    if (!outcome.ok()) return ErrorFromStatus(outcome.status(), query, text, offset);
    std::vector<std::pair<std::string, format::ChangeBuffer>> changes;
    for (const sql::TableChange& c : outcome->changes) {
      const pipeline::RelationInfo* info = api->FindRelation(c.table);
      if (info == nullptr) return Error("42P01", "relation \"" + c.table + "\" does not exist");
      const format::Relation& rel = info->rel;
      format::ChangeBuffer deletes, inserts;
      std::string row, key;
      std::set<std::string> inserted_keys;
      for (const sql::Row& r : c.inserted) {
        if (auto e = EncodeChange(rel, r, /*insert=*/true, &row, &key)) return Error("23502", *e);
        inserts.Add(format::ChangeKind::kInsert, key, row);
        if (!rel.key.empty()) inserted_keys.insert(key);
      }
      for (const sql::Row& r : c.deleted) {
        if (auto e = EncodeChange(rel, r, /*insert=*/false, &row, &key)) return Error("XX000", *e);
        // A row that keeps its key is replaced by its insert.
        if (rel.key.empty()) {
          deletes.Add(format::ChangeKind::kDelete, "", row);
        } else if (!inserted_keys.count(key)) {
          deletes.Add(format::ChangeKind::kDelete, key, "");
        }
      }
      // Every delete before every insert: a row may take the key another
      // left.
      deletes.Append(inserts);
      auto it = std::find_if(changes.begin(), changes.end(),
                             [&](const auto& t) { return t.first == c.table; });
      if (it == changes.end()) {
        changes.emplace_back(c.table, std::move(deletes));
      } else {
        it->second.Append(deletes);
      }
    }
    if (auto e = ApplyAll(std::move(changes))) return e;
    local.columns = std::move(outcome->returned.columns);
    local.rows = std::move(outcome->returned.rows);
    local_tag = outcome->tag;
    if (portal != nullptr) {
      portal->result = std::move(local);
      portal->tag = std::move(local_tag);
    }
  }
  const pipeline::QueryResult& result = portal != nullptr ? *portal->result : local;
  const std::string& tag = portal != nullptr ? portal->tag : local_tag;
  if (!st.returns_rows) {
    if (portal != nullptr) portal->done = true;
    CommandComplete(tag);
    return std::nullopt;
  }
  size_t local_next = 0;
  size_t* next = portal != nullptr ? &portal->next_row : &local_next;
  return SendRows(result, next, formats, max_rows, describe, portal, tag);
}

std::optional<PgError> Session::Impl::RunCopyFrom(const Statement& st) {
  if (auto e = NeedScope(ApiScope::kWrite, "COPY FROM")) return e;
  std::optional<PgError> error;
  const pipeline::RelationInfo* info = Table(st.copy.table, &error);
  if (info == nullptr) return error;
  const format::Relation& rel = info->rel;
  CopyReader reader(st.copy, rel);
  if (Status s = reader.Init(); !s.ok()) return ErrorFromStatus(s);
  CopyResponse('G', rel.columns.size());  // CopyInResponse
  if (!Flush()) return Error("08006", "the client went away");
  std::optional<PgError> failure;
  for (;;) {
    char type;
    std::string body;
    if (!ReadMessage(&type, &body)) return Error("08006", "the client went away during COPY");
    if (type == 'd') {
      if (!failure) {
        Status s = reader.Feed(body);
        if (!s.ok()) failure = ErrorFromStatus(s);
      }
    } else if (type == 'c') {
      break;
    } else if (type == 'f') {
      std::string why;
      Reader(body).CString(&why);
      return Error("57014", "COPY from stdin failed: " + why);
    } else if (type == 'H' || type == 'S') {
      // Flush and Sync are allowed, and ignored, during COPY.
    } else {
      return Error("08P01", std::string("unexpected message type '") + type + "' during COPY");
    }
  }
  if (failure) return failure;
  auto changes = reader.Finish();
  if (!changes.ok()) return ErrorFromStatus(changes.status());
  // A row that fails a CHECK constraint fails the COPY, as in PostgreSQL.
  if (!info->checks.empty()) {
    for (size_t i = 0; i < changes->size(); ++i) {
      auto row = DecodeRow(rel.schema, changes->payload(i));
      Status s = row.ok() ? sql::CheckRow(rel.name, info->checks, rel.schema, *row) : row.status();
      if (!s.ok()) return ErrorFromStatus(s);
    }
  }
  const size_t n = changes->size();
  if (auto e = Apply(rel.name, std::move(changes).value())) return e;
  CommandComplete("COPY " + std::to_string(n));
  return std::nullopt;
}

std::optional<PgError> Session::Impl::RunCopyTo(const Statement& st) {
  if (auto e = NeedScope(ApiScope::kRead, "COPY TO")) return e;
  const std::string select =
      st.copy.query.empty() ? "SELECT * FROM " + QuoteIdentifier(st.copy.table) : st.copy.query;
  auto result = api->Query(select, sequence_session);
  if (!result.ok()) return ErrorFromStatus(result.status());
  CopyResponse('H', result->columns.size());  // CopyOutResponse
  std::string line;
  if (st.copy.header) {
    line.clear();
    for (size_t i = 0; i < result->columns.size(); ++i) {
      if (i > 0) line.push_back(st.copy.delimiter);
      CopyField f{result->columns[i].name, false};
      if (st.copy.csv) {
        AppendCsvField(f, st.copy.delimiter, &line);
      } else {
        AppendCopyText(f.text, st.copy.delimiter, &line);
      }
    }
    line.push_back('\n');
    out.Begin('d');
    out.Bytes(line);
    out.End();
  }
  for (const sql::Row& r : result->rows) {
    FormatCopyLine(st.copy, r, result->columns, Style(), &line);
    out.Begin('d');
    out.Bytes(line);
    out.End();
    if (!FlushIfLarge()) return Error("08006", "the client went away");
  }
  out.Begin('c');  // CopyDone
  out.End();
  CommandComplete("COPY " + std::to_string(result->rows.size()));
  return std::nullopt;
}

// SUBSCRIBE [TO] view: a view's snapshot (materialized ones), then every
// change, each row with the step that made it and its weight, until the
// client cancels. As a query (DataRows) or, in COPY (SUBSCRIBE ...) TO
// STDOUT, as COPY data.
std::optional<PgError> Session::Impl::RunSubscribe(const Statement& st,
                                                   const std::vector<int16_t>& formats,
                                                   bool describe) {
  if (auto e = NeedScope(ApiScope::kRead, "SUBSCRIBE")) return e;
  const pipeline::RelationInfo* info = api->FindRelation(st.name);
  if (info == nullptr) {
    return Error("42P01", "relation \"" + st.name + "\" does not exist" +
                              DidYouMean(st.name, api->RelationNames()));
  }
  std::vector<sql::Column> columns = {{"step", SqlType::BigInt(false)},
                                      {"weight", SqlType::BigInt(false)}};
  for (size_t i = 0; i < info->rel.columns.size(); ++i) {
    columns.push_back({info->rel.columns[i], info->rel.schema[i]});
  }
  if (txn == 'T') return Error("25001", "SUBSCRIBE cannot run inside a transaction block");
  auto sub = api->Subscribe(st.name, st.snapshot, /*follow=*/true, /*backpressure=*/false,
                            /*max_queued_records=*/1000000);
  if (!sub.ok()) return ErrorFromStatus(sub.status());
  self->cancel_.store(false);
  struct Unsubscribe {
    pipeline::PipelineApi* api;
    uint64_t id;
    ~Unsubscribe() { api->Unsubscribe(id); }
  } unsubscribe{api, sub->id};

  if (st.copy.to_stdout) {
    CopyResponse('H', columns.size());
  } else if (describe) {
    RowDescription(columns, formats);
  }
  if (!Flush()) return Error("08006", "the client went away");
  uint64_t rows = 0;
  sql::Row row(columns.size());
  std::string line;
  for (;;) {
    if (self->cancel_.exchange(false))
      return Error("57014", "canceling statement due to user request");
    if (ctx->stopping.load())
      return Error("57P01", "terminating connection: the pipeline is stopping");
    connector::OutputChunk chunk;
    const auto r = sub->queue->Pop(&chunk, std::chrono::milliseconds(100));
    if (r == connector::OutputQueue::PopResult::kClosed) {
      Status e = sub->queue->error();
      if (!e.ok()) return Error(e.code() == StatusCode::kOverflow ? "53000" : "57P01", e.message());
      break;
    }
    if (r == connector::OutputQueue::PopResult::kTimeout) {
      // A client that went away ends the subscription.
      pollfd p{fd, POLLIN, 0};
      if (Buffered() || ::poll(&p, 1, 0) > 0) {
        char c;
        if (!Buffered() && ((p.revents & (POLLHUP | POLLERR)) ||
                            ::recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0)) {
          return Error("08006", "the client went away");
        }
        char type;
        std::string body;
        if (!ReadMessage(&type, &body) || type == 'X')
          return Error("08006", "the client went away");
      }
      continue;
    }
    auto cursor = NewCursorOver(chunk.batches);
    for (; cursor->KeyValid(); cursor->StepKey()) {
      const int64_t w = cursor->weight();
      if (w == 0) continue;
      auto values = DecodeRow(info->rel.schema, cursor->key());
      if (!values.ok()) return ErrorFromStatus(values.status());
      row[0] = Value::Int(static_cast<int64_t>(chunk.step));
      row[1] = Value::Int(w);
      for (size_t i = 0; i < values->size(); ++i) row[i + 2] = (*values)[i];
      if (st.copy.to_stdout) {
        FormatCopyLine(st.copy, row, columns, Style(), &line);
        out.Begin('d');
        out.Bytes(line);
        out.End();
      } else if (auto e = DataRow(row, columns, formats)) {
        return e;
      }
      ++rows;
      if (!FlushIfLarge()) return Error("08006", "the client went away");
    }
    sub->queue->Done();
    if (!Flush()) return Error("08006", "the client went away");
  }
  if (st.copy.to_stdout) {
    out.Begin('c');
    out.End();
    CommandComplete("COPY " + std::to_string(rows));
  } else {
    CommandComplete("SELECT " + std::to_string(rows));
  }
  return std::nullopt;
}

// ---- the extended query protocol

void Session::Impl::ExtendedMessage(char type, std::string_view body) {
  const sql::CastSettingsScope cast_settings(CastSettings());
  if (type == 'S') {  // Sync
    skip_until_sync = false;
    // A statement outside a block ends its implicit transaction here.
    portals.clear();
    ReadyForQuery();
    return;
  }
  if (type == 'H') {  // Flush
    Flush();
    return;
  }
  if (skip_until_sync) return;
  auto fail = [&](const PgError& e) {
    SendError(e);
    skip_until_sync = true;
    if (txn == 'T') txn = 'E';
  };
  Reader r(body);
  switch (type) {
    case 'P': {  // Parse
      std::string name, text;
      int16_t n = 0;
      if (!r.CString(&name) || !r.CString(&text) || !r.Int16(&n) || n < 0) {
        return fail(Error("08P01", "malformed Parse message"));
      }
      auto p = std::make_shared<Prepared>();
      for (int16_t i = 0; i < n; ++i) {
        int32_t oid = 0;
        if (!r.Int32(&oid)) return fail(Error("08P01", "malformed Parse message"));
        p->param_oids.push_back(static_cast<uint32_t>(oid));
      }
      std::vector<Statement> statements;
      Status s = SplitStatements(text, &statements);
      if (!s.ok()) return fail(ErrorFromStatus(s, text, text, 0));
      if (statements.size() > 1) {
        return fail(Error("42601", "cannot insert multiple commands into a prepared statement"));
      }
      p->statement = statements.empty() ? Statement{} : statements[0];
      if (p->param_oids.size() < static_cast<size_t>(p->statement.params)) {
        p->param_oids.resize(static_cast<size_t>(p->statement.params), 0);
      }
      if (!name.empty() && prepared.count(name)) {
        return fail(Error("42P05", "prepared statement \"" + name + "\" already exists"));
      }
      prepared[name] = std::move(p);
      out.Begin('1');  // ParseComplete
      out.End();
      return;
    }
    case 'B': {  // Bind
      std::string portal_name, statement_name;
      if (!r.CString(&portal_name) || !r.CString(&statement_name)) {
        return fail(Error("08P01", "malformed Bind message"));
      }
      auto it = prepared.find(statement_name);
      if (it == prepared.end()) {
        return fail(Error("26000", "prepared statement \"" + statement_name + "\" does not exist"));
      }
      const Prepared& p = *it->second;
      int16_t nformats = 0;
      if (!r.Int16(&nformats) || nformats < 0)
        return fail(Error("08P01", "malformed Bind message"));
      std::vector<int16_t> param_formats(static_cast<size_t>(nformats));
      for (auto& f : param_formats) {
        if (!r.Int16(&f)) return fail(Error("08P01", "malformed Bind message"));
      }
      int16_t nparams = 0;
      if (!r.Int16(&nparams) || nparams < 0) return fail(Error("08P01", "malformed Bind message"));
      if (static_cast<size_t>(nparams) != p.param_oids.size()) {
        return fail(Error("08P01", "bind message supplies " + std::to_string(nparams) +
                                       " parameters, but prepared statement \"" + statement_name +
                                       "\" requires " + std::to_string(p.param_oids.size())));
      }
      std::vector<std::optional<std::string>> params;
      for (int16_t i = 0; i < nparams; ++i) {
        int32_t len = 0;
        if (!r.Int32(&len)) return fail(Error("08P01", "malformed Bind message"));
        if (len < 0) {
          params.emplace_back();
          continue;
        }
        std::string_view bytes;
        if (!r.Bytes(static_cast<size_t>(len), &bytes))
          return fail(Error("08P01", "malformed Bind message"));
        const int16_t format = param_formats.empty()       ? 0
                               : param_formats.size() == 1 ? param_formats[0]
                                                           : param_formats[static_cast<size_t>(i)];
        if (format == 1) {
          auto text = BinaryParamToText(p.param_oids[static_cast<size_t>(i)], bytes);
          if (!text.ok()) {
            return fail(Error(
                "22P03", "parameter $" + std::to_string(i + 1) + ": " + text.status().message()));
          }
          params.emplace_back(std::move(text).value());
        } else {
          params.emplace_back(std::string(bytes));
        }
      }
      int16_t nresult = 0;
      if (!r.Int16(&nresult) || nresult < 0) return fail(Error("08P01", "malformed Bind message"));
      Portal portal;
      portal.prepared = it->second;
      for (int16_t i = 0; i < nresult; ++i) {
        int16_t f = 0;
        if (!r.Int16(&f)) return fail(Error("08P01", "malformed Bind message"));
        portal.formats.push_back(f);
      }
      auto text = SubstituteParams(p.statement, params, p.param_oids);
      if (!text.ok()) return fail(ErrorFromStatus(text.status()));
      portal.text = std::move(text).value();
      portals[portal_name] = std::move(portal);
      out.Begin('2');  // BindComplete
      out.End();
      return;
    }
    case 'D': {  // Describe
      char what = 0;
      std::string name;
      std::string_view w;
      if (!r.Bytes(1, &w) || !r.CString(&name))
        return fail(Error("08P01", "malformed Describe message"));
      what = w[0];
      if (what == 'S') {
        auto it = prepared.find(name);
        if (it == prepared.end()) {
          return fail(Error("26000", "prepared statement \"" + name + "\" does not exist"));
        }
        const Prepared& p = *it->second;
        out.Begin('t');  // ParameterDescription
        out.Int16(static_cast<int16_t>(p.param_oids.size()));
        for (uint32_t oid : p.param_oids) out.Int32(static_cast<int32_t>(oid == 0 ? 25 : oid));
        out.End();
        auto columns = DescribeColumns(p.statement, p.param_oids);
        if (!columns.ok())
          return fail(ErrorFromStatus(columns.status(), p.statement.text, p.statement.text, 0));
        if (columns->empty() && !ReturnsRows(p.statement)) {
          out.Begin('n');  // NoData
          out.End();
        } else {
          RowDescription(*columns, {});
        }
        return;
      }
      auto it = portals.find(name);
      if (it == portals.end())
        return fail(Error("34000", "portal \"" + name + "\" does not exist"));
      Portal& portal = it->second;
      const Statement& st = portal.prepared->statement;
      if (st.kind == StatementKind::kSelect) {
        if (auto e = NeedScope(ApiScope::kRead, "SELECT")) return fail(*e);
        if (!portal.result) {
          auto q = api->Query(portal.text, sequence_session);
          if (!q.ok()) return fail(ErrorFromStatus(q.status(), portal.text, portal.text, 0));
          portal.result = std::move(q).value();
        }
        RowDescription(portal.result->columns, portal.formats);
        return;
      }
      if (st.kind == StatementKind::kModify && st.returns_rows) {
        // Planned over no rows, with the portal's parameters: the columns,
        // and no change (Execute makes them).
        auto columns = ModifyColumns(portal.text);
        if (!columns.ok())
          return fail(ErrorFromStatus(columns.status(), portal.text, portal.text, 0));
        RowDescription(*columns, portal.formats);
        return;
      }
      auto columns = DescribeColumns(st, portal.prepared->param_oids);
      if (!columns.ok()) return fail(ErrorFromStatus(columns.status()));
      if (columns->empty() && !ReturnsRows(st)) {
        out.Begin('n');
        out.End();
      } else {
        RowDescription(*columns, portal.formats);
      }
      return;
    }
    case 'E': {  // Execute
      std::string name;
      int32_t max_rows = 0;
      if (!r.CString(&name) || !r.Int32(&max_rows))
        return fail(Error("08P01", "malformed Execute message"));
      auto it = portals.find(name);
      if (it == portals.end())
        return fail(Error("34000", "portal \"" + name + "\" does not exist"));
      Portal& portal = it->second;
      if (portal.done) {
        CommandComplete("SELECT 0");
        return;
      }
      const Statement& st = portal.prepared->statement;
      std::optional<PgError> e = Execute(st, portal.text, &portal, portal.formats, max_rows,
                                         /*describe=*/false, 0, portal.text);
      if (e) return fail(*e);
      if (st.kind != StatementKind::kSelect && st.kind != StatementKind::kModify)
        portal.done = true;
      return;
    }
    case 'C': {  // Close
      std::string_view w;
      std::string name;
      if (!r.Bytes(1, &w) || !r.CString(&name))
        return fail(Error("08P01", "malformed Close message"));
      if (w[0] == 'S') {
        prepared.erase(name);
      } else {
        portals.erase(name);
      }
      out.Begin('3');  // CloseComplete
      out.End();
      return;
    }
    default:
      return fail(Error("08P01", std::string("unexpected message type '") + type + "'"));
  }
}

}  // namespace sluice::pgwire
