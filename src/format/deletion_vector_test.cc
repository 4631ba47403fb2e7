// Deletion vectors: the Delta protocol's own examples decoded, random sets
// through our encoder and back, run containers (which other writers use and
// we do not write), the file framing, and damaged bytes (an error, never a
// crash).
#include "format/deletion_vector.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <set>

namespace sluice::format {
namespace {

TEST(DeletionVector, ProtocolInlineExample) {
  // The inline descriptor of the Delta protocol's deletion-vector section:
  // 40 bytes, rows 3, 4, 7, 11, 18 and 29.
  auto bytes = Z85Decode("wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L");
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  ASSERT_EQ(bytes->size(), 40u);
  auto rows = DecodeDeletionBitmap(*bytes, 6, "example");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (std::vector<uint64_t>{3, 4, 7, 11, 18, 29}));
  // A wrong cardinality is damage.
  auto wrong = DecodeDeletionBitmap(*bytes, 5, "example");
  EXPECT_FALSE(wrong.ok());
}

TEST(DeletionVector, ProtocolUuidExample) {
  // "ab^-aqEH.-t@S}K{vb[*k^": prefix "ab", then the UUID
  // d2c639aa-8816-431a-aaf6-d3fe2512ff61 in Z85.
  auto uuid = Z85Decode("^-aqEH.-t@S}K{vb[*k^");
  ASSERT_TRUE(uuid.ok());
  const uint8_t want[16] = {0xd2, 0xc6, 0x39, 0xaa, 0x88, 0x16, 0x43, 0x1a,
                            0xaa, 0xf6, 0xd3, 0xfe, 0x25, 0x12, 0xff, 0x61};
  EXPECT_EQ(*uuid, std::string(reinterpret_cast<const char*>(want), 16));
  EXPECT_EQ(Z85Encode(*uuid), "^-aqEH.-t@S}K{vb[*k^");
}

TEST(DeletionVector, Z85) {
  // ZeroMQ's test vector.
  const uint8_t hello[8] = {0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B};
  EXPECT_EQ(Z85Encode(std::string(reinterpret_cast<const char*>(hello), 8)), "HelloWorld");
  EXPECT_EQ(Z85Encode("abc").size(), 5u);  // padded to 4 bytes
  EXPECT_FALSE(Z85Decode("Hell").ok());
  EXPECT_FALSE(Z85Decode("Hell\"").ok());
  EXPECT_FALSE(Z85Decode("#####").ok());  // above 2^32
}

TEST(DeletionVector, RandomSetsRoundTrip) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::set<uint64_t> set;
    const int shape = round % 4;
    const int n = static_cast<int>(rng() % 20000);
    for (int i = 0; i < n; ++i) {
      uint64_t v = 0;
      if (shape == 0) v = rng() % 100000;                       // arrays and bitsets
      if (shape == 1) v = rng() % 70000;                        // dense: bitsets
      if (shape == 2) v = (rng() % 3) << 32 | (rng() % 300000);  // several 32-bit maps
      if (shape == 3) v = rng() % (uint64_t{1} << 40);           // sparse
      set.insert(v);
    }
    const std::vector<uint64_t> want(set.begin(), set.end());
    const std::string bitmap = EncodeDeletionBitmap(want);
    auto got = DecodeDeletionBitmap(bitmap, want.size(), "round " + std::to_string(round));
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_EQ(*got, want) << "round " << round;
  }
  auto empty = DecodeDeletionBitmap(EncodeDeletionBitmap({}), 0, "empty");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST(DeletionVector, RunContainers) {
  // A 32-bit map with the run cookie: one run container (10..19) and one
  // array container (key 1: 65536+5), below the offset threshold.
  std::string b;
  auto le = [&](uint64_t v, int n) {
    for (int i = 0; i < n; ++i) b.push_back(static_cast<char>(v >> (8 * i)));
  };
  le(1681511377, 4);
  le(1, 8);  // one 32-bit map
  le(0, 4);  // its high bits
  le(12347 | (1u << 16), 4);  // run cookie, 2 containers
  b.push_back(1);  // container 0 is a run container
  le(0, 2), le(9, 2);  // key 0, 10 values
  le(1, 2), le(0, 2);  // key 1, 1 value
  le(1, 2), le(10, 2), le(9, 2);  // one run: 10, length 9 more
  le(5, 2);  // the array container
  auto got = DecodeDeletionBitmap(b, 11, "runs");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  std::vector<uint64_t> want;
  for (uint64_t v = 10; v < 20; ++v) want.push_back(v);
  want.push_back(65536 + 5);
  EXPECT_EQ(*got, want);
}

TEST(DeletionVector, FileFraming) {
  const std::string a = EncodeDeletionBitmap({1, 2, 3});
  const std::string c = EncodeDeletionBitmap({100000});
  std::vector<uint64_t> offsets;
  const std::string file = EncodeDeletionVectorFile({a, c}, &offsets);
  ASSERT_EQ(offsets.size(), 2u);
  EXPECT_EQ(offsets[0], 1u);
  auto second = DeletionBitmapAt(file, offsets[1], c.size(), "second");
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(*second, c);
  EXPECT_FALSE(DeletionBitmapAt(file, offsets[1], c.size() + 1, "size").ok());
  EXPECT_FALSE(DeletionBitmapAt(file, file.size() - 2, 4, "end").ok());
  std::string flipped = file;
  flipped[offsets[0] + 6] ^= 1;
  auto bad = DeletionBitmapAt(flipped, offsets[0], a.size(), "flipped");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("checksum"), std::string::npos);
  std::string version = file;
  version[0] = 2;
  EXPECT_FALSE(DeletionBitmapAt(version, offsets[0], a.size(), "version").ok());
}

TEST(DeletionVector, DamagedBitmapsNeverCrash) {
  std::mt19937_64 rng(11);
  int decoded = 0;
  int refused = 0;
  for (int round = 0; round < 1000; ++round) {
    std::vector<uint64_t> rows;
    for (uint64_t v = rng() % 50; v < 200000; v += 1 + rng() % (round % 2 ? 3 : 500)) {
      rows.push_back(v);
    }
    std::string b = EncodeDeletionBitmap(rows);
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) b[rng() % b.size()] = static_cast<char>(rng());
    if (rng() % 4 == 0) b.resize(rng() % b.size());
    auto r = DecodeDeletionBitmap(b, rows.size(), "damaged");
    if (r.ok()) {
      ++decoded;
      EXPECT_TRUE(std::is_sorted(r->begin(), r->end()));
    } else {
      ++refused;
    }
  }
  EXPECT_GT(refused, 0);
  std::printf("%d damaged bitmaps decoded, %d refused\n", decoded, refused);
}

}  // namespace
}  // namespace sluice::format
