#include "pipeline/journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/bytes.h"
#include "base/hash.h"
#include "storage/file.h"

namespace sluice::pipeline {
namespace {

std::string FileName(const std::string& dir, uint64_t seq) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "/%010llu.log", static_cast<unsigned long long>(seq));
  return dir + buf;
}

void PutString(std::string_view s, std::string* out) {
  PutFixed32(out, static_cast<uint32_t>(s.size()));
  out->append(s);
}

bool ConsumeString(std::string_view* in, std::string* s) {
  uint32_t n;
  std::string_view b;
  if (!ConsumeFixed32(in, &n) || !ConsumeBytes(in, n, &b)) return false;
  s->assign(b);
  return true;
}

bool AllZero(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == 0; });
}

// The numbers of the journal files in `dir`, ascending.
std::vector<uint64_t> Files(const std::string& dir) {
  std::vector<uint64_t> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string n = e.path().filename().string();
    if (n.size() == 14 && n.compare(10, 4, ".log") == 0 &&
        n.find_first_not_of("0123456789") == 10) {
      out.push_back(std::strtoull(n.c_str(), nullptr, 10));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

void EncodeChanges(const format::ChangeBuffer& changes, size_t from, size_t to, std::string* out) {
  PutFixed64(out, to - from);
  for (size_t c = from; c < to; ++c) {
    out->push_back(static_cast<char>(changes.kind(c)));
    PutString(changes.key(c), out);
    PutString(changes.payload(c), out);
  }
}

bool DecodeChanges(std::string_view* in, format::ChangeBuffer* out) {
  uint64_t count;
  if (!ConsumeFixed64(in, &count)) return false;
  for (uint64_t c = 0; c < count; ++c) {
    std::string_view kind, key, payload;
    uint32_t klen, plen;
    if (!ConsumeBytes(in, 1, &kind) || !ConsumeFixed32(in, &klen) ||
        !ConsumeBytes(in, klen, &key) || !ConsumeFixed32(in, &plen) ||
        !ConsumeBytes(in, plen, &payload)) {
      return false;
    }
    out->Add(static_cast<format::ChangeKind>(kind[0]), key, payload);
  }
  return true;
}

Result<std::unique_ptr<Journal>> Journal::Open(const std::string& dir, uint64_t sequence) {
  std::unique_ptr<Journal> j(new Journal());
  j->dir_ = dir;
  SLUICE_RETURN_IF_ERROR(CreateDirs(dir));
  const std::vector<uint64_t> files = Files(dir);
  SLUICE_RETURN_IF_ERROR(j->Rotate(files.empty() ? sequence : std::max(sequence, files.back())));
  return j;
}

Journal::~Journal() {
  if (fd_ >= 0) ::close(fd_);
}

Status Journal::Rotate(uint64_t sequence) {
  const std::string path = FileName(dir_, sequence);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return Status::IOError("cannot open the journal " + path + ": " + strerror(errno));
  MutexLock l(&mu_);
  if (fd_ >= 0) {
    ::fdatasync(fd_);
    ::close(fd_);
  }
  fd_ = fd;
  return Status::OK();
}

uint64_t Journal::Newest(const std::string& dir) {
  const std::vector<uint64_t> files = Files(dir);
  return files.empty() ? 0 : files.back();
}

void Journal::RemoveBefore(uint64_t sequence) {
  for (uint64_t f : Files(dir_)) {
    if (f < sequence) ::unlink(FileName(dir_, f).c_str());
  }
}

Status Journal::Append(const std::string& payload, bool sync) {
  std::string rec;
  PutFixed32(&rec, static_cast<uint32_t>(payload.size()));
  PutFixed64(&rec, Checksum64(payload.data(), payload.size()));
  rec.append(payload);
  MutexLock l(&mu_);
  for (size_t done = 0; done < rec.size();) {
    const ssize_t n = ::write(fd_, rec.data() + done, rec.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::IOError(std::string("writing the input journal: ") + strerror(errno));
    }
    done += static_cast<size_t>(n);
  }
  if (sync && ::fdatasync(fd_) != 0) {
    return Status::IOError(std::string("syncing the input journal: ") + strerror(errno));
  }
  return Status::OK();
}

Status Journal::AppendSegment(uint64_t id, const std::string& table, const std::string& source,
                              const std::string& position, const format::ChangeBuffer& changes) {
  std::string p(1, 'S');
  PutFixed64(&p, id);
  PutString(table, &p);
  PutString(source, &p);
  PutString(position, &p);
  EncodeChanges(changes, 0, changes.size(), &p);
  return Append(p, false);
}

Status Journal::AppendStep(uint64_t step, bool commit, bool in_transaction,
                           const std::vector<JournalRecord::Range>& ranges, int64_t clock) {
  std::string p(1, 'T');
  PutFixed64(&p, step);
  p.push_back(
      static_cast<char>((commit ? 1 : 0) | (in_transaction ? 2 : 0) | (clock != 0 ? 4 : 0)));
  PutFixed32(&p, static_cast<uint32_t>(ranges.size()));
  for (const JournalRecord::Range& r : ranges) {
    PutFixed64(&p, r.segment);
    PutFixed64(&p, r.from);
    PutFixed64(&p, r.to);
  }
  if (clock != 0) PutFixed64(&p, static_cast<uint64_t>(clock));
  return Append(p, true);
}

Status Journal::Replay(const std::string& dir, uint64_t from,
                       const std::function<Status(const JournalRecord&)>& fn) {
  const std::vector<uint64_t> files = Files(dir);
  for (size_t fi = 0; fi < files.size(); ++fi) {
    if (files[fi] < from) continue;
    const std::string path = FileName(dir, files[fi]);
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string data = ss.str();
    std::string_view in(data);
    const bool last = fi + 1 == files.size();
    while (!in.empty()) {
      uint32_t len;
      uint64_t sum;
      std::string_view payload;
      std::string_view rec = in;
      const bool complete = ConsumeFixed32(&rec, &len) && ConsumeFixed64(&rec, &sum) &&
                            ConsumeBytes(&rec, len, &payload);
      const bool whole = complete && Checksum64(payload.data(), payload.size()) == sum;
      if (!whole) {
        // A crash while writing the last record leaves it cut short, or
        // (its tail never written) failing its checksum as the file's last
        // bytes: the journal ends there, and what is appended next goes
        // after it. A record that fails its checksum with more after it
        // was damaged where it lies.
        const bool torn = last && (!complete || rec.empty() || AllZero(in));
        if (torn) {
          if (::truncate(path.c_str(), static_cast<off_t>(data.size() - in.size())) != 0) {
            return Status::IOError("cannot cut the torn end off the input journal " + path);
          }
          return Status::OK();
        }
        return Status::Corruption("the input journal " + path + " is damaged at byte " +
                                  std::to_string(data.size() - in.size()));
      }
      in = rec;
      JournalRecord r;
      r.type = payload.empty() ? 0 : payload[0];
      payload.remove_prefix(1);
      bool ok = true;
      if (r.type == 'S') {
        r.changes = std::make_shared<format::ChangeBuffer>();
        ok = ConsumeFixed64(&payload, &r.segment) && ConsumeString(&payload, &r.table) &&
             ConsumeString(&payload, &r.source) && ConsumeString(&payload, &r.position) &&
             DecodeChanges(&payload, r.changes.get());
      } else if (r.type == 'T') {
        std::string_view c;
        uint32_t n = 0;
        ok = ConsumeFixed64(&payload, &r.step) && ConsumeBytes(&payload, 1, &c) &&
             ConsumeFixed32(&payload, &n);
        r.commit = ok && (c[0] & 1) != 0;
        r.in_transaction = ok && (c[0] & 2) != 0;
        for (uint32_t i = 0; ok && i < n; ++i) {
          JournalRecord::Range range;
          ok = ConsumeFixed64(&payload, &range.segment) && ConsumeFixed64(&payload, &range.from) &&
               ConsumeFixed64(&payload, &range.to);
          r.ranges.push_back(range);
        }
        uint64_t clock = 0;
        if (ok && (c[0] & 4) != 0) {
          ok = ConsumeFixed64(&payload, &clock);
          r.clock = static_cast<int64_t>(clock);
        }
      } else {
        ok = false;
      }
      if (!ok) return Status::Corruption("the input journal " + path + " has a malformed record");
      SLUICE_RETURN_IF_ERROR(fn(r));
    }
  }
  return Status::OK();
}

}  // namespace sluice::pipeline
