// The binary bodies of the coordination API between a coordinator and its
// hosts (docs/multihost.md). Batches travel in the batch codec
// (zset/batch_codec.h), changes as the input journal encodes them.
//
// An egress stream is a sequence of frames:
//   'H' u64 snapshot step                      first, once
//   'C' u8 kind (0 changes, 1 snapshot or its last part, 2 reset, 3 a part
//       of a snapshot that more parts follow), u64 step, u32 batches, per
//       batch u64 length + chunk
//   'K' u64 the host's step                    a heartbeat while idle
//   'E' u8 code (0 ended, 1 aborted, 2 fell behind, 3 failed), u32 length,
//       message                                last
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "connector/connector.h"

namespace sluice::pipeline {

void EncodeChunkFrame(const connector::OutputChunk& chunk, std::string* out);
void EncodeEndFrame(const Status& error, std::string* out);

// Reads frames from a growing buffer.
class FrameReader {
 public:
  enum class Type { kNone, kHeader, kChunk, kHeartbeat, kEnd };
  void Append(std::string_view data) { buf_.append(data); }
  // The next whole frame, or kNone until more data arrives. A malformed
  // frame is an error.
  Result<Type> Next();
  uint64_t step() const { return step_; }             // kHeader, kHeartbeat
  connector::OutputChunk& chunk() { return chunk_; }  // kChunk
  const Status& end() const { return end_; }          // kEnd

 private:
  std::string buf_;
  size_t pos_ = 0;
  uint64_t step_ = 0;
  connector::OutputChunk chunk_;
  Status end_;
};

}  // namespace sluice::pipeline
