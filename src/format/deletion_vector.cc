#include "format/deletion_vector.h"

#include <zlib.h>

#include <cstring>

namespace sluice::format {
namespace {

constexpr uint32_t kMagic = 1681511377;        // portable, little-endian
constexpr uint32_t kMagicNative = 1681511376;  // native, big-endian
constexpr uint32_t kCookieNoRuns = 12346;
constexpr uint16_t kCookieRuns = 12347;
constexpr size_t kArrayMax = 4096;  // containers above this hold a bitset
constexpr size_t kBitsetBytes = 8192;
constexpr uint32_t kNoOffsetThreshold = 4;  // run-cookie bitmaps below this omit offsets

void PutLe(std::string* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}

void PutBe32(std::string* out, uint32_t v) {
  for (int i = 3; i >= 0; --i) out->push_back(static_cast<char>(v >> (8 * i)));
}

uint32_t Crc32(std::string_view bytes) {
  return static_cast<uint32_t>(
      crc32(0L, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size())));
}

// Reads little-endian values from a byte range, every read checked.
class Reader {
 public:
  Reader(std::string_view bytes, const std::string& what) : bytes_(bytes), what_(what) {}

  size_t pos() const { return pos_; }
  size_t size() const { return bytes_.size(); }
  bool Seek(size_t pos) {
    if (pos > bytes_.size()) return false;
    pos_ = pos;
    return true;
  }

  Result<uint64_t> Le(int n, const char* field) {
    if (bytes_.size() - pos_ < static_cast<size_t>(n)) return Short(field);
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) {
      v |= static_cast<uint64_t>(static_cast<uint8_t>(bytes_[pos_ + i])) << (8 * i);
    }
    pos_ += n;
    return v;
  }

  Result<std::string_view> Take(size_t n, const char* field) {
    if (bytes_.size() - pos_ < n) return Short(field);
    std::string_view v = bytes_.substr(pos_, n);
    pos_ += n;
    return v;
  }

  Status Damaged(const std::string& msg) const {
    return Status::Corruption("deletion vector " + what_ + ": " + msg + " at byte " +
                              std::to_string(pos_));
  }

 private:
  Status Short(const char* field) const {
    return Status::Corruption("deletion vector " + what_ + " ends inside its " + field +
                              " (byte " + std::to_string(pos_) + " of " +
                              std::to_string(bytes_.size()) + ")");
  }

  std::string_view bytes_;
  size_t pos_ = 0;
  const std::string& what_;
};

Status TooMany(const Reader& in, uint64_t limit) {
  return in.Damaged("more positions than its cardinality, " + std::to_string(limit));
}

// One 32-bit Roaring bitmap in the portable format, its values appended to
// `out` with `high` as their upper 32 bits.
Status DecodeRoaring32(Reader& in, uint64_t high, uint64_t limit, std::vector<uint64_t>* out) {
  const size_t start = in.pos();
  SLUICE_ASSIGN_OR_RETURN(uint64_t cookie, in.Le(4, "cookie"));
  uint32_t count = 0;
  bool runs = false;
  std::string_view run_flags;
  if (cookie == kCookieNoRuns) {
    SLUICE_ASSIGN_OR_RETURN(uint64_t n, in.Le(4, "container count"));
    if (n > 65536) return in.Damaged("more than 65536 containers");
    count = static_cast<uint32_t>(n);
  } else if ((cookie & 0xFFFF) == kCookieRuns) {
    runs = true;
    count = static_cast<uint32_t>(cookie >> 16) + 1;
    SLUICE_ASSIGN_OR_RETURN(run_flags, in.Take((count + 7) / 8, "run flags"));
  } else {
    return in.Damaged("unknown Roaring cookie " + std::to_string(cookie));
  }
  std::vector<uint16_t> keys(count), cards(count);
  for (uint32_t i = 0; i < count; ++i) {
    SLUICE_ASSIGN_OR_RETURN(uint64_t k, in.Le(2, "container key"));
    SLUICE_ASSIGN_OR_RETURN(uint64_t c, in.Le(2, "container cardinality"));
    if (i > 0 && k <= keys[i - 1]) return in.Damaged("container keys out of order");
    keys[i] = static_cast<uint16_t>(k);
    cards[i] = static_cast<uint16_t>(c);
  }
  std::vector<uint64_t> offsets;
  if (!runs || count >= kNoOffsetThreshold) {
    offsets.resize(count);
    for (uint32_t i = 0; i < count; ++i) {
      SLUICE_ASSIGN_OR_RETURN(offsets[i], in.Le(4, "container offset"));
    }
  }
  auto is_run_flag = [&](uint32_t i) {
    return runs && ((static_cast<uint8_t>(run_flags[i / 8]) >> (i % 8)) & 1) != 0;
  };
  for (uint32_t i = 0; i < count; ++i) {
    if (!offsets.empty() && !in.Seek(start + offsets[i])) {
      return in.Damaged("container offset past the end");
    }
    const uint64_t base = (high << 32) | (static_cast<uint64_t>(keys[i]) << 16);
    const size_t card = static_cast<size_t>(cards[i]) + 1;
    if (out->size() + (is_run_flag(i) ? 0 : card) > limit) return TooMany(in, limit);
    if (is_run_flag(i)) {
      SLUICE_ASSIGN_OR_RETURN(uint64_t n, in.Le(2, "run count"));
      int64_t last = -1;
      for (uint64_t r = 0; r < n; ++r) {
        SLUICE_ASSIGN_OR_RETURN(uint64_t s, in.Le(2, "run start"));
        SLUICE_ASSIGN_OR_RETURN(uint64_t len, in.Le(2, "run length"));
        if (static_cast<int64_t>(s) <= last || s + len > 0xFFFF) {
          return in.Damaged("runs overlap or leave their container");
        }
        if (out->size() + len + 1 > limit) return TooMany(in, limit);
        for (uint64_t v = s; v <= s + len; ++v) out->push_back(base | v);
        last = static_cast<int64_t>(s + len);
      }
    } else if (card > kArrayMax) {
      SLUICE_ASSIGN_OR_RETURN(std::string_view bits, in.Take(kBitsetBytes, "bitset container"));
      const size_t before = out->size();
      for (size_t w = 0; w < kBitsetBytes / 8; ++w) {
        uint64_t word = 0;
        std::memcpy(&word, bits.data() + 8 * w, 8);  // little-endian hosts only
        while (word != 0) {
          const int b = __builtin_ctzll(word);
          out->push_back(base | (w * 64 + b));
          word &= word - 1;
        }
      }
      if (out->size() - before != card) return in.Damaged("a bitset's bits differ from its count");
    } else {
      int64_t last = -1;
      for (size_t j = 0; j < card; ++j) {
        SLUICE_ASSIGN_OR_RETURN(uint64_t v, in.Le(2, "array container"));
        if (static_cast<int64_t>(v) <= last) return in.Damaged("array values out of order");
        out->push_back(base | v);
        last = static_cast<int64_t>(v);
      }
    }
  }
  return Status::OK();
}

void EncodeRoaring32(const uint64_t* begin, const uint64_t* end, std::string* out) {
  // Containers: runs of values sharing their upper 16 bits.
  std::vector<std::pair<const uint64_t*, const uint64_t*>> containers;
  for (const uint64_t* p = begin; p != end;) {
    const uint64_t key = (*p >> 16) & 0xFFFF;
    const uint64_t* q = p;
    while (q != end && ((*q >> 16) & 0xFFFF) == key) ++q;
    containers.emplace_back(p, q);
    p = q;
  }
  PutLe(out, kCookieNoRuns, 4);
  PutLe(out, containers.size(), 4);
  for (const auto& [p, q] : containers) {
    PutLe(out, (*p >> 16) & 0xFFFF, 2);
    PutLe(out, static_cast<uint64_t>(q - p) - 1, 2);
  }
  uint64_t offset = 8 + 8 * containers.size();
  for (const auto& [p, q] : containers) {
    PutLe(out, offset, 4);
    const size_t card = static_cast<size_t>(q - p);
    offset += card > kArrayMax ? kBitsetBytes : 2 * card;
  }
  for (const auto& [p, q] : containers) {
    const size_t card = static_cast<size_t>(q - p);
    if (card > kArrayMax) {
      std::string bits(kBitsetBytes, '\0');
      for (const uint64_t* v = p; v != q; ++v) {
        const uint32_t low = *v & 0xFFFF;
        bits[low / 8] = static_cast<char>(static_cast<uint8_t>(bits[low / 8]) | (1u << (low % 8)));
      }
      *out += bits;
    } else {
      for (const uint64_t* v = p; v != q; ++v) PutLe(out, *v & 0xFFFF, 2);
    }
  }
}

constexpr char kZ85[] =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

}  // namespace

std::string EncodeDeletionBitmap(const std::vector<uint64_t>& positions) {
  std::string out;
  PutLe(&out, kMagic, 4);
  // The 64-bit form: a count of 32-bit bitmaps, each after its high bits.
  std::vector<std::pair<size_t, size_t>> groups;
  for (size_t i = 0; i < positions.size();) {
    size_t j = i;
    while (j < positions.size() && (positions[j] >> 32) == (positions[i] >> 32)) ++j;
    groups.emplace_back(i, j);
    i = j;
  }
  PutLe(&out, groups.size(), 8);
  for (const auto& [i, j] : groups) {
    PutLe(&out, positions[i] >> 32, 4);
    EncodeRoaring32(positions.data() + i, positions.data() + j, &out);
  }
  return out;
}

Result<std::vector<uint64_t>> DecodeDeletionBitmap(std::string_view bytes, uint64_t cardinality,
                                                   const std::string& what) {
  Reader in(bytes, what);
  std::vector<uint64_t> out;
  auto be32 = [&](const char* field) -> Result<uint64_t> {
    SLUICE_ASSIGN_OR_RETURN(uint64_t v, in.Le(4, field));
    return __builtin_bswap32(static_cast<uint32_t>(v));
  };
  SLUICE_ASSIGN_OR_RETURN(uint64_t magic, in.Le(4, "magic number"));
  if (magic == kMagic) {
    // Portable: the 64-bit Roaring format, keys explicit.
    SLUICE_ASSIGN_OR_RETURN(uint64_t n, in.Le(8, "bitmap count"));
    if (n > (bytes.size() - in.pos()) / 12) return in.Damaged("more bitmaps than bytes hold");
    int64_t last_high = -1;
    for (uint64_t i = 0; i < n; ++i) {
      SLUICE_ASSIGN_OR_RETURN(uint64_t high, in.Le(4, "bitmap key"));
      if (static_cast<int64_t>(high) <= last_high) return in.Damaged("bitmap keys out of order");
      if (high & 0x80000000u) return in.Damaged("a bitmap key has its top bit set");
      last_high = static_cast<int64_t>(high);
      SLUICE_RETURN_IF_ERROR(DecodeRoaring32(in, high, cardinality, &out));
    }
  } else if (__builtin_bswap32(static_cast<uint32_t>(magic)) == kMagicNative) {
    // Native (Delta's older form, big-endian framing): a count, then for
    // each 32-bit bitmap, whose index is its high bits, its length.
    SLUICE_ASSIGN_OR_RETURN(uint64_t n, be32("bitmap count"));
    if (n > (bytes.size() - in.pos()) / 4) return in.Damaged("more bitmaps than bytes hold");
    for (uint64_t high = 0; high < n; ++high) {
      SLUICE_ASSIGN_OR_RETURN(uint64_t length, be32("bitmap length"));
      const size_t start = in.pos();
      if (length > bytes.size() - start) return in.Damaged("a bitmap passes the end");
      SLUICE_RETURN_IF_ERROR(DecodeRoaring32(in, high, cardinality, &out));
      if (!in.Seek(start + length)) return in.Damaged("a bitmap passes the end");
    }
  } else {
    return in.Damaged("magic number " + std::to_string(magic) + " is not " +
                      std::to_string(kMagic));
  }
  if (out.size() != cardinality) {
    return in.Damaged("holds " + std::to_string(out.size()) + " positions, its cardinality is " +
                      std::to_string(cardinality));
  }
  return out;
}

std::string EncodeDeletionVectorFile(const std::vector<std::string>& bitmaps,
                                     std::vector<uint64_t>* offsets) {
  std::string out(1, '\x01');
  offsets->clear();
  for (const std::string& b : bitmaps) {
    offsets->push_back(out.size());
    PutBe32(&out, static_cast<uint32_t>(b.size()));
    out += b;
    PutBe32(&out, Crc32(b));
  }
  return out;
}

Result<std::string_view> DeletionBitmapAt(std::string_view file, uint64_t offset, uint64_t size,
                                          const std::string& what) {
  if (file.empty() || file[0] != 1) {
    return Status::Corruption("deletion vector file " + what + ": format version " +
                              (file.empty() ? std::string("missing")
                                            : std::to_string(static_cast<uint8_t>(file[0]))) +
                              ", expected 1");
  }
  if (offset > file.size() || file.size() - offset < size + 8) {
    return Status::Corruption("deletion vector " + what + " at offset " + std::to_string(offset) +
                              " with " + std::to_string(size) + " bytes passes the end of its " +
                              std::to_string(file.size()) + "-byte file");
  }
  auto be32 = [&](uint64_t at) {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = (v << 8) | static_cast<uint8_t>(file[at + i]);
    return v;
  };
  if (be32(offset) != size) {
    return Status::Corruption("deletion vector " + what + ": its file says " +
                              std::to_string(be32(offset)) + " bytes, its descriptor " +
                              std::to_string(size));
  }
  std::string_view bitmap = file.substr(offset + 4, size);
  if (be32(offset + 4 + size) != Crc32(bitmap)) {
    return Status::Corruption("deletion vector " + what + ": checksum mismatch");
  }
  return bitmap;
}

std::string Z85Encode(std::string_view bytes) {
  std::string padded(bytes);
  padded.resize((bytes.size() + 3) / 4 * 4, '\0');
  std::string out;
  out.reserve(padded.size() / 4 * 5);
  for (size_t i = 0; i < padded.size(); i += 4) {
    uint32_t v = 0;
    for (int j = 0; j < 4; ++j) v = (v << 8) | static_cast<uint8_t>(padded[i + j]);
    char block[5];
    for (int j = 4; j >= 0; --j) {
      block[j] = kZ85[v % 85];
      v /= 85;
    }
    out.append(block, 5);
  }
  return out;
}

Result<std::string> Z85Decode(std::string_view text) {
  if (text.size() % 5 != 0) {
    return Status::Corruption("Z85 text of " + std::to_string(text.size()) +
                              " characters is not a multiple of 5");
  }
  int8_t digit[256];
  std::memset(digit, -1, sizeof digit);
  for (int i = 0; i < 85; ++i) digit[static_cast<uint8_t>(kZ85[i])] = static_cast<int8_t>(i);
  std::string out;
  out.reserve(text.size() / 5 * 4);
  for (size_t i = 0; i < text.size(); i += 5) {
    uint64_t v = 0;
    for (int j = 0; j < 5; ++j) {
      const int8_t d = digit[static_cast<uint8_t>(text[i + j])];
      if (d < 0) {
        return Status::Corruption("Z85 text has '" + std::string(1, text[i + j]) +
                                  "' at character " + std::to_string(i + j));
      }
      v = v * 85 + static_cast<uint64_t>(d);
    }
    if (v > 0xFFFFFFFFu) {
      return Status::Corruption("Z85 block at character " + std::to_string(i) +
                                " is out of range");
    }
    for (int j = 3; j >= 0; --j) out.push_back(static_cast<char>(v >> (8 * j)));
  }
  return out;
}

}  // namespace sluice::format
