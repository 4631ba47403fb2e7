// The checkpoints of one pipeline (or of one host's share) on storage,
// under `<storage>/checkpoints/`:
//
//   0000000007/        checkpoint 7 (the sequence number, 10 digits)
//     pipeline.json    the manifest: {"body": {...}, "checksum": "<hex>"},
//                      the checksum an XXH3 of the body's JSON text; the
//                      body names the batch files (keys "batch" and "spine"
//                      anywhere in it) and says what the rest holds
//                      (controller's checkpoint.cc)
//     queues.bin, *.batch
//   .tmp-0000000008/   a checkpoint being written: renamed into place whole
//                      when done, so a crash leaves the previous ones intact
//   .corrupt-0000000006/  a checkpoint that failed its checks, kept aside
//                      for inspection
//
// The store lists, writes, reads, validates and drops checkpoints; what a
// body holds is the controller's business. Thread safety: none needed;
// only the step loop writes and drops, and a directory that is read while
// being dropped reads as missing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "pipeline/report.h"

namespace sluice::pipeline {

class CheckpointStore {
 public:
  explicit CheckpointStore(std::string root) : root_(std::move(root)) {}
  const std::string& root() const { return root_; }
  std::string Dir(uint64_t seq) const;

  // Sequence numbers on storage, newest first (not those being written or
  // set aside).
  std::vector<uint64_t> List() const;

  // A fresh directory to write checkpoint `seq` into.
  Result<std::string> Begin(uint64_t seq);
  // Writes the manifest (`body`: JSON text) into checkpoint `seq`'s
  // directory from Begin and renames it into place.
  Status Commit(uint64_t seq, const std::string& body);
  // Removes what Begin(seq) made (a checkpoint that failed).
  void Abandon(uint64_t seq);

  // The body of checkpoint `seq`'s manifest, checked against its checksum.
  Result<std::string> ReadBody(uint64_t seq) const;
  // Reads the manifest, then checks that every batch file it names is
  // there and that every block of each matches its checksum, so that a
  // damaged checkpoint is found at start, not in a later step.
  Status Validate(uint64_t seq) const;
  // Moves a damaged checkpoint aside (as .corrupt-<seq>), so that it is
  // neither loaded nor counted, and logs why.
  void SetAside(uint64_t seq, const Status& why);

  // Removes the checkpoints numbered below `seq`.
  void DropBefore(uint64_t seq);
  // Removes the checkpoints numbered above `seq` (all, for 0).
  void DropAfter(uint64_t seq);
  // Each checkpoint, newest first, with its size and step (or its error).
  std::vector<CheckpointInfo> Info() const;

 private:
  std::string TmpDir(uint64_t seq) const;
  const std::string root_;
};

}  // namespace sluice::pipeline
