// Waterlines: per table with a LATENESS column (sql/lateness.h), the largest
// value of that column that the table took, and its waterline, that value
// minus the lateness. A row whose column lies behind the waterline when its
// step starts is late: it is dropped (counted per table, for /stats) and
// changes nothing else. After each step the waterline moves up (never down)
// and is published to the circuit's operators (dataflow/waterline.h),
// which forget state behind it; so the waterline that operators read is
// never ahead of the rows that later steps still take.
//
// On many hosts each host admits only its own input, and operators on every
// host forget by the same waterline: a host's waterline does not follow its
// own largest value but the largest over every host, agreed on by the
// coordinator (Agree(), before each step takes its input: the maxima of
// every host's answer to the step before). Each host reports its own
// maxima (maxima()) with every step's answer and at activation.
//
// Checkpoints keep each table's largest value, the agreed one, and the late
// count (ToJson, FromJson), so a restart resumes the same waterlines.
//
// Thread safety: Admit() and EndStep() are called by the step's thread, one
// step at a time; the accessors from any thread. `mu_` guards the figures.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "base/mutex.h"
#include "base/status.h"
#include "dataflow/waterline.h"
#include "sql/program.h"

namespace sluice::pipeline {

class Waterlines {
 public:
  // `agreed`: the waterlines follow Agree() (a host of many), not EndStep().
  explicit Waterlines(const sql::Program& program, bool agreed = false);

  bool empty() const EXCLUDES(mu_) {
    MutexLock l(&mu_);
    return tables_.empty();
  }
  // For the circuit (BuildProgram): every table's column and waterline.
  const sql::TableWaterlines& published() const { return published_; }

  // Whether `row` (a row of `table`, as encoded) may enter this step: true
  // unless its LATENESS column lies behind the table's waterline (NULL never
  // does). A late row is counted.
  bool Admit(const std::string& table, std::string_view row) EXCLUDES(mu_);
  // At a step's end: each waterline follows the largest value admitted
  // (on one host).
  void EndStep() EXCLUDES(mu_);
  // Before a step takes its input (a host of many): each waterline follows
  // the largest value over every host, `maxima` by table (a table missing
  // from it keeps its waterline).
  void Agree(const std::map<std::string, int64_t>& maxima) EXCLUDES(mu_);
  // The largest value this process admitted, per table that admitted one.
  std::map<std::string, int64_t> maxima() const EXCLUDES(mu_) { return Known(&Table::max); }
  // The largest value over every host (one host: maxima()), per table
  // that has one: what the waterlines follow.
  std::map<std::string, int64_t> agreed() const EXCLUDES(mu_) { return Known(&Table::agreed); }

  // Late rows dropped since the pipeline started (counted in checkpoints),
  // per table with a LATENESS column.
  std::map<std::string, uint64_t> late_rows() const EXCLUDES(mu_);
  // The waterlines, as values of their columns' types (only those known).
  std::map<std::string, std::string> waterlines() const EXCLUDES(mu_);

  nlohmann::json ToJson() const EXCLUDES(mu_);
  Status FromJson(const nlohmann::json& j) EXCLUDES(mu_);

 private:
  struct Table {
    Schema schema;
    int column = 0;
    int64_t lateness = 0;
    std::shared_ptr<Waterline> waterline;
    int64_t max = Waterline::kNone;     // the largest value admitted here
    int64_t agreed = Waterline::kNone;  // the largest over every host (one: `max`)
    uint64_t late = 0;
  };
  // Moves each waterline up to its table's agreed value minus the lateness.
  void AdvanceLocked() REQUIRES(mu_);
  // `field` of every table where it is known.
  std::map<std::string, int64_t> Known(int64_t Table::*field) const EXCLUDES(mu_);

  const bool agreed_;

  mutable Mutex mu_;
  std::map<std::string, Table> tables_ GUARDED_BY(mu_);
  sql::TableWaterlines published_;  // set once, in the constructor
};

}  // namespace sluice::pipeline
