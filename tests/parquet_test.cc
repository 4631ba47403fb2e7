// Parquet files written by our writer, read back by DuckDB (an independent
// reader: tests/oracle/read_parquet.mjs); and files written by DuckDB
// (tests/oracle/write_parquet_cases.mjs), read by our reader as DuckDB
// reads them.
#include "format/parquet.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "format/parquet_damage.h"
#include "format/parquet_reader.h"
#include "sql/datetime.h"
#include "storage/file.h"

namespace sluice::format {
namespace {

using Json = nlohmann::json;

// Runs `script` of tests/oracle with `arg` (quoted); its output, and a
// failure of the test if it did not exit 0.
std::string RunOracle(const std::string& script, const std::string& arg) {
  const std::string cmd =
      "cd " + std::string(SLUICE_ORACLE_DIR) + " && node " + script + " '" + arg + "' 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[65536];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int rc = pclose(p);
  EXPECT_EQ(rc, 0) << out
                   << "\n(the oracle needs `npm install` in tests/oracle; scripts/test does it)";
  return out;
}

// Runs the DuckDB reader on `path`: the rows, and the schema as the last line.
std::vector<Json> ReadWithDuckDb(const std::string& path) {
  const std::string out = RunOracle("read_parquet.mjs", path);
  std::vector<Json> lines;
  size_t at = 0;
  for (size_t nl; (nl = out.find('\n', at)) != std::string::npos; at = nl + 1) {
    Json j = Json::parse(out.substr(at, nl - at), nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << out.substr(at, nl - at);
    lines.push_back(j);
  }
  return lines;
}

class ParquetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sluice-parquet-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(ParquetTest, EveryTypeWithNullsReadsBackInDuckDb) {
  const std::vector<ParquetColumn> cols = {
      {"b", SqlType::Boolean()},
      {"ti", SqlType::TinyInt()},
      {"si", SqlType::SmallInt()},
      {"i", SqlType::Integer(false)},
      {"bi", SqlType::BigInt()},
      {"d9", SqlType::Decimal(9, 2)},
      {"d18", SqlType::Decimal(18, 4)},
      {"d38", SqlType::Decimal(38, 10)},
      {"r", SqlType::Real()},
      {"f", SqlType::Double()},
      {"s", SqlType::Varchar()},
      {"bin", SqlType::Varbinary()},
      {"dt", SqlType::Date()},
      {"tm", SqlType::Time()},
      {"ts", SqlType::Timestamp()},
      {"iv", SqlType::Interval()},
      {"arr", SqlType::Array(SqlType::Integer())},
      {"m", SqlType::Map(SqlType::Varchar(), SqlType::BigInt())},
      {"row", SqlType::Row({"x", "y"}, {SqlType::Integer(), SqlType::Array(SqlType::Varchar())})},
      {"v", SqlType::Variant()},
  };
  auto w = ParquetWriter::Create(dir_ + "/all.parquet", cols, {});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  const int128 big = Pow10(37) + 12345;
  std::vector<Value> full = {
      Value::Bool(true),
      Value::Int(-128),
      Value::Int(32767),
      Value::Int(-7),
      Value::Int(int64_t{1} << 62),
      Value::Decimal(-12345, 2),
      Value::Decimal(123456789012345678, 4),
      Value::Decimal(-big, 10),
      Value::Double(1.5),
      Value::Double(-2.25),
      Value::String("héllo"),
      Value::String(std::string("\x00\xff", 2)),
      Value::Int(19723),  // 2024-01-01
      Value::Int(3723000001),
      Value::Int(1704110400123456),  // 2024-01-01 12:00:00.123456
      Value::MakeInterval(14, 3, 3600000000),
      Value::List({Value::Int(1), Value(), Value::Int(3)}),
      Value::Map({Value::String("k")}, {Value::Int(9)}),
      Value::List({Value::Int(5), Value::List({Value::String("a"), Value::String("b")})}),
      Value::Map({Value::String("a")}, {Value::List({Value::Int(1), Value::Bool(false)})}),
  };
  std::vector<Value> nulls(cols.size());
  nulls[3] = Value::Int(0);  // NOT NULL
  std::vector<Value> empty = nulls;
  empty[16] = Value::List({});
  empty[17] = Value::Map({}, {});
  empty[18] = Value::List({Value(), Value::List({})});
  ASSERT_TRUE((*w)->Add(full).ok());
  ASSERT_TRUE((*w)->Add(nulls).ok());
  ASSERT_TRUE((*w)->Add(empty).ok());
  auto info = (*w)->Finish();
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->rows, 3u);
  EXPECT_EQ(info->stats[1].null_count, 2u);
  EXPECT_EQ(info->stats[16].null_count, 1u);  // the empty array is not NULL
  EXPECT_EQ(info->stats[4].min, Value::Int(int64_t{1} << 62));

  std::vector<Json> got = ReadWithDuckDb(dir_ + "/all.parquet");
  ASSERT_EQ(got.size(), 4u);
  const Json& r = got[0];
  EXPECT_EQ(r["b"], true);
  EXPECT_EQ(r["ti"], -128);
  EXPECT_EQ(r["si"], 32767);
  EXPECT_EQ(r["i"], -7);
  EXPECT_EQ(r["bi"], "4611686018427387904");
  EXPECT_EQ(r["d9"], "-123.45");
  EXPECT_EQ(r["d18"], "12345678901234.5678");
  EXPECT_EQ(r["d38"], "-1000000000000000000000000000.0000012345");
  EXPECT_EQ(r["r"], 1.5);
  EXPECT_EQ(r["f"], -2.25);
  EXPECT_EQ(r["s"], "héllo");
  EXPECT_EQ(r["dt"], "2024-01-01");
  EXPECT_EQ(r["tm"], "01:02:03.000001");
  EXPECT_EQ(r["ts"], "2024-01-01 12:00:00.123456");
  EXPECT_EQ(r["iv"], "1 year 2 mons 3 days 01:00:00");
  EXPECT_EQ(r["arr"], Json::parse("[1, null, 3]"));
  EXPECT_EQ(r["m"], Json::parse(R"([{"key": "k", "value": "9"}])"));
  EXPECT_EQ(r["row"], Json::parse(R"({"x": 5, "y": ["a", "b"]})"));
  EXPECT_EQ(Json::parse(r["v"].get<std::string>()), Json::parse(R"({"a": [1, false]})"));
  for (const char* c : {"b", "ti", "bi", "d38", "s", "bin", "ts", "iv", "arr", "m", "row", "v"}) {
    EXPECT_TRUE(got[1][c].is_null()) << c;
  }
  EXPECT_EQ(got[2]["arr"], Json::array());
  EXPECT_EQ(got[2]["m"], Json::array());
  EXPECT_EQ(got[2]["row"], Json::parse(R"({"x": null, "y": []})"));
  // The types DuckDB sees.
  std::map<std::string, std::string> types;
  for (const Json& c : got[3]["schema"]) types[c[0]] = c[1];
  EXPECT_EQ(types["ti"], "TINYINT");
  EXPECT_EQ(types["si"], "SMALLINT");
  EXPECT_EQ(types["d9"], "DECIMAL(9,2)");
  EXPECT_EQ(types["d38"], "DECIMAL(38,10)");
  EXPECT_EQ(types["r"], "FLOAT");
  EXPECT_EQ(types["bin"], "BLOB");
  EXPECT_EQ(types["dt"], "DATE");
  EXPECT_EQ(types["tm"], "TIME");
  EXPECT_EQ(types["ts"], "TIMESTAMP");
  EXPECT_EQ(types["arr"], "INTEGER[]");
  EXPECT_EQ(types["m"], "MAP(VARCHAR, BIGINT)");
  EXPECT_EQ(types["row"], "STRUCT(x INTEGER, y VARCHAR[])");
}

// Many rows over several row groups and pages, with dictionary and plain
// columns, each compression: DuckDB's sums and counts match ours.
TEST_F(ParquetTest, RowGroupsPagesDictionariesAndCodecs) {
  for (const char* codec : {"zstd", "snappy", "none"}) {
    ParquetOptions o;
    o.compression = *ParseParquetCompression(codec);
    o.row_group_bytes = 1 << 20;
    o.page_bytes = 64 << 10;
    const std::string path = dir_ + "/many-" + codec + ".parquet";
    auto w = ParquetWriter::Create(path,
                                   {{"id", SqlType::BigInt(false)},
                                    {"grp", SqlType::Varchar()},
                                    {"x", SqlType::Double()},
                                    {"tags", SqlType::Array(SqlType::Integer())}},
                                   o);
    ASSERT_TRUE(w.ok());
    std::mt19937_64 rng(7);
    int64_t id_sum = 0;
    int64_t tag_count = 0, nulls = 0;
    const int n = 200000;
    for (int i = 0; i < n; ++i) {
      std::vector<Value> tags;
      for (int k = 0; k < i % 4; ++k) tags.push_back(Value::Int(k));
      tag_count += i % 4;
      Value grp = i % 97 == 0 ? Value() : Value::String("group-" + std::to_string(rng() % 50));
      nulls += i % 97 == 0;
      ASSERT_TRUE((*w)->Add({Value::Int(i), grp, Value::Double(static_cast<double>(rng() % 1000)),
                             Value::List(tags)})
                      .ok());
      id_sum += i;
    }
    auto info = (*w)->Finish();
    ASSERT_TRUE(info.ok()) << info.status().ToString();
    EXPECT_GT(info->row_groups, 1u) << codec;
    EXPECT_EQ(info->stats[0].min, Value::Int(0));
    EXPECT_EQ(info->stats[0].max, Value::Int(n - 1));
    EXPECT_EQ(info->stats[1].null_count, static_cast<uint64_t>(nulls));
    const std::string query_file = dir_ + "/q.mjs";
    FILE* f = fopen(query_file.c_str(), "w");
    fprintf(f,
            "import { DuckDBInstance } from '%s/node_modules/@duckdb/node-api/lib/index.js';\n"
            "const c = await (await DuckDBInstance.create(':memory:')).connect();\n"
            "const r = await c.runAndReadAll(\"SELECT COUNT(*) AS n, SUM(id) AS s, "
            "COUNT(grp) AS g, SUM(len(tags)) AS t, COUNT(DISTINCT grp) AS d FROM "
            "read_parquet('%s')\");\n"
            "console.log(JSON.stringify(r.getRowObjectsJson()[0]));\n",
            SLUICE_ORACLE_DIR, path.c_str());
    fclose(f);
    FILE* p = popen(("node " + query_file + " 2>&1").c_str(), "r");
    char buf[4096];
    std::string out;
    for (size_t k; (k = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, k);
    ASSERT_EQ(pclose(p), 0) << out;
    Json j = Json::parse(out);
    EXPECT_EQ(j["n"], std::to_string(n)) << codec;
    EXPECT_EQ(j["s"], std::to_string(id_sum)) << codec;
    EXPECT_EQ(j["g"], std::to_string(n - nulls)) << codec;
    EXPECT_EQ(j["t"], std::to_string(tag_count)) << codec;
    EXPECT_EQ(j["d"], "50") << codec;
  }
}

TEST_F(ParquetTest, AFileThatFailsIsRemoved) {
  const std::string path = dir_ + "/bad.parquet";
  {
    auto w = ParquetWriter::Create(path, {{"i", SqlType::Integer(false)}}, {});
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->Add({Value::Int(1)}).ok());
    Status s = (*w)->Add({Value()});
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.message().find("NOT NULL"), std::string::npos) << s.ToString();
    EXPECT_FALSE((*w)->Finish().ok());
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

// A value as DuckDB's node client gives it in JSON (getRowObjectsJson), with
// integers as their text (the client gives BIGINT as text, INTEGER as a
// number: Normalize() makes both text).
Json AsDuckDbJson(const Value& v, const SqlType& t) {
  if (v.is_null()) return nullptr;
  switch (t.id()) {
    case TypeId::kBoolean:
      return v.bool_value();
    case TypeId::kTinyInt:
    case TypeId::kSmallInt:
    case TypeId::kInteger:
    case TypeId::kBigInt:
      return std::to_string(v.int_value());
    case TypeId::kDecimal:
      return DecimalToString(v.decimal_unscaled(), v.decimal_scale());
    case TypeId::kReal:
    case TypeId::kDouble: {
      const double d = v.double_value();
      if (std::isnan(d)) return "NaN";
      if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
      return d;
    }
    case TypeId::kBinary:
    case TypeId::kVarbinary: {
      std::string out;
      for (unsigned char c : v.string_value()) {
        if (c >= 32 && c < 127) {
          out.push_back(static_cast<char>(c));
        } else {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02X", c);
          out += buf;
        }
      }
      return out;
    }
    case TypeId::kDate:
      return sql::FormatDate(v.int_value());
    case TypeId::kTime:
      return sql::FormatTime(v.int_value());
    case TypeId::kTimestamp:
      return sql::FormatTimestamp(v.int_value());
    case TypeId::kInterval:
      return Json{{"months", v.interval_value().months},
                  {"days", v.interval_value().days},
                  {"micros", std::to_string(v.interval_value().micros)}};
    case TypeId::kArray: {
      Json a = Json::array();
      for (const Value& e : v.list()) a.push_back(AsDuckDbJson(e, t.children()[0]));
      return a;
    }
    case TypeId::kRow: {
      Json o = Json::object();
      for (size_t i = 0; i < v.list().size(); ++i) {
        o[t.field_names()[i]] = AsDuckDbJson(v.list()[i], t.children()[i]);
      }
      return o;
    }
    case TypeId::kMap: {
      Json a = Json::array();
      for (size_t i = 0; i < v.map_keys().size(); ++i) {
        a.push_back({{"key", AsDuckDbJson(v.map_keys()[i], t.children()[0])},
                     {"value", AsDuckDbJson(v.map_values()[i], t.children()[1])}});
      }
      return a;
    }
    default:
      return v.string_value();
  }
}

// Integers as text, and numbers with an integral value too (DuckDB prints
// the double 2.0 as 2).
Json Normalize(const Json& j) {
  if (j.is_number_integer()) return j.dump();
  if (j.is_number_float()) {
    const double d = j.get<double>();
    if (d == std::floor(d) && std::fabs(d) < 1e15) return std::to_string(static_cast<int64_t>(d));
  }
  if (j.is_array() || j.is_object()) {
    Json out = j;
    for (auto& e : out) e = Normalize(e);
    return out;
  }
  return j;
}

// Runs write_parquet_cases.mjs into `dir`: the files and what they use.
Json WriteDuckDbCases(const std::string& dir) {
  const std::string out = RunOracle("write_parquet_cases.mjs", dir);
  Json j = Json::parse(out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << out;
  return j;
}

std::vector<std::vector<Value>> ReadAll(const ParquetReader& r) {
  std::vector<size_t> all(r.columns().size());
  for (size_t c = 0; c < all.size(); ++c) all[c] = c;
  std::vector<std::vector<Value>> rows;
  for (size_t g = 0; g < r.row_groups(); ++g) {
    Status s = r.ReadRowGroup(g, all, &rows);
    EXPECT_TRUE(s.ok()) << s.ToString();
    if (!s.ok()) break;
  }
  return rows;
}

// Files DuckDB wrote (every width of integer, signed and unsigned,
// decimals, floats, dates, times and timestamps in each unit, strings,
// binary, enums, UUIDs, NULLs, lists, structs, maps and their nestings;
// each with each codec, as Parquet v1 and v2), read by our reader: the same
// rows DuckDB reads.
TEST_F(ParquetTest, FilesDuckDbWroteReadAsDuckDbReadsThem) {
  const Json made = WriteDuckDbCases(dir_);
  ASSERT_TRUE(made.contains("files")) << made.dump();
  // The files exercise what the reader claims to read.
  const std::set<std::string> encodings = made["encodings"].get<std::set<std::string>>();
  for (const char* e : {"PLAIN", "PLAIN_DICTIONARY", "RLE_DICTIONARY", "DELTA_BINARY_PACKED",
                        "DELTA_LENGTH_BYTE_ARRAY", "BYTE_STREAM_SPLIT"}) {
    EXPECT_TRUE(encodings.count(e)) << e << " in " << made["encodings"].dump();
  }
  EXPECT_EQ(made["codecs"], Json::parse(R"(["GZIP", "SNAPPY", "UNCOMPRESSED", "ZSTD"])"));
  size_t files = 0, values = 0;
  for (const Json& f : made["files"]) {
    const std::string path = f.get<std::string>();
    auto r = ParquetReader::Open(path);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    const std::vector<std::vector<Value>> rows = ReadAll(**r);
    std::ifstream in(path + ".jsonl");
    std::string line;
    size_t i = 0;
    for (; std::getline(in, line); ++i) {
      ASSERT_LT(i, rows.size()) << path;
      const Json want = Normalize(Json::parse(line));
      Json got = Json::object();
      for (size_t c = 0; c < rows[i].size(); ++c) {
        const ParquetColumn& col = (*r)->columns()[c];
        got[col.name] = AsDuckDbJson(rows[i][c], col.type);
        ++values;
      }
      ASSERT_EQ(Normalize(got), want) << path << " row " << i;
    }
    EXPECT_EQ(i, rows.size()) << path;
    EXPECT_EQ(i, (*r)->rows()) << path;
    ++files;
  }
  EXPECT_GE(files, 49u);
  std::printf("read %zu files written by DuckDB, %zu values\n", files, values);

  // The types, as the reader maps them.
  auto r = ParquetReader::Open(dir_ + "/ints-zstd-v2.parquet");
  ASSERT_TRUE(r.ok());
  std::map<std::string, std::string> types;
  for (const ParquetColumn& c : (*r)->columns()) types[c.name] = c.type.ToString();
  EXPECT_EQ(types["ti"], "TINYINT");
  EXPECT_EQ(types["u8"], "SMALLINT");
  EXPECT_EQ(types["u32"], "BIGINT");
  EXPECT_EQ(types["u64"], "DECIMAL(20,0)");
  r = ParquetReader::Open(dir_ + "/nested-snappy-v1.parquet");
  ASSERT_TRUE(r.ok());
  types.clear();
  for (const ParquetColumn& c : (*r)->columns()) types[c.name] = c.type.ToString();
  EXPECT_EQ(types["lists"], "VARCHAR ARRAY ARRAY");
  EXPECT_EQ(types["m"], "MAP<VARCHAR, BIGINT>");
  // Statistics DuckDB wrote: each row group's bounds hold its values.
  r = ParquetReader::Open(dir_ + "/large-zstd-v1.parquet");
  ASSERT_TRUE(r.ok());
  ASSERT_GE((*r)->row_groups(), 2u);
  int64_t first = 0;
  for (size_t g = 0; g < (*r)->row_groups(); ++g) {
    const int64_t n = static_cast<int64_t>((*r)->row_group_rows(g));
    EXPECT_EQ((*r)->Stats(g, 0).min, Value::Int(first)) << g;
    EXPECT_EQ((*r)->Stats(g, 0).max, Value::Int(first + n - 1)) << g;
    first += n;
  }
  EXPECT_EQ((*r)->FileStats(2).null_count, 300000u / 7 + (300000 % 7 > 3));
}

// The same files damaged (truncated at many points, bytes replaced with a
// fixed seed): the reader gives an error or rows, never a crash.
TEST_F(ParquetTest, DamagedDuckDbFilesGiveErrorsNeverCrashes) {
  const Json made = WriteDuckDbCases(dir_);
  ASSERT_TRUE(made.contains("files")) << made.dump();
  std::mt19937_64 rng(2);
  DamageCount count;
  const auto start = std::chrono::steady_clock::now();
  for (const Json& f : made["files"]) {
    const std::string path = f.get<std::string>();
    if (path.find("large") != std::string::npos) continue;
    auto bytes = ReadWholeFile(path);
    ASSERT_TRUE(bytes.ok());
    Damage(*bytes, std::max<size_t>(1, bytes->size() / 40), 60, rng, &count);
  }
  const uint64_t variants = count.variants, good = count.read_whole;
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "parquet fuzz (DuckDB's files): %llu damaged files, %llu read whole, %llu errors, %.1f s\n",
      static_cast<unsigned long long>(variants), static_cast<unsigned long long>(good),
      static_cast<unsigned long long>(variants - good), secs);
  EXPECT_GT(variants, 4000u);
}

}  // namespace
}  // namespace sluice::format
