#include "pipeline/wire.h"

#include <gtest/gtest.h>

#include "base/bytes.h"
#include "zset/batch_builder.h"

namespace sluice::pipeline {
namespace {

BatchPtr Rows(int n) {
  BatchBuilder b;
  for (int i = 0; i < n; ++i) b.Push("row" + std::to_string(i), i + 1);
  return *b.Finish();
}

std::string Stream() {
  std::string out = "H";
  PutFixed64(&out, 41);
  connector::OutputChunk c;
  c.kind = connector::OutputChunk::Kind::kSnapshot;
  c.step = 41;
  c.batches = {Rows(3), Rows(2)};
  EncodeChunkFrame(c, &out);
  out.push_back('K');
  PutFixed64(&out, 42);
  EncodeEndFrame(Status::Overflow("fell behind"), &out);
  return out;
}

TEST(WireTest, FramesReadBackWhateverTheyArriveIn) {
  const std::string s = Stream();
  for (size_t piece : {1ul, 3ul, 7ul, s.size()}) {
    SCOPED_TRACE(piece);
    FrameReader r;
    std::vector<FrameReader::Type> types;
    for (size_t at = 0; at < s.size(); at += piece) {
      r.Append(std::string_view(s).substr(at, piece));
      for (;;) {
        auto t = r.Next();
        ASSERT_TRUE(t.ok()) << t.status().ToString();
        if (*t == FrameReader::Type::kNone) break;
        types.push_back(*t);
        if (*t == FrameReader::Type::kChunk) {
          EXPECT_EQ(r.chunk().step, 41u);
          EXPECT_EQ(r.chunk().kind, connector::OutputChunk::Kind::kSnapshot);
          ASSERT_EQ(r.chunk().batches.size(), 2u);
          EXPECT_EQ(r.chunk().batches[0]->len(), 3u);
        }
        if (*t == FrameReader::Type::kHeartbeat) {
          EXPECT_EQ(r.step(), 42u);
        }
        if (*t == FrameReader::Type::kEnd) {
          EXPECT_EQ(r.end().code(), StatusCode::kOverflow);
        }
      }
    }
    EXPECT_EQ(types, (std::vector<FrameReader::Type>{
                         FrameReader::Type::kHeader, FrameReader::Type::kChunk,
                         FrameReader::Type::kHeartbeat, FrameReader::Type::kEnd}));
  }
}

// A flipped byte anywhere in a batch, or an unknown frame, is an error,
// never a wrong batch.
TEST(WireTest, DamagedFramesAreErrors) {
  const std::string s = Stream();
  const size_t chunk_start = 9, chunk_end = s.size() - 9 - 17;
  size_t errors = 0;
  for (size_t at = chunk_start + 14; at < chunk_end; at += 7) {
    std::string bad = s;
    bad[at] ^= 0x10;
    FrameReader r;
    r.Append(bad);
    Result<FrameReader::Type> t = r.Next();  // the header
    ASSERT_TRUE(t.ok());
    t = r.Next();
    if (!t.ok()) {
      ++errors;
      EXPECT_EQ(t.status().code(), StatusCode::kCorruption) << t.status().ToString();
    } else {
      // A length byte flipped upwards: the frame waits for more bytes.
      EXPECT_EQ(*t, FrameReader::Type::kNone) << at << " of " << s.size();
    }
  }
  EXPECT_GT(errors, 10u);
  FrameReader r;
  r.Append("Zgarbage");
  EXPECT_EQ(r.Next().status().code(), StatusCode::kCorruption);
}

}  // namespace
}  // namespace sluice::pipeline
