// Incremental view maintenance against recomputation, side by side on the
// same data in one run (bench/run ivm drives it; see bench/ivm/README.md).
//
//   ivm_bench [--sizes 100000,1000000] [--changes K] [--change-rows 1000]
//             [--workloads tpch,q4] [--systems sluice,circuit,postgres,duckdb]
//             [--workers W] [--memory-budget-mb M] [--spill-above N]
//             [--storage-share F] [--oracle DIR] [--out FILE.json] [--dat FILE.dat]
//
// Workloads (base size N = rows of the largest table):
//   tpch  orders (N/4 rows) and lineitem (N rows); the view joins them and
//         groups by order priority and month. Each change: 700 new lines
//         and 300 deleted ones.
//   q4    Nexmark's auction and bid tables (N bids, from the generator);
//         the view is Nexmark q4 (average winning price per category).
//         Each change: the next 1,000 events (new auctions and bids).
//   window  readings (N rows in one partition); the view holds LAG and a
//         3-row moving sum per row, as window functions over the whole
//         partition. Each change: one new reading (--change-rows is ignored).
// Systems, each timed per change from applying it to having the view
// current:
//   sluice    the change into a pipeline (in this process), its step done;
//             with the pipeline's breakdown of where the time went
//   storage   the same change into a second pipeline whose state is on
//             storage, with a memory budget of F (--storage-share, default
//             0.1) of the first pipeline's state, change by change beside
//             it; reports its ratio to the first, the budget and the block
//             cache's figures
//   circuit   the same change straight into the program's bare circuit (no
//             queues, step loop, transaction or output endpoints), one
//             change after the pipeline's or before, alternating; the
//             pipeline / bare circuit ratio is what the plumbing adds
//   postgres  the change by SQL, then REFRESH MATERIALIZED VIEW
//   duckdb    the change by SQL, then the view's query run again into a
//             table (a Node.js process, bench/ivm/duckdb.mjs)
// At the end of each size the systems' views are compared (rows, and a sum
// over a column): they must agree. The first pipeline keeps its state on
// storage too, with a budget of M MB (default 6144), at base sizes above N
// (default 3000000).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "base/allocator.h"
#include "connector/nexmark.h"
#include "dataflow/operators/exchange.h"
#include "dataflow/operators/upsert.h"
#include "pipeline/controller.h"
#include "runtime/runtime.h"
#include "sql/datetime.h"
#include "sql/program.h"
#include "tests/pg_cluster.h"
#include "types/row_codec.h"
#include "zset/batch_builder.h"
#include "zset/merge.h"

namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;
using sluice::SqlType;
using sluice::Value;

double Since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// A table of one workload: its SQL columns, key (its first columns), and
// base rows (encoded, to keep 10^7 of them in memory).
struct Table {
  std::string name;
  std::string columns_sql;  // "(a BIGINT, ...)"
  std::vector<std::string> key;
  sluice::Schema schema;
  std::vector<std::string> rows;  // the base
};

// A change: rows inserted into and keys deleted from tables.
struct Change {
  std::map<std::string, std::vector<std::vector<Value>>> inserts;
  std::map<std::string, std::vector<std::vector<Value>>> deletes;  // key values
};

struct Workload {
  std::string name;
  std::vector<Table> tables;
  std::string view_sql;   // SELECT ...
  std::string check_sql;  // over the view "v": one row, comparable text
  std::vector<Change> changes;
};

std::string Text(const SqlType& t, const Value& v) {
  if (v.is_null()) return "";
  switch (t.id()) {
    case sluice::TypeId::kDate:
      return sluice::sql::FormatDate(v.int_value());
    case sluice::TypeId::kTimestamp:
      return sluice::sql::FormatTimestamp(v.int_value());
    case sluice::TypeId::kDecimal:
      return sluice::DecimalToString(v.decimal_unscaled(), v.decimal_scale());
    case sluice::TypeId::kVarchar:
      return v.string_value();
    default:
      return std::to_string(v.int_value());
  }
}

std::string Encode(const sluice::Schema& schema, const std::vector<Value>& values) {
  std::string row;
  (void)sluice::EncodeRow(schema, values, &row);
  return row;
}

void AppendCsv(const sluice::Schema& schema, const std::vector<Value>& r, std::string* line) {
  for (size_t i = 0; i < r.size(); ++i) {
    if (i > 0) line->push_back(',');
    *line += Text(schema[i], r[i]);
  }
  line->push_back('\n');
}

void WriteCsv(const std::string& path, const sluice::Schema& schema,
              const std::vector<std::vector<Value>>& rows) {
  std::ofstream out(path);
  std::string line;
  for (const auto& r : rows) {
    line.clear();
    AppendCsv(schema, r, &line);
    out << line;
  }
}

// The same, from encoded rows.
void WriteCsv(const std::string& path, const sluice::Schema& schema,
              const std::vector<std::string>& rows) {
  std::ofstream out(path);
  std::string line;
  for (const std::string& row : rows) {
    line.clear();
    AppendCsv(schema, *sluice::DecodeRow(schema, row), &line);
    out << line;
  }
}

// ---------------------------------------------------------------- data

Workload Tpch(uint64_t n, int changes, int change_rows) {
  Workload w;
  w.name = "tpch";
  std::mt19937_64 rng(42);
  Table orders{"orders",
               "(o_orderkey BIGINT NOT NULL PRIMARY KEY, o_custkey BIGINT, o_orderdate DATE, "
               "o_orderpriority VARCHAR)",
               {"o_orderkey"},
               {SqlType::BigInt(false), SqlType::BigInt(), SqlType::Date(), SqlType::Varchar()},
               {}};
  Table lineitem{"lineitem",
                 "(l_orderkey BIGINT NOT NULL, l_linenumber INTEGER NOT NULL, l_quantity BIGINT, "
                 "l_extendedprice DECIMAL(12,2), l_discount DECIMAL(4,2), l_shipdate DATE, "
                 "PRIMARY KEY (l_orderkey, l_linenumber))",
                 {"l_orderkey", "l_linenumber"},
                 {SqlType::BigInt(false), SqlType::Integer(false), SqlType::BigInt(),
                  SqlType::Decimal(12, 2), SqlType::Decimal(4, 2), SqlType::Date()},
                 {}};
  const char* priorities[] = {"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"};
  const uint64_t norders = std::max<uint64_t>(1, n / 4);
  std::vector<int> lines(norders + 1, 0);
  std::vector<int64_t> orderdate(norders + 1);
  for (uint64_t o = 1; o <= norders; ++o) {
    orderdate[o] = 8035 + static_cast<int64_t>(rng() % 2400);  // from 1992-01-01
    orders.rows.push_back(
        Encode(orders.schema, {Value::Int(static_cast<int64_t>(o)), Value::Int(rng() % 150000),
                               Value::Int(orderdate[o]), Value::String(priorities[rng() % 5])}));
  }
  std::vector<std::pair<int64_t, int64_t>> live;  // keys of the lines
  auto line = [&](uint64_t o) {
    const int l = ++lines[o];
    live.emplace_back(static_cast<int64_t>(o), l);
    const int64_t qty = 1 + static_cast<int64_t>(rng() % 50);
    return std::vector<Value>{
        Value::Int(static_cast<int64_t>(o)),
        Value::Int(l),
        Value::Int(qty),
        Value::Decimal(qty * (90000 + static_cast<int64_t>(rng() % 1000000)), 2),
        Value::Decimal(static_cast<int64_t>(rng() % 11), 2),
        Value::Int(orderdate[o] + 1 + static_cast<int64_t>(rng() % 120))};
  };
  for (uint64_t i = 0; i < n; ++i) {
    lineitem.rows.push_back(Encode(lineitem.schema, line(1 + rng() % norders)));
  }
  for (int c = 0; c < changes; ++c) {
    Change ch;
    const int dels = change_rows * 3 / 10;
    for (int i = 0; i < dels && !live.empty(); ++i) {
      const size_t at = rng() % live.size();
      ch.deletes["lineitem"].push_back({Value::Int(live[at].first), Value::Int(live[at].second)});
      live[at] = live.back();
      live.pop_back();
    }
    for (int i = dels; i < change_rows; ++i)
      ch.inserts["lineitem"].push_back(line(1 + rng() % norders));
    w.changes.push_back(std::move(ch));
  }
  w.tables = {std::move(orders), std::move(lineitem)};
  w.view_sql =
      "SELECT o_orderpriority, date_trunc('month', o_orderdate) AS month, "
      "SUM(l_extendedprice * (1 - l_discount)) AS revenue, COUNT(*) AS lines "
      "FROM orders JOIN lineitem ON o_orderkey = l_orderkey "
      "GROUP BY o_orderpriority, date_trunc('month', o_orderdate)";
  w.check_sql = "SELECT COUNT(*), SUM(lines), SUM(revenue) FROM v";
  return w;
}

Workload Q4(uint64_t bids, int changes, int change_rows) {
  Workload w;
  w.name = "q4";
  Table auction{"auction",
                "(id BIGINT, item_name VARCHAR, description VARCHAR, initial_bid BIGINT, "
                "reserve BIGINT, date_time TIMESTAMP, expires TIMESTAMP, seller BIGINT, "
                "category BIGINT, extra VARCHAR)",
                {},
                {SqlType::BigInt(), SqlType::Varchar(), SqlType::Varchar(), SqlType::BigInt(),
                 SqlType::BigInt(), SqlType::Timestamp(), SqlType::Timestamp(), SqlType::BigInt(),
                 SqlType::BigInt(), SqlType::Varchar()},
                {}};
  Table bid{"bid",
            "(auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, "
            "date_time TIMESTAMP, extra VARCHAR)",
            {},
            {SqlType::BigInt(), SqlType::BigInt(), SqlType::BigInt(), SqlType::Varchar(),
             SqlType::Varchar(), SqlType::Timestamp(), SqlType::Varchar()},
            {}};
  // A slower event rate than Nexmark's default, so that auctions stay open
  // long enough for bids to win them (at 10M events/s they last under 1 ms).
  const double rate = 1000;
  const uint64_t base_events = bids * 50 / 46;
  std::string row;
  auto event = [&](uint64_t e, std::vector<Value>* out) {
    const int kind = sluice::connector::NexmarkEventKind(e);
    if (kind == 0) return -1;
    const sluice::Schema& schema = kind == 1 ? auction.schema : bid.schema;
    row.clear();
    sluice::connector::NexmarkRow(e, 0, rate, schema, &row);
    if (out != nullptr) *out = *sluice::DecodeRow(schema, row);
    return kind;
  };
  std::vector<Value> values;
  for (uint64_t e = 0; e < base_events; ++e) {
    const int kind = event(e, nullptr);
    if (kind > 0) (kind == 1 ? auction : bid).rows.push_back(row);
  }
  uint64_t e = base_events;
  for (int c = 0; c < changes; ++c) {
    Change ch;
    for (int i = 0; i < change_rows; ++i, ++e) {
      const int kind = event(e, &values);
      if (kind > 0) ch.inserts[kind == 1 ? "auction" : "bid"].push_back(values);
    }
    w.changes.push_back(std::move(ch));
  }
  w.tables = {std::move(auction), std::move(bid)};
  w.view_sql =
      "SELECT q.category, AVG(q.final) AS avg_final FROM ("
      "SELECT MAX(b.price) AS final, a.category FROM auction a JOIN bid b ON a.id = b.auction "
      "WHERE b.date_time BETWEEN a.date_time AND a.expires GROUP BY a.id, a.category) q "
      "GROUP BY q.category";
  w.check_sql = "SELECT COUNT(*), SUM(ROUND(avg_final, 2)) FROM v";
  return w;
}

Workload Window(uint64_t n, int changes) {
  Workload w;
  w.name = "window";
  std::mt19937_64 rng(7);
  Table readings{"readings", "(id BIGINT NOT NULL PRIMARY KEY, sensor INTEGER, v BIGINT)",
                 {"id"},
                 {SqlType::BigInt(false), SqlType::Integer(), SqlType::BigInt()},
                 {}};
  for (uint64_t i = 0; i < n; ++i) {
    readings.rows.push_back(Encode(readings.schema, {Value::Int(static_cast<int64_t>(i)),
                                                     Value::Int(0), Value::Int(rng() % 1000)}));
  }
  for (int c = 0; c < changes; ++c) {
    Change ch;
    ch.inserts["readings"].push_back({Value::Int(static_cast<int64_t>(n) + c), Value::Int(0),
                                      Value::Int(static_cast<int64_t>(rng() % 1000))});
    w.changes.push_back(std::move(ch));
  }
  w.tables = {std::move(readings)};
  w.view_sql =
      "SELECT id, v, LAG(v) OVER (PARTITION BY sensor ORDER BY id) AS prev, "
      "SUM(v) OVER (PARTITION BY sensor ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) "
      "AS s3 FROM readings";
  w.check_sql = "SELECT COUNT(*), SUM(prev), SUM(s3) FROM v";
  return w;
}

// ---------------------------------------------------------------- systems

struct Result {
  std::vector<double> per_change;  // seconds
  double load = 0;
  std::string check;
  std::string error;
  Json info;  // what else a system reports (state on storage: budget, cache)
};

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// A keyed table's or a plain table's change for the pipeline's Ingest.
void EncodeChange(const Table& t, const Change& ch, sluice::format::ChangeBuffer* out) {
  auto add = [&](const std::vector<Value>& r, bool is_key, sluice::format::ChangeKind kind) {
    std::string key, row;
    if (!t.key.empty()) {
      // The key columns are the first ones in both workloads' keyed tables.
      sluice::Schema ks(t.schema.begin(), t.schema.begin() + static_cast<long>(t.key.size()));
      std::vector<Value> kv(r.begin(), r.begin() + static_cast<long>(t.key.size()));
      (void)sluice::EncodeRow(ks, kv, &key);
    }
    if (!is_key) (void)sluice::EncodeRow(t.schema, r, &row);
    out->Add(kind, key, row);
  };
  if (auto d = ch.deletes.find(t.name); d != ch.deletes.end()) {
    for (const auto& k : d->second) add(k, true, sluice::format::ChangeKind::kDelete);
  }
  if (auto i = ch.inserts.find(t.name); i != ch.inserts.end()) {
    for (const auto& r : i->second) add(r, false, sluice::format::ChangeKind::kInsert);
  }
}

// A table's base rows as changes, 100,000 at a time.
std::vector<sluice::format::ChangeBuffer> BaseChunks(const Table& t) {
  std::vector<sluice::format::ChangeBuffer> chunks;
  std::vector<std::string_view> fields;
  std::string key;
  for (size_t at = 0; at < t.rows.size(); at += 100000) {
    sluice::format::ChangeBuffer& b = chunks.emplace_back();
    for (size_t i = at; i < std::min(t.rows.size(), at + 100000); ++i) {
      // A key's encoding is its fields' encodings, one after the other.
      key.clear();
      if (!t.key.empty()) {
        (void)sluice::SplitRow(t.schema, t.rows[i], &fields);
        for (size_t k = 0; k < t.key.size(); ++k) key.append(fields[k]);
      }
      b.Add(sluice::format::ChangeKind::kInsert, key, t.rows[i]);
    }
  }
  return chunks;
}

std::string ProgramText(const Workload& w) {
  std::string program;
  for (const Table& t : w.tables) program += "CREATE TABLE " + t.name + " " + t.columns_sql + ";\n";
  return program + "CREATE MATERIALIZED VIEW v AS " + w.view_sql + ";\n";
}

// The program's bare circuit: its workers (a Runtime) and nothing around
// them. A change is split over the workers as the pipeline splits it
// (InputQueues::Split: a keyed table's rows become upsert commands), pushed,
// stepped, and every output read, as the pipeline's step reads them; no
// queues, step loop, transaction or output endpoints. The view's changes
// are kept, to compare its integral with the pipeline's at the end.
class BareCircuit {
 public:
  sluice::Status Start(const Workload& w, int workers, const sluice::SpineOptions& spine) {
    SLUICE_ASSIGN_OR_RETURN(program_, sluice::sql::CompileProgram(ProgramText(w)));
    for (const Table& t : w.tables) keyed_[t.name] = !t.key.empty();
    outputs_ = program_.tables;
    outputs_.insert(outputs_.end(), program_.views.begin(), program_.views.end());
    sluice::RuntimeOptions opts;
    opts.workers = workers;
    opts.spine = spine;
    SLUICE_ASSIGN_OR_RETURN(runtime_, sluice::Runtime::Start(opts, [&](sluice::Circuit& c) {
                              return sluice::sql::BuildProgram(program_, c, &errors_);
                            }));
    return sluice::Status::OK();
  }

  // Applies the tables' changes as one step.
  sluice::Status Apply(const std::map<std::string, const sluice::format::ChangeBuffer*>& changes) {
    const int workers = runtime_->workers();
    for (const auto& [table, buffer] : changes) {
      const bool keyed = keyed_.at(table);
      std::vector<sluice::BatchBuilder> parts(static_cast<size_t>(workers));
      for (size_t i = 0; i < buffer->size(); ++i) {
        const sluice::format::ChangeKind k = buffer->kind(i);
        const std::string_view key = keyed ? buffer->key(i) : buffer->payload(i);
        sluice::BatchBuilder& b =
            parts[workers == 1 ? 0 : static_cast<size_t>(sluice::WorkerForKey(key, workers))];
        if (!keyed) {
          b.Push(key, k == sluice::format::ChangeKind::kDelete ? -1 : 1);
          continue;
        }
        const sluice::UpsertOpKind op = k == sluice::format::ChangeKind::kDelete
                                            ? sluice::UpsertOpKind::kDelete
                                            : sluice::UpsertOpKind::kInsert;
        b.Push(key, sluice::EncodeUpsertCommand(seq_++, op, buffer->payload(i)), 1);
      }
      for (size_t wk = 0; wk < parts.size(); ++wk) {
        SLUICE_ASSIGN_OR_RETURN(sluice::MemBatchPtr batch, parts[wk].Finish());
        SLUICE_RETURN_IF_ERROR(runtime_->PushToWorker(table, static_cast<int>(wk), batch));
      }
    }
    SLUICE_RETURN_IF_ERROR(runtime_->Step());
    for (const std::string& name : outputs_) {
      SLUICE_ASSIGN_OR_RETURN(sluice::BatchPtr b, runtime_->Output(name));
      if (name == "v" && !b->empty()) view_.push_back(b);
    }
    return sluice::Status::OK();
  }

  // The view's integral, consolidated.
  sluice::Result<sluice::BatchPtr> View() const { return sluice::MergeBatches(view_, {}); }

 private:
  sluice::sql::Program program_;
  sluice::sql::EvalErrors errors_;
  std::unique_ptr<sluice::Runtime> runtime_;
  std::map<std::string, bool> keyed_;
  std::vector<std::string> outputs_;
  uint64_t seq_ = 0;
  std::vector<sluice::BatchPtr> view_;
};

// CPU seconds this process has used (all threads).
double CpuSeconds() {
  std::ifstream stat("/proc/self/stat");
  std::string field;
  double ticks = 0;
  for (int i = 1; i <= 15 && stat >> field; ++i) {
    if (i == 14 || i == 15) ticks += std::strtod(field.c_str(), nullptr);  // utime, stime
  }
  return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

// Waits (up to a minute) until the process is quiet: the spines' background
// merges of the base are done, so that changes are timed on settled state
// rather than against merges of the load.
void WaitQuiet() {
  const auto deadline = Clock::now() + std::chrono::minutes(1);
  while (Clock::now() < deadline) {
    const double c0 = CpuSeconds();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    if (CpuSeconds() - c0 < 0.03) return;
  }
}

// Whether two batches hold the same pairs with the same weights.
bool SameBatch(const sluice::Batch& a, const sluice::Batch& b) {
  auto ca = a.NewCursor(), cb = b.NewCursor();
  for (; ca->KeyValid() && cb->KeyValid(); ca->StepKey(), cb->StepKey()) {
    if (ca->key() != cb->key()) return false;
    for (; ca->ValValid() && cb->ValValid(); ca->StepVal(), cb->StepVal()) {
      if (ca->val() != cb->val() || ca->weight() != cb->weight()) return false;
    }
    if (ca->ValValid() || cb->ValValid()) return false;
  }
  return !ca->KeyValid() && !cb->KeyValid();
}

// Where the pipeline's time per change went (ms, medians over the changes):
// the client's calls (StartTransaction, encoding and Ingest), then the
// controller's step phases (StepPhases in pipeline/report.h), and what is
// left of the change's time (waking the step loop, the commit's hand-off).
// The client's calls and the first step may overlap (a step starts as soon
// as a table's change is queued), so the parts need not add up exactly.
struct Breakdown {
  std::map<std::string, std::vector<double>> ms;  // by part, per change
  std::vector<double> steps;                      // steps per change
};

const char* const kParts[] = {"client",      "queued",  "journal", "split", "circuit",
                              "transaction", "deliver", "other"};

// A pipeline's base load: each table's rows, at most about a million queued
// at a time.
void LoadPipeline(const Workload& w, sluice::pipeline::Controller& c) {
  uint64_t token = 0;
  for (const Table& t : w.tables) {
    std::vector<sluice::format::ChangeBuffer> chunks = BaseChunks(t);
    for (size_t i = 0; i < chunks.size(); ++i) {
      token = *c.Ingest(t.name, std::move(chunks[i]), true, 0);
      if (i % 10 == 9) c.WaitComplete(token, std::chrono::hours(1));
    }
  }
  c.WaitComplete(token, std::chrono::hours(1));
}

// The storage pipeline's /stats figures that say how its state was read.
Json StorageInfo(const sluice::pipeline::Controller& c) {
  const sluice::pipeline::GlobalStats g = c.Stats().global;
  Json info = {{"storage_bytes", g.storage_bytes},
               {"memory_budget_bytes", g.memory_budget_bytes.value_or(0)},
               {"spine_memory_bytes", g.spine_memory_bytes.value_or(0)}};
  if (g.block_cache) {
    info["block_cache"] = {{"capacity_bytes", g.block_cache->capacity_bytes},
                           {"bytes", g.block_cache->bytes},
                           {"hits", g.block_cache->hits},
                           {"misses", g.block_cache->misses},
                           {"hit_rate", g.block_cache->hit_rate}};
  }
  return info;
}

// Sluice, up to three ways on the same data in one run: "sluice" is the
// change as a transaction into a pipeline (a Controller in this process: no
// HTTP), until its commit's step is done; "storage" is the same into a
// second pipeline that keeps its state on storage, with a memory budget of
// `storage_share` of the first one's state (its spines' bytes once loaded);
// "circuit" is the change applied straight to the program's bare circuit
// (BareCircuit). All are loaded and left to settle (WaitQuiet), then each
// change is applied to one after the other, rotating which goes first, so
// that the machine's noise falls on all alike.
std::map<std::string, Result> RunSluice(const Workload& w, int workers, const std::string& storage,
                                        uint64_t budget_mb, bool pipeline, bool circuit,
                                        bool on_storage, double storage_share,
                                        const std::string& storage_dir, Breakdown* breakdown) {
  std::map<std::string, Result> out;
  Result& res = out["sluice"];
  Result& bare_res = out["circuit"];
  Result& st_res = out["storage"];
  sluice::pipeline::PipelineConfig config;
  config.workers = workers;
  // State beyond the budget goes to storage (10^7 base rows would not fit
  // this machine's memory otherwise).
  config.storage = storage;
  config.memory_budget_mb = budget_mb;
  auto c = sluice::pipeline::Controller::Start(ProgramText(w), config);
  if (!c.ok()) {
    res.error = c.status().ToString();
    return out;
  }
  BareCircuit bare;
  sluice::SpineOptions spine;
  if (!storage.empty()) spine.merge.storage_dir = storage + "/circuit";
  std::unique_ptr<sluice::MemoryBudget> budget;
  if (!storage.empty() && budget_mb > 0) {
    std::filesystem::create_directories(spine.merge.storage_dir);
    budget = std::make_unique<sluice::MemoryBudget>(budget_mb << 20);
    spine.merge.budget = budget.get();
  }
  if (circuit) {
    if (sluice::Status s = bare.Start(w, workers, spine); !s.ok()) {
      bare_res.error = s.ToString();
      return out;
    }
  }
  if (pipeline) {
    const auto l0 = Clock::now();
    LoadPipeline(w, **c);
    res.load = Since(l0);
  }
  std::unique_ptr<sluice::pipeline::Controller> st;
  if (on_storage) {
    WaitQuiet();
    // The budget: a share of the state that the first pipeline holds.
    const uint64_t state = pipeline ? (*c)->Stats().global.spine_memory_bytes.value_or(0) : 0;
    sluice::pipeline::PipelineConfig sc = config;
    sc.storage = storage_dir;
    sc.memory_budget_mb = std::max<uint64_t>(
        1, static_cast<uint64_t>(static_cast<double>(state) * storage_share) >> 20);
    auto started = sluice::pipeline::Controller::Start(ProgramText(w), sc);
    if (!started.ok()) {
      st_res.error = started.status().ToString();
      return out;
    }
    st = std::move(started).value();
    const auto l0 = Clock::now();
    LoadPipeline(w, *st);
    st_res.load = Since(l0);
    st_res.info["state_bytes_in_memory"] = state;
  }
  if (circuit) {
    const auto l0 = Clock::now();
    for (const Table& t : w.tables) {
      for (const sluice::format::ChangeBuffer& chunk : BaseChunks(t)) {
        if (sluice::Status s = bare.Apply({{t.name, &chunk}}); !s.ok()) {
          bare_res.error = s.ToString();
          return out;
        }
      }
    }
    bare_res.load = Since(l0);
  }
  WaitQuiet();
  auto apply_pipeline = [&](sluice::pipeline::Controller& p, const Change& ch, Result& r,
                            Breakdown* parts) {
    const uint64_t step0 = p.step();
    const auto before = p.step_phase_usecs();
    const auto t0 = Clock::now();
    // One change is one transaction around its tables' requests.
    (void)p.StartTransaction();
    for (const Table& t : w.tables) {
      sluice::format::ChangeBuffer b;
      EncodeChange(t, ch, &b);
      if (!b.empty()) (void)p.Ingest(t.name, std::move(b), true, 0);
    }
    const double client = Since(t0);
    (void)p.CommitTransaction();
    const double total = Since(t0);
    r.per_change.push_back(total);
    if (parts == nullptr) return;
    const auto after = p.step_phase_usecs();
    double rest = total - client;
    parts->ms["client"].push_back(client * 1000);
    for (const auto& [phase, usecs] : after) {
      const double ms = static_cast<double>(usecs - before.at(phase)) / 1000;
      parts->ms[phase].push_back(ms);
      if (phase != "queued") rest -= ms / 1000;
    }
    parts->ms["other"].push_back(rest * 1000);
    parts->steps.push_back(static_cast<double>(p.step() - step0));
  };
  auto apply_circuit = [&](const Change& ch) {
    const auto t0 = Clock::now();
    std::vector<sluice::format::ChangeBuffer> buffers(w.tables.size());
    std::map<std::string, const sluice::format::ChangeBuffer*> changes;
    for (size_t i = 0; i < w.tables.size(); ++i) {
      EncodeChange(w.tables[i], ch, &buffers[i]);
      if (!buffers[i].empty()) changes[w.tables[i].name] = &buffers[i];
    }
    if (sluice::Status s = bare.Apply(changes); !s.ok()) bare_res.error = s.ToString();
    bare_res.per_change.push_back(Since(t0));
  };
  std::vector<std::function<void(const Change&)>> systems;
  if (pipeline)
    systems.push_back([&](const Change& ch) { apply_pipeline(**c, ch, res, breakdown); });
  if (st) systems.push_back([&](const Change& ch) { apply_pipeline(*st, ch, st_res, nullptr); });
  if (circuit) systems.push_back(apply_circuit);
  for (size_t i = 0; i < w.changes.size(); ++i) {
    for (size_t j = 0; j < systems.size(); ++j) systems[(i + j) % systems.size()](w.changes[i]);
  }
  if (st) {
    st_res.info.update(StorageInfo(*st));
    auto q = st->Query(w.check_sql);
    if (q.ok() && !q->rows.empty()) {
      for (const Value& v : q->rows[0]) {
        st_res.check += (st_res.check.empty() ? "" : "|") + v.ToString();
      }
    } else {
      st_res.error = q.status().ToString();
    }
    st->Stop();
  }
  if (pipeline) {
    auto q = (*c)->Query(w.check_sql);
    if (q.ok() && !q->rows.empty()) {
      for (const Value& v : q->rows[0]) res.check += (res.check.empty() ? "" : "|") + v.ToString();
    } else {
      res.error = q.status().ToString();
    }
  }
  if (circuit && bare_res.error.empty()) {
    // The circuit's view is checked against the pipeline's, row by row.
    uint64_t step = 0;
    auto snap = (*c)->Snapshots({"v"}, &step);
    auto mine = bare.View();
    if (!pipeline) {
      bare_res.check = "(not compared)";
    } else if (!snap.ok() || !mine.ok()) {
      bare_res.error = !snap.ok() ? snap.status().ToString() : mine.status().ToString();
    } else if (auto theirs = sluice::MergeBatches(snap->at("v"), {});
               !theirs.ok() || !SameBatch(**theirs, **mine)) {
      bare_res.error = "the bare circuit's view differs from the pipeline's";
    } else {
      bare_res.check = res.check;
    }
  }
  (*c)->Stop();
  if (!pipeline) out.erase("sluice");
  if (!circuit) out.erase("circuit");
  if (!on_storage) out.erase("storage");
  return out;
}

std::string Quote(const Value& v, const SqlType& t) {
  if (v.is_null()) return "NULL";
  if (t.id() == sluice::TypeId::kBigInt || t.id() == sluice::TypeId::kInteger ||
      t.id() == sluice::TypeId::kDecimal) {
    return Text(t, v);
  }
  return "'" + Text(t, v) + "'";
}

Result RunPostgres(const Workload& w, const std::string& dir) {
  Result res;
  sluice::PgCluster pg;
  std::string err;
  if (!pg.Start(&err)) {
    res.error = err;
    return res;
  }
  auto exec = [&](const std::string& sql) {
    if (!pg.Exec(sql, nullptr, &err)) {
      res.error = err + " in: " + sql.substr(0, 200);
      return false;
    }
    return true;
  };
  const auto l0 = Clock::now();
  for (const Table& t : w.tables) {
    const std::string csv = dir + "/" + w.name + "_" + t.name + ".csv";
    ::chmod(dir.c_str(), 0777);
    ::chmod(csv.c_str(), 0644);
    if (!exec("CREATE TABLE " + t.name + " " + t.columns_sql) ||
        !exec("COPY " + t.name + " FROM '" + csv + "' WITH (FORMAT csv)")) {
      return res;
    }
  }
  if (!exec("CREATE MATERIALIZED VIEW v AS " + w.view_sql) || !exec("ANALYZE")) return res;
  res.load = Since(l0);
  for (const Change& ch : w.changes) {
    const auto t0 = Clock::now();
    std::string sql = "BEGIN;";
    for (const Table& t : w.tables) {
      if (auto d = ch.deletes.find(t.name); d != ch.deletes.end() && !d->second.empty()) {
        sql += "DELETE FROM " + t.name + " WHERE (";
        for (size_t k = 0; k < t.key.size(); ++k) sql += (k ? "," : "") + t.key[k];
        sql += ") IN (";
        for (size_t i = 0; i < d->second.size(); ++i) {
          sql += i ? ",(" : "(";
          for (size_t k = 0; k < t.key.size(); ++k) {
            sql += (k ? "," : "") + Quote(d->second[i][k], t.schema[k]);
          }
          sql += ")";
        }
        sql += ");";
      }
      if (auto in = ch.inserts.find(t.name); in != ch.inserts.end() && !in->second.empty()) {
        sql += "INSERT INTO " + t.name + " VALUES ";
        for (size_t i = 0; i < in->second.size(); ++i) {
          sql += i ? ",(" : "(";
          for (size_t k = 0; k < t.schema.size(); ++k) {
            sql += (k ? "," : "") + Quote(in->second[i][k], t.schema[k]);
          }
          sql += ")";
        }
        sql += ";";
      }
    }
    sql += "REFRESH MATERIALIZED VIEW v; COMMIT;";
    if (!exec(sql)) return res;
    res.per_change.push_back(Since(t0));
  }
  std::vector<std::vector<std::string>> rows;
  if (pg.Exec(w.check_sql, &rows, &err) && !rows.empty()) {
    for (const std::string& s : rows[0]) res.check += (res.check.empty() ? "" : "|") + s;
  }
  return res;
}

Result RunDuckDb(const Workload& w, const std::string& dir, const std::string& oracle) {
  Result res;
  Json spec;
  spec["module"] = oracle + "/node_modules/@duckdb/node-api/lib/index.js";
  spec["view"] = w.view_sql;
  spec["check"] = w.check_sql;
  for (const Table& t : w.tables) {
    spec["tables"].push_back({{"name", t.name},
                              {"columns", t.columns_sql},
                              {"key", t.key},
                              {"csv", dir + "/" + w.name + "_" + t.name + ".csv"}});
  }
  for (size_t c = 0; c < w.changes.size(); ++c) {
    Json change = Json::array();
    for (const Table& t : w.tables) {
      Json part = {{"table", t.name}};
      if (auto d = w.changes[c].deletes.find(t.name); d != w.changes[c].deletes.end()) {
        sluice::Schema ks(t.schema.begin(), t.schema.begin() + static_cast<long>(t.key.size()));
        const std::string f =
            dir + "/" + w.name + "_" + t.name + "_del" + std::to_string(c) + ".csv";
        WriteCsv(f, ks, d->second);
        part["delete_csv"] = f;
      }
      if (auto i = w.changes[c].inserts.find(t.name); i != w.changes[c].inserts.end()) {
        const std::string f =
            dir + "/" + w.name + "_" + t.name + "_ins" + std::to_string(c) + ".csv";
        WriteCsv(f, t.schema, i->second);
        part["insert_csv"] = f;
      }
      change.push_back(part);
    }
    spec["changes"].push_back(change);
  }
  const std::string spec_path = dir + "/" + w.name + "_duckdb.json";
  std::ofstream(spec_path) << spec.dump();
  const std::string script = std::string(SLUICE_SOURCE_DIR) + "/bench/ivm/duckdb.mjs";
  FILE* p = popen(("node " + script + " " + spec_path + " 2>&1").c_str(), "r");
  std::string out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  pclose(p);
  Json r = Json::parse(out, nullptr, false);
  if (r.is_discarded() || !r.contains("per_change")) {
    res.error = "duckdb: " + out.substr(0, 500);
    return res;
  }
  res.per_change = r["per_change"].get<std::vector<double>>();
  res.load = r["load"];
  res.check = r["check"];
  return res;
}

}  // namespace

constexpr const char* kUsage =
    R"(usage: ivm_bench [--sizes 100000,1000000] [--changes K] [--change-rows 1000]
                 [--workloads tpch,q4,window] [--systems sluice,storage,circuit,postgres,duckdb]
                 [--workers W] [--memory-budget-mb M] [--spill-above N]
                 [--storage-share F] [--oracle DIR] [--out FILE.json] [--dat FILE.dat]

Incremental view maintenance against recomputation, side by side on the same
data in one run: each system is timed per change (median ms), and the views
must agree at the end. Defaults: --sizes 100000,1000000 --changes 5
--change-rows 1000 --workloads tpch,q4 --systems sluice,circuit,postgres,duckdb
--workers 2 --memory-budget-mb 6144 --spill-above 3000000 --storage-share 0.1.
See the comment at the top of bench/ivm_bench.cc and bench/ivm/README.md.
)";

int main(int argc, char** argv) {
  sluice::TuneAllocatorAtStart(argv);  // as `sluice run` does
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
  }
  std::vector<uint64_t> sizes = {100000, 1000000};
  int changes = 5, change_rows = 1000, workers = 2;
  uint64_t budget_mb = 6144;       // Sluice's in-memory state, the rest spills...
  uint64_t spill_above = 3000000;  // ...at base sizes above this
  double storage_share = 0.1;      // the storage system's budget, of the state
  std::set<std::string> workloads = {"tpch", "q4"};
  std::set<std::string> systems = {"sluice", "circuit", "postgres", "duckdb"};
  std::string oracle =
      std::filesystem::path(__FILE__).parent_path().parent_path().string() + "/tests/oracle";
  std::string out_path, dat_path;  // JSON; and a table for plotting
  auto list = [](const std::string& s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    for (std::string x; std::getline(ss, x, ',');) out.push_back(x);
    return out;
  };
  const std::set<std::string> options = {"--sizes",
                                         "--changes",
                                         "--change-rows",
                                         "--workers",
                                         "--memory-budget-mb",
                                         "--spill-above",
                                         "--storage-share",
                                         "--workloads",
                                         "--systems",
                                         "--oracle",
                                         "--out",
                                         "--dat"};
  for (int i = 1; i < argc; i += 2) {
    if (options.count(argv[i]) == 0 || i + 1 == argc) {
      std::fprintf(stderr, "%s: %s\n%s",
                   options.count(argv[i]) ? "missing the value of" : "unknown option", argv[i],
                   kUsage);
      return 2;
    }
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--sizes") {
      sizes.clear();
      for (const std::string& x : list(v)) sizes.push_back(std::strtoull(x.c_str(), nullptr, 10));
    }
    if (a == "--changes") changes = std::atoi(v.c_str());
    if (a == "--change-rows") change_rows = std::atoi(v.c_str());
    if (a == "--workers") workers = std::atoi(v.c_str());
    if (a == "--memory-budget-mb") budget_mb = std::strtoull(v.c_str(), nullptr, 10);
    if (a == "--spill-above") spill_above = std::strtoull(v.c_str(), nullptr, 10);
    if (a == "--storage-share") storage_share = std::strtod(v.c_str(), nullptr);
    if (a == "--workloads") {
      auto l = list(v);
      workloads = std::set<std::string>(l.begin(), l.end());
    }
    if (a == "--systems") {
      auto l = list(v);
      systems = std::set<std::string>(l.begin(), l.end());
    }
    if (a == "--oracle") oracle = v;
    if (a == "--out") out_path = v;
    if (a == "--dat") dat_path = v;
  }
  char tmpl[] = "/tmp/sluice-ivm-XXXXXX";
  const std::string dir = ::mkdtemp(tmpl);
  ::chmod(dir.c_str(), 0777);
  Json results = Json::array();
  Json breakdowns = Json::array();
  bool agree = true;
  std::printf("%-5s %10s %-9s %12s %14s %10s  %s\n", "view", "base rows", "system", "load s",
              "ms per change", "ratio", "check");
  for (const std::string& wl : {std::string("tpch"), std::string("q4"), std::string("window")}) {
    if (workloads.count(wl) == 0) continue;
    for (uint64_t n : sizes) {
      Workload w = wl == "tpch"   ? Tpch(n, changes, change_rows)
                   : wl == "q4"   ? Q4(n, changes, change_rows)
                                  : Window(n, changes);
      for (const Table& t : w.tables) {
        WriteCsv(dir + "/" + w.name + "_" + t.name + ".csv", t.schema, t.rows);
      }
      std::map<std::string, Result> by;
      Breakdown breakdown;
      if (systems.count("sluice") || systems.count("circuit") || systems.count("storage")) {
        // Storage (and its memory budget) only where the state would not
        // fit in memory: it moves large batches to files, which costs at
        // smaller sizes.
        const bool spill = n > spill_above;
        by = RunSluice(w, workers, spill ? dir + "/sluice" : "", spill ? budget_mb : 0,
                       systems.count("sluice") > 0, systems.count("circuit") > 0,
                       systems.count("storage") > 0, storage_share,
                       dir + "/storage-" + wl + "-" + std::to_string(n), &breakdown);
      }
      if (systems.count("postgres")) by["postgres"] = RunPostgres(w, dir);
      if (systems.count("duckdb")) by["duckdb"] = RunDuckDb(w, dir, oracle);
      const double base = by.count("sluice") ? Median(by["sluice"].per_change) : 0;
      std::string first_check;
      for (auto& [s, r] : by) {
        const double ms = Median(r.per_change) * 1000;
        const double ratio = base > 0 ? Median(r.per_change) / base : 0;
        if (!r.error.empty()) {
          std::printf("%-5s %10llu %-9s error: %s\n", wl.c_str(),
                      static_cast<unsigned long long>(n), s.c_str(), r.error.c_str());
          agree = false;
          continue;
        }
        std::printf("%-5s %10llu %-9s %12.2f %14.3f %10.1f  %s\n", wl.c_str(),
                    static_cast<unsigned long long>(n), s.c_str(), r.load, ms, ratio,
                    r.check.c_str());
        results.push_back({{"view", wl},
                           {"base_rows", n},
                           {"system", s},
                           {"load_seconds", r.load},
                           {"seconds_per_change", r.per_change},
                           {"median_ms_per_change", ms},
                           {"ratio_to_sluice", ratio},
                           {"check", r.check}});
        if (!r.info.is_null()) results.back()["info"] = r.info;
      }
      if (by.count("storage") && by["storage"].error.empty() && by.count("sluice") &&
          by["sluice"].error.empty()) {
        // State on storage against in memory, change by change (each pair
        // ran back to back).
        std::vector<double> ratios;
        const Result &m = by["sluice"], &s = by["storage"];
        for (size_t i = 0; i < std::min(m.per_change.size(), s.per_change.size()); ++i) {
          ratios.push_back(s.per_change[i] / m.per_change[i]);
        }
        for (Json& row : results) {
          if (row["view"] == wl && row["base_rows"] == n && row["system"] == "storage") {
            row["storage_over_memory_paired"] = Median(ratios);
          }
        }
        const Json& info = s.info;
        std::printf(
            "      storage / memory: %.2f (median of paired ratios %.2f); budget %.1f MB "
            "of %.1f MB state",
            Median(s.per_change) / Median(m.per_change), Median(ratios),
            info.value("memory_budget_bytes", 0.0) / 1048576,
            info.value("state_bytes_in_memory", 0.0) / 1048576);
        if (info.contains("block_cache")) {
          const Json& bc = info["block_cache"];
          std::printf("; block cache %.1f of %.1f MB, hit rate %.3f (%llu hits, %llu misses)",
                      bc.value("bytes", 0.0) / 1048576, bc.value("capacity_bytes", 0.0) / 1048576,
                      bc.value("hit_rate", 0.0), bc.value("hits", 0ull), bc.value("misses", 0ull));
        }
        std::printf("\n");
      }
      if (!breakdown.steps.empty()) {
        // Where a pipeline's change went, and what the bare circuit took.
        Json parts;
        std::printf("      the pipeline's change, median ms:");
        for (const char* part : kParts) {
          const double ms = Median(breakdown.ms[part]);
          parts[part] = {{"median_ms", ms}, {"ms_per_change", breakdown.ms[part]}};
          std::printf(" %s %.3f", part, ms);
        }
        const double steps = Median(breakdown.steps);
        std::printf(", steps %.0f\n", steps);
        Json row = {{"view", wl},
                    {"base_rows", n},
                    {"breakdown", parts},
                    {"steps_per_change", breakdown.steps}};
        if (by.count("circuit") && by["circuit"].error.empty() && by.count("sluice") &&
            by["sluice"].error.empty()) {
          // The ratio of medians, and the median of per-change ratios
          // (each pair ran back to back, so noise falls on both).
          std::vector<double> ratios;
          const Result &p = by["sluice"], &b = by["circuit"];
          for (size_t i = 0; i < std::min(p.per_change.size(), b.per_change.size()); ++i) {
            ratios.push_back(p.per_change[i] / b.per_change[i]);
          }
          row["pipeline_over_circuit"] = Median(p.per_change) / Median(b.per_change);
          row["pipeline_over_circuit_paired"] = Median(ratios);
          std::printf("      pipeline / bare circuit: %.2f (median of paired ratios %.2f)\n",
                      Median(p.per_change) / Median(b.per_change), Median(ratios));
        }
        breakdowns.push_back(row);
      }
      // The systems' views agree (numbers compared to 2 decimals).
      auto norm = [](const std::string& c) {
        std::string out;
        std::stringstream ss(c);
        for (std::string x; std::getline(ss, x, '|');) {
          char buf[64];
          std::snprintf(buf, sizeof buf, "%.2f", std::strtod(x.c_str(), nullptr));
          out += std::string(buf) + "|";
        }
        return out;
      };
      for (auto& [s, r] : by) {
        if (r.error.empty() && first_check.empty()) first_check = norm(r.check);
        if (r.error.empty() && norm(r.check) != first_check) {
          std::printf("  the views of %s disagree: %s\n", s.c_str(), r.check.c_str());
          agree = false;
        }
      }
      std::fflush(stdout);
    }
  }
  std::filesystem::remove_all(dir);
  if (!dat_path.empty()) {
    std::ofstream dat(dat_path);
    dat << "# view base_rows system median_ms_per_change\n";
    for (const Json& r : results) {
      dat << r["view"].get<std::string>() << " " << r["base_rows"] << " "
          << r["system"].get<std::string>() << " " << r["median_ms_per_change"] << "\n";
    }
  }
  if (!out_path.empty()) {
    std::ofstream(out_path) << Json{{"benchmark", "ivm"},
                                    {"changes", changes},
                                    {"change_rows", change_rows},
                                    {"workers", workers},
                                    {"results", results},
                                    {"pipeline_breakdown", breakdowns}}
                                   .dump(1)
                            << "\n";
  }
  std::printf("%s\n", agree ? "the systems' views agree" : "ERROR: the systems' views disagree");
  return agree ? 0 : 1;
}
