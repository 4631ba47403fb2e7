#include "sql/slt.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "base/md5.h"
#include "dataflow/operators/input.h"
#include "dataflow/operators/output.h"
#include "runtime/runtime.h"
#include "sql/binder.h"
#include "sql/lower.h"
#include "sql/program.h"
#include "sql/query.h"
#include "sql/session.h"
#include "types/big_decimal.h"
#include "types/row_codec.h"
#include "zset/batch_builder.h"
#include "zset/cursor.h"
#include "zset/merge.h"

namespace sluice::sql {
namespace {

// ---------------------------------------------------------------- records

struct Record {
  enum Kind { kStatement, kQuery, kHashThreshold, kHalt, kOther } kind = kOther;
  int line = 0;
  bool expect_error = false;     // statement error
  std::string types, sort_mode;  // query
  std::string sql;
  std::vector<std::string> expected;
  bool skip = false;  // skipif/onlyif says not for postgresql
  int64_t threshold = 0;
};

std::vector<Record> ParseRecords(std::istream& in) {
  std::vector<Record> out;
  std::vector<std::pair<int, std::string>> block;
  std::string line;
  int lineno = 0;
  auto flush = [&]() {
    if (block.empty()) return;
    Record r;
    size_t i = 0;
    for (; i < block.size(); ++i) {
      std::istringstream words(block[i].second);
      std::string w, db;
      words >> w >> db;
      if (w == "skipif") {
        r.skip |= db == "postgresql";
      } else if (w == "onlyif") {
        r.skip |= db != "postgresql";
      } else {
        break;
      }
    }
    if (i == block.size()) {
      block.clear();
      return;
    }
    r.line = block[i].first;
    std::istringstream head(block[i].second);
    std::string w;
    head >> w;
    if (w == "statement") {
      r.kind = Record::kStatement;
      std::string what;
      head >> what;
      r.expect_error = what == "error";
    } else if (w == "query") {
      r.kind = Record::kQuery;
      head >> r.types >> r.sort_mode;
      if (r.sort_mode.empty() || r.sort_mode.rfind("label-", 0) == 0) r.sort_mode = "nosort";
    } else if (w == "hash-threshold") {
      r.kind = Record::kHashThreshold;
      head >> r.threshold;
    } else if (w == "halt") {
      r.kind = Record::kHalt;
    }
    bool results = false;
    for (++i; i < block.size(); ++i) {
      const std::string& l = block[i].second;
      if (!results && r.kind == Record::kQuery && l == "----") {
        results = true;
        continue;
      }
      if (results) {
        r.expected.push_back(l);
      } else {
        r.sql += (r.sql.empty() ? "" : "\n") + l;
      }
    }
    out.push_back(std::move(r));
    block.clear();
  };
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty() && line[0] == '#') continue;
    if (line.empty()) {
      flush();
      continue;
    }
    block.emplace_back(lineno, line);
  }
  flush();
  return out;
}

// ---------------------------------------------------------------- values

std::string RenderValue(const Value& v, const SqlType& type, char letter) {
  if (v.is_null()) return "NULL";
  switch (letter) {
    case 'I': {
      switch (v.kind()) {
        case Value::Kind::kInt:
          return std::to_string(v.int_value());
        case Value::Kind::kBool:
          return v.bool_value() ? "1" : "0";
        case Value::Kind::kDouble:
          return std::to_string(static_cast<int64_t>(std::trunc(v.double_value())));
        case Value::Kind::kDecimal: {
          if (v.decimal_is_special()) return DecimalValueToString(v);
          if (v.decimal_wide() != nullptr) return v.decimal_wide()->Trunc(0).ToString();
          int128 u = v.decimal_unscaled();
          for (int i = 0; i < v.decimal_scale(); ++i) u /= 10;
          return DecimalToString(u, 0);
        }
        case Value::Kind::kString:
          return std::to_string(std::atoll(v.string_value().c_str()));
        default:
          return ValueToText(v, type);
      }
    }
    case 'R': {
      double d = 0;
      if (v.kind() == Value::Kind::kInt) d = static_cast<double>(v.int_value());
      if (v.kind() == Value::Kind::kDouble) d = v.double_value();
      if (v.kind() == Value::Kind::kDecimal) {
        Value out;
        if (CastValue(v, type, SqlType::Double(), &out).ok()) d = out.double_value();
      }
      if (v.kind() == Value::Kind::kString) d = std::atof(v.string_value().c_str());
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.3f", d);
      return buf;
    }
    default: {
      std::string s = ValueToText(v, type);
      if (s.empty()) return "(empty)";
      for (char& c : s) {
        if (c < ' ' || c > '~') c = '@';
      }
      return s;
    }
  }
}

class Runner {
 public:
  Runner(const SltOptions& options, FILE* out)
      : options_(options), out_(out), session_(options.workers, options.hosts) {}
  SltCounts Run(const std::string& path);

 private:
  Result<std::vector<std::string>> Query(const Record& r, std::string* why);

  SltOptions options_;
  FILE* out_;
  SqlSession session_;
  int64_t threshold_ = 0;
};

Result<std::vector<std::string>> Runner::Query(const Record& r, std::string* why) {
  SLUICE_ASSIGN_OR_RETURN(BoundQuery q, session_.Bind(r.sql));
  if (q.visible != r.types.size()) {
    return Status::InvalidArgument("the query has " + std::to_string(q.visible) +
                                   " columns, the record says " + std::to_string(r.types.size()));
  }
  std::vector<std::string> first;
  for (bool incremental : {false, true}) {
    SLUICE_ASSIGN_OR_RETURN(std::vector<Row> rows, session_.Evaluate(q, incremental));
    SortForPresentation(q, &rows);
    std::vector<std::vector<std::string>> table;
    for (const Row& row : rows) {
      std::vector<std::string> cells;
      for (size_t i = 0; i < q.visible; ++i) {
        cells.push_back(RenderValue(row[i], q.plan->columns[i].type, r.types[i]));
      }
      table.push_back(std::move(cells));
    }
    if (r.sort_mode == "rowsort") std::sort(table.begin(), table.end());
    std::vector<std::string> values;
    for (auto& cells : table) {
      for (auto& v : cells) values.push_back(std::move(v));
    }
    if (r.sort_mode == "valuesort") std::sort(values.begin(), values.end());
    if (!incremental) {
      first = values;
    } else if (values != first) {
      *why = "the incremental run differs from the bulk run";
      return values;
    }
  }
  return first;
}

SltCounts Runner::Run(const std::string& path) {
  SltCounts counts;
  std::ifstream in(path);
  if (!in) {
    std::fprintf(out_, "%s: cannot open\n", path.c_str());
    counts.failed = 1;
    return counts;
  }
  std::vector<Record> records = ParseRecords(in);
  int shown = 0;
  auto fail = [&](const Record& r, const std::string& what) {
    ++counts.failed;
    if (shown++ < options_.max_failures_shown || options_.verbose) {
      std::fprintf(out_, "  %s:%d: %s\n    %s\n", path.c_str(), r.line, what.c_str(),
                   r.sql.c_str());
    }
  };
  for (const Record& r : records) {
    if (r.kind == Record::kHalt && !r.skip) break;
    if (r.kind == Record::kHashThreshold) {
      threshold_ = r.threshold;
      continue;
    }
    if (r.kind != Record::kStatement && r.kind != Record::kQuery) continue;
    if (r.skip) {
      ++counts.skipped;
      continue;
    }
    if (r.kind == Record::kStatement) {
      Status s = session_.Statement(r.sql);
      if (s.ok() == !r.expect_error) {
        ++counts.passed;
      } else {
        fail(r, s.ok() ? "statement succeeded, expected an error" : s.ToString());
      }
      continue;
    }
    std::string why;
    auto got = Query(r, &why);
    if (!got.ok()) {
      fail(r, got.status().ToString());
      continue;
    }
    if (!why.empty()) {
      fail(r, why);
      continue;
    }
    bool ok;
    std::string detail;
    static const std::string kHashing = " values hashing to ";
    if (r.expected.size() == 1 && r.expected[0].find(kHashing) != std::string::npos) {
      size_t p = r.expected[0].find(kHashing);
      int64_t n = std::atoll(r.expected[0].substr(0, p).c_str());
      std::string want = r.expected[0].substr(p + kHashing.size());
      Md5 md5;
      for (const std::string& v : *got) {
        md5.Update(v);
        md5.Update("\n");
      }
      std::string have = md5.HexDigest();
      ok = n == static_cast<int64_t>(got->size()) && have == want;
      detail =
          "expected " + r.expected[0] + ", got " + std::to_string(got->size()) + kHashing + have;
    } else {
      ok = *got == r.expected;
      detail = "expected " + std::to_string(r.expected.size()) + " values, got " +
               std::to_string(got->size());
      for (size_t i = 0; i < std::min<size_t>(got->size(), 8); ++i)
        detail += (i ? " " : ": ") + (*got)[i];
    }
    if (ok) {
      ++counts.passed;
    } else {
      fail(r, detail);
    }
  }
  std::fprintf(out_, "%s: %lld passed, %lld failed, %lld skipped\n", path.c_str(),
               static_cast<long long>(counts.passed), static_cast<long long>(counts.failed),
               static_cast<long long>(counts.skipped));
  return counts;
}

}  // namespace

SltCounts RunSltFile(const std::string& path, const SltOptions& options, FILE* out) {
  Runner runner(options, out);
  return runner.Run(path);
}

SltCounts RunSlt(const std::vector<std::string>& paths, const SltOptions& options, FILE* out) {
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    if (std::filesystem::is_directory(p)) {
      for (const auto& e : std::filesystem::recursive_directory_iterator(p)) {
        if (e.is_regular_file() && e.path().extension() == ".test")
          files.push_back(e.path().string());
      }
    } else {
      files.push_back(p);
    }
  }
  std::sort(files.begin(), files.end());
  SltCounts total;
  for (const std::string& f : files) {
    SltCounts c = RunSltFile(f, options, out);
    total.passed += c.passed;
    total.failed += c.failed;
    total.skipped += c.skipped;
    std::fflush(out);
  }
  std::fprintf(out, "%lld passed, %lld failed, %lld skipped\n",
               static_cast<long long>(total.passed), static_cast<long long>(total.failed),
               static_cast<long long>(total.skipped));
  return total;
}

}  // namespace sluice::sql
