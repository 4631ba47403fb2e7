// Operator state in checkpoints. At a step boundary every stateful operator
// writes what it holds (spines, held batches, small counters) through a
// StateWriter; a fresh circuit built from the same program reads it back, in
// the same order, through a StateReader, and then continues exactly as the
// original would have.
//
// Layout: the writer puts each batch in its own file under the checkpoint
// directory (a batch already on storage is hard-linked, not copied) and
// records, per operator, its key in the circuit (its owner and ordinal,
// circuit.h), its name and a list of items; the manifest is JSON text that the caller stores. Batch
// files are FileBatch files (checksummed), so a torn or corrupted one is detected when it is opened
// or read.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "zset/batch.h"
#include "zset/spine.h"

namespace sluice {

class StateWriter {
 public:
  // Files go to `dir`, named `<prefix>-<n>.batch`.
  StateWriter(std::string dir, std::string prefix);
  ~StateWriter();

  void BeginOp(const std::string& key, const char* name);
  Status PutBatch(const BatchPtr& batch);
  Status PutSpine(const Spine& spine);
  void PutU64(uint64_t v);

  // The manifest of everything written (JSON text).
  std::string Manifest() const;
  uint64_t bytes() const { return bytes_; }

 private:
  Result<std::string> WriteBatch(const BatchPtr& batch);

  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string dir_, prefix_;
  uint64_t files_ = 0, bytes_ = 0;
};

class StateReader {
 public:
  // Reads what a StateWriter wrote to `dir` and described in `manifest`.
  static Result<std::unique_ptr<StateReader>> Open(std::string dir, std::string_view manifest);
  ~StateReader();

  // Moves to the state of the operator known as `key`, which must have been
  // written by an operator named `name`.
  Status BeginOp(const std::string& key, const char* name);
  // Whether an operator known as `key` was written.
  bool Has(const std::string& key) const;
  Result<BatchPtr> GetBatch();
  // Adds the saved batches to `spine` (which must be empty).
  Status GetSpine(Spine* spine);
  Result<uint64_t> GetU64();
  // Every operator's state was read (once).
  Status Finish() const;

 private:
  StateReader() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice
