#include "sql/sequences.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <nlohmann/json.hpp>

namespace sluice::sql {
namespace {

// PostgreSQL logs this many values ahead of the ones it hands out.
constexpr int64_t kLogAhead = 32;

const char* TypeWord(const SqlType& t) {
  return t.id() == TypeId::kSmallInt  ? "smallint"
         : t.id() == TypeId::kInteger ? "integer"
                                      : "bigint";
}

int64_t TypeMax(const SqlType& t) {
  return t.id() == TypeId::kSmallInt  ? 32767
         : t.id() == TypeId::kInteger ? 2147483647
                                      : std::numeric_limits<int64_t>::max();
}

int64_t TypeMin(const SqlType& t) {
  return t.id() == TypeId::kSmallInt  ? -32768
         : t.id() == TypeId::kInteger ? -2147483648LL
                                      : std::numeric_limits<int64_t>::min();
}

std::string Num(int64_t v) { return std::to_string(v); }

// An option's whole number. libpg_query's JSON leaves out zero and
// negative integers (and keeps a large one as text), so the number is read
// from the statement's text after the option's keywords when the tree has
// none.
Result<int64_t> OptionNumber(std::string_view sql, const Json& def) {
  const Json& arg = def["arg"];
  std::string text;
  if (arg.contains("Integer") && arg["Integer"].contains("ival")) {
    return arg["Integer"]["ival"].get<int64_t>();
  }
  if (arg.contains("Float")) {
    text = arg["Float"].value("fval", "");
  } else {
    const int at = def.value("location", -1);
    if (at < 0 || static_cast<size_t>(at) >= sql.size()) return int64_t{0};
    size_t i = static_cast<size_t>(at);
    while (i < sql.size() && (std::isalpha(static_cast<unsigned char>(sql[i])) ||
                              std::isspace(static_cast<unsigned char>(sql[i]))))
      ++i;
    size_t e = i;
    if (e < sql.size() && (sql[e] == '-' || sql[e] == '+')) ++e;
    while (e < sql.size() && std::isdigit(static_cast<unsigned char>(sql[e]))) ++e;
    text = std::string(sql.substr(i, e - i));
  }
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE) {
    return SqlError(sql, def, "value \"" + text + "\" is out of range for type bigint");
  }
  return static_cast<int64_t>(v);
}

// A name as regclass reads it: "Seq" keeps its case, Seq and public.seq are
// seq.
std::string RegclassName(std::string s) {
  std::string lower = s;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.rfind("public.", 0) == 0) {
    s = s.substr(7);
    lower = lower.substr(7);
  }
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') return s.substr(1, s.size() - 2);
  return lower;
}

}  // namespace

Status ReadSequenceOptions(std::string_view sql, const Json& options, bool create, SequenceDef* def,
                           std::optional<int64_t>* restart, std::optional<int64_t> last_value) {
  std::map<std::string, const Json*> given;
  for (const Json& o : options) {
    if (!o.contains("DefElem")) continue;
    const Json& d = o["DefElem"];
    const std::string name = d.value("defname", "");
    if (!given.emplace(name, &d).second) {
      return SqlError(sql, d, "conflicting or redundant options");
    }
  }
  auto has = [&](const char* n) { return given.count(n) > 0; };
  auto arg = [&](const char* n) { return has(n) && given.at(n)->contains("arg"); };
  const SqlType old_type = def->type;
  if (has("as")) {
    const Json& names = (*given.at("as"))["arg"]["TypeName"]["names"];
    const std::string t = names.empty() ? "" : names.back()["String"].value("sval", "");
    if (t == "int2" || t == "smallint") {
      def->type = SqlType::SmallInt(false);
    } else if (t == "int4" || t == "integer" || t == "int") {
      def->type = SqlType::Integer(false);
    } else if (t == "int8" || t == "bigint") {
      def->type = SqlType::BigInt(false);
    } else {
      return SqlError(sql, *given.at("as"), "sequence type must be smallint, integer, or bigint");
    }
  }
  if (has("increment")) {
    SLUICE_ASSIGN_OR_RETURN(def->increment, OptionNumber(sql, *given.at("increment")));
    if (def->increment == 0) {
      return SqlError(sql, *given.at("increment"), "INCREMENT must not be zero");
    }
  }
  const bool type_changed = !create && def->type.id() != old_type.id();
  if (arg("maxvalue")) {
    SLUICE_ASSIGN_OR_RETURN(def->max_value, OptionNumber(sql, *given.at("maxvalue")));
  } else if (create || has("maxvalue") || (type_changed && def->max_value == TypeMax(old_type))) {
    def->max_value = def->increment > 0 ? TypeMax(def->type) : -1;
  }
  if (arg("minvalue")) {
    SLUICE_ASSIGN_OR_RETURN(def->min_value, OptionNumber(sql, *given.at("minvalue")));
  } else if (create || has("minvalue") || (type_changed && def->min_value == TypeMin(old_type))) {
    def->min_value = def->increment > 0 ? 1 : TypeMin(def->type);
  }
  const Json& at = options.empty() ? options : options[0];
  if (def->max_value < TypeMin(def->type) || def->max_value > TypeMax(def->type)) {
    return SqlError(sql, has("maxvalue") ? *given.at("maxvalue") : at,
                    "MAXVALUE (" + Num(def->max_value) +
                        ") is out of range for sequence data type " + TypeWord(def->type));
  }
  if (def->min_value < TypeMin(def->type) || def->min_value > TypeMax(def->type)) {
    return SqlError(sql, has("minvalue") ? *given.at("minvalue") : at,
                    "MINVALUE (" + Num(def->min_value) +
                        ") is out of range for sequence data type " + TypeWord(def->type));
  }
  if (def->min_value >= def->max_value) {
    return SqlError(sql, at,
                    "MINVALUE (" + Num(def->min_value) + ") must be less than MAXVALUE (" +
                        Num(def->max_value) + ")");
  }
  if (arg("start")) {
    SLUICE_ASSIGN_OR_RETURN(def->start, OptionNumber(sql, *given.at("start")));
  } else if (create) {
    def->start = def->increment > 0 ? def->min_value : def->max_value;
  }
  if (def->start < def->min_value) {
    return SqlError(sql, has("start") ? *given.at("start") : at,
                    "START value (" + Num(def->start) + ") cannot be less than MINVALUE (" +
                        Num(def->min_value) + ")");
  }
  if (def->start > def->max_value) {
    return SqlError(sql, has("start") ? *given.at("start") : at,
                    "START value (" + Num(def->start) + ") cannot be greater than MAXVALUE (" +
                        Num(def->max_value) + ")");
  }
  // RESTART, or else the current value under new bounds.
  std::optional<int64_t> check = last_value;
  if (has("restart")) {
    if (create) return SqlError(sql, *given.at("restart"), "RESTART is not allowed here");
    int64_t r = def->start;
    if (arg("restart")) {
      SLUICE_ASSIGN_OR_RETURN(r, OptionNumber(sql, *given.at("restart")));
    }
    if (restart != nullptr) *restart = r;
    check = r;
  }
  if (check && *check < def->min_value) {
    return SqlError(sql, has("restart") ? *given.at("restart") : at,
                    "RESTART value (" + Num(*check) + ") cannot be less than MINVALUE (" +
                        Num(def->min_value) + ")");
  }
  if (check && *check > def->max_value) {
    return SqlError(sql, has("restart") ? *given.at("restart") : at,
                    "RESTART value (" + Num(*check) + ") cannot be greater than MAXVALUE (" +
                        Num(def->max_value) + ")");
  }
  if (has("cache")) {
    SLUICE_ASSIGN_OR_RETURN(def->cache, OptionNumber(sql, *given.at("cache")));
    if (def->cache <= 0) {
      return SqlError(sql, *given.at("cache"),
                      "CACHE (" + Num(def->cache) + ") must be greater than zero");
    }
  }
  if (has("cycle")) {
    const Json& b = (*given.at("cycle"))["arg"];
    def->cycle = b.contains("Boolean") && b["Boolean"].value("boolval", false);
  }
  if (has("owned_by")) {
    const Json& items = (*given.at("owned_by"))["arg"]["List"]["items"];
    std::vector<std::string> names;
    for (const Json& i : items) names.push_back(i["String"].value("sval", ""));
    if (names.size() == 1 && names[0] == "none") {
      def->owned_by_table.clear();
      def->owned_by_column.clear();
    } else if (names.size() < 2) {
      return SqlError(sql, *given.at("owned_by"), "invalid OWNED BY option");
    } else {
      def->owned_by_table = names[names.size() - 2];
      def->owned_by_column = names.back();
    }
  }
  if (has("sequence_name")) {
    const Json& items = (*given.at("sequence_name"))["arg"]["List"]["items"];
    if (!items.empty()) def->name = items.back()["String"].value("sval", "");
  }
  return Status::OK();
}

Result<SequenceDef> BindCreateSequence(std::string_view sql, const Json& body) {
  SequenceDef def;
  def.name = body["sequence"].value("relname", "");
  SLUICE_RETURN_IF_ERROR(
      ReadSequenceOptions(sql, body.value("options", Json::array()), /*create=*/true, &def));
  return def;
}

SequenceDef ColumnSequence(const std::string& table, const std::string& column,
                           const SqlType& type) {
  SequenceDef def;
  def.name = table + "_" + column + "_seq";
  def.type = type.WithNullable(false);
  def.max_value = TypeMax(def.type);
  def.owned_by_table = table;
  def.owned_by_column = column;
  return def;
}

bool IsSequenceFunction(const std::string& name) {
  return name == "nextval" || name == "currval" || name == "setval" || name == "lastval";
}

bool CallsSequenceFunction(const Json& tree) {
  if (tree.is_object()) {
    if (tree.contains("FuncCall")) {
      const Json& names = tree["FuncCall"].value("funcname", Json::array());
      if (!names.empty() && IsSequenceFunction(names.back()["String"].value("sval", "")))
        return true;
    }
    for (const auto& x : tree) {
      if (CallsSequenceFunction(x)) return true;
    }
  } else if (tree.is_array()) {
    for (const auto& x : tree) {
      if (CallsSequenceFunction(x)) return true;
    }
  }
  return false;
}

std::string DefaultSequence(const Json& expr) {
  if (!expr.contains("FuncCall")) return "";
  const Json& f = expr["FuncCall"];
  const Json& names = f.value("funcname", Json::array());
  const Json& args = f.value("args", Json::array());
  if (names.empty() || names.back()["String"].value("sval", "") != "nextval" || args.size() != 1)
    return "";
  const Json* a = &args[0];
  if (a->contains("TypeCast")) a = &(*a)["TypeCast"]["arg"];
  if (!a->contains("A_Const") || !(*a)["A_Const"].contains("sval")) return "";
  return RegclassName((*a)["A_Const"]["sval"].value("sval", ""));
}

// ---------------------------------------------------------------- Sequences

void Sequences::set_log(Log log) {
  std::lock_guard<std::mutex> l(mu_);
  log_ = std::move(log);
}

Status Sequences::Create(const SequenceDef& def) {
  std::lock_guard<std::mutex> l(mu_);
  if (entries_.count(def.name)) {
    return Status::InvalidArgument("relation \"" + def.name + "\" already exists");
  }
  Entry& e = entries_[def.name];
  e.def = def;
  e.last_value = def.start;
  return Status::OK();
}

Status Sequences::Alter(const SequenceDef& def, std::optional<int64_t> restart) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = entries_.find(def.name);
  if (it == entries_.end()) {
    return Status::NotFound("relation \"" + def.name + "\" does not exist");
  }
  it->second.def = def;
  if (!restart) return Status::OK();
  const Entry was = it->second;
  it->second.last_value = *restart;
  it->second.is_called = false;
  it->second.reserved = false;
  Status s = WriteLog();
  if (!s.ok()) it->second = was;
  return s;
}

Status Sequences::Drop(const std::string& name) {
  std::lock_guard<std::mutex> l(mu_);
  if (entries_.erase(name) == 0) {
    return Status::NotFound("sequence \"" + name + "\" does not exist");
  }
  return Status::OK();
}

void Sequences::Define(const std::map<std::string, SequenceDef>& defs) {
  std::lock_guard<std::mutex> l(mu_);
  std::erase_if(entries_, [&](const auto& kv) { return defs.count(kv.first) == 0; });
  for (const auto& [name, def] : defs) {
    auto it = entries_.find(name);
    if (it == entries_.end()) {
      Entry& e = entries_[name];
      e.def = def;
      e.last_value = def.start;
    } else {
      it->second.def = def;
    }
  }
}

std::optional<int64_t> Sequences::LastValue(const std::string& name) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = entries_.find(name);
  if (it == entries_.end()) return std::nullopt;
  return it->second.last_value;
}

Result<int64_t> Sequences::NextVal(const std::string& name) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = entries_.find(name);
  if (it == entries_.end()) {
    return Status::NotFound("relation \"" + name + "\" does not exist");
  }
  Entry& e = it->second;
  const SequenceDef& d = e.def;
  int64_t v = e.last_value;
  bool wrapped = false;
  if (e.is_called) {
    const bool over = __builtin_add_overflow(e.last_value, d.increment, &v);
    if (d.increment > 0 && (over || v > d.max_value)) {
      if (!d.cycle) {
        return Status::InvalidArgument("nextval: reached maximum value of sequence \"" + name +
                                       "\" (" + Num(d.max_value) + ")");
      }
      v = d.min_value;
      wrapped = true;
    } else if (d.increment < 0 && (over || v < d.min_value)) {
      if (!d.cycle) {
        return Status::InvalidArgument("nextval: reached minimum value of sequence \"" + name +
                                       "\" (" + Num(d.min_value) + ")");
      }
      v = d.max_value;
      wrapped = true;
    }
  }
  const bool covered = e.reserved && !wrapped && (d.increment > 0 ? v <= e.logged : v >= e.logged);
  if (!covered) {
    // Log ahead first: a restart then starts past every value handed out.
    const Entry was = e;
    int64_t ahead = 0;
    if (__builtin_mul_overflow(d.increment, kLogAhead - 1, &ahead) ||
        __builtin_add_overflow(v, ahead, &ahead)) {
      ahead = d.increment > 0 ? d.max_value : d.min_value;
    }
    e.logged = std::clamp(ahead, d.min_value, d.max_value);
    e.reserved = true;
    Status s = WriteLog();
    if (!s.ok()) {
      e = was;
      return s;
    }
  }
  e.last_value = v;
  e.is_called = true;
  return v;
}

Result<int64_t> Sequences::SetVal(const std::string& name, int64_t value, bool is_called) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = entries_.find(name);
  if (it == entries_.end()) {
    return Status::NotFound("relation \"" + name + "\" does not exist");
  }
  Entry& e = it->second;
  if (value < e.def.min_value || value > e.def.max_value) {
    return Status::InvalidArgument("setval: value " + Num(value) +
                                   " is out of bounds for sequence \"" + name + "\" (" +
                                   Num(e.def.min_value) + ".." + Num(e.def.max_value) + ")");
  }
  const Entry was = e;
  e.last_value = value;
  e.is_called = is_called;
  e.reserved = false;
  Status s = WriteLog();
  if (!s.ok()) {
    e = was;
    return s;
  }
  return value;
}

std::string Sequences::StateJson() const {
  std::lock_guard<std::mutex> l(mu_);
  Json j = {{"version", version_}, {"sequences", Json::object()}};
  for (const auto& [name, e] : entries_) {
    j["sequences"][name] = {{"last_value", e.last_value}, {"is_called", e.is_called}};
  }
  return j.dump();
}

// What the log is to hold: each sequence where a restart may take it up.
std::string Sequences::LoggedJson() const {
  Json j = {{"version", version_}, {"sequences", Json::object()}};
  for (const auto& [name, e] : entries_) {
    j["sequences"][name] = {{"last_value", e.reserved ? e.logged : e.last_value},
                            {"is_called", e.reserved || e.is_called}};
  }
  return j.dump();
}

Status Sequences::WriteLog() {
  ++version_;
  if (!log_) return Status::OK();
  return log_(LoggedJson());
}

Status Sequences::Restore(const std::string& state) {
  Json j = Json::parse(state, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || !j.contains("sequences")) {
    return Status::Corruption("the saved state of the sequences does not parse");
  }
  std::lock_guard<std::mutex> l(mu_);
  version_ = std::max(version_, j.value("version", uint64_t{0}));
  for (const auto& [name, s] : j["sequences"].items()) {
    auto it = entries_.find(name);
    if (it == entries_.end()) continue;
    it->second.last_value = s.value("last_value", it->second.last_value);
    it->second.is_called = s.value("is_called", false);
    it->second.reserved = false;
  }
  return Status::OK();
}

uint64_t Sequences::VersionOf(const std::string& state) {
  Json j = Json::parse(state, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return 0;
  return j.value("version", uint64_t{0});
}

Status Sequences::Flush() {
  std::lock_guard<std::mutex> l(mu_);
  if (entries_.empty()) return Status::OK();  // a program without sequences writes nothing
  for (auto& [name, e] : entries_) e.reserved = false;
  return WriteLog();
}

// ---------------------------------------------------------- SequenceSession

void SequenceSession::Saw(const std::string& name, int64_t value) {
  std::lock_guard<std::mutex> l(mu_);
  current_[name] = value;
  last_ = name;
}

Result<int64_t> SequenceSession::CurrVal(const std::string& name) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = current_.find(name);
  if (it == current_.end()) {
    return Status::InvalidArgument("currval of sequence \"" + name +
                                   "\" is not yet defined in this session");
  }
  return it->second;
}

Result<int64_t> SequenceSession::LastVal() const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = current_.find(last_);
  if (last_.empty() || it == current_.end()) {
    return Status::InvalidArgument("lastval is not yet defined in this session");
  }
  return it->second;
}

// ---------------------------------------------------------------- calls

namespace {

class SequenceCall : public VolatileFn {
 public:
  SequenceCall(std::string function, std::shared_ptr<const SequenceAccess> access)
      : function_(std::move(function)), access_(std::move(access)) {}

  Status Call(const Value* args, size_t n, Value* out) const override {
    Sequences& seqs = *access_->sequences;
    SequenceSession& session = *access_->session;
    if (function_ == "lastval") {
      SLUICE_ASSIGN_OR_RETURN(int64_t v, session.LastVal());
      *out = Value::Int(v);
      return Status::OK();
    }
    for (size_t i = 0; i < n; ++i) {
      if (args[i].is_null()) {  // strict, as PostgreSQL's
        *out = Value::Null();
        return Status::OK();
      }
    }
    const std::string name = RegclassName(args[0].string_value());
    if (!seqs.LastValue(name)) {
      return Status::InvalidArgument("relation \"" + args[0].string_value() + "\" does not exist");
    }
    int64_t v = 0;
    if (function_ == "nextval") {
      SLUICE_ASSIGN_OR_RETURN(v, seqs.NextVal(name));
      session.Saw(name, v);
    } else if (function_ == "currval") {
      SLUICE_ASSIGN_OR_RETURN(v, session.CurrVal(name));
    } else {
      const bool is_called = n < 3 || args[2].bool_value();
      SLUICE_ASSIGN_OR_RETURN(v, seqs.SetVal(name, args[1].int_value(), is_called));
      if (is_called) session.Saw(name, v);
    }
    *out = Value::Int(v);
    return Status::OK();
  }

 private:
  std::string function_;
  std::shared_ptr<const SequenceAccess> access_;
};

}  // namespace

ExprPtr MakeSequenceCall(const std::string& function, std::vector<ExprPtr> args,
                         std::shared_ptr<const SequenceAccess> access) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kVolatile;
  e->type = SqlType::BigInt(true);
  e->fn_name = function == "nextval"   ? "nextval"
               : function == "currval" ? "currval"
               : function == "setval"  ? "setval"
                                       : "lastval";
  e->args = std::move(args);
  e->volatile_fn = std::make_shared<SequenceCall>(function, std::move(access));
  return e;
}

}  // namespace sluice::sql
