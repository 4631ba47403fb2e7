#include "pipeline/wire.h"

#include "base/bytes.h"
#include "zset/batch_codec.h"

namespace sluice::pipeline {

void EncodeChunkFrame(const connector::OutputChunk& chunk, std::string* out) {
  std::string frame;
  frame.push_back('C');
  using Kind = connector::OutputChunk::Kind;
  frame.push_back(static_cast<char>(chunk.kind == Kind::kChanges    ? 0
                                    : chunk.kind == Kind::kSnapshot ? (chunk.last ? 1 : 3)
                                                                    : 2));
  PutFixed64(&frame, chunk.step);
  PutFixed32(&frame, static_cast<uint32_t>(chunk.batches.size()));
  for (const BatchPtr& b : chunk.batches) {
    std::string c;
    Status s = EncodeAnyBatch(*b, &c);
    if (!s.ok()) {
      // The host's own storage failed: the stream ends with the error,
      // and nothing of the frame that could not be made.
      EncodeEndFrame(s, out);
      return;
    }
    PutFixed64(&frame, c.size());
    frame += c;
  }
  *out += frame;
}

void EncodeEndFrame(const Status& error, std::string* out) {
  out->push_back('E');
  out->push_back(static_cast<char>(error.ok()                              ? 0
                                   : error.code() == StatusCode::kAborted  ? 1
                                   : error.code() == StatusCode::kOverflow ? 2
                                                                           : 3));
  PutFixed32(out, static_cast<uint32_t>(error.message().size()));
  *out += error.message();
}

Result<FrameReader::Type> FrameReader::Next() {
  // Drop what was read, now and then.
  if (pos_ > (1u << 20) && pos_ * 2 > buf_.size()) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  std::string_view in(buf_);
  in.remove_prefix(pos_);
  if (in.empty()) return Type::kNone;
  const char t = in[0];
  in.remove_prefix(1);
  auto bad = [&] { return Status::Corruption(std::string("malformed egress frame '") + t + "'"); };
  uint64_t v = 0;
  switch (t) {
    case 'H':
    case 'K':
      if (in.size() < 8) return Type::kNone;
      step_ = GetFixed64(in.data());
      pos_ += 9;
      return t == 'H' ? Type::kHeader : Type::kHeartbeat;
    case 'E': {
      if (in.size() < 5) return Type::kNone;
      const uint8_t code = static_cast<uint8_t>(in[0]);
      const uint32_t n = GetFixed32(in.data() + 1);
      if (in.size() < 5 + n) return Type::kNone;
      std::string msg(in.substr(5, n));
      end_ = code == 0   ? Status::OK()
             : code == 1 ? Status::Aborted(msg)
             : code == 2 ? Status::Overflow(msg)
                         : Status::IOError(msg);
      pos_ += 6 + n;
      return Type::kEnd;
    }
    case 'C': {
      if (in.size() < 13) return Type::kNone;
      const uint8_t kind = static_cast<uint8_t>(in[0]);
      if (kind > 3) return bad();
      const uint64_t step = GetFixed64(in.data() + 1);
      const uint32_t count = GetFixed32(in.data() + 9);
      size_t at = 13;
      std::vector<BatchPtr> batches;
      for (uint32_t i = 0; i < count; ++i) {
        if (in.size() < at + 8) return Type::kNone;
        v = GetFixed64(in.data() + at);
        if (in.size() < at + 8 + v) return Type::kNone;
        auto b = DecodeBatch(in.substr(at + 8, v));
        if (!b.ok()) return b.status();
        batches.push_back(*b);
        at += 8 + v;
      }
      chunk_ = connector::OutputChunk();
      chunk_.kind = kind == 0   ? connector::OutputChunk::Kind::kChanges
                    : kind == 2 ? connector::OutputChunk::Kind::kReset
                                : connector::OutputChunk::Kind::kSnapshot;
      chunk_.last = kind != 3;
      chunk_.step = step;
      chunk_.batches = std::move(batches);
      pos_ += 1 + at;
      return Type::kChunk;
    }
    default:
      return bad();
  }
}

}  // namespace sluice::pipeline
