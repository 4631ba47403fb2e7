#include "sql/dml.h"

#include <strings.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>

#include "base/suggest.h"
#include "sql/expr.h"
#include "sql/functions.h"
#include "sql/sequences.h"
#include "sql/sql_text.h"

namespace sluice::sql {
namespace {

constexpr size_t npos = std::string::npos;

// A query built from pieces of the user's statement and pieces of our own,
// which knows where each of the user's pieces came from: an error in it
// points into what the user wrote.
class Built {
 public:
  explicit Built(std::string_view sql) : sql_(sql) {}

  Built& Add(std::string_view text) {
    text_.append(text);
    return *this;
  }
  // sql[from, from + len).
  Built& Original(size_t from, size_t len) {
    pieces_.push_back({text_.size(), from, len});
    text_.append(sql_.substr(from, len));
    return *this;
  }
  Built& Append(const Built& other) {
    for (Piece p : other.pieces_) {
      p.at += text_.size();
      pieces_.push_back(p);
    }
    text_.append(other.text_);
    return *this;
  }
  const std::string& text() const { return text_; }

  // `s` with the position its message gives in the built text moved to the
  // user's; where the built text is our own, the message loses it.
  Status Remap(const Status& s) const {
    static const std::regex kAt(R"(^line (\d+), column (\d+): ([^\n]*))");
    std::smatch m;
    const std::string message = s.message();
    if (s.ok() || !std::regex_search(message, m, kAt)) return s;
    const int line = std::stoi(m[1].str());
    const size_t column = std::stoul(m[2].str());
    size_t at = 0;
    for (int l = 1; l < line && at != npos; ++l) {
      at = text_.find('\n', at);
      if (at != npos) ++at;
    }
    if (at == npos) return Status(s.code(), m[3].str());
    at += column - 1;
    for (const Piece& p : pieces_) {
      if (at >= p.at && at <= p.at + p.len) {
        return Status(s.code(),
                      FormatSqlError(sql_, static_cast<int>(p.from + at - p.at), m[3].str()));
      }
    }
    return Status(s.code(), m[3].str());
  }

 private:
  struct Piece {
    size_t at, from, len;
  };
  std::string_view sql_;
  std::string text_;
  std::vector<Piece> pieces_;
};

bool IsChangeNode(const Json& node) {
  return node.contains("InsertStmt") || node.contains("UpdateStmt") || node.contains("DeleteStmt");
}

const Json& Body(const Json& stmt) { return stmt.begin().value(); }

// The text of sql[from, to) without its surrounding space, and where it
// starts.
std::pair<std::string, size_t> Clause(std::string_view sql, size_t from, size_t to) {
  from = SkipSpace(sql.substr(0, to), from);
  return {TrimEnd(sql.substr(from, to - from)), from};
}

// Where each of the clauses after `from` starts (a keyword at the top
// level), in the order given; npos for a clause that is not there.
std::vector<size_t> ClauseStarts(std::string_view sql, size_t from,
                                 const std::vector<std::string_view>& keywords) {
  std::vector<size_t> out;
  for (std::string_view kw : keywords) {
    const size_t at = FindKeyword(sql, from, kw);
    out.push_back(at);
    if (at != npos) from = at + kw.size();
  }
  return out;
}

// The end of a clause that starts at `start`: where the next clause that
// is there starts, or the end.
size_t ClauseEnd(const std::vector<size_t>& starts, size_t i, size_t end) {
  for (size_t j = i + 1; j < starts.size(); ++j) {
    if (starts[j] != npos) return starts[j];
  }
  return end;
}

// After the target relation (and its alias) at `rel`: where the statement
// goes on.
size_t AfterRelation(std::string_view sql, const Json& rel) {
  size_t pos = SkipSpace(sql, NameEnd(sql, static_cast<size_t>(rel.value("location", 0))));
  if (rel.contains("alias")) {
    if (sql.size() - pos >= 2 && strncasecmp(sql.data() + pos, "as", 2) == 0 &&
        (pos + 2 == sql.size() || !WordChar(sql[pos + 2]))) {
      pos = SkipSpace(sql, pos + 2);
    }
    pos = SkipSpace(sql, TokenEnd(sql, pos));
  }
  return pos;
}

std::string AliasOf(const Json& rel) {
  return rel.contains("alias") ? rel["alias"].value("aliasname", "") : "";
}

std::string Trim(std::string_view s) { return TrimEnd(s.substr(SkipSpace(s, 0))); }

// The items of text[from, to) split at the commas outside parentheses and
// brackets: each one's start and length, without the space around it.
std::vector<std::pair<size_t, size_t>> ItemSpans(std::string_view text, size_t from, size_t to) {
  std::vector<std::pair<size_t, size_t>> out;
  const std::string_view in = text.substr(0, to);
  size_t start = SkipSpace(in, from), end = start;
  int depth = 0;
  for (size_t i = start; (i = SkipSpace(in, i)) < in.size(); i = TokenEnd(in, i)) {
    if (in[i] == '(' || in[i] == '[') ++depth;
    if (in[i] == ')' || in[i] == ']') --depth;
    if (depth == 0 && in[i] == ',') {
      out.emplace_back(start, end - start);
      start = end = SkipSpace(in, i + 1);
      continue;
    }
    end = std::min(TokenEnd(in, i), in.size());
  }
  out.emplace_back(start, end - start);
  return out;
}

// `text` split at the commas outside parentheses and brackets, each piece
// without the space around it.
std::vector<std::string> SplitTopLevel(std::string_view text) {
  std::vector<std::string> out;
  for (const auto& [from, len] : ItemSpans(text, 0, text.size())) {
    out.emplace_back(text.substr(from, len));
  }
  return out;
}

// Where a SET target's column name ends and what follows it: the path into
// the column (c[i], c[l:u][j], c.f), from the target's text and its parse
// tree's indirection.
Result<std::vector<SetItem::Step>> SetPath(std::string_view sql, std::string_view target,
                                           const Json& node) {
  std::vector<SetItem::Step> path;
  const Json& indirection = node["ResTarget"].value("indirection", Json::array());
  if (indirection.empty()) return path;
  size_t i = SkipSpace(target, TokenEnd(target, SkipSpace(target, 0)));
  auto bad = [&] { return SqlError(sql, node, "cannot read this SET target"); };
  for (const Json& ind : indirection) {
    i = SkipSpace(target, i);
    if (ind.contains("String")) {
      if (i >= target.size() || target[i] != '.') return bad();
      i = SkipSpace(target, TokenEnd(target, SkipSpace(target, i + 1)));
      path.push_back({ind["String"].value("sval", ""), {}, false});
      continue;
    }
    if (!ind.contains("A_Indices") || i >= target.size() || target[i] != '[') return bad();
    // [upper] or [lower:upper], either bound left out in a slice.
    const size_t open = i;
    size_t colon = npos;
    int depth = 0;
    for (; (i = SkipSpace(target, i)) < target.size(); i = TokenEnd(target, i)) {
      const char c = target[i];
      if (c == '(' || c == '[') ++depth;
      if ((c == ')' || c == ']') && --depth == 0) break;
      if (c == ':' && depth == 1) {
        if (i + 1 < target.size() && target[i + 1] == ':') {
          ++i;  // a cast, ::
        } else if (colon == npos) {
          colon = i;
        }
      }
    }
    if (i >= target.size()) return bad();
    std::pair<std::string, std::string> bounds;
    if (colon == npos) {
      bounds.first = "1";  // in a slice, [u] is [1:u]
      bounds.second = Trim(target.substr(open + 1, i - open - 1));
    } else {
      bounds.first = Trim(target.substr(open + 1, colon - open - 1));
      bounds.second = Trim(target.substr(colon + 1, i - colon - 1));
    }
    ++i;
    if (path.empty() || !path.back().field.empty()) path.push_back({});
    path.back().subscripts.push_back(std::move(bounds));
    path.back().slice = path.back().slice || colon != npos;
  }
  return path;
}

// The items of a SET list in sql[from, end): one per column named, with
// its value's text. `targets` are the list's parse trees.
Result<std::vector<SetItem>> SetItems(std::string_view sql, size_t from, size_t end,
                                      const Json& targets, const Json& relation) {
  const std::vector<std::string> items = SplitTopLevel(sql.substr(from, end - from));
  std::vector<SetItem> out;
  auto mismatch = [&](const Json& node) {
    return SqlError(sql, node, "number of columns does not match number of values");
  };
  for (const std::string& item : items) {
    if (out.size() >= targets.size()) return SqlError(sql, relation, "cannot read this SET list");
    const Json& first = targets[out.size()];
    size_t eq = npos;
    for (size_t j = 0; (j = SkipSpace(item, j)) < item.size(); j = TokenEnd(item, j)) {
      if (item[j] == '=') {
        eq = j;
        break;
      }
    }
    if (eq == npos) return Status::InvalidArgument("SET: cannot find '=' in \"" + item + "\"");
    const std::string_view left = std::string_view(item).substr(0, eq);
    const std::string value = Trim(std::string_view(item).substr(eq + 1));
    const Json& val = first["ResTarget"].value("val", Json::object());
    if (!val.contains("MultiAssignRef")) {
      SetItem s;
      s.column = first["ResTarget"].value("name", "");
      SLUICE_ASSIGN_OR_RETURN(s.path, SetPath(sql, left, first));
      s.expr = value;
      s.to_default = val.contains("SetToDefault");
      out.push_back(std::move(s));
      continue;
    }
    // (a, b) = ROW(x, y) | (x, y) | (SELECT x, y ...)
    const Json& multi = val["MultiAssignRef"];
    const size_t n = static_cast<size_t>(multi.value("ncolumns", 0));
    if (n == 0 || out.size() + n > targets.size()) return mismatch(first);
    const size_t lopen = SkipSpace(left, 0);
    const size_t lclose =
        lopen < left.size() && left[lopen] == '(' ? MatchingParen(left, lopen) : npos;
    if (lclose == npos) return SqlError(sql, first, "cannot read this SET target");
    const std::vector<std::string> columns =
        SplitTopLevel(left.substr(lopen + 1, lclose - lopen - 1));
    if (columns.size() != n) return mismatch(first);
    const Json& source = multi["source"];
    std::string_view rhs = value;
    if (rhs.size() >= 3 && strncasecmp(rhs.data(), "row", 3) == 0 &&
        (rhs.size() == 3 || !WordChar(rhs[3]))) {
      rhs = rhs.substr(SkipSpace(rhs, 3));
    }
    const size_t close = !rhs.empty() && rhs[0] == '(' ? MatchingParen(rhs, 0) : npos;
    if (close == npos || SkipSpace(rhs, close + 1) != rhs.size() ||
        !(source.contains("RowExpr") || source.contains("SubLink"))) {
      return SqlError(sql, source,
                      "source for a multiple-column UPDATE item must be a sub-SELECT or ROW() "
                      "expression");
    }
    const std::string_view inner = rhs.substr(1, close - 1);
    std::vector<std::string> values;
    std::vector<bool> defaults(n, false);
    if (source.contains("SubLink")) {
      // Each column takes its column of the sub-SELECT's one row (NULL
      // when it has none).
      const Json& select = source["SubLink"]["subselect"]["SelectStmt"];
      const Json& list = select.value("targetList", Json::array());
      bool star = select.contains("valuesLists") || select.contains("larg");
      for (const Json& t : list) star = star || t.dump().find("A_Star") != std::string::npos;
      if (!star && list.size() != n) return mismatch(source);
      std::string names;
      for (size_t k = 0; k < n; ++k) names += (k ? ", c" : "c") + std::to_string(k + 1);
      for (size_t k = 0; k < n; ++k) {
        values.push_back("(SELECT sluice_set.c" + std::to_string(k + 1) + " FROM (" +
                         std::string(inner) + ") AS sluice_set (" + names + "))");
      }
    } else {
      values = SplitTopLevel(inner);
      const Json& args = source["RowExpr"].value("args", Json::array());
      if (values.size() != n || args.size() != n) return mismatch(source);
      for (size_t k = 0; k < n; ++k) defaults[k] = args[k].contains("SetToDefault");
    }
    for (size_t k = 0; k < n; ++k) {
      const Json& target = targets[out.size()];
      SetItem s;
      s.column = target["ResTarget"].value("name", "");
      SLUICE_ASSIGN_OR_RETURN(s.path, SetPath(sql, columns[k], target));
      s.expr = values[k];
      s.to_default = defaults[k];
      out.push_back(std::move(s));
    }
  }
  if (out.size() != targets.size()) return SqlError(sql, relation, "cannot read this SET list");
  return out;
}

Result<InsertParts> InsertClauses(std::string_view sql, const Json& ins, size_t end) {
  auto unsupported = [&](const char* what, const Json& node) {
    return SqlUnsupported(sql, node, what);
  };
  InsertParts p;
  p.default_values = !ins.contains("selectStmt");
  if (!p.default_values) {
    const Json& sel = ins["selectStmt"]["SelectStmt"];
    size_t row = 0;
    for (const Json& list : sel.value("valuesLists", Json::array())) {
      const Json& items = list["List"]["items"];
      for (size_t j = 0; j < items.size(); ++j) {
        if (items[j].contains("SetToDefault")) {
          p.defaults.emplace_back(items[j]["SetToDefault"].value("location", 0), j);
          p.default_rows.push_back(row);
        }
      }
      ++row;
    }
  }
  SLUICE_ASSIGN_OR_RETURN(p.table, TargetTableName(ins["relation"], sql));
  p.alias = AliasOf(ins["relation"]);
  for (const Json& c : ins.value("cols", Json::array()))
    p.columns.push_back(c["ResTarget"].value("name", ""));
  const std::string_view text = sql.substr(0, end);
  size_t pos = AfterRelation(text, ins["relation"]);
  if (!p.columns.empty()) {
    const size_t close = pos < text.size() && text[pos] == '(' ? MatchingParen(text, pos) : npos;
    if (close == npos)
      return Status::InvalidArgument("INSERT: cannot find the end of the column list");
    const std::vector<std::string> columns = SplitTopLevel(text.substr(pos + 1, close - pos - 1));
    if (columns.size() != p.columns.size())
      return Status::InvalidArgument("INSERT: cannot read the column list");
    for (size_t i = 0; i < columns.size(); ++i) {
      SLUICE_ASSIGN_OR_RETURN(std::vector<SetItem::Step> path,
                              SetPath(sql, columns[i], ins["cols"][i]));
      if (path.empty()) continue;
      p.column_paths.resize(columns.size());
      p.column_paths[i] = std::move(path);
    }
    pos = SkipSpace(text, close + 1);
  }
  if (text.size() - pos >= 10 && strncasecmp(text.data() + pos, "OVERRIDING", 10) == 0) {
    // OVERRIDING { SYSTEM | USER } VALUE
    p.overriding_system = ins.value("override", "") == "OVERRIDING_SYSTEM_VALUE";
    p.overriding_user = ins.value("override", "") == "OVERRIDING_USER_VALUE";
    const size_t value = FindKeyword(text, pos, "value");
    if (value == npos) return unsupported("INSERT ... OVERRIDING", ins["relation"]);
    pos = SkipSpace(text, value + 5);
  }
  size_t source_end = npos;
  if (ins.contains("onConflictClause")) {
    const Json& oc = ins["onConflictClause"];
    p.on_conflict = true;
    source_end = static_cast<size_t>(oc.value("location", 0));
    const Json& infer = oc.value("infer", Json::object());
    if (infer.contains("conname")) return unsupported("ON CONFLICT ON CONSTRAINT", oc);
    if (infer.contains("whereClause"))
      return unsupported("ON CONFLICT (...) WHERE", infer["whereClause"]);
    for (const Json& e : infer.value("indexElems", Json::array())) {
      if (!e["IndexElem"].contains("name")) return unsupported("ON CONFLICT of an expression", oc);
      p.conflict_columns.push_back(e["IndexElem"].value("name", ""));
    }
    p.do_update = oc.value("action", "") == "ONCONFLICT_UPDATE";
  }
  const auto starts = ClauseStarts(text, source_end == npos ? pos : source_end, {"returning"});
  const size_t after_source = source_end != npos ? source_end : ClauseEnd({pos, starts[0]}, 0, end);
  std::tie(p.source, p.source_offset) = Clause(text, pos, after_source);
  if (starts[0] != npos) {
    std::tie(p.returning, p.returning_offset) = Clause(text, starts[0] + 9, end);
  }
  if (p.do_update) {
    const Json& oc = ins["onConflictClause"];
    const size_t update = FindKeyword(text, source_end, "update");
    const size_t set = update == npos ? npos : FindKeyword(text, update + 6, "set");
    if (set == npos) return Status::InvalidArgument("ON CONFLICT: cannot find DO UPDATE SET");
    const size_t where = oc.contains("whereClause") ? FindKeyword(text, set + 3, "where") : npos;
    const size_t set_end = where != npos ? where : starts[0] != npos ? starts[0] : end;
    SLUICE_ASSIGN_OR_RETURN(p.conflict_sets, SetItems(sql, set + 3, set_end,
                                                      oc.value("targetList", Json::array()), oc));
    if (where != npos) {
      std::tie(p.conflict_where, p.conflict_where_offset) =
          Clause(text, where + 5, starts[0] != npos ? starts[0] : end);
    }
  }
  return p;
}

Result<DeleteParts> DeleteClauses(std::string_view sql, const Json& del, size_t end) {
  DeleteParts p;
  SLUICE_ASSIGN_OR_RETURN(p.table, TargetTableName(del["relation"], sql));
  p.alias = AliasOf(del["relation"]);
  const std::string_view text = sql.substr(0, end);
  const size_t pos = AfterRelation(text, del["relation"]);
  const auto s = ClauseStarts(text, pos, {"using", "where", "returning"});
  if (s[0] != npos)
    std::tie(p.using_, p.using_offset) = Clause(text, s[0] + 5, ClauseEnd(s, 0, end));
  if (s[1] != npos)
    std::tie(p.where, p.where_offset) = Clause(text, s[1] + 5, ClauseEnd(s, 1, end));
  if (s[2] != npos) std::tie(p.returning, p.returning_offset) = Clause(text, s[2] + 9, end);
  if (del.contains("whereClause") && p.where.empty())
    return Status::InvalidArgument("DELETE: cannot find WHERE");
  return p;
}

Result<UpdateParts> UpdateClauses(std::string_view sql, const Json& up, size_t end) {
  UpdateParts p;
  SLUICE_ASSIGN_OR_RETURN(p.table, TargetTableName(up["relation"], sql));
  p.alias = AliasOf(up["relation"]);
  const std::string_view text = sql.substr(0, end);
  const size_t pos = AfterRelation(text, up["relation"]);
  std::vector<size_t> s = ClauseStarts(text, pos, {"set"});
  if (s[0] == npos) return Status::InvalidArgument("UPDATE: cannot find SET");
  // FROM can also be in a SET expression (IS DISTINCT FROM): the clause is
  // the last FROM at the top level before its first item.
  size_t from = npos;
  if (up.contains("fromClause")) {
    const size_t first = static_cast<size_t>(Location(up["fromClause"][0]));
    for (size_t at = s[0]; (at = FindKeyword(text, at, "from")) != npos && at < first; at += 4)
      from = at;
    if (from == npos) return Status::InvalidArgument("UPDATE: cannot find FROM");
  }
  const size_t after_set = from != npos ? from + 4 : s[0] + 3;
  const auto rest = ClauseStarts(text, after_set, {"where", "returning"});
  s.push_back(from);
  s.insert(s.end(), rest.begin(), rest.end());
  const size_t set_end = ClauseEnd(s, 0, end);
  if (from != npos) std::tie(p.from, p.from_offset) = Clause(text, from + 4, ClauseEnd(s, 1, end));
  if (s[2] != npos)
    std::tie(p.where, p.where_offset) = Clause(text, s[2] + 5, ClauseEnd(s, 2, end));
  if (s[3] != npos) std::tie(p.returning, p.returning_offset) = Clause(text, s[3] + 9, end);
  SLUICE_ASSIGN_OR_RETURN(p.sets, SetItems(sql, s[0] + 3, set_end,
                                           up.value("targetList", Json::array()), up["relation"]));
  return p;
}

template <typename Parts, typename Clauses>
Result<Parts> ParseOne(const std::string& text, const char* node, Clauses clauses) {
  SLUICE_ASSIGN_OR_RETURN(Json tree, ParseSql(text));
  const Json& stmts = tree["stmts"];
  if (stmts.size() != 1 || !stmts[0]["stmt"].contains(node))
    return Status::InvalidArgument(std::string("not one ") + node);
  const Json& body = stmts[0]["stmt"][node];
  if (body.contains("withClause")) return SqlUnsupported(text, body["withClause"], "WITH here");
  return clauses(text, body, TrimEnd(text).size());
}

// What SQL text calls a type: its own spelling, or for a ROW type the name
// of a composite type (or table) with those fields, which the queries'
// catalog knows (DmlEnv::type_name); "" when nothing names it (a MAP).
std::string TypeSql(const SqlType& type, const TypeNamer& name) {
  if (type.id() == TypeId::kMap) return "";
  if (type.id() == TypeId::kRow) return name ? name(type.WithNullable(true)) : "";
  if (type.id() == TypeId::kArray) {
    const std::string elem = TypeSql(SqlType(type.children()[0]), name);
    if (elem.empty()) return "";
    if (SqlType(type.children()[0]).id() == TypeId::kRow) return QuoteIdentifier(elem) + "[]";
  }
  return type.WithNullable(true).ToString();
}

// `expr` cast to `type`, where SQL can name it; as it is where not (the
// rows are cast to the table's types when they are applied).
std::string CastTo(const std::string& expr, const SqlType& type, const TypeNamer& name) {
  std::string t = TypeSql(type, name);
  if (t.empty()) return "(" + expr + ")";
  if (type.id() == TypeId::kRow) t = QuoteIdentifier(t);
  return "CAST(" + expr + " AS " + t + ")";
}

// A value as a literal of its type.
std::string Literal(const Value& v, const SqlType& type, const TypeNamer& name) {
  if (type.id() == TypeId::kRow || type.id() == TypeId::kMap ||
      (type.id() == TypeId::kArray && TypeSql(type, name).empty())) {
    if (v.is_null()) return CastTo("NULL", type, name);
    if (type.id() == TypeId::kMap) return "NULL";
    const bool row = type.id() == TypeId::kRow;
    std::string out = row ? "ROW(" : "ARRAY[";
    const auto& items = v.list();
    for (size_t i = 0; i < items.size(); ++i) {
      out += i ? ", " : "";
      out += Literal(items[i], SqlType(type.children()[row ? i : 0]), name);
    }
    out += row ? ")" : "]";
    return row ? CastTo(out, type, name) : out;
  }
  const std::string t = TypeSql(type, name);
  if (v.is_null()) return "CAST(NULL AS " + t + ")";
  return "CAST(" + QuoteString(ValueToPgText(v, type)) + " AS " + t + ")";
}

// Rows as a query of constants: VALUES, or a SELECT of no rows.
std::string ConstantRows(const std::vector<Column>& columns, const std::vector<Row>& rows,
                         const TypeNamer& name) {
  std::string out;
  if (rows.empty()) {
    out = "SELECT ";
    for (size_t i = 0; i < columns.size(); ++i)
      out += (i ? ", " : "") + Literal(Value::Null(), columns[i].type, name);
    return out + " WHERE false";
  }
  out = "VALUES ";
  for (size_t r = 0; r < rows.size(); ++r) {
    out += r ? ", (" : "(";
    for (size_t i = 0; i < columns.size(); ++i)
      out += (i ? ", " : "") + Literal(rows[r][i], columns[i].type, name);
    out += ")";
  }
  return out;
}

std::string ColumnList(const std::vector<std::string>& names) {
  std::string out = "(";
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + QuoteIdentifier(names[i]);
  return out + ")";
}

std::string RowKey(const Row& row) {
  std::string key;
  for (const Value& v : row)
    key += v.is_null() ? std::string("\x01") : "\x02" + v.ToString() + "\x1f";
  return key;
}

// One part of a statement: the statement itself, or a WITH query that
// changes data.
struct Part {
  std::vector<TableChange> changes;
  bool returns = false;
  QueryRows returned;
  // A query whose rows are `returned` (over the tables as they were): what
  // the WITH queries after it read, rather than a constant of the rows,
  // which is slow to plan when there are many. None where the rows come
  // from more than a query (ON CONFLICT, UPDATE ... FROM).
  std::optional<Built> query;
  std::string tag;
};

class Planner {
 public:
  Planner(const std::string& sql, const DmlEnv& env) : sql_(sql), env_(env) {}

  // The WITH queries in effect: each one's `name AS (...)`; one that
  // changes data gives the query of the rows it returns, or a constant of
  // them (Part::query).
  struct Scope {
    bool recursive = false;
    std::vector<Built> ctes;
  };

  // The part `stmt` (a parse tree's statement), whose text ends at `end`.
  Result<Part> Run(const Json& stmt, size_t begin, size_t end, Scope scope) {
    const Json& body = Body(stmt);
    size_t main = begin;
    if (body.contains("withClause")) {
      SLUICE_ASSIGN_OR_RETURN(main, With(body["withClause"], end, &scope));
    }
    const std::string kind = stmt.begin().key();
    if (kind == "SelectStmt") {
      Part part;
      part.returns = true;
      SLUICE_ASSIGN_OR_RETURN(part.returned, Query(scope, Built(sql_).Original(main, end - main)));
      part.tag = "SELECT " + std::to_string(part.returned.rows.size());
      return part;
    }
    Result<Part> part = SqlUnsupported(sql_, body, kind + " in WITH");
    if (kind == "InsertStmt") {
      SLUICE_ASSIGN_OR_RETURN(InsertParts p, InsertClauses(sql_, body, end));
      part = Insert(p, body, scope);
    } else if (kind == "DeleteStmt") {
      SLUICE_ASSIGN_OR_RETURN(DeleteParts p, DeleteClauses(sql_, body, end));
      part = Delete(p, body, scope);
    } else if (kind == "UpdateStmt") {
      SLUICE_ASSIGN_OR_RETURN(UpdateParts p, UpdateClauses(sql_, body, end));
      part = Update(p, body, scope);
    }
    // Its query may read WITH queries of its own, which the parts after it
    // do not see: they read its rows as a constant.
    if (part.ok() && body.contains("withClause")) part->query.reset();
    return part;
  }

  std::vector<TableChange> changes;  // of the WITH queries, in order
  int parts_run = 0;                 // WITH queries that changed data, so far

 private:
  // Adds a WITH clause's queries to `scope`, running the ones that change
  // data; returns where the statement after the clause starts.
  Result<size_t> With(const Json& with, size_t end, Scope* scope) {
    const bool recursive = with.value("recursive", false);
    scope->recursive = scope->recursive || recursive;
    const std::string_view text = std::string_view(sql_).substr(0, end);
    const Json& ctes = with["ctes"];
    struct Span {
      size_t at, open, close, stop;
    };
    std::vector<Span> spans;
    size_t after = 0;
    for (size_t i = 0; i < ctes.size(); ++i) {
      const Json& cte = ctes[i]["CommonTableExpr"];
      const size_t at = static_cast<size_t>(cte.value("location", 0));
      // name [(columns)] AS [[NOT] MATERIALIZED] (query)
      size_t open = SkipSpace(text, TokenEnd(text, at));
      if (open < text.size() && text[open] == '(')
        open = SkipSpace(text, MatchingParen(text, open) + 1);
      while (open < text.size() && text[open] != '(') open = SkipSpace(text, TokenEnd(text, open));
      const size_t close = open < text.size() ? MatchingParen(text, open) : npos;
      if (close == npos) return Status::InvalidArgument("WITH: cannot find the end of a query");
      // SEARCH and CYCLE clauses follow the query; the next query, or the
      // statement, ends them.
      size_t stop = close + 1;
      if (i + 1 < ctes.size()) {
        const size_t next =
            static_cast<size_t>(ctes[i + 1]["CommonTableExpr"].value("location", 0));
        for (size_t j = stop; (j = SkipSpace(text, j)) < next; j = TokenEnd(text, j))
          if (text[j] == ',') stop = j;
      } else {
        size_t j = close + 1;
        for (; (j = SkipSpace(text, j)) < text.size(); j = TokenEnd(text, j)) {
          const size_t e = TokenEnd(text, j);
          static const char* kStarts[] = {"select", "values", "insert",
                                          "update", "delete", "table"};
          bool starts = text[j] == '(';
          for (const char* w : kStarts)
            starts = starts || (e - j == strlen(w) && strncasecmp(text.data() + j, w, e - j) == 0);
          if (starts) break;
        }
        stop = j;
        after = j;
      }
      spans.push_back({at, open, close, stop});
    }
    for (size_t i : Order(ctes, recursive)) {
      const Json& cte = ctes[i]["CommonTableExpr"];
      const Span& sp = spans[i];
      const Json& query = cte["ctequery"];
      Built entry(sql_);
      if (!IsChangeNode(query)) {
        entry.Original(sp.at, TrimEnd(text.substr(sp.at, sp.stop - sp.at)).size());
        scope->ctes.push_back(std::move(entry));
        continue;
      }
      SLUICE_ASSIGN_OR_RETURN(Part part, Run(query, sp.open + 1, sp.close, *scope));
      ++parts_run;
      for (TableChange& c : part.changes) {
        c.part = parts_run;
        c.location = static_cast<int>(SkipSpace(sql_, sp.open + 1));
        changes.push_back(std::move(c));
      }
      if (!part.returns) continue;
      std::vector<std::string> names;
      for (const Json& a : cte.value("aliascolnames", Json::array()))
        names.push_back(a["String"].value("sval", ""));
      if (names.size() > part.returned.columns.size()) {
        return SqlError(sql_, cte,
                        "WITH query \"" + cte.value("ctename", std::string()) + "\" has " +
                            std::to_string(part.returned.columns.size()) +
                            " columns available but " + std::to_string(names.size()) +
                            " columns specified");
      }
      for (size_t c = names.size(); c < part.returned.columns.size(); ++c)
        names.push_back(part.returned.columns[c].name);
      entry.Add(QuoteIdentifier(cte.value("ctename", std::string())) + ColumnList(names) + " AS (");
      if (part.query) {
        entry.Append(*part.query);
      } else {
        entry.Add(ConstantRows(part.returned.columns, part.returned.rows, env_.type_name));
      }
      entry.Add(")");
      scope->ctes.push_back(std::move(entry));
    }
    return after;
  }

  // The order to run a WITH clause's queries in: as written, or, under
  // RECURSIVE (where a query may read one written after it), each after
  // the ones it reads (as written where they read each other).
  static std::vector<size_t> Order(const Json& ctes, bool recursive) {
    std::vector<size_t> order;
    const size_t n = ctes.size();
    if (!recursive) {
      for (size_t i = 0; i < n; ++i) order.push_back(i);
      return order;
    }
    std::map<std::string, size_t> index;
    for (size_t i = 0; i < n; ++i) index[ctes[i]["CommonTableExpr"].value("ctename", "")] = i;
    std::vector<std::set<size_t>> reads(n);
    std::function<void(const Json&, size_t)> walk = [&](const Json& node, size_t i) {
      if (node.is_object()) {
        if (node.contains("relname") && !node.contains("schemaname")) {
          auto it = index.find(node.value("relname", ""));
          if (it != index.end() && it->second != i) reads[i].insert(it->second);
        }
        for (const auto& [k, v] : node.items()) walk(v, i);
      } else if (node.is_array()) {
        for (const Json& v : node) walk(v, i);
      }
    };
    for (size_t i = 0; i < n; ++i) walk(ctes[i]["CommonTableExpr"]["ctequery"], i);
    std::vector<bool> done(n, false);
    while (order.size() < n) {
      size_t pick = n;
      for (size_t i = 0; i < n && pick == n; ++i) {
        if (done[i]) continue;
        bool ready = true;
        for (size_t r : reads[i]) ready = ready && done[r];
        if (ready) pick = i;
      }
      if (pick == n) {  // they read each other: the first left
        for (size_t i = 0; i < n && pick == n; ++i)
          if (!done[i]) pick = i;
      }
      done[pick] = true;
      order.push_back(pick);
    }
    return order;
  }

  // `body` (a query) under the WITH queries of `scope`.
  Result<QueryRows> Query(const Scope& scope, const Built& body, bool wrap = false) {
    Built q(sql_);
    if (!scope.ctes.empty()) {
      q.Add(scope.recursive ? "WITH RECURSIVE " : "WITH ");
      for (size_t i = 0; i < scope.ctes.size(); ++i) {
        if (i) q.Add(", ");
        q.Append(scope.ctes[i]);
      }
      q.Add(" ");
    }
    // A query with a WITH of its own goes in a subquery under ours.
    if (wrap && !scope.ctes.empty()) {
      q.Add("SELECT * FROM (").Append(body).Add(") AS sluice_rows");
    } else {
      q.Append(body);
    }
    auto rows = env_.query(q.text());
    if (!rows.ok()) return q.Remap(rows.status());
    return rows;
  }

  Result<DmlTable> Table(const std::string& name, const Json& rel) {
    auto t = env_.table(name);
    if (!t.ok()) {
      return Status(t.status().code(),
                    FormatSqlError(sql_, rel.value("location", -1), t.status().message()));
    }
    return t;
  }

  // The index of column `name` of `table`; an error at `node` if there is
  // none.
  Result<size_t> ColumnOf(const std::vector<Column>& cols, const std::string& table,
                          const std::string& name, const Json& node) {
    std::vector<std::string> names;
    for (size_t i = 0; i < cols.size(); ++i) {
      if (cols[i].name == name) return i;
      names.push_back(cols[i].name);
    }
    return SqlError(sql_, node,
                    "column \"" + name + "\" of relation \"" + table + "\" does not exist" +
                        DidYouMean(name, names));
  }

  // RETURNING's rows over `rows` of the table, which `rows_query` (if
  // any) also gives.
  Status Returning(const std::string& list, size_t offset, const std::string& name,
                   const DmlTable& table, const std::vector<Row>& rows,
                   const std::optional<Built>& rows_query, const Scope& scope, Part* part) {
    if (list.empty()) return Status::OK();
    part->returns = true;
    if (list == "*") {
      part->returned.columns = table.columns;
      part->returned.rows = rows;
      part->query = rows_query;
      return Status::OK();
    }
    std::vector<std::string> names;
    for (const Column& c : table.columns) names.push_back(c.name);
    Built q(sql_);
    q.Add("SELECT ").Original(offset, list.size()).Add(" FROM (");
    if (rows_query) {
      q.Append(*rows_query);
    } else {
      q.Add(ConstantRows(table.columns, rows, env_.type_name));
    }
    q.Add(") AS " + QuoteIdentifier(name) + ColumnList(names));
    SLUICE_ASSIGN_OR_RETURN(part->returned, Query(scope, q));
    if (rows_query) part->query = std::move(q);
    return Status::OK();
  }

  // RETURNING over the rows a statement changed and the other FROM (USING)
  // items: `met` holds, per pair of a changed row and a row of those items,
  // the changed row (its first `n` columns), then RETURNING's values from
  // column `n` on. Each row of `changed` returns once, with the first row
  // it met.
  static void ReturnedWithOthers(const QueryRows& met, size_t n, const std::vector<Row>& changed,
                                 Part* part) {
    part->returns = true;
    part->returned.columns.assign(met.columns.begin() + static_cast<ptrdiff_t>(n),
                                  met.columns.end());
    std::map<std::string, const Row*> first;
    for (const Row& r : met.rows)
      first.emplace(RowKey(Row(r.begin(), r.begin() + static_cast<ptrdiff_t>(n))), &r);
    for (const Row& c : changed) {
      auto it = first.find(RowKey(c));
      if (it == first.end()) continue;
      part->returned.rows.emplace_back(it->second->begin() + static_cast<ptrdiff_t>(n),
                                       it->second->end());
    }
  }

  static const std::vector<SetItem::Step>& PathOf(const InsertParts& p, size_t i) {
    static const std::vector<SetItem::Step> kNone;
    return i < p.column_paths.size() ? p.column_paths[i] : kNone;
  }

  // INSERT's source as rows of the table: its columns cast to the table's,
  // NULL for the ones it does not name. A column named by parts (c[1:2],
  // c.f) is NULL with those parts set.
  Result<Built> SourceRows(const InsertParts& p, const DmlTable& table,
                           const std::vector<size_t>& targets, size_t width, const Json& body) {
    const std::vector<Column>& cols = table.columns;
    Built rows(sql_);
    rows.Add("SELECT ");
    for (size_t c = 0; c < cols.size(); ++c) {
      const auto j = std::find(targets.begin(), targets.end(), c);
      const SqlType type = cols[c].type.WithNullable(true);
      rows.Add(c ? ", " : "");
      if (j == targets.end() || p.default_values) {
        rows.Add(Literal(DefaultOf(table, c), type, env_.type_name));
        continue;
      }
      const size_t first = static_cast<size_t>(j - targets.begin());
      if (PathOf(p, first).empty()) {
        rows.Add(CastTo("sluice_source.s" + std::to_string(first), type, env_.type_name));
        continue;
      }
      std::string value = CastTo("NULL", type, env_.type_name);
      for (size_t k = first; k < targets.size(); ++k) {
        if (targets[k] != c) continue;
        SetItem item{cols[c].name, PathOf(p, k), "sluice_source.s" + std::to_string(k), false};
        SLUICE_ASSIGN_OR_RETURN(
            value, Assign(value, type, item, 0, "\"" + cols[c].name + "\"", body["cols"][k]));
      }
      rows.Add(value);
    }
    if (p.default_values) return rows;
    std::vector<std::string> source_names;
    for (size_t j = 0; j < width; ++j) source_names.push_back("s" + std::to_string(j));
    bool numbered = false;
    SLUICE_ASSIGN_OR_RETURN(Built source, SourceQuery(p, table, targets, &numbered));
    rows.Add(" FROM (").Append(source).Add(") AS sluice_source" + ColumnList(source_names));
    return rows;
  }

  static Value DefaultOf(const DmlTable& table, size_t column) {
    return column < table.defaults.size() ? table.defaults[column] : Value::Null();
  }

  // sql[from, from + len) of an INSERT's source, each DEFAULT in its VALUES
  // rows replaced by the column's default.
  void CopySource(const InsertParts& p, const DmlTable& table, const std::vector<size_t>& targets,
                  size_t from, size_t len, Built* out) {
    size_t at = from;
    for (const auto& [offset, j] : p.defaults) {
      if (offset < at || offset >= from + len) continue;
      out->Original(at, offset - at);
      const size_t c = j < targets.size() ? targets[j] : j;
      // A sequence's value is taken after, row after row (Insert).
      out->Add(
          Literal(DefaultOf(table, c), table.columns[c].type.WithNullable(true), env_.type_name));
      at = offset + 7;  // DEFAULT
    }
    out->Original(at, from + len - at);
  }

  // The type a VALUES item is cast to for column `c`: the column's, but a
  // string or binary one without its length, so that a value too long is
  // refused when the row is cast to the table's types, not cut short.
  static SqlType ItemType(const SqlType& column) {
    if (column.IsString()) return SqlType::Varchar();
    if (column.IsBinary()) return SqlType::Varbinary();
    return column;
  }

  // INSERT's source as a query: its text, each DEFAULT in its VALUES rows
  // replaced by the column's default. In a VALUES list of several rows,
  // each item is cast to its column's type, as PostgreSQL does: the rows
  // are not first brought to types common to them ('abc' in one row and 5
  // in another both go to a text column). With `numbered`, a VALUES list's
  // rows are numbered in a first column (*numbered is false if the source
  // is not a VALUES list).
  Result<Built> SourceQuery(const InsertParts& p, const DmlTable& table,
                            const std::vector<size_t>& targets, bool* numbered) {
    const std::string_view text =
        std::string_view(sql_).substr(0, p.source_offset + p.source.size());
    size_t at = p.source_offset;
    const size_t word = TokenEnd(text, at);
    const bool values = word - at == 6 && strncasecmp(text.data() + at, "values", 6) == 0;
    // Each row's parentheses.
    std::vector<std::pair<size_t, size_t>> rows;
    for (at = values ? SkipSpace(text, word) : text.size(); at < text.size() && text[at] == '(';) {
      const size_t close = MatchingParen(text, at);
      if (close == npos) return Status::InvalidArgument("VALUES: cannot find the end of a row");
      rows.emplace_back(at, close);
      at = SkipSpace(text, close + 1);
      if (at < text.size() && text[at] == ',') at = SkipSpace(text, at + 1);
    }
    const bool cast = rows.size() > 1 && p.column_paths.empty() && at >= text.size();
    *numbered = *numbered && values;
    Built q(sql_);
    if (!*numbered && !cast) {
      CopySource(p, table, targets, p.source_offset, p.source.size(), &q);
      return q;
    }
    q.Add("VALUES ");
    for (size_t n = 0; n < rows.size(); ++n) {
      const auto [open, close] = rows[n];
      q.Add(n ? ", (" : "(");
      if (*numbered) q.Add(std::to_string(n) + ", ");
      if (!cast) {
        CopySource(p, table, targets, open + 1, close - open - 1, &q);
        q.Add(")");
        continue;
      }
      const auto items = ItemSpans(text, open + 1, close);
      for (size_t j = 0; j < items.size(); ++j) {
        const auto [from, len] = items[j];
        if (j) q.Add(", ");
        const SqlType* type = j < targets.size() ? &table.columns[targets[j]].type : nullptr;
        const std::string name =
            type && type->id() != TypeId::kRow ? TypeSql(ItemType(*type), env_.type_name) : "";
        if (!name.empty()) q.Add("CAST((");
        CopySource(p, table, targets, from, len, &q);
        if (!name.empty()) q.Add(") AS " + name + ")");
      }
      q.Add(")");
    }
    return q;
  }

  // INSERT's rows. Under ON CONFLICT, where the first of two rows with one
  // key wins, a VALUES list keeps its order: each row numbered, sorted.
  Result<QueryRows> Source(const InsertParts& p, const DmlTable& table,
                           const std::vector<size_t>& targets, const Scope& scope) {
    if (p.default_values) {
      QueryRows one;
      one.rows.emplace_back();
      return one;
    }
    // Numbered also where sequences number the rows: in the order of VALUES.
    bool numbered = p.on_conflict || !table.default_sequences.empty();
    SLUICE_ASSIGN_OR_RETURN(Built source, SourceQuery(p, table, targets, &numbered));
    if (!numbered) return Query(scope, source, /*wrap=*/true);
    Built q(sql_);
    q.Add("SELECT * FROM (").Append(source).Add(") AS sluice_values ORDER BY 1");
    SLUICE_ASSIGN_OR_RETURN(QueryRows rows, Query(scope, q, /*wrap=*/true));
    rows.columns.erase(rows.columns.begin());
    for (Row& r : rows.rows) r.erase(r.begin());
    return rows;
  }

  Result<Part> Insert(const InsertParts& p, const Json& body, const Scope& scope) {
    SLUICE_ASSIGN_OR_RETURN(DmlTable table, Table(p.table, body["relation"]));
    const auto& cols = table.columns;
    std::vector<size_t> targets;
    for (size_t i = 0; i < p.columns.size(); ++i) {
      SLUICE_ASSIGN_OR_RETURN(size_t c, ColumnOf(cols, p.table, p.columns[i], body["cols"][i]));
      // A column may be named twice only for parts of it (c[1], c[2]).
      const auto twice = std::find(targets.begin(), targets.end(), c);
      if (twice != targets.end() &&
          (PathOf(p, i).empty() ||
           PathOf(p, static_cast<size_t>(twice - targets.begin())).empty())) {
        return SqlError(sql_, body["cols"][i],
                        "column \"" + p.columns[i] + "\" specified more than once");
      }
      targets.push_back(c);
    }
    if (targets.empty() && !p.default_values) {
      for (size_t i = 0; i < cols.size(); ++i) targets.push_back(i);
    }
    SLUICE_ASSIGN_OR_RETURN(QueryRows source, Source(p, table, targets, scope));
    // Without a column list, fewer values fill the first columns.
    if (p.columns.empty() && source.columns.size() < targets.size())
      targets.resize(source.columns.size());
    if (source.columns.size() != targets.size()) {
      return Status::InvalidArgument(
          FormatSqlError(sql_, static_cast<int>(p.source_offset),
                         source.columns.size() > targets.size()
                             ? "INSERT has more expressions than target columns"
                             : "INSERT has more target columns than expressions"));
    }
    // Identity columns: GENERATED ALWAYS takes a value only with OVERRIDING
    // SYSTEM VALUE (a DEFAULT in every row is no value); OVERRIDING USER
    // VALUE leaves every identity column to its sequence.
    std::vector<bool> ignored(targets.size(), false);
    for (size_t j = 0; j < targets.size(); ++j) {
      const int c = static_cast<int>(targets[j]);
      const auto has = [c](const std::vector<int>& v) {
        return std::find(v.begin(), v.end(), c) != v.end();
      };
      if (p.overriding_user && (has(table.identity_always) || has(table.identity_by_default))) {
        ignored[j] = true;
        continue;
      }
      if (!has(table.identity_always) || p.overriding_system) continue;
      size_t defaults = 0;
      for (size_t k = 0; k < p.defaults.size(); ++k) defaults += p.defaults[k].second == j;
      if (p.default_values || (defaults > 0 && defaults == source.rows.size())) continue;
      const std::string& name = cols[targets[j]].name;
      const Json& at = j < body.value("cols", Json::array()).size() ? body["cols"][j] : body;
      return SqlError(sql_, at,
                      "cannot insert a non-DEFAULT value into column \"" + name + "\". Column \"" +
                          name +
                          "\" is an identity column defined as GENERATED ALWAYS: use "
                          "OVERRIDING SYSTEM VALUE to override");
    }
    Part part;
    TableChange change{p.table, {}, {}};
    // The source as rows of the table: for RETURNING and ON CONFLICT, and
    // the rows themselves when values go to parts of columns.
    SLUICE_ASSIGN_OR_RETURN(std::optional<Built> table_rows,
                            SourceRows(p, table, targets, source.columns.size(), body));
    if (!p.column_paths.empty()) {
      // Values for parts of columns: the rows are the table's, built by
      // the query that sets those parts.
      SLUICE_ASSIGN_OR_RETURN(QueryRows built, Query(scope, *table_rows));
      source.rows.clear();
      for (const Row& r : built.rows) {
        Row row(cols.size(), Value::Null());
        for (size_t c = 0; c < cols.size(); ++c) {
          if (r[c].is_null()) continue;
          Status s = AssignValue(r[c], built.columns[c].type, cols[c].type, &row[c]);
          if (!s.ok()) return Status(s.code(), "column \"" + cols[c].name + "\": " + s.message());
        }
        change.inserted.push_back(std::move(row));
      }
    }
    // A column left to its sequence (not named, DEFAULT in a VALUES row, or
    // ignored) takes the sequence's next values, row after row.
    std::set<std::pair<size_t, size_t>> default_cells;  // (row, source column)
    for (size_t k = 0; k < p.defaults.size() && k < p.default_rows.size(); ++k)
      default_cells.emplace(p.default_rows[k], p.defaults[k].second);
    auto from_sequence = [&](size_t i, size_t c) {
      if (c >= table.default_sequences.size() || table.default_sequences[c].empty()) return false;
      for (size_t j = 0; j < targets.size(); ++j) {
        if (targets[j] == c && !ignored[j] && !default_cells.count({i, j})) return false;
      }
      return true;
    };
    std::map<size_t, std::vector<Value>> next_values;  // by column
    if (p.column_paths.empty()) {
      for (size_t c = 0; c < table.default_sequences.size(); ++c) {
        size_t n = 0;
        for (size_t i = 0; i < source.rows.size(); ++i) n += from_sequence(i, c);
        if (n == 0) continue;
        SLUICE_ASSIGN_OR_RETURN(
            QueryRows values, env_.query("SELECT nextval(" +
                                         QuoteString(QuoteIdentifier(table.default_sequences[c])) +
                                         ") FROM generate_series(1, " + std::to_string(n) + ")"));
        for (Row& v : values.rows) next_values[c].push_back(std::move(v[0]));
      }
    }
    for (size_t i = 0; i < source.rows.size(); ++i) {
      const Row& r = source.rows[i];
      Row row(cols.size(), Value::Null());
      for (size_t c = 0; c < table.defaults.size() && c < row.size(); ++c)
        row[c] = table.defaults[c];
      for (size_t j = 0; j < targets.size(); ++j) {
        const size_t c = targets[j];
        if (ignored[j]) continue;
        if (r[j].is_null()) {
          row[c] = Value::Null();
          continue;
        }
        Status s = AssignValue(r[j], source.columns[j].type, cols[c].type, &row[c]);
        if (!s.ok()) return Status(s.code(), "column \"" + cols[c].name + "\": " + s.message());
      }
      for (auto& [c, values] : next_values) {
        if (!from_sequence(i, c) || values.empty()) continue;
        Status s = CastValue(values.front(), SqlType::BigInt(), cols[c].type, &row[c]);
        if (!s.ok()) return Status(s.code(), "column \"" + cols[c].name + "\": " + s.message());
        values.erase(values.begin());
      }
      change.inserted.push_back(std::move(row));
    }
    if (!next_values.empty()) {
      // What RETURNING and ON CONFLICT read: the rows as they are, not the
      // query that made them (which would take new values).
      Built rows(sql_);
      rows.Add(ConstantRows(cols, change.inserted, env_.type_name));
      table_rows = std::move(rows);
    }
    if (p.on_conflict) {
      SLUICE_RETURN_IF_ERROR(Conflicts(p, body, table, *table_rows, scope, &change));
    }
    part.tag = "INSERT 0 " + std::to_string(change.inserted.size());
    if (p.on_conflict) table_rows.reset();  // RETURNING reads the rows that went in
    SLUICE_RETURN_IF_ERROR(Returning(p.returning, p.returning_offset,
                                     p.alias.empty() ? p.table : p.alias, table, change.inserted,
                                     table_rows, scope, &part));
    part.changes.push_back(std::move(change));
    return part;
  }

  // A new row's expressions over the row `q_name` of `table`: its columns,
  // the SET items' expressions in place of theirs (`targets`: their parse
  // trees, for errors). Items that name one column apply in order: parts
  // of it (c[1], c.f) compose, and a whole value replaces what came before
  // (SET x = 3, x = 4 sets 4, as SQLite does; PostgreSQL refuses it).
  Result<std::vector<std::string>> NewRow(const std::string& q_name, const std::string& table,
                                          const DmlTable& def, const std::vector<SetItem>& sets,
                                          const Json& targets) {
    const std::vector<Column>& cols = def.columns;
    std::vector<std::string> exprs(cols.size());
    for (size_t i = 0; i < cols.size(); ++i)
      exprs[i] = q_name + "." + QuoteIdentifier(cols[i].name);
    for (size_t k = 0; k < sets.size(); ++k) {
      const SetItem& item = sets[k];
      SLUICE_ASSIGN_OR_RETURN(size_t c, ColumnOf(cols, table, item.column, targets[k]));
      if (item.to_default) {
        if (!item.path.empty()) {
          return SqlUnsupported(sql_, targets[k], "DEFAULT for an element or a field");
        }
        if (c < def.default_sequences.size() && !def.default_sequences[c].empty()) {
          exprs[c] =
              CastTo("nextval(" + QuoteString(QuoteIdentifier(def.default_sequences[c])) + ")",
                     cols[c].type.WithNullable(true), env_.type_name);
          continue;
        }
        exprs[c] = Literal(DefaultOf(def, c), cols[c].type.WithNullable(true), env_.type_name);
        continue;
      }
      if (std::find(def.identity_always.begin(), def.identity_always.end(), static_cast<int>(c)) !=
          def.identity_always.end()) {
        return SqlError(sql_, targets[k],
                        "column \"" + cols[c].name +
                            "\" can only be updated to DEFAULT. Column \"" + cols[c].name +
                            "\" is an identity column defined as GENERATED ALWAYS");
      }
      SLUICE_ASSIGN_OR_RETURN(
          exprs[c], Assign(exprs[c], cols[c].type, item, 0, "\"" + item.column + "\"", targets[k]));
    }
    return exprs;
  }

  // What PostgreSQL calls `type` in messages (a composite type by name).
  std::string TypeText(const SqlType& type) const {
    if (type.id() == TypeId::kRow && env_.type_name) {
      std::string name = env_.type_name(type.WithNullable(true));
      if (!name.empty()) return name;
    }
    return PgTypeName(type);
  }

  // `base` (of `type`) with item.path[step...] in it set to item.expr, as an
  // expression; `what` names the place for errors.
  Result<std::string> Assign(const std::string& base, const SqlType& type, const SetItem& item,
                             size_t step, const std::string& what, const Json& node) {
    if (step == item.path.size()) return CastTo("(" + item.expr + ")", type, env_.type_name);
    const SetItem::Step& s = item.path[step];
    if (!s.field.empty()) {
      // ROW(the other fields, the new one), of the type.
      const auto& names = type.field_names();
      const auto it = std::find(names.begin(), names.end(), s.field);
      if (type.id() != TypeId::kRow || it == names.end()) {
        return SqlError(
            sql_, node,
            "cannot assign to field \"" + s.field + "\" of column " + what +
                (type.id() == TypeId::kRow
                     ? " because there is no such column in data type " + TypeText(type)
                     : " because its type " + TypeText(type) + " is not a composite type"));
      }
      std::string row = "ROW(";
      for (size_t f = 0; f < names.size(); ++f) {
        const std::string field = "(" + base + ")." + QuoteIdentifier(names[f]);
        const SqlType ft = SqlType(type.children()[f]).WithNullable(true);
        std::string e;
        if (names.begin() + static_cast<ptrdiff_t>(f) == it) {
          SLUICE_ASSIGN_OR_RETURN(e, Assign(field, ft, item, step + 1, what, node));
        } else {
          e = CastTo(field, ft, env_.type_name);
        }
        row += (f ? ", " : "") + e;
      }
      return CastTo(row + ")", type, env_.type_name);
    }
    if (type.id() != TypeId::kArray) {
      return SqlError(
          sql_, node,
          "cannot subscript type " + TypeText(type) + " because it does not support subscripting");
    }
    if (!ArrayHoldsSubArrays(type) && s.subscripts.size() > 1) {
      return SqlUnsupported(sql_, node, "several subscripts of an array of arrays or rows");
    }
    const SqlType elem = SqlType(type.children()[0]).WithNullable(true);
    auto subscript = [](const std::string& text) { return "CAST((" + text + ") AS INTEGER)"; };
    if (s.slice) {
      // sluice_array_assign_slice(a, v, omitted, l1, u1, ...): bit 2k of
      // `omitted` for lower bound k left out, 2k + 1 for upper bound k.
      if (step + 1 != item.path.size()) {
        return SqlUnsupported(sql_, node, "a field or subscript after an array slice");
      }
      int64_t omitted = 0;
      std::string bounds;
      for (size_t k = 0; k < s.subscripts.size(); ++k) {
        const auto& [lower, upper] = s.subscripts[k];
        if (lower.empty()) omitted |= int64_t{1} << (2 * k);
        if (upper.empty()) omitted |= int64_t{1} << (2 * k + 1);
        bounds += ", " + (lower.empty() ? std::string("0") : subscript(lower));
        bounds += ", " + (upper.empty() ? std::string("0") : subscript(upper));
      }
      return "sluice_array_assign_slice(" + base + ", " +
             CastTo("(" + item.expr + ")", type, env_.type_name) + ", " + std::to_string(omitted) +
             bounds + ")";
    }
    std::string subscripts, read = "(" + base + ")";
    for (const auto& [lower, upper] : s.subscripts) {
      subscripts += ", " + subscript(upper);
      read += "[" + upper + "]";
    }
    std::string value;
    SLUICE_ASSIGN_OR_RETURN(value, Assign(read, elem, item, step + 1, what, node));
    return "sluice_array_assign(" + base + ", " + value + subscripts + ")";
  }

  // `r` (a query's row: the new row, then the old one) as a change: the old
  // row goes, the new one, cast to the table's types, comes.
  static Status Replace(const Row& r, const std::vector<Column>& types,
                        const std::vector<Column>& cols, TableChange* change) {
    const size_t n = cols.size();
    Row new_row(n, Value::Null());
    for (size_t i = 0; i < n; ++i) {
      if (r[i].is_null()) continue;
      Status s = AssignValue(r[i], types[i].type, cols[i].type, &new_row[i]);
      if (!s.ok()) return Status(s.code(), "column \"" + cols[i].name + "\": " + s.message());
    }
    change->deleted.emplace_back(r.begin() + static_cast<ptrdiff_t>(n),
                                 r.begin() + static_cast<ptrdiff_t>(2 * n));
    change->inserted.push_back(std::move(new_row));
    return Status::OK();
  }

  // INSERT ... ON CONFLICT: the proposed rows in `change` whose key a row
  // of the table (or an earlier proposed row) has are left out (DO
  // NOTHING), or change that row instead (DO UPDATE, `excluded` naming the
  // proposed row; `source_rows`, the proposed rows as SourceRows gives them).
  Status Conflicts(const InsertParts& p, const Json& body, const DmlTable& table,
                   const Built& source_rows, const Scope& scope, TableChange* change) {
    const auto& cols = table.columns;
    const Json& at = body["onConflictClause"];
    std::vector<size_t> key;
    for (const std::string& c : p.conflict_columns) {
      SLUICE_ASSIGN_OR_RETURN(size_t k, ColumnOf(cols, p.table, c, at));
      key.push_back(k);
    }
    std::vector<size_t> primary(table.key.begin(), table.key.end());
    if (key.empty()) {
      if (p.do_update) {
        return SqlError(sql_, at,
                        "ON CONFLICT DO UPDATE requires inference specification or constraint "
                        "name");
      }
      key = primary;
      if (key.empty()) return Status::OK();  // nothing is unique: no conflict
    }
    if (!primary.empty() && std::set<size_t>(key.begin(), key.end()) !=
                                std::set<size_t>(primary.begin(), primary.end())) {
      return SqlError(sql_, at,
                      "there is no unique or exclusion constraint matching the ON CONFLICT "
                      "specification (the primary key of " +
                          p.table + " is the only one)");
    }
    auto key_of = [&](const Row& r) -> std::optional<std::string> {
      Row k;
      for (size_t c : key) {
        if (r[c].is_null()) return std::nullopt;  // NULLs never conflict
        k.push_back(r[c]);
      }
      return RowKey(k);
    };
    std::vector<Row> proposed = std::move(change->inserted);
    change->inserted.clear();
    if (proposed.empty()) return Status::OK();
    const std::string name = p.alias.empty() ? p.table : p.alias;
    const std::string q_name = QuoteIdentifier(name);
    std::vector<std::string> names;
    for (const Column& c : cols) names.push_back(c.name);
    std::string on;
    for (size_t c : key) {
      on += std::string(on.empty() ? "" : " AND ") + q_name + "." + QuoteIdentifier(cols[c].name) +
            " = \"excluded\"." + QuoteIdentifier(cols[c].name);
    }
    // The proposed rows as a relation "excluded": the source again, its
    // columns cast to the table's (a query, not a constant of its rows, so
    // that a large INSERT stays cheap to plan).
    Built excluded(sql_);
    excluded.Add("(").Append(source_rows);
    excluded.Add(") AS \"excluded\"" + ColumnList(names));
    // The table's rows that have a proposed key.
    Built q(sql_);
    q.Add("SELECT " + q_name + ".* FROM " + QuoteIdentifier(p.table) + " AS " + q_name +
          " WHERE EXISTS (SELECT 1 FROM ");
    q.Append(excluded).Add(" WHERE " + on + ")");
    SLUICE_ASSIGN_OR_RETURN(QueryRows existing, Query(scope, q));
    std::set<std::string> taken;
    for (const Row& r : existing.rows) taken.insert(*key_of(r));
    std::set<std::string> proposed_keys;
    bool updates = false;  // a proposed row meets a row of the table
    for (Row& r : proposed) {
      const auto k = key_of(r);
      if (!k) {
        change->inserted.push_back(std::move(r));
        continue;
      }
      if (p.do_update && (proposed_keys.count(*k) > 0)) {
        return Status::InvalidArgument(FormatSqlError(
            sql_, at.value("location", -1),
            "ON CONFLICT DO UPDATE command cannot affect row a second time (two proposed rows "
            "have one key)"));
      }
      const bool conflict = taken.count(*k) > 0 || proposed_keys.count(*k) > 0;
      proposed_keys.insert(*k);
      if (!conflict) change->inserted.push_back(std::move(r));
      updates = updates || (conflict && p.do_update);
    }
    if (!updates) return Status::OK();
    // DO UPDATE: the new row, then the old one, of each row a proposed row
    // meets.
    SLUICE_ASSIGN_OR_RETURN(std::vector<std::string> exprs,
                            NewRow(q_name, p.table, table, p.conflict_sets, at["targetList"]));
    Built u(sql_);
    u.Add("SELECT ");
    for (const std::string& e : exprs) u.Add(e + ", ");
    // A proposed row changes each row it meets: one, under a primary key
    // (two proposed rows with one key were an error above).
    u.Add(q_name + ".* FROM " + QuoteIdentifier(p.table) + " AS " + q_name + " JOIN ");
    u.Append(excluded).Add(" ON " + on);
    if (!p.conflict_where.empty())
      u.Add(" WHERE ").Original(p.conflict_where_offset, p.conflict_where.size());
    SLUICE_ASSIGN_OR_RETURN(QueryRows rows, Query(scope, u));
    for (const Row& r : rows.rows) SLUICE_RETURN_IF_ERROR(Replace(r, rows.columns, cols, change));
    return Status::OK();
  }

  Result<Part> Delete(const DeleteParts& p, const Json& body, const Scope& scope) {
    SLUICE_ASSIGN_OR_RETURN(DmlTable table, Table(p.table, body["relation"]));
    if (table.append_only) {
      return Status::InvalidArgument(
          FormatSqlError(sql_, body["relation"].value("location", -1),
                         "table " + p.table + " is append_only: it takes no deletes"));
    }
    const std::string name = p.alias.empty() ? p.table : p.alias;
    Built q(sql_);
    q.Add("SELECT " + QuoteIdentifier(name) + ".* FROM " + QuoteIdentifier(p.table) + " AS " +
          QuoteIdentifier(name));
    if (!p.using_.empty()) {
      // Each row once, however many rows of USING it meets.
      q.Add(" WHERE EXISTS (SELECT 1 FROM ").Original(p.using_offset, p.using_.size());
      if (!p.where.empty()) q.Add(" WHERE ").Original(p.where_offset, p.where.size());
      q.Add(")");
    } else if (!p.where.empty()) {
      q.Add(" WHERE ").Original(p.where_offset, p.where.size());
    }
    SLUICE_ASSIGN_OR_RETURN(QueryRows rows, Query(scope, q));
    Part part;
    part.tag = "DELETE " + std::to_string(rows.rows.size());
    if (!p.using_.empty() && !p.returning.empty()) {
      // RETURNING may read USING's columns: each deleted row with the first
      // row of USING it met (RETURNING * is both, as in PostgreSQL).
      Built r(sql_);
      r.Add("SELECT " + QuoteIdentifier(name) + ".*, ")
          .Original(p.returning_offset, p.returning.size())
          .Add(" FROM " + QuoteIdentifier(p.table) + " AS " + QuoteIdentifier(name) + ", ")
          .Original(p.using_offset, p.using_.size());
      if (!p.where.empty()) r.Add(" WHERE ").Original(p.where_offset, p.where.size());
      SLUICE_ASSIGN_OR_RETURN(QueryRows met, Query(scope, r));
      ReturnedWithOthers(met, table.columns.size(), rows.rows, &part);
    } else {
      SLUICE_RETURN_IF_ERROR(
          Returning(p.returning, p.returning_offset, name, table, rows.rows, q, scope, &part));
    }
    part.changes.push_back({p.table, std::move(rows.rows), {}});
    return part;
  }

  Result<Part> Update(const UpdateParts& p, const Json& body, const Scope& scope) {
    SLUICE_ASSIGN_OR_RETURN(DmlTable table, Table(p.table, body["relation"]));
    if (table.append_only) {
      return Status::InvalidArgument(
          FormatSqlError(sql_, body["relation"].value("location", -1),
                         "table " + p.table + " is append_only: it takes no updates"));
    }
    const auto& cols = table.columns;
    const size_t n = cols.size();
    const std::string name = p.alias.empty() ? p.table : p.alias;
    const std::string q_name = QuoteIdentifier(name);
    SLUICE_ASSIGN_OR_RETURN(std::vector<std::string> exprs,
                            NewRow(q_name, p.table, table, p.sets, body["targetList"]));
    // The new row, then the old one, then (when RETURNING may read FROM's
    // columns) RETURNING's values: over the new row and the row of FROM,
    // or for RETURNING *, the old row and FROM's columns.
    // A value that nextval() gave is read back from the rows, never asked
    // for again.
    bool takes_values = CallsSequenceFunction(body);
    for (const SetItem& item : p.sets) {
      for (size_t c = 0; c < cols.size(); ++c) {
        takes_values = takes_values ||
                       (item.to_default && cols[c].name == item.column &&
                        c < table.default_sequences.size() && !table.default_sequences[c].empty());
      }
    }
    const bool returns_from = !p.from.empty() && !p.returning.empty();
    const bool returns_all = returns_from && p.returning == "*";
    if (returns_from && !returns_all && takes_values) {
      // RETURNING's subquery would compute the new row, and call nextval(),
      // again.
      return Status::InvalidArgument(FormatSqlError(
          sql_, static_cast<int>(p.returning_offset),
          "RETURNING over FROM in an UPDATE that takes sequence values is not supported yet"));
    }
    Built q(sql_);
    q.Add("SELECT ");
    for (const std::string& e : exprs) q.Add(e + ", ");
    q.Add(q_name + ".*");
    if (returns_all) q.Add(", *");
    if (returns_from && !returns_all) q.Add(", \"?returning\".*");
    q.Add(" FROM " + QuoteIdentifier(p.table) + " AS " + q_name);
    if (!p.from.empty()) q.Add(", ").Original(p.from_offset, p.from.size());
    if (returns_from && !returns_all) {
      std::vector<std::string> names;
      q.Add(", LATERAL (SELECT ")
          .Original(p.returning_offset, p.returning.size())
          .Add(" FROM (SELECT ");
      for (size_t i = 0; i < n; ++i) {
        q.Add(std::string(i ? ", " : "") + CastTo(exprs[i], cols[i].type, env_.type_name));
        names.push_back(cols[i].name);
      }
      q.Add(") AS " + q_name + ColumnList(names) + ") AS \"?returning\"");
    }
    if (!p.where.empty()) q.Add(" WHERE ").Original(p.where_offset, p.where.size());
    SLUICE_ASSIGN_OR_RETURN(QueryRows rows, Query(scope, q));
    // The new rows as a query of their own (without FROM, whose rows
    // choose among matches here).
    std::optional<Built> new_rows;
    if (p.from.empty() && !takes_values) {
      new_rows.emplace(sql_);
      new_rows->Add("SELECT ");
      for (size_t i = 0; i < exprs.size(); ++i) {
        new_rows->Add(std::string(i ? ", " : "") + CastTo(exprs[i], cols[i].type, env_.type_name));
      }
      new_rows->Add(" FROM " + QuoteIdentifier(p.table) + " AS " + q_name);
      if (!p.where.empty()) new_rows->Add(" WHERE ").Original(p.where_offset, p.where.size());
    }
    std::vector<const Row*> chosen;
    if (p.from.empty()) {
      for (const Row& r : rows.rows) chosen.push_back(&r);
    } else {
      // A row that meets several rows of FROM changes once, by the first;
      // every copy of it changes.
      Built m(sql_);
      m.Add("SELECT " + q_name + ".* FROM " + QuoteIdentifier(p.table) + " AS " + q_name +
            " WHERE EXISTS (SELECT 1 FROM ");
      m.Original(p.from_offset, p.from.size());
      if (!p.where.empty()) m.Add(" WHERE ").Original(p.where_offset, p.where.size());
      m.Add(")");
      SLUICE_ASSIGN_OR_RETURN(QueryRows matched, Query(scope, m));
      std::map<std::string, const Row*> first;
      for (const Row& r : rows.rows)
        first.emplace(RowKey(Row(r.begin() + static_cast<ptrdiff_t>(n),
                                 r.begin() + static_cast<ptrdiff_t>(2 * n))),
                      &r);
      for (const Row& r : matched.rows) {
        auto it = first.find(RowKey(r));
        if (it != first.end()) chosen.push_back(it->second);
      }
    }
    TableChange change{p.table, {}, {}};
    for (const Row* r : chosen) SLUICE_RETURN_IF_ERROR(Replace(*r, rows.columns, cols, &change));
    Part part;
    part.tag = "UPDATE " + std::to_string(change.inserted.size());
    if (returns_from) {
      part.returns = true;
      const size_t from = returns_all ? 3 * n : 2 * n;  // RETURNING *: the new row for the old
      if (returns_all) part.returned.columns = cols;
      part.returned.columns.insert(part.returned.columns.end(),
                                   rows.columns.begin() + static_cast<ptrdiff_t>(from),
                                   rows.columns.end());
      for (size_t i = 0; i < chosen.size(); ++i) {
        Row out = returns_all ? change.inserted[i] : Row();
        out.insert(out.end(), chosen[i]->begin() + static_cast<ptrdiff_t>(from), chosen[i]->end());
        part.returned.rows.push_back(std::move(out));
      }
    } else {
      SLUICE_RETURN_IF_ERROR(Returning(p.returning, p.returning_offset, name, table,
                                       change.inserted, new_rows, scope, &part));
    }
    part.changes.push_back(std::move(change));
    return part;
  }

  const std::string& sql_;
  const DmlEnv& env_;
};

}  // namespace

Result<std::string> TargetTableName(const Json& rel, std::string_view sql) {
  const std::string schema = rel.value("schemaname", "");
  if (!schema.empty() && schema != "public") {
    return Status::InvalidArgument(
        FormatSqlError(sql, rel.value("location", -1),
                       "schema \"" + schema + "\" holds no tables: the pipeline's are in public"));
  }
  return rel.value("relname", "");
}

Result<InsertParts> ParseInsert(const std::string& text) {
  return ParseOne<InsertParts>(text, "InsertStmt", InsertClauses);
}
Result<DeleteParts> ParseDelete(const std::string& text) {
  return ParseOne<DeleteParts>(text, "DeleteStmt", DeleteClauses);
}
Result<UpdateParts> ParseUpdate(const std::string& text) {
  return ParseOne<UpdateParts>(text, "UpdateStmt", UpdateClauses);
}

bool ChangesData(const Json& stmt) {
  if (stmt.is_null() || stmt.empty()) return false;
  if (IsChangeNode(stmt)) return true;
  if (!stmt.contains("SelectStmt")) return false;
  const Json& with = stmt["SelectStmt"].value("withClause", Json::object());
  for (const Json& cte : with.value("ctes", Json::array())) {
    if (IsChangeNode(cte["CommonTableExpr"]["ctequery"])) return true;
  }
  return false;
}

bool ReturnsData(const Json& stmt) {
  return stmt.contains("SelectStmt") || Body(stmt).contains("returningList");
}

namespace {

// Orders rows by their values, NULL first.
struct RowLess {
  bool operator()(const Row& a, const Row& b) const {
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
      if (a[i].is_null() || b[i].is_null()) {
        if (a[i].is_null() != b[i].is_null()) return a[i].is_null();
        continue;
      }
      const int c = CompareValues(a[i], b[i]);
      if (c != 0) return c < 0;
    }
    return a.size() < b.size();
  }
};

// PostgreSQL changes a row at most once in a statement: a part (a WITH
// query, or the statement) that updates or deletes a row an earlier part
// changed leaves it as it is, and which change stands is, in its words,
// not easy to predict. Sluice refuses such a statement: an error if two
// parts delete (or update) rows of equal values of one table.
Status CheckRowsChangedOnce(const std::string& sql, const std::vector<TableChange>& changes) {
  std::map<std::string, std::map<Row, int, RowLess>> deleted_by;  // table -> row -> part
  for (const TableChange& c : changes) {
    auto& rows = deleted_by[c.table];
    for (const Row& r : c.deleted) {
      auto [it, fresh] = rows.emplace(r, c.part);
      if (!fresh && it->second != c.part) {
        return Status::Unimplemented(FormatSqlError(
            sql, c.location,
            "A statement whose parts change the same row of " + c.table +
                " twice (PostgreSQL keeps one of the changes) is not supported yet"));
      }
    }
  }
  return Status::OK();
}

}  // namespace

Result<DmlOutcome> RunDml(const std::string& sql, const DmlEnv& env) {
  SLUICE_ASSIGN_OR_RETURN(Json tree, ParseSql(sql));
  const Json& stmts = tree["stmts"];
  if (stmts.size() != 1) return Status::InvalidArgument("one statement at a time");
  const Json& stmt = stmts[0]["stmt"];
  const size_t begin = SkipSpace(sql, static_cast<size_t>(stmts[0].value("stmt_location", 0)));
  Planner planner(sql, env);
  SLUICE_ASSIGN_OR_RETURN(Part part, planner.Run(stmt, begin, TrimEnd(sql).size(), {}));
  DmlOutcome out;
  out.changes = std::move(planner.changes);
  for (TableChange& c : part.changes) {
    c.part = planner.parts_run + 1;
    c.location = static_cast<int>(begin);
    out.changes.push_back(std::move(c));
  }
  SLUICE_RETURN_IF_ERROR(CheckRowsChangedOnce(sql, out.changes));
  for (const TableChange& c : out.changes) {
    if (c.inserted.empty()) continue;
    SLUICE_ASSIGN_OR_RETURN(DmlTable table, env.table(c.table));
    if (table.checks.empty()) continue;
    Schema types;
    for (const Column& col : table.columns) types.push_back(col.type);
    for (const Row& r : c.inserted)
      SLUICE_RETURN_IF_ERROR(CheckRow(c.table, table.checks, types, r));
  }
  out.returns_rows = part.returns;
  out.returned = std::move(part.returned);
  out.tag = std::move(part.tag);
  return out;
}

}  // namespace sluice::sql
