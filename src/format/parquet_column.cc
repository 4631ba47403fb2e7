#include "format/parquet_column.h"

#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include "format/json.h"

namespace sluice::format::parquet {
namespace {

using uint128 = unsigned __int128;

Status Bad(std::string what) { return Status::Corruption(std::move(what)); }

// ---------------------------------------------------------------- bits

// Reads `bw` (<= 64) bits at bit `bit` of `p`, least significant first.
// REQUIRES: the bytes holding them are within the buffer.
inline uint64_t ReadBits(const uint8_t* p, size_t size, uint64_t bit, int bw) {
  if (bw == 0) return 0;
  const size_t byte = bit >> 3;
  const int off = static_cast<int>(bit & 7);
  if (bw <= 56 && byte + 8 <= size) {
    uint64_t w;
    std::memcpy(&w, p + byte, 8);
    return (w >> off) & ((uint64_t{1} << bw) - 1);
  }
  uint128 v = 0;
  const size_t last = (bit + static_cast<uint64_t>(bw) - 1) >> 3;
  for (size_t i = last + 1; i-- > byte;) v = (v << 8) | p[i];
  v >>= off;
  return bw == 64 ? static_cast<uint64_t>(v) : static_cast<uint64_t>(v) & ((uint64_t{1} << bw) - 1);
}

bool ReadUleb(const uint8_t** p, const uint8_t* end, uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*p >= end) return false;
    const uint8_t b = *(*p)++;
    *v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return true;
  }
  return false;
}

// The RLE / bit-packed hybrid: runs, each a ULEB128 header h; h & 1 == 0 is
// an RLE run of h >> 1 copies of one value held in ceil(bw / 8) bytes
// (little-endian); h & 1 == 1 is (h >> 1) groups of 8 values of bw bits,
// packed least significant bit first.
class HybridDecoder {
 public:
  HybridDecoder(const uint8_t* p, size_t size, int bw) : p_(p), end_(p + size), bw_(bw) {}

  // Decodes the next `n` values. False if the runs end first.
  template <typename T>
  bool Next(T* out, size_t n) {
    while (n > 0) {
      if (left_ == 0 && !NextRun()) return false;
      const size_t take = static_cast<size_t>(std::min<uint64_t>(left_, n));
      if (rle_) {
        std::fill(out, out + take, static_cast<T>(value_));
      } else {
        const size_t size = static_cast<size_t>(packed_end_ - packed_);
        for (size_t i = 0; i < take; ++i) {
          out[i] = static_cast<T>(ReadBits(packed_, size, bit_, bw_));
          bit_ += static_cast<uint64_t>(bw_);
        }
      }
      out += take;
      n -= take;
      left_ -= take;
    }
    return true;
  }

 private:
  bool NextRun() {
    uint64_t h;
    if (!ReadUleb(&p_, end_, &h)) return false;
    if ((h & 1) == 0) {
      rle_ = true;
      left_ = h >> 1;
      const int bytes = (bw_ + 7) / 8;
      if (end_ - p_ < bytes) return false;
      value_ = 0;
      for (int i = 0; i < bytes; ++i) value_ |= static_cast<uint64_t>(p_[i]) << (8 * i);
      p_ += bytes;
      if (bw_ < 64 && (value_ >> bw_) != 0) return false;
      return left_ > 0;
    }
    rle_ = false;
    const uint64_t groups = h >> 1;
    if (groups == 0) return false;
    // Some writers end the last group early: take what is there, whole
    // values only.
    const uint64_t bytes = groups * static_cast<uint64_t>(bw_);
    const uint64_t have = std::min<uint64_t>(bytes, static_cast<uint64_t>(end_ - p_));
    left_ = bw_ == 0 ? groups * 8
                     : std::min<uint64_t>(groups * 8, have * 8 / static_cast<uint64_t>(bw_));
    packed_ = p_;
    packed_end_ = p_ + have;
    bit_ = 0;
    p_ += have;
    return left_ > 0;
  }

  const uint8_t* p_;
  const uint8_t* end_;
  const int bw_;
  uint64_t left_ = 0;
  bool rle_ = false;
  uint64_t value_ = 0;
  const uint8_t* packed_ = nullptr;
  const uint8_t* packed_end_ = nullptr;
  uint64_t bit_ = 0;
};

int BitWidth(uint64_t max) {
  int w = 0;
  while (max > 0) {
    ++w;
    max >>= 1;
  }
  return w;
}

// DELTA_BINARY_PACKED: a header (block size, miniblocks per block, value
// count, first value as zigzag), then blocks: the block's smallest delta
// (zigzag), one bit width byte per miniblock, and the miniblocks, each
// holding (delta - smallest) of block_size / miniblocks values. Miniblocks
// after the last value are not written.
class DeltaDecoder {
 public:
  DeltaDecoder(const uint8_t* p, size_t size) : p_(p), end_(p + size) {}

  Status Header() {
    uint64_t block, minis, total, first;
    if (!ReadUleb(&p_, end_, &block) || !ReadUleb(&p_, end_, &minis) ||
        !ReadUleb(&p_, end_, &total) || !ReadUleb(&p_, end_, &first)) {
      return Bad("DELTA_BINARY_PACKED: truncated header");
    }
    if (block == 0 || block % 128 != 0 || block > (1u << 20) || minis == 0 || minis > block ||
        block % minis != 0 || (block / minis) % 32 != 0) {
      return Bad("DELTA_BINARY_PACKED: bad block size " + std::to_string(block) + " / " +
                 std::to_string(minis) + " miniblocks");
    }
    block_ = block;
    minis_ = minis;
    per_mini_ = block / minis;
    total_ = total;
    mini_index_ = minis;  // the first block starts at the first miniblock
    last_ =
        static_cast<uint64_t>(static_cast<int64_t>(first >> 1) ^ -static_cast<int64_t>(first & 1));
    return Status::OK();
  }
  uint64_t total() const { return total_; }

  // The next n values (n <= total() - read so far).
  Status Next(int64_t* out, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      if (read_ == 0) {
        out[i] = static_cast<int64_t>(last_);
        ++read_;
        continue;
      }
      if (left_in_mini_ == 0) SLUICE_RETURN_IF_ERROR(NextMini());
      const uint64_t d = ReadBits(mini_, mini_size_, bit_, bw_);
      bit_ += static_cast<uint64_t>(bw_);
      last_ += min_delta_ + d;  // wraps, as the writer's arithmetic did
      out[i] = static_cast<int64_t>(last_);
      --left_in_mini_;
      ++read_;
    }
    return Status::OK();
  }
  // Where the encoded values end (after all total() values were read).
  const uint8_t* end_of_values() const { return mini_end_ != nullptr ? mini_end_ : p_; }

 private:
  Status NextMini() {
    if (mini_index_ == minis_) {
      uint64_t z;
      if (!ReadUleb(&p_, end_, &z)) return Bad("DELTA_BINARY_PACKED: truncated block");
      min_delta_ =
          static_cast<uint64_t>(static_cast<int64_t>(z >> 1) ^ -static_cast<int64_t>(z & 1));
      if (static_cast<uint64_t>(end_ - p_) < minis_) {
        return Bad("DELTA_BINARY_PACKED: truncated bit widths");
      }
      widths_ = p_;
      p_ += minis_;
      mini_index_ = 0;
    }
    bw_ = widths_[mini_index_++];
    if (bw_ > 64) return Bad("DELTA_BINARY_PACKED: bit width " + std::to_string(bw_));
    const uint64_t bytes = per_mini_ * static_cast<uint64_t>(bw_) / 8;
    if (static_cast<uint64_t>(end_ - p_) < bytes) {
      // The last miniblock may be cut short after its last value.
      const uint64_t need = ((total_ - read_) * static_cast<uint64_t>(bw_) + 7) / 8;
      if (static_cast<uint64_t>(end_ - p_) < std::min(need, bytes)) {
        return Bad("DELTA_BINARY_PACKED: truncated miniblock");
      }
      mini_size_ = static_cast<size_t>(end_ - p_);
    } else {
      mini_size_ = static_cast<size_t>(bytes);
    }
    mini_ = p_;
    p_ += mini_size_;
    mini_end_ = p_;
    bit_ = 0;
    left_in_mini_ = per_mini_;
    return Status::OK();
  }

  const uint8_t* p_;
  const uint8_t* end_;
  uint64_t block_ = 0, minis_ = 0, per_mini_ = 0, total_ = 0, read_ = 0;
  uint64_t last_ = 0, min_delta_ = 0;
  const uint8_t* widths_ = nullptr;
  uint64_t mini_index_ = 0;
  int bw_ = 0;
  const uint8_t* mini_ = nullptr;
  const uint8_t* mini_end_ = nullptr;
  size_t mini_size_ = 0;
  uint64_t bit_ = 0, left_in_mini_ = 0;
};

// Reads all values of a DELTA_BINARY_PACKED run that holds at least `n`;
// *end: where it ends.
Status DecodeDelta(const uint8_t* p, size_t size, size_t n, std::vector<int64_t>* out,
                   const uint8_t** end) {
  DeltaDecoder d(p, size);
  SLUICE_RETURN_IF_ERROR(d.Header());
  if (d.total() < n) {
    return Bad("DELTA_BINARY_PACKED: " + std::to_string(d.total()) + " values where " +
               std::to_string(n) + " are needed");
  }
  // The count is checked against the page's: the vector is bounded by it.
  out->resize(n);
  SLUICE_RETURN_IF_ERROR(d.Next(out->data(), n));
  if (end != nullptr) {
    // Lengths or prefixes are followed by more data: read the rest of the
    // run to find where it ends.
    if (d.total() != n) {
      return Bad("DELTA_BINARY_PACKED: " + std::to_string(d.total()) + " lengths for " +
                 std::to_string(n) + " values");
    }
    *end = d.end_of_values();
  }
  return Status::OK();
}

// ---------------------------------------------------------------- values

int PlainWidth(const ParquetLeaf& l) {
  switch (l.phys) {
    case kInt32:
    case kFloat:
      return 4;
    case kInt64:
    case kDouble:
      return 8;
    case kInt96:
      return 12;
    case kFixed:
      return l.type_length;
    default:
      return 0;
  }
}

int128 BigEndian(const uint8_t* p, size_t n) {
  uint128 u = (n > 0 && (p[0] & 0x80)) ? ~static_cast<uint128>(0) : 0;
  for (size_t i = 0; i < n; ++i) u = (u << 8) | p[i];
  return static_cast<int128>(u);
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
  float f;
  if (exp == 0) {
    f = std::ldexp(static_cast<float>(frac), -24);
  } else if (exp == 31) {
    f = frac == 0 ? std::numeric_limits<float>::infinity()
                  : std::numeric_limits<float>::quiet_NaN();
  } else {
    f = std::ldexp(static_cast<float>(frac | 0x400), static_cast<int>(exp) - 25);
  }
  return sign ? -f : f;
}

std::string UuidText(const uint8_t* p) {
  static const char kHex[] = "0123456789abcdef";
  std::string s;
  s.reserve(36);
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s.push_back('-');
    s.push_back(kHex[p[i] >> 4]);
    s.push_back(kHex[p[i] & 15]);
  }
  return s;
}

// A value of fixed width, PLAIN (little-endian; FIXED_LEN_BYTE_ARRAY as is).
Status ConvertFixed(const ParquetLeaf& l, const uint8_t* p, Value* out) {
  int64_t x = 0;
  switch (l.phys) {
    case kInt32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      x = v;
      break;
    }
    case kInt64:
      std::memcpy(&x, p, 8);
      break;
    case kFloat: {
      float f;
      std::memcpy(&f, p, 4);
      *out = Value::Double(f);
      return Status::OK();
    }
    case kDouble: {
      double d;
      std::memcpy(&d, p, 8);
      *out = Value::Double(d);
      return Status::OK();
    }
    case kInt96: {
      int64_t nanos;
      int32_t julian;
      std::memcpy(&nanos, p, 8);
      std::memcpy(&julian, p + 8, 4);
      constexpr int64_t kUnixEpochJulian = 2440588;
      constexpr int64_t kMicrosPerDay = 86400LL * 1000000;
      int64_t micros;
      if (__builtin_mul_overflow(julian - kUnixEpochJulian, kMicrosPerDay, &micros) ||
          __builtin_add_overflow(micros, nanos / 1000, &micros)) {
        return Bad("INT96 timestamp of Julian day " + std::to_string(julian) + " out of range");
      }
      *out = Value::Int(micros);
      return Status::OK();
    }
    case kFixed:
      switch (l.conversion) {
        case Conversion::kDecimal:
          *out = Value::Decimal(BigEndian(p, static_cast<size_t>(l.type_length)), l.type.scale());
          return Status::OK();
        case Conversion::kFloat16:
          *out = Value::Double(HalfToFloat(static_cast<uint16_t>(p[0] | (p[1] << 8))));
          return Status::OK();
        case Conversion::kUuid:
          *out = Value::String(UuidText(p));
          return Status::OK();
        case Conversion::kInterval: {
          uint32_t months, days, millis;
          std::memcpy(&months, p, 4);
          std::memcpy(&days, p + 4, 4);
          std::memcpy(&millis, p + 8, 4);
          *out = Value::MakeInterval(static_cast<int32_t>(months), static_cast<int32_t>(days),
                                     static_cast<int64_t>(millis) * 1000);
          return Status::OK();
        }
        default:
          *out = Value::String(
              std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(l.type_length)));
          return Status::OK();
      }
    default:
      return Status::Internal("parquet: not a fixed-width type");
  }
  switch (l.conversion) {
    case Conversion::kUInt32:
      *out = Value::Int(static_cast<int64_t>(static_cast<uint32_t>(x)));
      break;
    case Conversion::kUInt64:
      *out = Value::Decimal(static_cast<int128>(static_cast<uint64_t>(x)), 0);
      break;
    case Conversion::kDecimal:
      *out = Value::Decimal(x, l.type.scale());
      break;
    case Conversion::kMillisToMicros:
      if (x > INT64_MAX / 1000 || x < INT64_MIN / 1000) {
        return Bad("milliseconds " + std::to_string(x) + " out of range");
      }
      *out = Value::Int(x * 1000);
      break;
    case Conversion::kNanosToMicros:
      *out = Value::Int(x >= 0 ? x / 1000 : -((-(x + 1)) / 1000) - 1);
      break;
    default:
      *out = Value::Int(x);
  }
  return Status::OK();
}

Status ConvertBytes(const ParquetLeaf& l, std::string_view b, Value* out) {
  switch (l.conversion) {
    case Conversion::kDecimal:
      if (b.size() > 16) return Bad("a DECIMAL of " + std::to_string(b.size()) + " bytes");
      *out = Value::Decimal(BigEndian(reinterpret_cast<const uint8_t*>(b.data()), b.size()),
                            l.type.scale());
      return Status::OK();
    case Conversion::kJson: {
      Status s = ParseJsonValue(b, l.type, out);
      if (!s.ok()) return Bad("JSON value: " + s.message());
      return Status::OK();
    }
    default:
      *out = Value::String(std::string(b));
      return Status::OK();
  }
}

// Appends `n` PLAIN values from `p` (`size` bytes) to `out`; *used: bytes read.
Status DecodePlain(const ParquetLeaf& l, const uint8_t* p, size_t size, size_t n,
                   std::vector<Value>* out, size_t* used) {
  if (l.phys == kBoolean) {
    if ((n + 7) / 8 > size) return Bad("PLAIN: " + std::to_string(n) + " booleans past the end");
    for (size_t i = 0; i < n; ++i) out->push_back(Value::Bool((p[i >> 3] >> (i & 7)) & 1));
    *used = (n + 7) / 8;
    return Status::OK();
  }
  const int width = PlainWidth(l);
  if (width > 0) {
    if (n > size / static_cast<size_t>(width)) {
      return Bad("PLAIN: " + std::to_string(n) + " values of " + std::to_string(width) +
                 " bytes in " + std::to_string(size) + " bytes");
    }
    out->reserve(out->size() + n);
    for (size_t i = 0; i < n; ++i) {
      out->emplace_back();
      SLUICE_RETURN_IF_ERROR(ConvertFixed(l, p + i * static_cast<size_t>(width), &out->back()));
    }
    *used = n * static_cast<size_t>(width);
    return Status::OK();
  }
  // BYTE_ARRAY: a 4-byte little-endian length before each value.
  if (n > size / 4) return Bad("PLAIN: " + std::to_string(n) + " byte arrays past the end");
  out->reserve(out->size() + n);
  size_t at = 0;
  for (size_t i = 0; i < n; ++i) {
    if (size - at < 4) return Bad("PLAIN: byte array " + std::to_string(i) + " past the end");
    uint32_t len;
    std::memcpy(&len, p + at, 4);
    at += 4;
    if (len > size - at) {
      return Bad("PLAIN: byte array " + std::to_string(i) + " of " + std::to_string(len) +
                 " bytes past the end");
    }
    out->emplace_back();
    SLUICE_RETURN_IF_ERROR(ConvertBytes(
        l, std::string_view(reinterpret_cast<const char*>(p + at), len), &out->back()));
    at += len;
  }
  *used = at;
  return Status::OK();
}

// ---------------------------------------------------------------- pages

struct PageHeader {
  int32_t type = -1;
  int32_t uncompressed = -1, compressed = -1;
  int32_t num_values = -1;
  int32_t encoding = -1;
  int32_t def_encoding = kRle, rep_encoding = kRle;
  // v2
  int32_t num_nulls = 0, num_rows = 0;
  int32_t def_bytes = 0, rep_bytes = 0;
  bool is_compressed = true;
  size_t header_bytes = 0;
};

Status ParsePageHeader(const uint8_t* p, size_t size, PageHeader* h) {
  ThriftDecoder d(p, size);
  int16_t id;
  uint8_t type;
  bool has_type = false;
  while (d.NextField(&id, &type)) {
    if (type == thrift::kI32 && id >= 1 && id <= 3) {
      int32_t v;
      d.ReadI32(&v);
      (id == 1 ? h->type : id == 2 ? h->uncompressed : h->compressed) = v;
      has_type |= id == 1;
    } else if (type == thrift::kStruct && (id == 5 || id == 7 || id == 8)) {
      d.BeginStruct();
      int16_t fid;
      uint8_t ft;
      while (d.NextField(&fid, &ft)) {
        int32_t v = 0;
        if (ft == thrift::kI32) {
          d.ReadI32(&v);
        } else if (id == 8 && fid == 7 && (ft == thrift::kTrue || ft == thrift::kFalse)) {
          h->is_compressed = d.BoolOf(ft);
          continue;
        } else {
          d.Skip(ft);
          continue;
        }
        if (id == 5) {  // DataPageHeader
          if (fid == 1) h->num_values = v;
          if (fid == 2) h->encoding = v;
          if (fid == 3) h->def_encoding = v;
          if (fid == 4) h->rep_encoding = v;
        } else if (id == 7) {  // DictionaryPageHeader
          if (fid == 1) h->num_values = v;
          if (fid == 2) h->encoding = v;
        } else {  // DataPageHeaderV2
          if (fid == 1) h->num_values = v;
          if (fid == 2) h->num_nulls = v;
          if (fid == 3) h->num_rows = v;
          if (fid == 4) h->encoding = v;
          if (fid == 5) h->def_bytes = v;
          if (fid == 6) h->rep_bytes = v;
        }
      }
      d.EndStruct();
    } else {
      d.Skip(type);
    }
  }
  SLUICE_RETURN_IF_ERROR(d.status().WithContext("page header"));
  h->header_bytes = d.consumed(p);
  if (!has_type || h->uncompressed < 0 || h->compressed < 0) {
    return Bad("page header without a type or with a negative size");
  }
  if (static_cast<uint64_t>(h->uncompressed) > kMaxPageBytes) {
    return Bad("page of " + std::to_string(h->uncompressed) + " bytes uncompressed, above the " +
               std::to_string(kMaxPageBytes) + "-byte limit");
  }
  return Status::OK();
}

const char* CodecName(int32_t c) {
  switch (c) {
    case kUncompressed:
      return "UNCOMPRESSED";
    case kSnappy:
      return "SNAPPY";
    case kGzip:
      return "GZIP";
    case kLzo:
      return "LZO";
    case kBrotli:
      return "BROTLI";
    case kLz4:
      return "LZ4";
    case kZstd:
      return "ZSTD";
    case kLz4Raw:
      return "LZ4_RAW";
  }
  return "unknown";
}

// Decompresses `in` into exactly `size` bytes. The output grows only as
// the input produces it, whatever `size` the header declares.
Status Decompress(int32_t codec, std::string_view in, size_t size, std::string* scratch,
                  std::string_view* out) {
  auto wrong_size = [&](size_t got) {
    return Bad(std::string(CodecName(codec)) + " page decompresses to " + std::to_string(got) +
               " bytes, the header says " + std::to_string(size));
  };
  switch (codec) {
    case kUncompressed:
      if (in.size() != size) return wrong_size(in.size());
      *out = in;
      return Status::OK();
    case kSnappy: {
      size_t n = 0;
      if (snappy_uncompressed_length(in.data(), in.size(), &n) != SNAPPY_OK) {
        return Bad("SNAPPY: damaged page");
      }
      if (n != size) return wrong_size(n);
      scratch->resize(n);
      if (snappy_uncompress(in.data(), in.size(), scratch->data(), &n) != SNAPPY_OK || n != size) {
        return Bad("SNAPPY: damaged page");
      }
      *out = std::string_view(scratch->data(), n);
      return Status::OK();
    }
    case kZstd: {
      const unsigned long long declared = ZSTD_getFrameContentSize(in.data(), in.size());
      if (declared == ZSTD_CONTENTSIZE_ERROR) return Bad("ZSTD: damaged page");
      if (declared != ZSTD_CONTENTSIZE_UNKNOWN) {
        if (declared != size) return wrong_size(static_cast<size_t>(declared));
        scratch->resize(size);
        const size_t n = ZSTD_decompress(scratch->data(), size, in.data(), in.size());
        if (ZSTD_isError(n)) return Bad(std::string("ZSTD: ") + ZSTD_getErrorName(n));
        if (n != size) return wrong_size(n);
        *out = std::string_view(scratch->data(), n);
        return Status::OK();
      }
      // No size in the frame: stream, growing the output as it comes.
      std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> ctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
      scratch->clear();
      ZSTD_inBuffer ib{in.data(), in.size(), 0};
      char buf[1 << 16];
      while (true) {
        ZSTD_outBuffer ob{buf, sizeof buf, 0};
        const size_t r = ZSTD_decompressStream(ctx.get(), &ob, &ib);
        if (ZSTD_isError(r)) return Bad(std::string("ZSTD: ") + ZSTD_getErrorName(r));
        if (scratch->size() + ob.pos > size) return wrong_size(scratch->size() + ob.pos);
        scratch->append(buf, ob.pos);
        if (r == 0 || (ib.pos == ib.size && ob.pos < ob.size)) break;
      }
      if (scratch->size() != size) return wrong_size(scratch->size());
      *out = *scratch;
      return Status::OK();
    }
    case kGzip: {
      z_stream z{};
      if (inflateInit2(&z, 15 + 32) != Z_OK) return Status::Internal("zlib: inflateInit failed");
      scratch->clear();
      z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
      z.avail_in = static_cast<uInt>(in.size());
      char buf[1 << 16];
      int rc = Z_OK;
      while (rc != Z_STREAM_END) {
        z.next_out = reinterpret_cast<Bytef*>(buf);
        z.avail_out = sizeof buf;
        rc = inflate(&z, Z_NO_FLUSH);
        const size_t got = sizeof buf - z.avail_out;
        if (rc != Z_OK && rc != Z_STREAM_END) {
          inflateEnd(&z);
          return Bad(std::string("GZIP: ") + (z.msg != nullptr ? z.msg : "damaged page"));
        }
        if (scratch->size() + got > size) {
          inflateEnd(&z);
          return wrong_size(scratch->size() + got);
        }
        scratch->append(buf, got);
        if (rc == Z_OK && got == 0 && z.avail_in == 0) {
          inflateEnd(&z);
          return Bad("GZIP: truncated page");
        }
      }
      inflateEnd(&z);
      if (scratch->size() != size) return wrong_size(scratch->size());
      *out = *scratch;
      return Status::OK();
    }
    default:
      return Status::Unimplemented(std::string("compression ") + CodecName(codec) +
                                   " is not supported (UNCOMPRESSED, SNAPPY, GZIP and ZSTD are)");
  }
}

const char* EncodingName(int32_t e) {
  switch (e) {
    case kPlain:
      return "PLAIN";
    case kPlainDictionary:
      return "PLAIN_DICTIONARY";
    case kRle:
      return "RLE";
    case kBitPacked:
      return "BIT_PACKED";
    case kDeltaBinaryPacked:
      return "DELTA_BINARY_PACKED";
    case kDeltaLengthByteArray:
      return "DELTA_LENGTH_BYTE_ARRAY";
    case kDeltaByteArray:
      return "DELTA_BYTE_ARRAY";
    case kRleDictionary:
      return "RLE_DICTIONARY";
    case kByteStreamSplit:
      return "BYTE_STREAM_SPLIT";
  }
  return "unknown";
}

class ChunkDecoder {
 public:
  ChunkDecoder(const ParquetLeaf& leaf, ParquetColumnData* out) : l_(leaf), out_(out) {}

  Status DictionaryPage(const PageHeader& h, std::string_view body) {
    if (have_dict_) return Bad("a second dictionary page");
    if (out_->count > 0) return Bad("a dictionary page after data pages");
    if (h.encoding != kPlain && h.encoding != kPlainDictionary) {
      return Bad(std::string("dictionary encoded as ") + EncodingName(h.encoding));
    }
    if (h.num_values < 0) return Bad("negative dictionary size");
    if (l_.phys == kBoolean) return Bad("a dictionary of booleans");
    size_t used;
    dict_.clear();
    SLUICE_RETURN_IF_ERROR(DecodePlain(l_, reinterpret_cast<const uint8_t*>(body.data()),
                                       body.size(), static_cast<size_t>(h.num_values), &dict_,
                                       &used));
    have_dict_ = true;
    return Status::OK();
  }

  // One data page: `levels` holds the v2 levels (empty for v1), `body` the
  // rest, uncompressed.
  Status DataPage(const PageHeader& h, bool v2, std::string_view levels, std::string_view body) {
    if (h.num_values < 0) return Bad("negative value count");
    const size_t n = static_cast<size_t>(h.num_values);
    if (n > kMaxPageValues) {
      return Bad("page of " + std::to_string(n) + " values, above the reader's limit of " +
                 std::to_string(kMaxPageValues));
    }
    const uint8_t* p = reinterpret_cast<const uint8_t*>(body.data());
    size_t size = body.size();
    const size_t base = out_->count;
    // Levels.
    auto levels_of = [&](int max, int32_t encoding, std::vector<uint8_t>* into,
                         const char* what) -> Status {
      into->resize(base + n);
      uint8_t* dst = into->data() + base;
      const int bw = BitWidth(static_cast<uint64_t>(max));
      if (v2) {
        const size_t len = static_cast<size_t>(what[0] == 'r' ? h.rep_bytes : h.def_bytes);
        const uint8_t* lp = reinterpret_cast<const uint8_t*>(levels.data());
        HybridDecoder hd(lp, len, bw);
        if (!hd.Next(dst, n)) return Bad(std::string(what) + " levels: damaged RLE");
        levels.remove_prefix(len);
      } else if (encoding == kRle) {
        if (size < 4) return Bad(std::string(what) + " levels: truncated length");
        uint32_t len;
        std::memcpy(&len, p, 4);
        if (len > size - 4) return Bad(std::string(what) + " levels: length past the end");
        HybridDecoder hd(p + 4, len, bw);
        if (!hd.Next(dst, n)) return Bad(std::string(what) + " levels: damaged RLE");
        p += 4 + len;
        size -= 4 + len;
      } else if (encoding == kBitPacked) {
        // Deprecated: packed most significant bit first, no length.
        const uint64_t bits = static_cast<uint64_t>(n) * static_cast<uint64_t>(bw);
        const size_t len = static_cast<size_t>((bits + 7) / 8);
        if (len > size) return Bad(std::string(what) + " levels: past the end");
        for (size_t i = 0; i < n; ++i) {
          uint32_t v = 0;
          for (int b = 0; b < bw; ++b) {
            const uint64_t bit = static_cast<uint64_t>(i) * static_cast<uint64_t>(bw) + b;
            v = (v << 1) | ((p[bit >> 3] >> (7 - (bit & 7))) & 1);
          }
          dst[i] = static_cast<uint8_t>(v);
        }
        p += len;
        size -= len;
      } else {
        return Bad(std::string(what) + " levels encoded as " + EncodingName(encoding));
      }
      for (size_t i = 0; i < n; ++i) {
        if (dst[i] > max) {
          return Bad(std::string(what) + " level " + std::to_string(dst[i]) +
                     " above the maximum " + std::to_string(max));
        }
      }
      return Status::OK();
    };
    if (v2 &&
        static_cast<uint64_t>(h.rep_bytes) + static_cast<uint64_t>(h.def_bytes) != levels.size()) {
      return Bad("level lengths do not match the page");
    }
    if (l_.max_rep > 0) {
      SLUICE_RETURN_IF_ERROR(levels_of(l_.max_rep, h.rep_encoding, &out_->reps, "repetition"));
    }
    size_t present = n;
    if (l_.max_def > 0) {
      SLUICE_RETURN_IF_ERROR(levels_of(l_.max_def, h.def_encoding, &out_->defs, "definition"));
      present = static_cast<size_t>(std::count(out_->defs.begin() + static_cast<ptrdiff_t>(base),
                                               out_->defs.end(), static_cast<uint8_t>(l_.max_def)));
    }
    out_->count += n;
    // Room for this page's values, growing geometrically over the pages.
    std::vector<Value>& v = out_->values;
    if (v.capacity() < v.size() + present)
      v.reserve(std::max(v.size() + present, 2 * v.capacity()));
    return Values(h.encoding, p, size, present);
  }

 private:
  Status Values(int32_t encoding, const uint8_t* p, size_t size, size_t n) {
    std::vector<Value>& out = out_->values;
    switch (encoding) {
      case kPlain: {
        size_t used;
        return DecodePlain(l_, p, size, n, &out, &used);
      }
      case kPlainDictionary:
      case kRleDictionary: {
        if (!have_dict_) return Bad("dictionary-encoded values without a dictionary page");
        if (n == 0) return Status::OK();
        if (size < 1) return Bad("dictionary indexes: no bit width");
        const int bw = p[0];
        if (bw > 32) return Bad("dictionary indexes of " + std::to_string(bw) + " bits");
        HybridDecoder hd(p + 1, size - 1, bw);
        index_.resize(n);
        if (!hd.Next(index_.data(), n)) return Bad("dictionary indexes: damaged RLE");
        out.reserve(out.size() + n);
        for (size_t i = 0; i < n; ++i) {
          if (index_[i] >= dict_.size()) {
            return Bad("dictionary index " + std::to_string(index_[i]) + " of a dictionary of " +
                       std::to_string(dict_.size()));
          }
          out.push_back(dict_[index_[i]]);
        }
        return Status::OK();
      }
      case kRle: {
        if (l_.phys != kBoolean) return Bad("RLE values of a type other than BOOLEAN");
        if (size < 4) return Bad("RLE booleans: truncated length");
        uint32_t len;
        std::memcpy(&len, p, 4);
        if (len > size - 4) return Bad("RLE booleans: length past the end");
        HybridDecoder hd(p + 4, len, 1);
        index_.resize(n);
        if (!hd.Next(index_.data(), n)) return Bad("RLE booleans: damaged RLE");
        for (size_t i = 0; i < n; ++i) out.push_back(Value::Bool(index_[i] != 0));
        return Status::OK();
      }
      case kDeltaBinaryPacked: {
        if (l_.phys != kInt32 && l_.phys != kInt64) {
          return Bad("DELTA_BINARY_PACKED values of a type other than INT32 or INT64");
        }
        SLUICE_RETURN_IF_ERROR(DecodeDelta(p, size, n, &ints_, nullptr));
        out.reserve(out.size() + n);
        for (size_t i = 0; i < n; ++i) {
          uint8_t buf[8];
          if (l_.phys == kInt32) {
            const int32_t v = static_cast<int32_t>(ints_[i]);
            std::memcpy(buf, &v, 4);
          } else {
            std::memcpy(buf, &ints_[i], 8);
          }
          out.emplace_back();
          SLUICE_RETURN_IF_ERROR(ConvertFixed(l_, buf, &out.back()));
        }
        return Status::OK();
      }
      case kDeltaLengthByteArray: {
        if (l_.phys != kByteArray) return Bad("DELTA_LENGTH_BYTE_ARRAY of a fixed-width type");
        const uint8_t* data;
        SLUICE_RETURN_IF_ERROR(DecodeDelta(p, size, n, &ints_, &data));
        const uint8_t* end = p + size;
        out.reserve(out.size() + n);
        for (size_t i = 0; i < n; ++i) {
          if (ints_[i] < 0 || ints_[i] > end - data) {
            return Bad("DELTA_LENGTH_BYTE_ARRAY: length " + std::to_string(ints_[i]) +
                       " past the end");
          }
          out.emplace_back();
          SLUICE_RETURN_IF_ERROR(ConvertBytes(
              l_,
              std::string_view(reinterpret_cast<const char*>(data), static_cast<size_t>(ints_[i])),
              &out.back()));
          data += ints_[i];
        }
        return Status::OK();
      }
      case kDeltaByteArray: {
        if (l_.phys != kByteArray && l_.phys != kFixed) {
          return Bad("DELTA_BYTE_ARRAY of a type other than BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY");
        }
        std::vector<int64_t> prefixes;
        const uint8_t* rest;
        SLUICE_RETURN_IF_ERROR(DecodeDelta(p, size, n, &prefixes, &rest));
        const uint8_t* data;
        SLUICE_RETURN_IF_ERROR(
            DecodeDelta(rest, static_cast<size_t>(p + size - rest), n, &ints_, &data));
        const uint8_t* end = p + size;
        std::string prev, cur;
        out.reserve(out.size() + n);
        for (size_t i = 0; i < n; ++i) {
          if (prefixes[i] < 0 || static_cast<uint64_t>(prefixes[i]) > prev.size()) {
            return Bad("DELTA_BYTE_ARRAY: prefix " + std::to_string(prefixes[i]) +
                       " longer than the value before");
          }
          if (ints_[i] < 0 || ints_[i] > end - data) {
            return Bad("DELTA_BYTE_ARRAY: suffix " + std::to_string(ints_[i]) + " past the end");
          }
          cur.assign(prev, 0, static_cast<size_t>(prefixes[i]));
          cur.append(reinterpret_cast<const char*>(data), static_cast<size_t>(ints_[i]));
          data += ints_[i];
          out.emplace_back();
          if (l_.phys == kFixed) {
            if (cur.size() != static_cast<size_t>(l_.type_length)) {
              return Bad("DELTA_BYTE_ARRAY: a value of " + std::to_string(cur.size()) +
                         " bytes in a column of " + std::to_string(l_.type_length));
            }
            SLUICE_RETURN_IF_ERROR(
                ConvertFixed(l_, reinterpret_cast<const uint8_t*>(cur.data()), &out.back()));
          } else {
            SLUICE_RETURN_IF_ERROR(ConvertBytes(l_, cur, &out.back()));
          }
          prev.swap(cur);
        }
        return Status::OK();
      }
      case kByteStreamSplit: {
        const int width = PlainWidth(l_);
        if (width == 0 || l_.phys == kInt96)
          return Bad("BYTE_STREAM_SPLIT of a variable-width type");
        const size_t w = static_cast<size_t>(width);
        // The stream count is fixed by the width; the page holds w streams
        // of the same length.
        if (size % w != 0 || size / w < n) {
          return Bad("BYTE_STREAM_SPLIT: " + std::to_string(size) + " bytes for " +
                     std::to_string(n) + " values of " + std::to_string(w));
        }
        const size_t stride = size / w;
        std::vector<uint8_t> buf(w);
        out.reserve(out.size() + n);
        for (size_t i = 0; i < n; ++i) {
          for (size_t b = 0; b < w; ++b) buf[b] = p[b * stride + i];
          out.emplace_back();
          SLUICE_RETURN_IF_ERROR(ConvertFixed(l_, buf.data(), &out.back()));
        }
        return Status::OK();
      }
      default:
        return Status::Unimplemented(std::string("values encoded as ") + EncodingName(encoding) +
                                     " (" + std::to_string(encoding) + ") are not supported");
    }
  }

  const ParquetLeaf& l_;
  ParquetColumnData* out_;
  bool have_dict_ = false;
  std::vector<Value> dict_;
  std::vector<uint32_t> index_;
  std::vector<int64_t> ints_;
};

}  // namespace

Status DecodePlainValue(const ParquetLeaf& leaf, std::string_view plain, Value* out) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(plain.data());
  if (leaf.phys == kBoolean) {
    if (plain.size() != 1)
      return Bad("a BOOLEAN statistic of " + std::to_string(plain.size()) + " bytes");
    *out = Value::Bool(p[0] != 0);
    return Status::OK();
  }
  if (leaf.phys == kByteArray) return ConvertBytes(leaf, plain, out);
  if (plain.size() != static_cast<size_t>(PlainWidth(leaf))) {
    return Bad("a statistic of " + std::to_string(plain.size()) + " bytes");
  }
  return ConvertFixed(leaf, p, out);
}

Status DecodeColumnChunk(const ParquetLeaf& leaf, const ParquetChunkMeta& meta,
                         std::string_view bytes, uint64_t offset, ParquetColumnData* out) {
  *out = ParquetColumnData();
  if (!leaf.unsupported.empty()) return Status::Unimplemented(leaf.unsupported);
  ChunkDecoder dec(leaf, out);
  const uint8_t* base = reinterpret_cast<const uint8_t*>(bytes.data());
  size_t at = 0;
  std::string scratch;
  const uint64_t want = static_cast<uint64_t>(std::max<int64_t>(meta.num_values, 0));
  for (int page = 0; out->count < want && at < bytes.size(); ++page) {
    const std::string where =
        "page " + std::to_string(page) + " at offset " + std::to_string(offset + at);
    PageHeader h;
    Status s = ParsePageHeader(base + at, bytes.size() - at, &h);
    if (!s.ok()) return s.WithContext(where);
    at += h.header_bytes;
    if (static_cast<size_t>(h.compressed) > bytes.size() - at) {
      return Bad(where + ": " + std::to_string(h.compressed) +
                 " bytes, past the end of the column chunk");
    }
    const std::string_view body(bytes.data() + at, static_cast<size_t>(h.compressed));
    at += static_cast<size_t>(h.compressed);
    std::string_view raw;
    switch (h.type) {
      case kDictionaryPage:
        s = Decompress(meta.codec, body, static_cast<size_t>(h.uncompressed), &scratch, &raw);
        if (s.ok()) s = dec.DictionaryPage(h, raw);
        break;
      case kDataPage:
        s = Decompress(meta.codec, body, static_cast<size_t>(h.uncompressed), &scratch, &raw);
        if (s.ok()) s = dec.DataPage(h, false, {}, raw);
        break;
      case kDataPageV2: {
        if (h.def_bytes < 0 || h.rep_bytes < 0 ||
            static_cast<uint64_t>(h.def_bytes) + static_cast<uint64_t>(h.rep_bytes) > body.size() ||
            static_cast<uint64_t>(h.def_bytes) + static_cast<uint64_t>(h.rep_bytes) >
                static_cast<uint64_t>(h.uncompressed)) {
          s = Bad("level lengths past the end of the page");
          break;
        }
        const size_t lv = static_cast<size_t>(h.def_bytes) + static_cast<size_t>(h.rep_bytes);
        // Repetition levels come first, then definition levels.
        const std::string_view levels = body.substr(0, lv);
        const size_t rest = static_cast<size_t>(h.uncompressed) - lv;
        if (h.is_compressed) {
          s = Decompress(meta.codec, body.substr(lv), rest, &scratch, &raw);
        } else {
          raw = body.substr(lv);
          if (raw.size() != rest) s = Bad("uncompressed page of the wrong size");
        }
        if (s.ok()) s = dec.DataPage(h, true, levels, raw);
        break;
      }
      default:
        break;  // index pages and pages of kinds not known: not needed
    }
    if (!s.ok()) return s.WithContext(where);
  }
  if (out->count != want) {
    return Bad("the column chunk holds " + std::to_string(out->count) +
               " values, its metadata says " + std::to_string(want));
  }
  return Status::OK();
}

}  // namespace sluice::format::parquet
