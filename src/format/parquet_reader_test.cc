// The Parquet reader against our own writer: every type read back equal,
// statistics, errors, and damaged files (truncated, flipped bytes) that must
// give an error or rows, never a crash. tests/parquet_test.cc reads files
// that DuckDB wrote.
#include "format/parquet_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <random>

#include "storage/file.h"

namespace sluice::format {
namespace {

class ParquetReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sluice-pqreader-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

std::vector<ParquetColumn> EveryType() {
  return {
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
      {"c", SqlType::Char(5)},
      {"s", SqlType::Varchar()},
      {"bin", SqlType::Varbinary()},
      {"dt", SqlType::Date()},
      {"tm", SqlType::Time()},
      {"ts", SqlType::Timestamp()},
      {"iv", SqlType::Interval()},
      {"arr", SqlType::Array(SqlType::Integer())},
      {"nested", SqlType::Array(SqlType::Array(SqlType::Varchar(), false))},
      {"m", SqlType::Map(SqlType::Varchar(), SqlType::BigInt())},
      {"row", SqlType::Row({"x", "y"}, {SqlType::Integer(), SqlType::Array(SqlType::Varchar())})},
      {"v", SqlType::Variant()},
  };
}

// A random row of EveryType(); about one value in five is NULL.
std::vector<Value> RandomRow(std::mt19937_64& rng, int64_t i) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  auto null = [&] { return pick(5) == 0; };
  auto str = [&](int max) {
    std::string s;
    const int n = pick(max + 1);
    for (int k = 0; k < n; ++k) s.push_back(static_cast<char>('a' + pick(4)));
    return s;
  };
  auto maybe = [&](Value v) { return null() ? Value() : std::move(v); };
  const int128 big = (static_cast<int128>(static_cast<int64_t>(rng())) * 1000000007) + pick(1000);
  std::vector<Value> arr, nested, keys, vals;
  for (int k = pick(4); k > 0; --k) arr.push_back(maybe(Value::Int(pick(100) - 50)));
  for (int k = pick(3); k > 0; --k) {
    std::vector<Value> inner;
    for (int j = pick(3); j > 0; --j) inner.push_back(maybe(Value::String(str(3))));
    nested.push_back(Value::List(std::move(inner)));
  }
  for (int k = pick(3); k > 0; --k) {
    keys.push_back(Value::String("k" + std::to_string(k)));
    vals.push_back(maybe(Value::Int(static_cast<int64_t>(rng()))));
  }
  std::vector<Value> ys;
  for (int k = pick(3); k > 0; --k) ys.push_back(maybe(Value::String(str(2))));
  return {
      maybe(Value::Bool(pick(2) == 1)),
      maybe(Value::Int(pick(256) - 128)),
      maybe(Value::Int(pick(65536) - 32768)),
      Value::Int(i * 7 - 1000),
      maybe(Value::Int(static_cast<int64_t>(rng()))),
      maybe(Value::Decimal(pick(2000000) - 1000000, 2)),
      maybe(Value::Decimal(
          static_cast<int64_t>(rng() % 1000000000000000000ull) - 500000000000000000, 4)),
      maybe(Value::Decimal(big, 10)),
      maybe(Value::Double(static_cast<float>(pick(1000)) / 8)),
      maybe(Value::Double(static_cast<double>(static_cast<int64_t>(rng())) / 1024)),
      maybe(Value::String(str(5))),
      maybe(Value::String(pick(3) == 0 ? "héllo wörld" : str(12))),
      maybe(Value::String(std::string("\x00\xff", 2) + str(3))),
      maybe(Value::Int(pick(40000) - 20000)),
      maybe(Value::Int(static_cast<int64_t>(rng() % 86400000000ull))),
      maybe(Value::Int(static_cast<int64_t>(rng() % 4000000000000000ull) - 2000000000000000)),
      maybe(Value::MakeInterval(pick(30), pick(40) - 20, static_cast<int64_t>(pick(1 << 30)))),
      maybe(Value::List(std::move(arr))),
      maybe(Value::List(std::move(nested))),
      maybe(Value::Map(std::move(keys), std::move(vals))),
      maybe(Value::List({maybe(Value::Int(pick(10))), maybe(Value::List(std::move(ys)))})),
      maybe(pick(2) == 0 ? Value::String(str(4))
                         : Value::Map({Value::String("a"), Value::String("b")},
                                      {Value::Int(pick(9)), Value::Bool(true)})),
  };
}

std::string RowString(const std::vector<Value>& row) {
  std::string s;
  for (const Value& v : row) s += v.ToString() + " | ";
  return s;
}

// Writes `n` random rows; returns them.
std::vector<std::vector<Value>> WriteRandom(const std::string& path, ParquetOptions o, int n,
                                            uint64_t seed) {
  auto w = ParquetWriter::Create(path, EveryType(), o);
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  std::mt19937_64 rng(seed);
  std::vector<std::vector<Value>> rows;
  for (int i = 0; i < n; ++i) {
    rows.push_back(RandomRow(rng, i));
    Status s = (*w)->Add(rows.back());
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  auto info = (*w)->Finish();
  EXPECT_TRUE(info.ok()) << info.status().ToString();
  return rows;
}

TEST_F(ParquetReaderTest, EveryTypeReadsBackEqualWithEachCodec) {
  for (const char* codec : {"none", "snappy", "zstd"}) {
    ParquetOptions o;
    o.compression = *ParseParquetCompression(codec);
    o.row_group_bytes = 64 << 10;  // several row groups
    o.page_bytes = 4 << 10;        // several pages per chunk
    const std::string path = dir_ + "/every-" + codec + ".parquet";
    const std::vector<std::vector<Value>> want = WriteRandom(path, o, 3000, 42);
    auto r = ParquetReader::Open(path);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ((*r)->rows(), want.size());
    EXPECT_GT((*r)->row_groups(), 2u) << codec;
    EXPECT_EQ((*r)->created_by(), "sluice");
    // The file's own types: as written, but INTERVAL is kept as its text,
    // CHAR as VARCHAR and VARIANT as JSON.
    const std::vector<ParquetColumn> cols = EveryType();
    ASSERT_EQ((*r)->columns().size(), cols.size());
    for (size_t c = 0; c < cols.size(); ++c) {
      SqlType expect = cols[c].type;
      if (cols[c].name == "iv" || cols[c].name == "c") expect = SqlType::Varchar();
      EXPECT_EQ((*r)->columns()[c].type, expect)
          << cols[c].name << ": " << (*r)->columns()[c].type.ToString();
      EXPECT_EQ((*r)->columns()[c].name, cols[c].name);
    }
    // Read as the writer's columns: equal rows.
    auto p = (*r)->Project(cols);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    std::vector<std::vector<Value>> got;
    for (size_t g = 0; g < (*r)->row_groups(); ++g) {
      Status s = (*r)->ReadRowGroup(g, *p, &got);
      ASSERT_TRUE(s.ok()) << s.ToString();
    }
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      ASSERT_EQ(got[i], want[i]) << codec << " row " << i << "\n got " << RowString(got[i])
                                 << "\nwant " << RowString(want[i]);
    }
    // And all columns as the file's types, row group by row group.
    std::vector<size_t> all(cols.size());
    for (size_t c = 0; c < all.size(); ++c) all[c] = c;
    std::vector<std::vector<Value>> plain;
    for (size_t g = 0; g < (*r)->row_groups(); ++g) {
      ASSERT_TRUE((*r)->ReadRowGroup(g, all, &plain).ok());
    }
    ASSERT_EQ(plain.size(), want.size());
    EXPECT_EQ(plain[0][3], want[0][3]);
  }
}

TEST_F(ParquetReaderTest, StatisticsPerRowGroupAndFile) {
  ParquetOptions o;
  o.row_group_bytes = 32 << 10;
  const std::string path = dir_ + "/stats.parquet";
  const std::vector<std::vector<Value>> rows = WriteRandom(path, o, 2000, 7);
  auto r = ParquetReader::Open(path);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_GT((*r)->row_groups(), 1u);
  // Column i is i * 7 - 1000 in row i: each group's bounds are its first
  // and last rows.
  size_t first = 0;
  for (size_t g = 0; g < (*r)->row_groups(); ++g) {
    const size_t n = (*r)->row_group_rows(g);
    const ParquetColumnStats s = (*r)->Stats(g, 3);
    ASSERT_TRUE(s.has_min_max);
    EXPECT_EQ(s.min, rows[first][3]);
    EXPECT_EQ(s.max, rows[first + n - 1][3]);
    EXPECT_TRUE(s.has_null_count);
    EXPECT_EQ(s.null_count, 0u);
    // Null counts of a nullable column add up to the NULLs written.
    uint64_t nulls = 0;
    for (size_t i = first; i < first + n; ++i) nulls += rows[i][1].is_null();
    EXPECT_EQ((*r)->Stats(g, 1).null_count, nulls);
    first += n;
  }
  const ParquetColumnStats f = (*r)->FileStats(3);
  EXPECT_EQ(f.min, Value::Int(-1000));
  EXPECT_EQ(f.max, Value::Int(1999 * 7 - 1000));
  // Strings and decimals have bounds too; composite columns none.
  EXPECT_TRUE((*r)->FileStats(11).has_min_max);
  EXPECT_EQ((*r)->FileStats(7).min.kind(), Value::Kind::kDecimal);
  EXPECT_FALSE((*r)->FileStats(17).has_min_max);
}

TEST_F(ParquetReaderTest, ProjectionByNameCastsWithoutLossOrSaysWhy) {
  const std::string path = dir_ + "/p.parquet";
  {
    auto w = ParquetWriter::Create(path,
                                   {{"Id", SqlType::Integer(false)},
                                    {"amount", SqlType::Decimal(9, 2)},
                                    {"day", SqlType::Date()},
                                    {"name", SqlType::Varchar()}},
                                   {});
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE(
        (*w)->Add({Value::Int(1), Value::Decimal(1234, 2), Value::Int(1), Value::String("abcdef")})
            .ok());
    ASSERT_TRUE((*w)->Add({Value::Int(2), Value(), Value(), Value::String("ab")}).ok());
    ASSERT_TRUE((*w)->Finish().ok());
  }
  auto r = ParquetReader::Open(path);
  ASSERT_TRUE(r.ok());
  // Wider types, another order, a name in another case, a missing column.
  auto p = (*r)->Project({{"day", SqlType::Timestamp()},
                          {"id", SqlType::BigInt()},
                          {"amount", SqlType::Decimal(12, 3)},
                          {"extra", SqlType::Varchar()}});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  std::vector<std::vector<Value>> rows;
  ASSERT_TRUE((*r)->ReadRowGroup(0, *p, &rows).ok());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][0], Value::Int(86400000000));
  EXPECT_EQ(rows[0][1], Value::Int(1));
  EXPECT_EQ(rows[0][2], Value::Decimal(12340, 3));
  EXPECT_TRUE(rows[0][3].is_null());
  EXPECT_TRUE(rows[1][2].is_null());
  // Lossy casts are refused, naming the column and the types.
  auto lossy = (*r)->Project({{"amount", SqlType::Decimal(9, 1)}});
  ASSERT_FALSE(lossy.ok());
  EXPECT_NE(lossy.status().message().find("amount of type DECIMAL(9,2)"), std::string::npos)
      << lossy.status().ToString();
  EXPECT_FALSE((*r)->Project({{"id", SqlType::SmallInt()}}).ok());
  EXPECT_FALSE((*r)->Project({{"missing", SqlType::Integer(false)}}).ok());
  // A value too long for its column, a NULL in a NOT NULL one: errors that
  // name the row and column.
  auto narrow = (*r)->Project({{"name", SqlType::Varchar(3)}});
  ASSERT_TRUE(narrow.ok());
  rows.clear();
  Status s = (*r)->ReadRowGroup(0, *narrow, &rows);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("row 0, column name"), std::string::npos) << s.ToString();
  auto notnull = (*r)->Project({{"day", SqlType::Date(false)}});
  ASSERT_TRUE(notnull.ok());
  s = (*r)->ReadRowGroup(0, *notnull, &rows);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("NOT NULL"), std::string::npos) << s.ToString();
}

TEST_F(ParquetReaderTest, NotParquetAndTruncatedFilesAreClearErrors) {
  auto r = ParquetReader::FromBytes("x.parquet", "hello, world, not parquet");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("x.parquet: not a Parquet file"), std::string::npos)
      << r.status().ToString();
  const std::string path = dir_ + "/t.parquet";
  WriteRandom(path, {}, 100, 1);
  auto bytes = ReadWholeFile(path);
  ASSERT_TRUE(bytes.ok());
  auto cut = ParquetReader::FromBytes("t.parquet", bytes->substr(0, bytes->size() - 1));
  EXPECT_FALSE(cut.ok());
  // A column chunk that points past the data.
  std::string b = *bytes;
  b.replace(10, 20, std::string(20, '\x7f'));
  auto bad = ParquetReader::FromBytes("d.parquet", b);
  ASSERT_TRUE(bad.ok()) << bad.status().ToString();
  std::vector<std::vector<Value>> rows;
  Status s = (*bad)->ReadRowGroup(0, {0, 1, 2, 3}, &rows);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("d.parquet: row group 0, column "), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("page 0 at offset 4"), std::string::npos) << s.ToString();
}

// Reads every row group and column of `bytes`: true if it all reads.
bool ReadsWhole(const std::string& bytes) {
  auto r = ParquetReader::FromBytes("fuzz.parquet", bytes);
  if (!r.ok()) return false;
  std::vector<size_t> all((*r)->columns().size());
  for (size_t c = 0; c < all.size(); ++c) all[c] = c;
  bool ok = true;
  for (size_t g = 0; g < (*r)->row_groups(); ++g) {
    std::vector<std::vector<Value>> rows;
    ok = (*r)->ReadRowGroup(g, all, &rows).ok() && ok;
    for (size_t c = 0; c < all.size(); ++c) (void)(*r)->Stats(g, c);
  }
  for (size_t c = 0; c < all.size(); ++c) (void)(*r)->FileStats(c);
  return ok;
}

// Damaged copies of valid files: every prefix at a stride, and copies with
// 1 to 4 random bytes replaced (a fixed seed). Each must give an error or
// rows, never a crash (run this test under the asan preset to see reads
// outside a buffer). SLUICE_PARQUET_FUZZ=N runs N flipped copies of each
// file instead of 1000 (scripts/fuzz-parquet: the long run).
TEST_F(ParquetReaderTest, DamagedFilesGiveErrorsNeverCrashes) {
  int flips = 1000;
  if (const char* n = std::getenv("SLUICE_PARQUET_FUZZ")) flips = std::atoi(n);
  uint64_t seed = 1;
  if (const char* s = std::getenv("SLUICE_PARQUET_FUZZ_SEED")) seed = std::strtoull(s, nullptr, 10);
  std::vector<std::string> files;
  for (const char* codec : {"none", "snappy", "zstd"}) {
    ParquetOptions o;
    o.compression = *ParseParquetCompression(codec);
    o.row_group_bytes = 16 << 10;
    o.page_bytes = 2 << 10;
    const std::string path = dir_ + "/fuzz-" + codec + ".parquet";
    WriteRandom(path, o, 200, 3);
    auto b = ReadWholeFile(path);
    ASSERT_TRUE(b.ok());
    ASSERT_TRUE(ReadsWhole(*b)) << codec;
    files.push_back(*b);
  }
  std::mt19937_64 rng(seed);
  uint64_t variants = 0, good = 0;
  const auto start = std::chrono::steady_clock::now();
  for (const std::string& f : files) {
    const size_t stride = std::max<size_t>(1, f.size() / 400);
    for (size_t n = 0; n < f.size(); n += stride) {
      good += ReadsWhole(f.substr(0, n));
      ++variants;
    }
    for (int k = 0; k < flips; ++k) {
      std::string b = f;
      for (int j = static_cast<int>(rng() % 4); j >= 0; --j) {
        b[rng() % b.size()] = static_cast<char>(rng());
      }
      good += ReadsWhole(b);
      ++variants;
    }
  }
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("parquet fuzz: %llu damaged files, %llu read whole, %llu errors, %.1f s\n",
              static_cast<unsigned long long>(variants), static_cast<unsigned long long>(good),
              static_cast<unsigned long long>(variants - good), secs);
  EXPECT_GT(variants - good, variants / 2);  // most damage is noticed
}

}  // namespace
}  // namespace sluice::format
