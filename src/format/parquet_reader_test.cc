// The Parquet reader against our own writer: every type read back equal,
// statistics, errors, and damaged files (truncated, flipped bytes) that must
// give an error or rows, never a crash. tests/parquet_test.cc reads files
// that DuckDB wrote.
#include "format/parquet_damage.h"
#include "format/parquet_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <random>

#include "format/parquet_thrift.h"
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

void PutUleb(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}
uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}

// DELTA_BINARY_PACKED, from the format's description: blocks of 128
// values in 4 miniblocks of 32.
std::string DeltaEncode(const std::vector<int64_t>& v) {
  std::string out;
  PutUleb(128, &out);
  PutUleb(4, &out);
  PutUleb(v.size(), &out);
  PutUleb(ZigZag(v.empty() ? 0 : v[0]), &out);
  for (size_t start = 1; start < v.size(); start += 128) {
    const size_t end = std::min(v.size(), start + 128);
    std::vector<int64_t> d;
    for (size_t i = start; i < end; ++i) d.push_back(v[i] - v[i - 1]);
    const int64_t min = *std::min_element(d.begin(), d.end());
    PutUleb(ZigZag(min), &out);
    std::string widths(4, '\0'), minis;
    for (size_t m = 0; m * 32 < d.size(); ++m) {
      uint64_t max = 0;
      for (size_t i = m * 32; i < std::min(d.size(), m * 32 + 32); ++i) {
        max = std::max(max, static_cast<uint64_t>(d[i] - min));
      }
      int bw = 0;
      while (bw < 64 && (max >> bw) != 0) ++bw;
      widths[m] = static_cast<char>(bw);
      std::vector<uint8_t> packed(static_cast<size_t>(bw) * 4, 0);
      for (size_t k = 0; k < 32; ++k) {
        const size_t i = m * 32 + k;
        const uint64_t x = i < d.size() ? static_cast<uint64_t>(d[i] - min) : 0;
        for (int b = 0; b < bw; ++b) {
          const size_t bit = k * static_cast<size_t>(bw) + static_cast<size_t>(b);
          if ((x >> b) & 1) packed[bit / 8] |= static_cast<uint8_t>(1u << (bit % 8));
        }
      }
      minis.append(packed.begin(), packed.end());
    }
    out += widths + minis;
  }
  return out;
}

// A file made by hand, for what neither our writer nor DuckDB writes:
// DELTA_BYTE_ARRAY strings, INT96 timestamps, and a legacy two-level list
// (a repeated primitive inside a LIST group).
TEST(ParquetReaderHandMade, DeltaByteArrayInt96AndTwoLevelLists) {
  using namespace parquet;  // NOLINT(build/namespaces)
  std::vector<std::string> strings = {"apple", "applesauce", "apply", "", "banana", "band"};
  for (int i = 0; i < 300; ++i) strings.push_back("key-" + std::to_string(10000 + i * 7));
  const size_t n = strings.size();
  std::string file = "PAR1";
  struct Chunk {
    int64_t offset, size, values;
    int32_t type, encoding;
    std::vector<std::string> path;
  };
  std::vector<Chunk> chunks;
  auto page = [&](const std::string& body, int32_t values, int32_t encoding) {
    ThriftEncoder h;
    h.I32(1, kDataPage);
    h.I32(2, static_cast<int32_t>(body.size()));
    h.I32(3, static_cast<int32_t>(body.size()));
    h.BeginStruct(5);
    h.I32(1, values);
    h.I32(2, encoding);
    h.I32(3, kRle);
    h.I32(4, kRle);
    h.EndStruct();
    h.out().push_back(0);
    file += h.out() + body;
  };
  // s: DELTA_BYTE_ARRAY, prefix lengths then suffixes (DELTA_LENGTH_BYTE_ARRAY).
  {
    std::vector<int64_t> prefix, suffix;
    std::string data;
    for (size_t i = 0; i < n; ++i) {
      size_t p = 0;
      if (i > 0) {
        while (p < strings[i].size() && p < strings[i - 1].size() &&
               strings[i][p] == strings[i - 1][p])
          ++p;
      }
      prefix.push_back(static_cast<int64_t>(p));
      suffix.push_back(static_cast<int64_t>(strings[i].size() - p));
      data += strings[i].substr(p);
    }
    const int64_t at = static_cast<int64_t>(file.size());
    page(DeltaEncode(prefix) + DeltaEncode(suffix) + data, static_cast<int32_t>(n),
         kDeltaByteArray);
    chunks.push_back({at,
                      static_cast<int64_t>(file.size()) - at,
                      static_cast<int64_t>(n),
                      kByteArray,
                      kDeltaByteArray,
                      {"s"}});
  }
  // t: INT96, nanoseconds of the day then the Julian day.
  {
    std::string body;
    for (size_t i = 0; i < n; ++i) {
      const int64_t nanos = static_cast<int64_t>(i) * 1000001000;
      const int32_t julian = 2440588 + static_cast<int32_t>(i) - 3;
      body.append(reinterpret_cast<const char*>(&nanos), 8);
      body.append(reinterpret_cast<const char*>(&julian), 4);
    }
    const int64_t at = static_cast<int64_t>(file.size());
    page(body, static_cast<int32_t>(n), kPlain);
    chunks.push_back({at,
                      static_cast<int64_t>(file.size()) - at,
                      static_cast<int64_t>(n),
                      kInt96,
                      kPlain,
                      {"t"}});
  }
  // l: optional group (LIST) { repeated int32 array; }: row i holds i % 3
  // values i, i+1, ..., and every 5th row is NULL. Levels: max_def 2, max_rep 1.
  std::vector<Value> lists;
  {
    std::vector<uint32_t> reps, defs;
    std::string values;
    for (size_t i = 0; i < n; ++i) {
      if (i % 5 == 4) {
        reps.push_back(0);
        defs.push_back(0);
        lists.emplace_back();
        continue;
      }
      std::vector<Value> items;
      if (i % 3 == 0) {
        reps.push_back(0);
        defs.push_back(1);
      }
      for (size_t k = 0; k < i % 3; ++k) {
        reps.push_back(k == 0 ? 0 : 1);
        defs.push_back(2);
        const int32_t x = static_cast<int32_t>(i + k);
        values.append(reinterpret_cast<const char*>(&x), 4);
        items.push_back(Value::Int(x));
      }
      lists.push_back(Value::List(std::move(items)));
    }
    // Levels as RLE runs of one value each (bit width 1, then 2).
    auto levels = [](const std::vector<uint32_t>& v) {
      std::string runs;
      for (uint32_t x : v) {
        PutUleb(2, &runs);
        runs.push_back(static_cast<char>(x));
      }
      const uint32_t len = static_cast<uint32_t>(runs.size());
      return std::string(reinterpret_cast<const char*>(&len), 4) + runs;
    };
    const int64_t at = static_cast<int64_t>(file.size());
    page(levels(reps) + levels(defs) + values, static_cast<int32_t>(reps.size()), kPlain);
    chunks.push_back({at,
                      static_cast<int64_t>(file.size()) - at,
                      static_cast<int64_t>(reps.size()),
                      kInt32,
                      kPlain,
                      {"l", "array"}});
  }
  ThriftEncoder f;
  f.I32(1, 1);
  f.BeginList(2, thrift::kStruct, 5);
  f.BeginStructElem();
  f.Binary(4, "schema");
  f.I32(5, 3);
  f.EndStruct();
  f.BeginStructElem();
  f.I32(1, kByteArray);
  f.I32(3, kRequired);
  f.Binary(4, "s");
  f.I32(6, kUtf8);
  f.EndStruct();
  f.BeginStructElem();
  f.I32(1, kInt96);
  f.I32(3, kRequired);
  f.Binary(4, "t");
  f.EndStruct();
  f.BeginStructElem();
  f.I32(3, kOptional);
  f.Binary(4, "l");
  f.I32(5, 1);
  f.I32(6, kList);
  f.EndStruct();
  f.BeginStructElem();
  f.I32(1, kInt32);
  f.I32(3, kRepeated);
  f.Binary(4, "array");
  f.EndStruct();
  f.I64(3, static_cast<int64_t>(n));
  f.BeginList(4, thrift::kStruct, 1);
  f.BeginStructElem();
  f.BeginList(1, thrift::kStruct, chunks.size());
  for (const Chunk& c : chunks) {
    f.BeginStructElem();
    f.I64(2, c.offset);
    f.BeginStruct(3);
    f.I32(1, c.type);
    f.BeginList(2, thrift::kI32, 1);
    f.I32Elem(c.encoding);
    f.BeginList(3, thrift::kBinary, c.path.size());
    for (const std::string& name : c.path) f.BinaryElem(name);
    f.I32(4, kUncompressed);
    f.I64(5, c.values);
    f.I64(6, c.size);
    f.I64(7, c.size);
    f.I64(9, c.offset);
    f.EndStruct();
    f.EndStruct();
  }
  f.I64(2, 0);
  f.I64(3, static_cast<int64_t>(n));
  f.EndStruct();
  f.out().push_back(0);
  const uint32_t len = static_cast<uint32_t>(f.out().size());
  file += f.out() + std::string(reinterpret_cast<const char*>(&len), 4) + "PAR1";

  auto r = ParquetReader::FromBytes("hand.parquet", file);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ((*r)->columns().size(), 3u);
  EXPECT_EQ((*r)->columns()[0].type, SqlType::Varchar(-1, false));
  EXPECT_EQ((*r)->columns()[1].type, SqlType::Timestamp(false));
  EXPECT_EQ((*r)->columns()[2].type, SqlType::Array(SqlType::Integer(false)));
  std::vector<std::vector<Value>> rows;
  Status st = (*r)->ReadRowGroup(0, {0, 1, 2}, &rows);
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_EQ(rows.size(), n);
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(rows[i][0], Value::String(strings[i])) << i;
    const int64_t micros =
        (static_cast<int64_t>(i) - 3) * 86400000000 + static_cast<int64_t>(i) * 1000001;
    ASSERT_EQ(rows[i][1], Value::Int(micros)) << i;
    ASSERT_EQ(rows[i][2], lists[i]) << i << ": " << rows[i][2].ToString();
  }
  // Damaged copies of it, too.
  std::mt19937_64 rng(9);
  for (int k = 0; k < 2000; ++k) {
    std::string b = file;
    b[rng() % b.size()] = static_cast<char>(rng());
    auto d = ParquetReader::FromBytes("hand.parquet", b);
    if (!d.ok()) continue;
    std::vector<std::vector<Value>> ignored;
    (void)(*d)->ReadRowGroup(0, {0, 1, 2}, &ignored);
  }
}

// Reads every row group and column of `bytes`: true if it all reads.
// Damaged copies of valid files: every prefix at a stride, and copies with
// 1 to 4 random bytes replaced (a fixed seed). Each must give an error or
// rows, never a crash (run this test under the asan preset to see reads
// outside a buffer). SLUICE_PARQUET_FUZZ=N runs N flipped copies of each
// file instead of 1000, from SLUICE_PARQUET_FUZZ_SEED (scripts/fuzz-parquet:
// the long run).
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
  DamageCount count;
  const auto start = std::chrono::steady_clock::now();
  for (const std::string& f : files) {
    Damage(f, std::max<size_t>(1, f.size() / 400), flips, rng, &count);
  }
  const uint64_t variants = count.variants, good = count.read_whole;
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "parquet fuzz (seed %llu): %llu damaged files, %llu read whole, %llu errors, %.1f s\n",
      static_cast<unsigned long long>(seed), static_cast<unsigned long long>(variants),
      static_cast<unsigned long long>(good), static_cast<unsigned long long>(variants - good),
      secs);
  EXPECT_GT(variants - good, variants / 2);  // most damage is noticed
}

}  // namespace
}  // namespace sluice::format
