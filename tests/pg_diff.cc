// Differential testing against PostgreSQL: random schemas, random changes
// (inserts and deletes over many steps) and random queries from the
// supported grammar. Every query is a view, maintained by Sluice step by step;
// after every step it must hold exactly what PostgreSQL answers for the same
// query over the same tables.
//
//   pg_diff [--seed S] [--queries N] [--steps M] [--workers W] [--hosts H] [--verbose]
//
// With --hosts H, the view runs on H runtimes joined by TCP exchanges
// (LoopbackCluster), its output gathered on the last host, as a pipeline on
// many hosts runs it.
//
// Starts its own throwaway PostgreSQL cluster (initdb, as the postgres user
// when run as root), on a Unix socket in a temporary directory, with no TCP
// listener; stops and removes it at the end. Prints each mismatch with its
// seed, and ends with "N passed, N failed" alone on a line.
#include <libpq-fe.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "dataflow/operators/input.h"
#include "dataflow/operators/output.h"
#include "pg_cluster.h"
#include "runtime/loopback_cluster.h"
#include "sql/binder.h"
#include "sql/expr.h"
#include "sql/lower.h"
#include "sql/program.h"
#include "types/row_codec.h"
#include "zset/batch_builder.h"
#include "zset/cursor.h"
#include "zset/merge.h"

namespace sluice {
namespace {

using sql::Json;

// ---------------------------------------------------------------- generator

// hop() and tumble() over integers, as docs/sql.md defines them for
// timestamps, so that PostgreSQL can answer window queries.
const char* kWindowFunctions = R"(
CREATE OR REPLACE FUNCTION hop(ts bigint, slide bigint, size bigint, origin bigint DEFAULT 0)
RETURNS TABLE (window_start bigint, window_end bigint)
LANGUAGE sql IMMUTABLE AS $$
  SELECT s, s + size
  FROM (SELECT origin + floor((ts - origin)::numeric / slide)::bigint * slide - n * slide AS s
        FROM generate_series(0, (size + slide - 1) / slide) AS n) q
  WHERE s + size > ts
$$;
CREATE OR REPLACE FUNCTION tumble(ts bigint, size bigint, origin bigint DEFAULT 0)
RETURNS TABLE (window_start bigint, window_end bigint)
LANGUAGE sql IMMUTABLE AS $$ SELECT * FROM hop(ts, size, size, origin) $$;
)";

struct GenTable {
  std::string name;
  std::vector<std::string> cols;  // after "rid"
  std::vector<std::string> types;
};

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}

  int Pick(int n) { return static_cast<int>(rng_() % static_cast<uint64_t>(n)); }
  bool Chance(int percent) { return Pick(100) < percent; }

  std::vector<GenTable> Schema() {
    std::vector<GenTable> tables;
    int n = 2 + Pick(2);
    for (int t = 0; t < n; ++t) {
      GenTable g;
      g.name = "t" + std::to_string(t);
      int cols = 2 + Pick(3);
      for (int c = 0; c < cols; ++c) {
        g.cols.push_back(std::string(1, static_cast<char>('a' + c)));
        // The first column is an integer, as most shapes key on it.
        int k = c == 0 ? Pick(8) : Pick(16);
        g.types.push_back(k < 6    ? "INTEGER"
                          : k < 8  ? "BIGINT"
                          : k < 10 ? "TEXT"
                          : k < 11 ? "NUMERIC(10,2)"
                          : k < 12 ? "NUMERIC(40,4)"
                          : k < 13 ? "DOUBLE PRECISION"
                          : k < 14 ? "REAL"
                          : k < 15 ? "DATE"
                                   : "TIMESTAMP");
      }
      tables.push_back(g);
    }
    return tables;
  }

  static bool IsInt(const std::string& type) { return type == "INTEGER" || type == "BIGINT"; }
  // NUMERIC(40,4) declares more digits than an int128 holds (its values
  // here have fewer); both hold NaN.
  static bool IsNumeric(const std::string& type) {
    return type == "NUMERIC(10,2)" || type == "NUMERIC(40,4)";
  }

  std::string Literal(const std::string& type) {
    if (Chance(12)) return "NULL";
    if (type == "TEXT") {
      static const char* kWords[] = {"a", "b", "ab", "ba", "", "zz", "Ab c", "aab"};
      return std::string("'") + kWords[Pick(8)] + "'";
    }
    if (IsNumeric(type)) {
      if (Chance(6)) return "'NaN'";
      std::string v = std::to_string(Pick(2001) - 1000) + "." + std::to_string(Pick(10)) +
                      std::to_string(Pick(10));
      if (type == "NUMERIC(40,4)" && Chance(30)) v = "123456789012345" + v.substr(v[0] == '-');
      return v;
    }
    if (type == "DOUBLE PRECISION" || type == "REAL") {
      static const char* kFloats[] = {"0.5", "-1.25", "1e-3", "3", "250", "-0.1", "7.75", "1e6"};
      return kFloats[Pick(8)];
    }
    if (type == "DATE") {
      return "'20" + std::to_string(10 + Pick(20)) + "-0" + std::to_string(1 + Pick(9)) + "-" +
             std::to_string(10 + Pick(19)) + "'";
    }
    if (type == "TIMESTAMP") {
      return "'2024-0" + std::to_string(1 + Pick(9)) + "-1" + std::to_string(Pick(10)) + " " +
             std::to_string(10 + Pick(14)) + ":" + std::to_string(10 + Pick(50)) + ":0" +
             std::to_string(Pick(10)) + "'";
    }
    return std::to_string(Pick(9) - 3);
  }

  // A function of one column of `t`, from the functions of its type.
  std::string FuncExpr(const GenTable& t, const std::string& q) {
    size_t i = static_cast<size_t>(Pick(static_cast<int>(t.cols.size())));
    const std::string c = q + t.cols[i];
    const std::string& ty = t.types[i];
    std::vector<std::string> f;
    if (ty == "TEXT") {
      f = {"upper(" + c + ")",
           "lower(" + c + ")",
           "length(" + c + ")",
           "substr(" + c + ", 2)",
           "lpad(" + c + ", 4, '*')",
           "rpad(" + c + ", 3)",
           "reverse(" + c + ")",
           "replace(" + c + ", 'a', 'xy')",
           "split_part(" + c + ", 'a', 2)",
           "initcap(" + c + ")",
           "concat(" + c + ", '-', " + c + ")",
           "concat_ws('/', " + c + ", NULL, 'k')",
           "md5(" + c + ")",
           "left(" + c + ", 1)",
           "right(" + c + ", -1)",
           "btrim(" + c + ", 'z')",
           "translate(" + c + ", 'ab', 'b')",
           "strpos(" + c + ", 'b')",
           "regexp_replace(" + c + ", 'a+', 'X', 'g')",
           "starts_with(" + c + ", 'a')",
           c + " || 'q'",
           c + " LIKE 'a%'",
           c + " ~ '^b'",
           "repeat(" + c + ", 2)",
           "format('%s|%L', " + c + ", " + c + ")",
           "string_to_array(" + c + ", 'b')",
           c + " SIMILAR TO '(a|b)%'",
           "ascii(" + c + ")",
           "octet_length(" + c + ")"};
    } else if (IsNumeric(ty)) {
      f = {"abs(" + c + ")",
           "round(" + c + ", 1)",
           "trunc(" + c + ", 1)",
           "floor(" + c + ")",
           "ceil(" + c + ")",
           "sign(" + c + ")",
           c + " * 2",
           c + " + 1.5",
           "-" + c,
           c + " / 3",
           "mod(" + c + ", 7)",
           "scale(" + c + ")",
           "round(" + c + ")",
           c + " > 10",
           "CAST(" + c + " AS INTEGER)",
           "CAST(" + c + " AS TEXT)"};
    } else if (ty == "DOUBLE PRECISION" || ty == "REAL") {
      f = {"sqrt(abs(" + c + "))",
           "power(" + c + ", 2)",
           c + " * 1.5",
           "cbrt(" + c + ")",
           "sin(" + c + ")",
           "cos(" + c + ")",
           "atan(" + c + ")",
           "floor(" + c + ")",
           "round(" + c + ")",
           "trunc(" + c + ")",
           "abs(" + c + ")",
           "degrees(" + c + ")",
           "ln(abs(" + c + ") + 1)",
           "CAST(" + c + " AS NUMERIC(12,3))",
           c + " < 1"};
    } else if (ty == "DATE") {
      f = {c + " + 3",
           c + " - 40",
           "extract(year from " + c + ")",
           "extract(dow from " + c + ")",
           "extract(doy from " + c + ")",
           "extract(week from " + c + ")",
           "extract(quarter from " + c + ")",
           "date_part('month', " + c + ")",
           "date_trunc('month', CAST(" + c + " AS TIMESTAMP))",
           c + " + interval '1 month'",
           "CAST(" + c + " AS TEXT)",
           c + " - DATE '2020-01-01'"};
    } else if (ty == "TIMESTAMP") {
      f = {c + " + interval '1 day 2 hours'", "date_trunc('hour', " + c + ")",
           "extract(hour from " + c + ")",    "extract(epoch from " + c + ")",
           c + " - interval '90 minutes'",    "date_part('dow', " + c + ")",
           "CAST(" + c + " AS DATE)",         c + " - TIMESTAMP '2024-01-01 00:00:00'",
           "extract(second from " + c + ")"};
    } else {
      f = {"CAST(" + c + " AS TEXT)",
           "abs(" + c + ")",
           c + " % 5",
           "gcd(" + c + ", 6)",
           "lpad(CAST(" + c + " AS TEXT), 3, '0')",
           c + " ^ 2",
           "to_hex(" + c + ")"};
    }
    return f[static_cast<size_t>(Pick(static_cast<int>(f.size())))];
  }

  // An integer-valued expression over the columns of `t` (prefix `q.`).
  std::string IntExpr(const GenTable& t, const std::string& q, int depth = 0) {
    std::vector<std::string> ints;
    for (size_t i = 0; i < t.cols.size(); ++i) {
      if (IsInt(t.types[i])) ints.push_back(q + t.cols[i]);
    }
    if (ints.empty() || (depth > 1) || Chance(35)) {
      return ints.empty() || Chance(30)
                 ? std::to_string(Pick(7) - 2)
                 : ints[static_cast<size_t>(Pick(static_cast<int>(ints.size())))];
    }
    switch (Pick(6)) {
      case 0:
        return "(" + IntExpr(t, q, depth + 1) + " + " + IntExpr(t, q, depth + 1) + ")";
      case 1:
        return "(" + IntExpr(t, q, depth + 1) + " - " + IntExpr(t, q, depth + 1) + ")";
      case 2:
        return "(" + IntExpr(t, q, depth + 1) + " * " + IntExpr(t, q, depth + 1) + ")";
      case 3:
        return "COALESCE(" + IntExpr(t, q, depth + 1) + ", " + std::to_string(Pick(5)) + ")";
      case 4:
        return "CASE WHEN " + Pred(t, q, depth + 1) + " THEN " + IntExpr(t, q, depth + 1) +
               " ELSE " + IntExpr(t, q, depth + 1) + " END";
      default:
        return "(" + IntExpr(t, q, depth + 1) + " / NULLIF(" + IntExpr(t, q, depth + 1) + ", 0))";
    }
  }

  std::string Pred(const GenTable& t, const std::string& q, int depth = 0) {
    if (depth > 1 || Chance(50)) {
      switch (Pick(5)) {
        case 0:
          return IntExpr(t, q, depth + 1) + " IS NULL";
        case 1:
          return IntExpr(t, q, depth + 1) + " BETWEEN " + std::to_string(Pick(5) - 3) + " AND " +
                 std::to_string(Pick(5));
        case 2:
          return IntExpr(t, q, depth + 1) + " IN (" + std::to_string(Pick(4)) + ", " +
                 std::to_string(Pick(4) - 2) + ", NULL)";
        default: {
          static const char* kOps[] = {"=", "<>", "<", "<=", ">", ">="};
          return IntExpr(t, q, depth + 1) + " " + kOps[Pick(6)] + " " + IntExpr(t, q, depth + 1);
        }
      }
    }
    switch (Pick(3)) {
      case 0:
        return "(" + Pred(t, q, depth + 1) + " AND " + Pred(t, q, depth + 1) + ")";
      case 1:
        return "(" + Pred(t, q, depth + 1) + " OR " + Pred(t, q, depth + 1) + ")";
      default:
        return "NOT (" + Pred(t, q, depth + 1) + ")";
    }
  }

  std::string Query(const std::vector<GenTable>& ts) {
    const GenTable& a = ts[static_cast<size_t>(Pick(static_cast<int>(ts.size())))];
    const GenTable& b = ts[static_cast<size_t>(Pick(static_cast<int>(ts.size())))];
    int shape = Pick(14);
    if (shape >= 10 && shape <= 11) {
      // Functions of every type, with NULLs.
      return "SELECT x.rid, " + FuncExpr(a, "x.") + ", " + FuncExpr(a, "x.") + ", " +
             FuncExpr(a, "x.") + " FROM " + a.name + " x WHERE " + Pred(a, "x.");
    }
    if (shape == 12) {
      // Aggregates of typed columns.
      size_t i = static_cast<size_t>(Pick(static_cast<int>(a.cols.size())));
      const std::string c = "x." + a.cols[i];
      const bool numeric =
          a.types[i] != "TEXT" && a.types[i] != "DATE" && a.types[i] != "TIMESTAMP";
      std::string aggs = "MIN(" + c + "), MAX(" + c + "), COUNT(" + c + ")";
      if (numeric) aggs += ", SUM(" + c + "), AVG(" + c + ")";
      if (a.types[i] == "TEXT") aggs += ", string_agg(" + c + ", ',' ORDER BY " + c + ")";
      return "SELECT " + IntExpr(a, "x.") + " AS g, " + aggs + " FROM " + a.name + " x GROUP BY 1";
    }
    if (shape == 13) {
      // Window functions over whole partitions (ordered by the unique rid).
      size_t i = static_cast<size_t>(Pick(static_cast<int>(a.cols.size())));
      const std::string c = "x." + a.cols[i];
      const std::string w = "(PARTITION BY " + IntExpr(a, "x.") + " ORDER BY x.rid" +
                            (Chance(50) ? " DESC" : "") + ")";
      static const char* kFrames[] = {"ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING",
                                      "ROWS UNBOUNDED PRECEDING",
                                      "GROUPS BETWEEN CURRENT ROW AND 2 FOLLOWING",
                                      "RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING"};
      const std::string fw = "(ORDER BY x.rid " + std::string(kFrames[Pick(4)]) + ")";
      std::string agg = IsInt(a.types[i]) || IsNumeric(a.types[i])
                            ? "SUM(" + c + ") OVER " + fw
                            : "COUNT(" + c + ") OVER " + fw;
      return "SELECT x.rid, ROW_NUMBER() OVER " + w + ", LAG(" + c + ") OVER " + w + ", LEAD(" + c +
             ", 2) OVER " + w + ", FIRST_VALUE(" + c + ") OVER " + fw + ", " + agg +
             ", NTILE(3) OVER " + w + " FROM " + a.name + " x";
    }
    if (shape == 9) {
      // Hopping and tumbling windows over an integer time (PostgreSQL runs
      // the definitions of kWindowFunctions).
      for (size_t i = 0; i < a.cols.size(); ++i) {
        if (!IsInt(a.types[i])) continue;
        std::string ts = "x." + a.cols[i];
        std::string fn = Chance(30) ? "tumble(" + ts + ", " + std::to_string(1 + Pick(4))
                                    : "hop(" + ts + ", " + std::to_string(1 + Pick(3)) + ", " +
                                          std::to_string(1 + Pick(6));
        if (Chance(30)) fn += ", " + std::to_string(Pick(5) - 2);
        return "SELECT w.window_start, w.window_end, COUNT(*), SUM(" + IntExpr(a, "x.") +
               ") FROM " + a.name + " x, " + fn + ") AS w WHERE " + Pred(a, "x.") +
               " GROUP BY 1, 2";
      }
      shape = 0;
    }
    if (shape == 8) {
      // A rolling aggregate over an integer order key.
      for (size_t i = 0; i < a.cols.size(); ++i) {
        if (!IsInt(a.types[i])) continue;
        static const char* kAggs[] = {"SUM", "COUNT", "MIN", "MAX", "AVG"};
        std::string k = "x." + a.cols[i];
        return "SELECT x." + a.cols[0] + ", " + k + ", " + kAggs[Pick(5)] + "(" + IntExpr(a, "x.") +
               ") OVER (PARTITION BY x." + a.cols[0] + " ORDER BY " + k + " RANGE BETWEEN " +
               std::to_string(Pick(4)) + " PRECEDING AND CURRENT ROW) FROM " + a.name +
               " x WHERE " + k + " IS NOT NULL";
      }
      shape = 0;
    }
    std::string from = a.name + " x";
    if (shape == 0) {
      // Filter and project.
      return "SELECT " + IntExpr(a, "x.") + ", " + IntExpr(a, "x.") + " FROM " + from + " WHERE " +
             Pred(a, "x.");
    }
    if (shape == 1) {
      // Grouped aggregates.
      std::string g = IntExpr(a, "x.");
      return "SELECT " + g + ", COUNT(*), SUM(" + IntExpr(a, "x.") + "), MIN(" + IntExpr(a, "x.") +
             "), MAX(" + IntExpr(a, "x.") + "), COUNT(DISTINCT " + IntExpr(a, "x.") + ") FROM " +
             from + " WHERE " + Pred(a, "x.") + " GROUP BY " + g +
             (Chance(40) ? " HAVING COUNT(*) > 1" : "");
    }
    if (shape == 2) {
      // Global aggregate.
      return "SELECT COUNT(*), SUM(" + IntExpr(a, "x.") + "), MAX(" + IntExpr(a, "x.") + ") FROM " +
             from + " WHERE " + Pred(a, "x.");
    }
    if (shape == 3) {
      // Joins of every kind.
      static const char* kJoins[] = {"JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"};
      std::string on = "x." + a.cols[0] + " = y." + b.cols[0];
      if (a.types[0] != b.types[0]) {
        on = "CAST(x." + a.cols[0] + " AS TEXT) = CAST(y." + b.cols[0] + " AS TEXT)";
      }
      return "SELECT x." + a.cols[0] + ", y." + b.cols[b.cols.size() - 1] + " FROM " + from + " " +
             kJoins[Pick(4)] + " " + b.name + " y ON " + on;
    }
    if (shape == 4) {
      return "SELECT DISTINCT " + IntExpr(a, "x.") + " FROM " + from;
    }
    if (shape == 5) {
      // Correlated subqueries.
      std::string corr = "y." + b.cols[0] + " = x." + a.cols[0];
      if (a.types[0] != b.types[0]) {
        corr = "CAST(y." + b.cols[0] + " AS TEXT) = CAST(x." + a.cols[0] + " AS TEXT)";
      }
      switch (Pick(3)) {
        case 0:
          return "SELECT x." + a.cols[0] + " FROM " + from + " WHERE EXISTS (SELECT 1 FROM " +
                 b.name + " y WHERE " + corr + ")";
        case 1:
          return "SELECT x." + a.cols[0] + ", (SELECT COUNT(*) FROM " + b.name + " y WHERE " +
                 corr + ") FROM " + from;
        default:
          return "SELECT " + IntExpr(a, "x.") + " FROM " + from + " WHERE " + IntExpr(a, "x.") +
                 (Chance(50) ? " NOT" : "") + " IN (SELECT " + IntExpr(b, "y.") + " FROM " +
                 b.name + " y)";
      }
    }
    if (shape == 6) {
      static const char* kOps[] = {"UNION",     "UNION ALL",  "EXCEPT",
                                   "INTERSECT", "EXCEPT ALL", "INTERSECT ALL"};
      return "SELECT " + IntExpr(a, "x.") + " FROM " + from + " " + kOps[Pick(6)] + " SELECT " +
             IntExpr(b, "y.") + " FROM " + b.name + " y";
    }
    if (Chance(50)) {
      // Ranking as a top-k per partition.
      static const char* kRanks[] = {"ROW_NUMBER", "RANK", "DENSE_RANK"};
      std::string p = "x." + a.cols[0], o = "x." + a.cols[a.cols.size() - 1];
      return "SELECT p, o, r FROM (SELECT " + p + " AS p, " + o + " AS o, " + kRanks[Pick(3)] +
             "() OVER (PARTITION BY " + p + " ORDER BY " + o + (Chance(50) ? " DESC" : "") +
             ") AS r FROM " + from + ") s WHERE r <= " + std::to_string(1 + Pick(3));
    }
    // Top-k.
    std::string e = IntExpr(a, "x.");
    return "SELECT " + e + " FROM " + from + " ORDER BY 1 " + (Chance(50) ? "DESC" : "ASC") +
           " LIMIT " + std::to_string(1 + Pick(4));
  }

  std::mt19937_64 rng_;
};

// Normal text of a value: numbers compared as numbers to 6 decimals; a
// REAL to its 6 significant digits (a sum of REALs is rounded to single
// precision at every addition in PostgreSQL, in an order SQL leaves open).
std::string Canonical(const std::string& s, bool single = false) {
  if (s == "NULL") return s;
  char* end = nullptr;
  double d = std::strtod(s.c_str(), &end);
  if (end != s.c_str() && *end == '\0' && !s.empty()) {
    char buf[64];
    std::snprintf(buf, sizeof buf, single ? "%.5e" : "%.6f", d);
    // -0 is 0: PostgreSQL prints a negative zero, Sluice stores one zero.
    if (std::string(buf) == "-0.000000" || std::string(buf) == "-0.00000e+00") return buf + 1;
    return buf;
  }
  if (s == "t") return "true";
  if (s == "f") return "false";
  return s;
}

// ---------------------------------------------------------------- one case

struct Options {
  uint64_t seed = 1;
  int queries = 50;
  int steps = 6;
  int workers = 2;
  int hosts = 1;
  bool verbose = false;
};

class Case {
 public:
  Case(PgCluster& pg, const Options& o, uint64_t seed) : pg_(pg), o_(o), gen_(seed) {}

  // Returns false with a message on a mismatch or an unexpected error.
  bool Run(std::string* why, bool* skipped) {
    *skipped = false;
    tables_ = gen_.Schema();
    std::string ddl;
    std::string err;
    for (const GenTable& t : tables_) {
      std::string cols = "rid BIGINT NOT NULL";
      for (size_t i = 0; i < t.cols.size(); ++i) cols += ", " + t.cols[i] + " " + t.types[i];
      ddl += "CREATE TABLE " + t.name + " (" + cols + ");\n";
      if (!pg_.Exec("SET client_min_messages = warning; DROP TABLE IF EXISTS " + t.name +
                        " CASCADE; CREATE TABLE " + t.name + " (" + cols + ")",
                    nullptr, &err)) {
        *why = "PostgreSQL: " + err;
        return false;
      }
    }
    query_ = gen_.Query(tables_);
    auto program = sql::CompileProgram(ddl + "CREATE VIEW v AS " + query_ + ";");
    if (!program.ok()) {
      // Both must agree that the query is wrong; a feature Sluice lacks is
      // a skip, named in verbose mode.
      std::vector<std::vector<std::string>> rows;
      bool pg_ok = pg_.Exec(query_, &rows, &err);
      if (program.status().code() == StatusCode::kUnimplemented) {
        *skipped = true;
        *why = program.status().message();
        return true;
      }
      if (!pg_ok) return true;
      *why = "Sluice rejects a query PostgreSQL accepts: " + program.status().ToString();
      return false;
    }
    program_ = std::move(program).value();
    const sql::ViewDef& view = *program_.catalog.FindView("v");
    schema_ = view.query.plan->schema();
    schema_.resize(view.query.visible);
    sql::EvalErrors errors;
    sql::HostLayout layout;
    layout.workers_per_host = o_.workers;
    for (const std::string& t : program_.tables) layout.output_host[t] = 0;
    layout.output_host["v"] = o_.hosts - 1;
    auto rt = LoopbackCluster::Start(o_.hosts, o_.workers, [&](int, Circuit& c) {
      return sql::BuildProgram(program_, c, &errors, nullptr, o_.hosts > 1 ? &layout : nullptr);
    });
    if (!rt.ok()) {
      *why = rt.status().ToString();
      return false;
    }
    std::vector<BatchPtr> outputs;
    for (int step = 0; step < o_.steps; ++step) {
      if (!Change(**rt, why)) return false;
      Status s = (*rt)->Step();
      if (!s.ok()) {
        *why = "step " + std::to_string(step) + ": " + s.ToString();
        return false;
      }
      outputs.push_back(*(*rt)->Output("v"));
      std::vector<std::vector<std::string>> want;
      if (!pg_.Exec(query_, &want, &err)) {
        // PostgreSQL raised an error (overflow, say): Sluice must have
        // counted one too.
        if (errors.count() == 0) {
          *why = "PostgreSQL fails (" + err + ") but Sluice raised no error";
          return false;
        }
        *skipped = true;
        *why = "both raise: " + err;
        return true;
      }
      auto merged = MergeBatches(outputs, {});
      std::vector<std::string> got_rows, want_rows;
      auto c = (*merged)->NewCursor();
      for (; c->KeyValid(); c->StepKey()) {
        auto row = DecodeRow(schema_, c->key());
        std::string line;
        for (size_t i = 0; i < row->size(); ++i) {
          line += (i ? "|" : "") + Canonical(sql::ValueToText((*row)[i], schema_[i]), IsReal(i));
        }
        for (Weight w = 0; w < c->weight(); ++w) got_rows.push_back(line);
        if (c->weight() < 0) got_rows.push_back("NEGATIVE " + line);
      }
      for (const auto& r : want) {
        std::string line;
        for (size_t i = 0; i < r.size(); ++i) line += (i ? "|" : "") + Canonical(r[i], IsReal(i));
        want_rows.push_back(line);
      }
      std::sort(got_rows.begin(), got_rows.end());
      std::sort(want_rows.begin(), want_rows.end());
      last_rows_ = got_rows.size();
      if (!SameRows(got_rows, want_rows)) {
        *why = "after step " + std::to_string(step) + ": Sluice has " +
               std::to_string(got_rows.size()) + " rows, PostgreSQL " +
               std::to_string(want_rows.size());
        for (size_t i = 0; i < std::max(got_rows.size(), want_rows.size()) && i < 6; ++i) {
          *why += "\n      sluice: " + (i < got_rows.size() ? got_rows[i] : "-") +
                  "   postgres: " + (i < want_rows.size() ? want_rows[i] : "-");
        }
        return false;
      }
    }
    return true;
  }

  const std::string& query() const { return query_; }
  size_t last_rows() const { return last_rows_; }

 private:
  // Random inserts and deletes on every table, in both systems.
  bool Change(LoopbackCluster& rt, std::string* why) {
    for (const GenTable& t : tables_) {
      sql::TableDef def = *program_.catalog.FindTable(t.name);
      Schema schema;
      for (const auto& c : def.columns) schema.push_back(c.type);
      BatchBuilder b;
      std::string err;
      int inserts = gen_.Pick(5);
      for (int i = 0; i < inserts; ++i) {
        std::vector<std::string> lits = {std::to_string(next_rid_++)};
        for (const std::string& ty : t.types) lits.push_back(gen_.Literal(ty));
        std::string values;
        for (size_t j = 0; j < lits.size(); ++j) values += (j ? ", " : "") + lits[j];
        if (!pg_.Exec("INSERT INTO " + t.name + " VALUES (" + values + ")", nullptr, &err)) {
          *why = "PostgreSQL insert: " + err;
          return false;
        }
        std::vector<Value> row;
        for (size_t j = 0; j < lits.size(); ++j) {
          Value v;
          if (lits[j] != "NULL") {
            std::string text = lits[j][0] == '\'' ? lits[j].substr(1, lits[j].size() - 2) : lits[j];
            Status cs = sql::CastValue(Value::String(text), SqlType::Varchar(), schema[j], &v);
            if (!cs.ok()) {
              *why = "literal " + lits[j] + ": " + cs.ToString();
              return false;
            }
          }
          row.push_back(v);
        }
        std::string bytes;
        Status s = EncodeRow(schema, row, &bytes);
        if (!s.ok()) {
          *why = s.ToString();
          return false;
        }
        live_[t.name].push_back(bytes);
        b.Push(bytes, 1);
      }
      auto& live = live_[t.name];
      int deletes = live.empty() ? 0 : gen_.Pick(3);
      for (int i = 0; i < deletes && !live.empty(); ++i) {
        size_t k = static_cast<size_t>(gen_.Pick(static_cast<int>(live.size())));
        std::string_view in = live[k];
        Value rid;
        (void)DecodeValue(schema[0], &in, &rid);
        if (!pg_.Exec("DELETE FROM " + t.name + " WHERE rid = " + std::to_string(rid.int_value()),
                      nullptr, &err)) {
          *why = "PostgreSQL delete: " + err;
          return false;
        }
        b.Push(live[k], -1);
        live.erase(live.begin() + static_cast<long>(k));
      }
      auto batch = b.Finish();
      if (!batch.ok() || !rt.Push(t.name, *batch).ok()) {
        *why = "cannot push changes";
        return false;
      }
    }
    return true;
  }

  bool IsReal(size_t i) const { return i < schema_.size() && schema_[i].id() == TypeId::kReal; }

  // Equal rows, in order; a DOUBLE may differ by a unit of its last printed
  // decimal or in its last digits (1e-12 of it): a sum or average of
  // DOUBLEs rounds at every addition, in an order SQL leaves open.
  bool SameRows(const std::vector<std::string>& a, const std::vector<std::string>& b) const {
    if (a.size() != b.size()) return false;
    auto fields = [](const std::string& line) {
      std::vector<std::string> out(1);
      for (char ch : line) {
        if (ch == '|') {
          out.emplace_back();
        } else {
          out.back() += ch;
        }
      }
      return out;
    };
    for (size_t r = 0; r < a.size(); ++r) {
      if (a[r] == b[r]) continue;
      const std::vector<std::string> x = fields(a[r]), y = fields(b[r]);
      if (x.size() != y.size() || x.size() != schema_.size()) return false;
      for (size_t i = 0; i < x.size(); ++i) {
        if (x[i] == y[i]) continue;
        if (schema_[i].id() != TypeId::kDouble || x[i] == "NULL" || y[i] == "NULL") return false;
        const double p = std::strtod(x[i].c_str(), nullptr), q = std::strtod(y[i].c_str(), nullptr);
        if (std::fabs(p - q) > std::max(1.5e-6, 1e-12 * std::max(std::fabs(p), std::fabs(q)))) {
          return false;
        }
      }
    }
    return true;
  }

  PgCluster& pg_;
  Options o_;
  Generator gen_;
  std::vector<GenTable> tables_;
  std::string query_;
  sql::Program program_;
  Schema schema_;
  std::map<std::string, std::vector<std::string>> live_;
  int64_t next_rid_ = 1;
  size_t last_rows_ = 0;
};

}  // namespace
}  // namespace sluice

int main(int argc, char** argv) {
  sluice::Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() { return i + 1 < argc ? std::strtoull(argv[++i], nullptr, 10) : 0; };
    if (a == "--seed") {
      o.seed = next();
    } else if (a == "--queries") {
      o.queries = static_cast<int>(next());
    } else if (a == "--steps") {
      o.steps = static_cast<int>(next());
    } else if (a == "--workers") {
      o.workers = static_cast<int>(next());
    } else if (a == "--hosts") {
      o.hosts = static_cast<int>(next());
    } else if (a == "--verbose") {
      o.verbose = true;
    } else {
      std::fprintf(stderr, "pg_diff: unknown argument '%s'\n", a.c_str());
      return 2;
    }
  }
  sluice::PgCluster pg;
  std::string error;
  if (!pg.Start(&error)) {
    std::fprintf(stderr, "pg_diff: %s\n", error.c_str());
    return 2;
  }
  if (!pg.Exec(sluice::kWindowFunctions, nullptr, &error)) {
    std::fprintf(stderr, "pg_diff: creating the window functions: %s\n", error.c_str());
    return 2;
  }
  int passed = 0, failed = 0, skipped = 0;
  for (int q = 0; q < o.queries; ++q) {
    uint64_t seed = o.seed * 1000003ULL + static_cast<uint64_t>(q);
    sluice::Case c(pg, o, seed);
    std::string why;
    bool skip = false;
    bool ok = c.Run(&why, &skip);
    if (skip) {
      ++skipped;
      if (o.verbose)
        std::printf("skip (seed %llu): %s\n  %s\n", static_cast<unsigned long long>(seed),
                    why.c_str(), c.query().c_str());
    } else if (ok) {
      ++passed;
      if (o.verbose) std::printf("ok, %zu rows: %s\n", c.last_rows(), c.query().c_str());
    } else {
      ++failed;
      std::printf("FAIL (seed %llu): %s\n  %s\n", static_cast<unsigned long long>(seed),
                  why.c_str(), c.query().c_str());
    }
  }
  std::printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  return failed == 0 ? 0 : 1;
}
