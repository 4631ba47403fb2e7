// The Delta Lake input (delta_table_input), end to end: `sluice run` reads
// Delta tables that another writer made (Parquet files and checkpoints
// written by DuckDB, tests/oracle/duckdb_run.mjs, with a log the test
// writes), tables our own sink wrote, and tables that change while it
// follows them; restarts resume at the right place; damaged tables are
// errors in /stats, never crashes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

#include "connector/delta_log.h"
#include "format/deletion_vector.h"
#include "format/parquet.h"
#include "pipeline_helper.h"
#include "storage/file.h"

namespace {

using namespace sluice::testing;
using sluice::Value;
using sluice::connector::DeletionVectorRef;
using sluice::connector::DeltaLog;
using Json = nlohmann::json;
using namespace std::chrono_literals;
using Rows = std::multiset<std::string>;

// Runs SQL statements in DuckDB; the last one's rows.
std::vector<Json> DuckDb(const std::string& dir, const std::string& sql) {
  const std::string file = dir + "/oracle.sql";
  std::ofstream(file, std::ios::trunc) << sql;
  const std::string cmd =
      "cd " + std::string(SLUICE_ORACLE_DIR) + " && node duckdb_run.mjs '" + file + "' 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[65536];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int rc = pclose(p);
  EXPECT_EQ(rc, 0) << out << "\n(the oracle needs `npm install` in tests/oracle)";
  std::vector<Json> rows;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    Json j = Json::parse(line, nullptr, false);
    if (j.is_object()) rows.push_back(j);
  }
  return rows;
}

// A value as comparable text: numbers (DuckDB gives BIGINT as text) in one
// spelling.
std::string Canon(const Json& v) {
  if (v.is_null()) return "NULL";
  double d = 0;
  if (v.is_number()) {
    d = v.get<double>();
  } else if (v.is_string()) {
    const std::string s = v.get<std::string>();
    char* end = nullptr;
    d = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != 0 || s.find_first_not_of("0123456789.-+e") != std::string::npos) {
      return s;
    }
  } else {
    return v.dump();
  }
  char b[64];
  std::snprintf(b, sizeof b, "%.15g", d);
  return b;
}

Rows CanonRows(const std::vector<Json>& rows, const std::vector<std::string>& columns) {
  Rows out;
  for (const Json& r : rows) {
    std::string line;
    for (const std::string& c : columns) line += c + "=" + Canon(r.value(c, Json())) + " ";
    out.insert(line);
  }
  return out;
}

Rows PipelineRows(Pipeline& p, const std::string& table, const std::vector<std::string>& columns) {
  std::vector<Json> rows;
  for (const auto& [text, n] : p.Rows("SELECT * FROM " + table)) {
    for (int i = 0; i < n; ++i) rows.push_back(Json::parse(text));
  }
  return CanonRows(rows, columns);
}

// Waits until `table` holds `want`; what it holds then.
Rows WaitRows(Pipeline& p, const std::string& table, const std::vector<std::string>& columns,
              const Rows& want, std::chrono::seconds timeout = 20s) {
  Rows got;
  const auto until = std::chrono::steady_clock::now() + timeout;
  do {
    got = PipelineRows(p, table, columns);
    if (got == want) break;
    std::this_thread::sleep_for(50ms);
  } while (std::chrono::steady_clock::now() < until);
  return got;
}

Json InputStats(Pipeline& p, const std::string& name) {
  Json st = Json::parse(p.Client().Get("/stats")->body, nullptr, false);
  for (const Json& in : st["inputs"]) {
    if (in["name"] == name) return in;
  }
  return Json();
}

// Waits until input `name` reports an error; its stats then.
Json WaitError(Pipeline& p, const std::string& name) {
  Json in;
  for (int i = 0; i < 200; ++i) {
    in = InputStats(p, name);
    if (in.is_object() && !in.value("last_error", std::string()).empty()) break;
    std::this_thread::sleep_for(50ms);
  }
  return in;
}

std::string SchemaString(const std::vector<std::pair<std::string, std::string>>& fields) {
  Json f = Json::array();
  for (const auto& [name, type] : fields) {
    f.push_back({{"name", name}, {"type", type}, {"nullable", true}, {"metadata", Json::object()}});
  }
  return Json{{"type", "struct"}, {"fields", f}}.dump();
}

std::string Protocol(const std::vector<std::string>& reader_features = {"deletionVectors"}) {
  return Json{{"protocol",
               {{"minReaderVersion", 3},
                {"minWriterVersion", 7},
                {"readerFeatures", reader_features},
                {"writerFeatures", reader_features}}}}
      .dump();
}

std::string MetaData(const std::string& schema, const std::vector<std::string>& partitions = {},
                     const Json& configuration = Json::object()) {
  return Json{{"metaData",
               {{"id", "test"},
                {"format", {{"provider", "parquet"}, {"options", Json::object()}}},
                {"schemaString", schema},
                {"partitionColumns", partitions},
                {"configuration", configuration},
                {"createdTime", 0}}}}
      .dump();
}

std::string Add(const std::string& path, uint64_t rows, const Json& partition = Json::object(),
                const std::optional<DeletionVectorRef>& dv = std::nullopt, bool data_change = true,
                const std::string& stats = "") {
  Json a = {{"path", path},
            {"partitionValues", partition},
            {"size", 1},
            {"modificationTime", 0},
            {"dataChange", data_change},
            {"stats", stats.empty() ? Json{{"numRecords", rows}}.dump() : stats}};
  if (dv) a["deletionVector"] = Json::parse(dv->Json());
  return Json{{"add", a}}.dump();
}

std::string Remove(const std::string& path,
                   const std::optional<DeletionVectorRef>& dv = std::nullopt,
                   bool data_change = true) {
  Json r = {{"path", path}, {"deletionTimestamp", 0}, {"dataChange", data_change}};
  if (dv) r["deletionVector"] = Json::parse(dv->Json());
  return Json{{"remove", r}}.dump();
}

void Commit(const std::string& table, const std::vector<std::string>& actions) {
  auto log = DeltaLog::Open(table);
  ASSERT_TRUE(log.ok()) << log.status().ToString();
  sluice::Status s = log->Commit(actions, "WRITE");
  ASSERT_TRUE(s.ok()) << s.ToString();
}

DeletionVectorRef InlineDv(const std::vector<uint64_t>& rows) {
  const std::string bitmap = sluice::format::EncodeDeletionBitmap(rows);
  DeletionVectorRef dv;
  dv.storage_type = 'i';
  dv.path_or_inline = sluice::format::Z85Encode(bitmap);
  dv.size_in_bytes = bitmap.size();
  dv.cardinality = rows.size();
  return dv;
}

// A vector in a file of the table, named by UUID.
DeletionVectorRef FileDv(const std::string& table, const std::vector<uint64_t>& rows) {
  const std::string bitmap = sluice::format::EncodeDeletionBitmap(rows);
  std::string uuid;
  const std::string uuid_text = sluice::connector::DeltaNewUuid(&uuid);
  std::vector<uint64_t> offsets;
  std::ofstream(table + "/deletion_vector_" + uuid_text + ".bin", std::ios::binary)
      << sluice::format::EncodeDeletionVectorFile({bitmap}, &offsets);
  DeletionVectorRef dv;
  dv.storage_type = 'u';
  dv.path_or_inline = sluice::format::Z85Encode(uuid);
  dv.offset = static_cast<int64_t>(offsets[0]);
  dv.size_in_bytes = bitmap.size();
  dv.cardinality = rows.size();
  return dv;
}

// A data file of (id BIGINT, v VARCHAR) rows [from, to), written with our
// own writer, in row groups of about `group_bytes`.
void WriteIds(const std::string& path, int64_t from, int64_t to, uint64_t group_bytes = 1 << 20) {
  sluice::format::ParquetOptions o;
  o.row_group_bytes = group_bytes;
  auto w = sluice::format::ParquetWriter::Create(
      path, {{"id", sluice::SqlType::BigInt()}, {"v", sluice::SqlType::Varchar()}}, o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  for (int64_t i = from; i < to; ++i) {
    ASSERT_TRUE((*w)->Add({Value::Int(i), Value::String("v" + std::to_string(i))}).ok());
  }
  ASSERT_TRUE((*w)->Finish().ok());
}

Rows IdRows(int64_t from, int64_t to, const std::set<int64_t>& except = {}) {
  std::vector<Json> rows;
  for (int64_t i = from; i < to; ++i) {
    if (except.count(i) == 0) rows.push_back({{"id", i}, {"v", "v" + std::to_string(i)}});
  }
  return CanonRows(rows, {"id", "v"});
}

std::string Input(const std::string& name, const Json& config, const std::string& extra = "") {
  return R"([{"name": ")" + name + R"(", )" + extra +
         R"("transport": {"name": "delta_table_input", "config": )" + config.dump() + "}}]";
}

class DeltaInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sluice-deltain-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

// Tables of DuckDB's Parquet files: partition columns, an inline and an
// on-disk deletion vector, a log whose commits before a checkpoint (written
// by DuckDB) are gone, a multi-part checkpoint, an older version, and a
// filter that skips partitions; each read as DuckDB computes it.
TEST_F(DeltaInputTest, DuckDbTablesWithPartitionsVectorsAndCheckpoints) {
  const std::string a = dir_ + "/a", b = dir_ + "/b";
  for (const std::string& d :
       {a + "/region=eu", a + "/region=us", a + "/_delta_log", b + "/_delta_log"}) {
    ASSERT_TRUE(sluice::CreateDirs(d).ok());
  }
  const std::string f1 = a + "/region=eu/part 1.parquet", f2 = a + "/region=us/part-2.parquet",
                    f3 = a + "/region=eu/part-3.parquet";
  const std::string cols = "i::BIGINT AS id, 'n' || i AS name, (i * 0.5)::DOUBLE AS x";
  DuckDb(dir_, "COPY (SELECT " + cols + " FROM range(0, 1000) t(i) WHERE i % 2 = 0) TO '" + f1 +
                   "' (FORMAT parquet, ROW_GROUP_SIZE 100);\n"
                   "COPY (SELECT " +
                   cols + " FROM range(0, 1000) t(i) WHERE i % 2 = 1) TO '" + f2 +
                   "' (FORMAT parquet, ROW_GROUP_SIZE 100, COMPRESSION zstd);\n"
                   "COPY (SELECT " +
                   cols + " FROM range(1000, 1500) t(i)) TO '" + f3 +
                   "' (FORMAT parquet);\n"
                   "COPY (SELECT " +
                   cols + " FROM range(0, 100) t(i)) TO '" + b +
                   "/g1.parquet' (FORMAT parquet);\n"
                   "COPY (SELECT " +
                   cols + " FROM range(100, 250) t(i)) TO '" + b +
                   "/g2.parquet' (FORMAT parquet);\n"
                   "SELECT 1;\n");
  const std::string schema =
      SchemaString({{"id", "long"}, {"name", "string"}, {"x", "double"}, {"region", "string"}});
  const Json eu = {{"region", "eu"}}, us = {{"region", "us"}};
  const std::string p1 = "region=eu/part%201.parquet", p2 = "region=us/part-2.parquet",
                    p3 = "region=eu/part-3.parquet";
  Commit(a, {Protocol(), MetaData(schema, {"region"}), Add(p1, 500, eu), Add(p2, 500, us)});
  const DeletionVectorRef dv1 = InlineDv({0, 5, 7});
  Commit(a, {Add(p1, 500, eu, dv1), Remove(p1)});
  const DeletionVectorRef dv2 = FileDv(a, {1, 2, 3, 100});
  Commit(a, {Add(p3, 500, eu), Remove(p2), Add(p2, 500, us, dv2)});
  // The checkpoint of version 2, as DuckDB writes a struct-column SELECT;
  // then the commits it stands for are cleaned up.
  auto dv_sql = [](const DeletionVectorRef& dv) {
    return "{'storageType': '" + std::string(1, dv.storage_type) + "', 'pathOrInlineDv': '" +
           dv.path_or_inline +
           "', 'offset': " + (dv.offset < 0 ? std::string("NULL") : std::to_string(dv.offset)) +
           ", 'sizeInBytes': " + std::to_string(dv.size_in_bytes) +
           ", 'cardinality': " + std::to_string(dv.cardinality) + "}";
  };
  auto add_sql = [&](const std::string& path, const std::string& region, const std::string& dv) {
    return "INSERT INTO cp (\"add\") VALUES ({'path': '" + path +
           "', 'partitionValues': MAP {'region': '" + region +
           "'}, 'size': 1, 'modificationTime': 0, 'dataChange': false, 'stats': "
           "'{\"numRecords\":500}', 'deletionVector': " +
           dv + "});\n";
  };
  const std::string cp_table =
      "CREATE TABLE cp (protocol STRUCT(minReaderVersion INTEGER, minWriterVersion INTEGER, "
      "readerFeatures VARCHAR[], writerFeatures VARCHAR[]), metaData STRUCT(id VARCHAR, "
      "schemaString VARCHAR, partitionColumns VARCHAR[], configuration MAP(VARCHAR, VARCHAR), "
      "createdTime BIGINT), \"add\" STRUCT(path VARCHAR, partitionValues MAP(VARCHAR, VARCHAR), "
      "size BIGINT, modificationTime BIGINT, dataChange BOOLEAN, stats VARCHAR, deletionVector "
      "STRUCT(storageType VARCHAR, pathOrInlineDv VARCHAR, \"offset\" INTEGER, sizeInBytes "
      "INTEGER, cardinality BIGINT)), remove STRUCT(path VARCHAR, deletionTimestamp BIGINT, "
      "dataChange BOOLEAN), txn STRUCT(appId VARCHAR, version BIGINT, lastUpdated BIGINT));\n";
  auto meta_sql = [&](const std::string& region_cols) {
    std::string esc = schema;
    for (size_t at = esc.find('\''); at != std::string::npos; at = esc.find('\'', at + 2)) {
      esc.insert(at, "'");
    }
    return "INSERT INTO cp (protocol) VALUES ({'minReaderVersion': 3, 'minWriterVersion': 7, "
           "'readerFeatures': ['deletionVectors'], 'writerFeatures': ['deletionVectors']});\n"
           "INSERT INTO cp (metaData) VALUES ({'id': 'test', 'schemaString': '" +
           esc + "', 'partitionColumns': " + region_cols +
           ", 'configuration': MAP {'delta.enableDeletionVectors': 'true'}, 'createdTime': 0});\n";
  };
  DuckDb(dir_, cp_table + meta_sql("['region']") + add_sql(p1, "eu", dv_sql(dv1)) +
                   add_sql(p2, "us", dv_sql(dv2)) + add_sql(p3, "eu", "NULL") +
                   "INSERT INTO cp (remove) VALUES ({'path': 'region=eu/gone.parquet', "
                   "'deletionTimestamp': 0, 'dataChange': true});\n"
                   "INSERT INTO cp (txn) VALUES ({'appId': 'someone', 'version': 7, "
                   "'lastUpdated': 0});\n"
                   "COPY cp TO '" +
                   a +
                   "/_delta_log/00000000000000000002.checkpoint.parquet' "
                   "(FORMAT parquet);\nSELECT 1;\n");
  for (int v = 0; v <= 2; ++v) {
    std::filesystem::remove(a + "/_delta_log/" + sluice::connector::DeltaCommitName(v));
  }
  std::ofstream(a + "/_delta_log/_last_checkpoint") << R"({"version":2,"size":7})";
  // Version 3: part 3 removed again.
  std::ofstream(a + "/_delta_log/" + sluice::connector::DeltaCommitName(3))
      << R"({"commitInfo":{"timestamp":0,"operation":"DELETE"}})"
      << "\n"
      << Remove(p3) << "\n";
  // Table b: only a checkpoint, in two parts.
  DuckDb(dir_,
         cp_table + meta_sql("[]") +
             "INSERT INTO cp (\"add\") VALUES ({'path': 'g1.parquet', 'partitionValues': MAP "
             "{}, 'size': 1, 'modificationTime': 0, 'dataChange': true, 'stats': NULL, "
             "'deletionVector': NULL});\n"
             "INSERT INTO cp (\"add\") VALUES ({'path': 'g2.parquet', 'partitionValues': MAP "
             "{}, 'size': 1, 'modificationTime': 0, 'dataChange': true, 'stats': NULL, "
             "'deletionVector': NULL});\n"
             "COPY (SELECT * FROM cp WHERE \"add\" IS NULL OR \"add\".path = 'g1.parquet') TO '" +
             b +
             "/_delta_log/00000000000000000000.checkpoint.0000000001.0000000002.parquet' "
             "(FORMAT parquet);\n"
             "COPY (SELECT * FROM cp WHERE \"add\".path = 'g2.parquet') TO '" +
             b +
             "/_delta_log/00000000000000000000.checkpoint.0000000002.0000000002.parquet' "
             "(FORMAT parquet);\nSELECT 1;\n");

  const std::vector<std::string> columns = {"id", "name", "x", "region"};
  const std::string live =
      "SELECT id, name, x, 'eu' AS region FROM read_parquet('" + f1 +
      "', file_row_number = true) WHERE file_row_number NOT IN (0, 5, 7) UNION ALL "
      "SELECT id, name, x, 'us' FROM read_parquet('" +
      f2 + "', file_row_number = true) WHERE file_row_number NOT IN (1, 2, 3, 100)";
  const Rows latest = CanonRows(DuckDb(dir_, live + ";\n"), columns);
  const Rows v2 = CanonRows(
      DuckDb(dir_, live + " UNION ALL SELECT id, name, x, 'eu' FROM read_parquet('" + f3 + "');\n"),
      columns);
  const Rows filtered = CanonRows(
      DuckDb(dir_, "SELECT * FROM (" + live + ") WHERE region = 'us' AND id < 300;\n"), columns);
  const Rows table_b =
      CanonRows(DuckDb(dir_, "SELECT * EXCLUDE (filename), NULL AS region FROM read_parquet('" + b +
                                 "/*.parquet', filename = true);\n"),
                columns);
  ASSERT_EQ(latest.size(), 993u);
  ASSERT_EQ(v2.size(), 1493u);
  ASSERT_EQ(table_b.size(), 250u);

  const std::string t = "(id BIGINT, name VARCHAR, x DOUBLE, region VARCHAR)";
  const std::string program =
      "CREATE TABLE a " + t + " WITH (materialized = true, connectors = '" +
      Input("a_in", {{"uri", a}}) + "');\n" + "CREATE TABLE a2 " + t +
      " WITH (materialized = true, connectors = '" + Input("a2_in", {{"uri", a}, {"version", 2}}) +
      "');\n" + "CREATE TABLE af " + t + " WITH (materialized = true, connectors = '" +
      Input("af_in", {{"uri", a}, {"filter", "region = ''us'' AND id < 300"}}) + "');\n" +
      "CREATE TABLE b " + t + " WITH (materialized = true, connectors = '" +
      Input("b_in", {{"uri", b}}, "\"max_batch_size\": 7, ") + "');\n";
  Pipeline p(program);
  ASSERT_GT(p.port(), 0) << p.log();
  EXPECT_EQ(WaitRows(p, "a", columns, latest), latest) << InputStats(p, "a_in").dump();
  EXPECT_EQ(WaitRows(p, "a2", columns, v2), v2) << InputStats(p, "a2_in").dump();
  EXPECT_EQ(WaitRows(p, "af", columns, filtered), filtered) << InputStats(p, "af_in").dump();
  EXPECT_EQ(WaitRows(p, "b", columns, table_b), table_b) << InputStats(p, "b_in").dump();
  // The filter read only the partition it can match: the eu file was
  // skipped by its partition value, unopened.
  const Json af = InputStats(p, "af_in");
  EXPECT_EQ(af["records"], filtered.size());
  EXPECT_EQ(af["bytes"], 1) << af.dump();  // the size the log gives the us file
  EXPECT_TRUE(af["end_of_input"].get<bool>()) << af.dump();
  EXPECT_EQ(InputStats(p, "b_in")["records"], 250);
}

// A table our own sink writes (its change log, cdc) read back as it grows.
TEST_F(DeltaInputTest, ReadsWhatOurSinkWrites) {
  const std::string program = R"(
CREATE TABLE src (id BIGINT NOT NULL PRIMARY KEY, s VARCHAR, d DECIMAL(10,2), dt DATE);
CREATE MATERIALIZED VIEW v WITH (connectors = '[{"name": "lake_out",
  "transport": {"name": "delta_table_output", "config": {"uri": "lake/v"}}}]')
  AS SELECT * FROM src;
CREATE TABLE back (id BIGINT, s VARCHAR, d DECIMAL(10,2), dt DATE, __sluice_op VARCHAR)
  WITH (materialized = true, connectors = '[{"name": "lake_in",
  "transport": {"name": "delta_table_input", "config": {"uri": "lake/v", "mode": "follow",
    "poll_interval_ms": 50}}}]');
)";
  Pipeline p(program, {"--workers", "2"});
  ASSERT_GT(p.port(), 0) << p.log();
  const std::vector<std::string> columns = {"id", "s", "d", "dt", "__sluice_op"};
  auto row = [](int id, Json s, Json d, Json dt, const char* op) {
    return Json{{"id", id}, {"s", s}, {"d", d}, {"dt", dt}, {"__sluice_op", op}};
  };
  ASSERT_TRUE(p.WaitComplete(p.Ingest("src", R"(
{"insert": {"id": 1, "s": "a", "d": 1.25, "dt": "2024-01-31"}}
{"insert": {"id": 2, "s": null, "d": null, "dt": null}})")));
  std::vector<Json> want = {row(1, "a", 1.25, "2024-01-31", "i"),
                            row(2, nullptr, nullptr, nullptr, "i")};
  Rows expected = CanonRows(want, columns);
  EXPECT_EQ(WaitRows(p, "back", columns, expected), expected) << InputStats(p, "lake_in").dump();
  ASSERT_TRUE(p.WaitComplete(p.Ingest("src", R"({"delete": {"id": 1}})")));
  ASSERT_TRUE(p.WaitComplete(p.Ingest("src", R"({"insert": {"id": 2, "s": "c", "d": 2.5}})")));
  want.push_back(row(1, "a", 1.25, "2024-01-31", "d"));
  want.push_back(row(2, nullptr, nullptr, nullptr, "d"));
  want.push_back(row(2, "c", 2.5, nullptr, "i"));
  expected = CanonRows(want, columns);
  EXPECT_EQ(WaitRows(p, "back", columns, expected), expected) << InputStats(p, "lake_in").dump();
}

// Following a table while commits arrive: adds, a deletion vector that
// grows (inline, then in a file), a removed file, a compaction that
// changes nothing, then the compacted file's removal; the table equals the
// Delta table after each, read in pieces of 7 rows.
TEST_F(DeltaInputTest, FollowsEveryKindOfCommit) {
  const std::string lake = dir_ + "/lake";
  ASSERT_TRUE(sluice::CreateDirs(lake).ok());
  WriteIds(lake + "/f1.parquet", 0, 100, 256);
  Commit(lake, {Protocol(), MetaData(SchemaString({{"id", "long"}, {"v", "string"}})),
                Add("f1.parquet", 100)});
  const std::string program =
      "CREATE TABLE t (id BIGINT, v VARCHAR) WITH (materialized = true, connectors = '" +
      Input("t_in", {{"uri", lake}, {"mode", "snapshot_and_follow"}, {"poll_interval_ms", 50}},
            "\"max_batch_size\": 7, ") +
      "');\n"
      // A table that takes no deletes gets the inserts only.
      "CREATE TABLE ao (id BIGINT, v VARCHAR) WITH (materialized = true, append_only = true, "
      "connectors = '" +
      Input("ao_in", {{"uri", lake}, {"mode", "snapshot_and_follow"}, {"poll_interval_ms", 50}}) +
      "');\n";
  Pipeline p(program);
  ASSERT_GT(p.port(), 0) << p.log();
  const std::vector<std::string> cols = {"id", "v"};
  auto expect = [&](const Rows& want, const char* what) {
    EXPECT_EQ(WaitRows(p, "t", cols, want), want) << what << InputStats(p, "t_in").dump();
  };
  expect(IdRows(0, 100), "snapshot");
  WriteIds(lake + "/f2.parquet", 100, 150);
  Commit(lake, {Add("f2.parquet", 50)});
  expect(IdRows(0, 150), "added file");
  std::set<int64_t> gone;
  for (int64_t i = 0; i < 10; ++i) gone.insert(i);
  std::vector<uint64_t> positions(gone.begin(), gone.end());
  const DeletionVectorRef dv1 = InlineDv(positions);
  Commit(lake, {Remove("f1.parquet"), Add("f1.parquet", 100, Json::object(), dv1)});
  expect(IdRows(0, 150, gone), "inline vector");
  for (int64_t i = 10; i < 20; ++i) gone.insert(i);
  gone.insert(77);
  positions.assign(gone.begin(), gone.end());
  const DeletionVectorRef dv2 = FileDv(lake, positions);
  Commit(lake, {Add("f1.parquet", 100, Json::object(), dv2), Remove("f1.parquet", dv1)});
  expect(IdRows(0, 150, gone), "grown vector in a file");
  Commit(lake, {Remove("f2.parquet")});
  expect(IdRows(0, 100, gone), "removed file");
  // Compaction: the live rows of f1 rewritten as f3; no change.
  {
    sluice::format::ParquetOptions o;
    auto w = sluice::format::ParquetWriter::Create(
        lake + "/f3.parquet",
        {{"id", sluice::SqlType::BigInt()}, {"v", sluice::SqlType::Varchar()}}, o);
    ASSERT_TRUE(w.ok());
    for (int64_t i = 0; i < 100; ++i) {
      if (gone.count(i) == 0) {
        ASSERT_TRUE((*w)->Add({Value::Int(i), Value::String("v" + std::to_string(i))}).ok());
      }
    }
    ASSERT_TRUE((*w)->Finish().ok());
  }
  Commit(lake,
         {Remove("f1.parquet", dv2, false), Add("f3.parquet", 79, Json::object(), {}, false)});
  WriteIds(lake + "/f4.parquet", 200, 210);
  Commit(lake, {Add("f4.parquet", 10)});
  Rows after = IdRows(0, 100, gone);
  for (const std::string& r : IdRows(200, 210)) after.insert(r);
  expect(after, "compaction, then an added file");
  // Removing the compacted file deletes its rows (they were never
  // inserted twice).
  Commit(lake, {Remove("f3.parquet")});
  expect(IdRows(200, 210), "compacted file removed");
  const Json in = InputStats(p, "t_in");
  EXPECT_EQ(in.value("last_error", std::string()), "") << in.dump();
  Rows inserted = IdRows(0, 150);
  for (const std::string& r : IdRows(200, 210)) inserted.insert(r);
  EXPECT_EQ(WaitRows(p, "ao", cols, inserted), inserted);
  const Json ao = InputStats(p, "ao_in");
  EXPECT_GT(ao["parse_errors"].get<int>(), 0) << ao.dump();
  EXPECT_NE(ao.value("last_error", std::string()).find("append_only"), std::string::npos)
      << ao.dump();
}

// Restarts from checkpoints, with exactly_once: a snapshot read in pieces
// and interrupted by kill -9, then followed commits; the table holds every
// row once after each restart.
TEST_F(DeltaInputTest, RestartsResumeAtTheirPosition) {
  const std::string lake = dir_ + "/lake";
  ASSERT_TRUE(sluice::CreateDirs(lake).ok());
  std::vector<std::string> actions = {Protocol(),
                                      MetaData(SchemaString({{"id", "long"}, {"v", "string"}}))};
  for (int f = 0; f < 4; ++f) {
    const std::string name = "f" + std::to_string(f) + ".parquet";
    WriteIds(lake + "/" + name, f * 5000, (f + 1) * 5000, 16 << 10);
    actions.push_back(Add(name, 5000));
  }
  Commit(lake, actions);
  const std::string program =
      "CREATE TABLE t (id BIGINT, v VARCHAR) WITH (materialized = true, connectors = '" +
      Input("t_in", {{"uri", lake}, {"mode", "snapshot_and_follow"}, {"poll_interval_ms", 50}},
            "\"max_batch_size\": 300, \"max_queued_records\": 600, ") +
      "');\nCREATE MATERIALIZED VIEW c AS SELECT COUNT(*) AS n, COUNT(DISTINCT id) AS d FROM t;\n";
  Pipeline p(program, {"--storage", "$DIR/st", "--config", "$DIR/rt.json"},
             {{"rt.json", R"({"fault_tolerance": {"model": "exactly_once",
                              "checkpoint_interval_secs": 3600}})"}});
  ASSERT_GT(p.port(), 0) << p.log();
  auto wait_count = [&](int n) {
    std::string got;
    const std::string want = std::to_string(n) + "," + std::to_string(n) + "\n";
    for (int i = 0; i < 400 && got != want; ++i) {
      got = p.Query("SELECT n, d FROM c", "csv");
      if (got != want) std::this_thread::sleep_for(50ms);
    }
    EXPECT_EQ(got, want) << p.log();
  };
  // A checkpoint while the snapshot is being read, then kill -9.
  std::this_thread::sleep_for(100ms);
  ASSERT_TRUE(p.Checkpoint()["success"].is_number()) << p.log();
  p.Kill9();
  p.Spawn();
  ASSERT_GT(p.port(), 0) << p.log();
  wait_count(20000);
  WriteIds(lake + "/g.parquet", 20000, 20100);
  Commit(lake, {Add("g.parquet", 100)});
  wait_count(20100);
  ASSERT_TRUE(p.Checkpoint()["success"].is_number());
  p.Kill9();
  // A commit while it was down, and one after the restart.
  Commit(lake, {Remove("f0.parquet")});
  p.Spawn();
  ASSERT_GT(p.port(), 0) << p.log();
  wait_count(15100);
  WriteIds(lake + "/h.parquet", 30000, 30050);
  Commit(lake, {Add("h.parquet", 50)});
  wait_count(15150);
  // Without a checkpoint since: the journal replays what came after the
  // last one.
  p.Kill9();
  p.Spawn();
  ASSERT_GT(p.port(), 0) << p.log();
  wait_count(15150);
}

// Column mapping by name (the files hold physical names), a start by
// timestamp, and files skipped by Delta's statistics.
TEST_F(DeltaInputTest, ColumnMappingTimestampsAndStatistics) {
  const std::string lake = dir_ + "/lake";
  ASSERT_TRUE(sluice::CreateDirs(lake).ok());
  // Physical names "col-a", "col-b" for the logical "id", "v".
  auto write = [&](const std::string& name, int64_t from, int64_t to) {
    sluice::format::ParquetOptions o;
    auto w = sluice::format::ParquetWriter::Create(
        lake + "/" + name,
        {{"col-a", sluice::SqlType::BigInt()}, {"col-b", sluice::SqlType::Varchar()}}, o);
    ASSERT_TRUE(w.ok());
    for (int64_t i = from; i < to; ++i) {
      ASSERT_TRUE((*w)->Add({Value::Int(i), Value::String("v" + std::to_string(i))}).ok());
    }
    ASSERT_TRUE((*w)->Finish().ok());
  };
  auto stats = [](int64_t from, int64_t to) {
    return Json{{"numRecords", to - from},
                {"minValues", {{"col-a", from}, {"col-b", "v"}}},
                {"maxValues", {{"col-a", to - 1}, {"col-b", "w"}}},
                {"nullCount", {{"col-a", 0}, {"col-b", 0}}}}
        .dump();
  };
  Json fields = Json::array();
  for (const auto& [logical, physical, type] :
       std::vector<std::tuple<std::string, std::string, std::string>>{{"id", "col-a", "long"},
                                                                      {"v", "col-b", "string"}}) {
    fields.push_back({{"name", logical},
                      {"type", type},
                      {"nullable", true},
                      {"metadata", {{"delta.columnMapping.physicalName", physical}}}});
  }
  const std::string schema = Json{{"type", "struct"}, {"fields", fields}}.dump();
  write("f1.parquet", 0, 100);
  write("f2.parquet", 100, 200);
  write("f3.parquet", 200, 300);
  const std::string logdir = lake + "/_delta_log/";
  ASSERT_TRUE(sluice::CreateDirs(logdir).ok());
  auto commit = [&](uint64_t v, int64_t ts, const std::vector<std::string>& actions) {
    std::ofstream out(logdir + sluice::connector::DeltaCommitName(v));
    out << Json{{"commitInfo", {{"timestamp", ts}, {"operation", "WRITE"}}}}.dump() << "\n";
    for (const std::string& a : actions) out << a << "\n";
  };
  commit(0, 1000,
         {Protocol({"columnMapping"}), MetaData(schema, {}, {{"delta.columnMapping.mode", "name"}}),
          Add("f1.parquet", 100, Json::object(), {}, true, stats(0, 100))});
  commit(1, 2000, {Add("f2.parquet", 100, Json::object(), {}, true, stats(100, 200))});
  commit(2, 3000, {Add("f3.parquet", 100, Json::object(), {}, true, stats(200, 300))});
  const std::string program =
      "CREATE TABLE t (id BIGINT, v VARCHAR) WITH (materialized = true, connectors = '" +
      Input("t_in", {{"uri", lake}, {"timestamp", 2500}}) + "');\n" +
      "CREATE TABLE f (id BIGINT, v VARCHAR) WITH (materialized = true, connectors = '" +
      Input("f_in", {{"uri", lake},
                     {"timestamp", "1970-01-01 00:00:02.5"},
                     {"filter", "id >= 150 AND v LIKE ''v1%''"}}) +
      "');\n";
  Pipeline p(program);
  ASSERT_GT(p.port(), 0) << p.log();
  EXPECT_EQ(WaitRows(p, "t", {"id", "v"}, IdRows(0, 200)), IdRows(0, 200))
      << InputStats(p, "t_in").dump();
  EXPECT_EQ(WaitRows(p, "f", {"id", "v"}, IdRows(150, 200)), IdRows(150, 200))
      << InputStats(p, "f_in").dump();
  // Only f2 was opened: f1's statistics say id < 150.
  EXPECT_EQ(InputStats(p, "f_in")["bytes"], 1);
  EXPECT_EQ(InputStats(p, "t_in")["bytes"], 2);
}

// Damaged and unsupported tables: each input reports a clear error in
// /stats (naming the table, file or column) and the pipeline goes on.
TEST_F(DeltaInputTest, DamagedTablesAreErrorsInStats) {
  const std::string schema = SchemaString({{"id", "long"}, {"v", "string"}});
  // A truncated data file.
  const std::string torn = dir_ + "/torn";
  ASSERT_TRUE(sluice::CreateDirs(torn).ok());
  WriteIds(torn + "/f.parquet", 0, 1000);
  std::filesystem::resize_file(torn + "/f.parquet",
                               std::filesystem::file_size(torn + "/f.parquet") / 2);
  Commit(torn, {Protocol(), MetaData(schema), Add("f.parquet", 1000)});
  // A column whose type does not fit the table's.
  const std::string mismatch = dir_ + "/mismatch";
  ASSERT_TRUE(sluice::CreateDirs(mismatch).ok());
  WriteIds(mismatch + "/f.parquet", 0, 10);
  Commit(mismatch, {Protocol(), MetaData(schema), Add("f.parquet", 10)});
  // A reader feature we do not have.
  const std::string feature = dir_ + "/feature";
  ASSERT_TRUE(sluice::CreateDirs(feature).ok());
  Commit(feature, {Protocol({"deletionVectors", "someFutureFeature"}), MetaData(schema)});
  // A damaged commit after a good one, followed.
  const std::string damaged = dir_ + "/damaged";
  ASSERT_TRUE(sluice::CreateDirs(damaged).ok());
  WriteIds(damaged + "/f.parquet", 0, 10);
  Commit(damaged, {Protocol(), MetaData(schema), Add("f.parquet", 10)});
  std::ofstream(damaged + "/_delta_log/" + sluice::connector::DeltaCommitName(1))
      << "{\"add\": {\"path\": \"x.parquet\", \"si";
  const std::string t = "(id BIGINT, v VARCHAR)";
  const std::string program =
      "CREATE TABLE good (id BIGINT NOT NULL PRIMARY KEY) WITH (materialized = true);\n"
      "CREATE TABLE missing " +
      t + " WITH (connectors = '" + Input("missing_in", {{"uri", dir_ + "/nothing"}}) + "');\n" +
      "CREATE TABLE torn " + t + " WITH (connectors = '" + Input("torn_in", {{"uri", torn}}) +
      "');\n" + "CREATE TABLE mismatch (id INTEGER, v VARCHAR) WITH (connectors = '" +
      Input("mismatch_in", {{"uri", mismatch}}) + "');\n" + "CREATE TABLE feature " + t +
      " WITH (connectors = '" + Input("feature_in", {{"uri", feature}}) + "');\n" +
      "CREATE TABLE damaged " + t + " WITH (materialized = true, connectors = '" +
      Input("damaged_in", {{"uri", damaged},
                           {"mode", "snapshot_and_follow"},
                           {"version", 0},
                           {"poll_interval_ms", 50}}) +
      "');\n";
  Pipeline p(program);
  ASSERT_GT(p.port(), 0) << p.log();
  auto expect_error = [&](const std::string& input, const std::vector<std::string>& words) {
    const Json in = WaitError(p, input);
    ASSERT_TRUE(in.is_object()) << input;
    const std::string e = in.value("last_error", std::string());
    for (const std::string& w : words) {
      EXPECT_NE(e.find(w), std::string::npos) << input << ": \"" << w << "\" not in: " << e;
    }
    EXPECT_GT(in["transport_errors"].get<int>(), 0) << in.dump();
  };
  expect_error("missing_in", {"missing_in", dir_ + "/nothing"});
  expect_error("torn_in", {torn + "/f.parquet"});
  expect_error("mismatch_in", {mismatch + "/f.parquet", "id", "BIGINT", "INTEGER"});
  expect_error("feature_in", {"someFutureFeature"});
  expect_error("damaged_in", {sluice::connector::DeltaCommitName(1), "damaged"});
  // The damaged table's good version was read; the rest of the pipeline
  // goes on.
  EXPECT_EQ(WaitRows(p, "damaged", {"id", "v"}, IdRows(0, 10)), IdRows(0, 10));
  ASSERT_TRUE(p.WaitComplete(p.Ingest("good", R"({"insert": {"id": 1}})")));
  EXPECT_EQ(p.Query("SELECT id FROM good", "csv"), "1\n");
  // Mending the commit lets the follower go on.
  std::ofstream(damaged + "/_delta_log/" + sluice::connector::DeltaCommitName(1), std::ios::trunc)
      << Remove("f.parquet") << "\n";
  EXPECT_EQ(WaitRows(p, "damaged", {"id", "v"}, Rows()), Rows());
  // Bad configs are refused at start, saying why.
  Pipeline bad("CREATE TABLE t (id BIGINT) WITH (connectors = '" +
               Input("t_in", {{"uri", torn}, {"filter", "nope > 1"}}) + "');\n");
  EXPECT_NE(bad.exit_code(), 0);
  EXPECT_NE(bad.log().find("nope"), std::string::npos) << bad.log();
}

}  // namespace
