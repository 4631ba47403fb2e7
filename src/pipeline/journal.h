// The input journal (fault_tolerance model "exactly_once"): a write-ahead
// log of what entered the pipeline since a checkpoint and of how steps took
// it, so that a restart replays exactly the same steps. Sinks that skip the
// steps they already hold (the Delta sink) or that are cut back to the
// checkpoint (file_output) then end up with every change exactly once, and
// HTTP input that was accepted before a crash is not lost.
//
// Files: `<storage>/journal/<sequence, 10 digits>.log`. A file is started
// when checkpoint `sequence` takes its snapshot of the queues; a restart from
// checkpoint k replays every file numbered k or more, in order. Records:
//
//   u32 length, u64 checksum of the payload, payload:
//     'S' segment   u64 id, table, source connector ("" for HTTP), the
//                   connector's position after it (JSON), the changes
//     'T' step      u64 step, u8 flags (1: it commits the open transaction,
//                   2: it runs inside one, 4: the step clock follows), u32
//                   ranges, per range: u64 segment id, u64 from, u64 to (the
//                   changes it took); then, with flag 4, i64 the step
//                   clock's value (dataflow/clock.h) in that step
//
// (strings are u32 length + bytes; changes are u64 count, then per change a
// kind byte, u32 + key, u32 + payload). Segment records are written when
// input is queued; a step's record is written and synced before the step
// runs, so a step that ran is always in the journal.
//
// Reading back: a torn record at the end of the last file (a crash while
// writing it: cut short, failing its checksum as the file's last record,
// or followed only by zeros) ends the journal there, and the file is cut
// back to its last whole record. A record that fails its checksum with
// whole data after it, or any damage in a file before the last, is a
// Corruption error: the journal is not read past it. (A damaged length
// field that points past the end of the last file reads as a torn end.)
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "base/status.h"
#include "format/format.h"

namespace sluice::pipeline {

// Changes [from, to) of `changes`, encoded as the journal and checkpoints
// store them; and back.
void EncodeChanges(const format::ChangeBuffer& changes, size_t from, size_t to, std::string* out);
bool DecodeChanges(std::string_view* in, format::ChangeBuffer* out);

struct JournalRecord {
  char type = 0;  // 'S' or 'T'
  // 'S'
  uint64_t segment = 0;
  std::string table, source, position;
  std::shared_ptr<format::ChangeBuffer> changes;
  // 'T'
  uint64_t step = 0;
  bool commit = false;
  bool in_transaction = false;
  struct Range {
    uint64_t segment = 0, from = 0, to = 0;
  };
  std::vector<Range> ranges;
  int64_t clock = 0;  // the step clock in the step (0: not recorded)
};

class Journal {
 public:
  // Appends to the newest file under `dir`, or to file `sequence` if there
  // is none as new (created if needed).
  static Result<std::unique_ptr<Journal>> Open(const std::string& dir, uint64_t sequence);
  ~Journal();

  Status AppendSegment(uint64_t id, const std::string& table, const std::string& source,
                       const std::string& position, const format::ChangeBuffer& changes);
  // Written and synced (with every record before it).
  Status AppendStep(uint64_t step, bool commit, bool in_transaction,
                    const std::vector<JournalRecord::Range>& ranges, int64_t clock = 0);
  // Goes on in file `sequence`.
  Status Rotate(uint64_t sequence);
  // Removes the files numbered below `sequence`.
  void RemoveBefore(uint64_t sequence);

  // The number of the newest file under `dir` (0 if none).
  static uint64_t Newest(const std::string& dir);

  // Calls `fn` for every record of the files numbered `from` or more.
  static Status Replay(const std::string& dir, uint64_t from,
                       const std::function<Status(const JournalRecord&)>& fn);

 private:
  Journal() = default;
  Status Append(const std::string& payload, bool sync);

  Mutex mu_;
  std::string dir_;
  int fd_ GUARDED_BY(mu_) = -1;
};

}  // namespace sluice::pipeline
