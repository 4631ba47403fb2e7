#include "connector/file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <thread>

#include "base/mutex.h"
#include "zset/cursor.h"

namespace sluice::connector {
namespace {

std::string ErrnoText() { return std::strerror(errno); }

class FileInput final : public InputConnector {
 public:
  FileInput(const ConnectorSpec& spec, const format::Relation& rel) : spec_(spec), rel_(rel) {
    nlohmann::json config = nlohmann::json::parse(spec.transport_config);
    path_ = config["path"].get<std::string>();
    follow_ = config.value("follow", false);
    stats_.paused = spec.paused;
  }
  ~FileInput() override { Stop(); }

  Status Resume(std::string_view position) override {
    nlohmann::json p = nlohmann::json::parse(position, nullptr, false);
    if (p.is_discarded() || !p.contains("offset")) {
      return Status::Corruption("connector \"" + spec_.name + "\": bad position " +
                                std::string(position));
    }
    start_offset_ = p["offset"].get<uint64_t>();
    start_.line = p.value("line", uint64_t{1});
    start_.record = p.value("record", uint64_t{1});
    return Status::OK();
  }

  Status Start(InputSink* sink) override {
    auto dec = format::MakeDecoder(spec_.format, rel_);
    if (!dec.ok()) return dec.status();
    decoder_ = std::move(dec).value();
    fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) {
      return Status::IOError("connector \"" + spec_.name + "\": cannot open " + path_ + ": " +
                             ErrnoText());
    }
    if (start_offset_ > 0 && ::lseek(fd_, static_cast<off_t>(start_offset_), SEEK_SET) < 0) {
      return Status::IOError("connector \"" + spec_.name + "\": cannot go on from byte " +
                             std::to_string(start_offset_) + " of " + path_ + ": " + ErrnoText());
    }
    sink_ = sink;
    thread_ = std::thread([this] { Run(); });
    return Status::OK();
  }

  void Stop() override {
    {
      MutexLock l(&mu_);
      stop_ = true;
    }
    cv_.SignalAll();
    if (thread_.joinable()) thread_.join();
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  void Run() {
    std::string buf;
    format::Position at = start_;
    offset_ = start_offset_;  // of buf's first byte in the file
    std::vector<char> chunk(1 << 20);
    while (!Stopping()) {
      ssize_t n = ::read(fd_, chunk.data(), chunk.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        ++stats_.transport_errors;
        stats_.SetError("reading " + path_ + ": " + ErrnoText());
        return;
      }
      if (n == 0) {
        if (!follow_) {
          // The last record may lack its newline.
          if (!buf.empty() && !Ingest(buf, buf.size(), &at)) return;
          stats_.end_of_input = true;
          return;
        }
        // Following: wait for the file to grow, without spinning.
        MutexLock l(&mu_);
        if (!stop_) cv_.WaitFor(&mu_, std::chrono::milliseconds(100));
        continue;
      }
      buf.append(chunk.data(), static_cast<size_t>(n));
      size_t whole = decoder_->CompleteRecords(buf);
      if (whole > 0) {
        if (!Ingest(buf, whole, &at)) return;
        buf.erase(0, whole);
      }
    }
  }

  // Decodes the first `len` bytes of `buf` and queues them; false when the
  // pipeline stops.
  bool Ingest(const std::string& buf, size_t len, format::Position* at) {
    format::ChangeBuffer changes;
    std::vector<format::RecordError> errors;
    uint64_t error_count = 0;
    *at = decoder_->Decode(std::string_view(buf).substr(0, len), *at, &changes, &errors,
                           &error_count);
    stats_.bytes += len;
    if (error_count > 0) {
      stats_.parse_errors += error_count;
      stats_.SetError(path_ + ": " + errors.front().ToString());
    }
    offset_ += len;
    if (changes.empty()) return true;
    stats_.records += changes.size();
    nlohmann::json pos = {{"offset", offset_}, {"line", at->line}, {"record", at->record}};
    return sink_->Enqueue(std::move(changes), pos.dump());
  }

  bool Stopping() {
    MutexLock l(&mu_);
    return stop_ || sink_->stopping();
  }

  const ConnectorSpec spec_;
  const format::Relation rel_;
  std::string path_;
  bool follow_ = false;
  int fd_ = -1;
  uint64_t start_offset_ = 0, offset_ = 0;
  format::Position start_;
  std::unique_ptr<format::Decoder> decoder_;
  InputSink* sink_ = nullptr;
  std::thread thread_;
  Mutex mu_;
  CondVar cv_;
  bool stop_ GUARDED_BY(mu_) = false;
};

class FileOutput final : public OutputConnector {
 public:
  FileOutput(const ConnectorSpec& spec, const format::Relation& rel) : spec_(spec), rel_(rel) {
    nlohmann::json config = nlohmann::json::parse(spec.transport_config);
    path_ = config["path"].get<std::string>();
  }
  ~FileOutput() override { Stop(); }

  Status Resume(std::string_view progress) override {
    nlohmann::json p = nlohmann::json::parse(progress, nullptr, false);
    if (p.is_discarded() || !p.contains("bytes")) {
      return Status::Corruption("connector \"" + spec_.name + "\": bad progress " +
                                std::string(progress));
    }
    resume_bytes_ = p["bytes"].get<uint64_t>();
    resume_ = true;
    return Status::OK();
  }

  Result<std::string> Progress(std::chrono::milliseconds timeout) override {
    SLUICE_RETURN_IF_ERROR(WaitDrained(*queue_, stats_, spec_.name, timeout));
    if (::fdatasync(fd_) != 0) return Status::IOError("syncing " + path_ + ": " + ErrnoText());
    return nlohmann::json{{"bytes", written_.load()}}.dump();
  }

  Status Start(std::shared_ptr<OutputQueue> queue) override {
    auto enc = format::MakeEncoder(spec_.format, rel_);
    if (!enc.ok()) return enc.status();
    encoder_ = std::move(enc).value();
    // A restart goes on from the length recorded in the checkpoint: what was
    // written after it is written again, so the file holds every change once.
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | (resume_ ? 0 : O_TRUNC) | O_CLOEXEC, 0644);
    if (fd_ < 0) {
      return Status::IOError("connector \"" + spec_.name + "\": cannot create " + path_ + ": " +
                             ErrnoText());
    }
    if (resume_) {
      if (::ftruncate(fd_, static_cast<off_t>(resume_bytes_)) != 0 ||
          ::lseek(fd_, 0, SEEK_END) != static_cast<off_t>(resume_bytes_)) {
        return Status::IOError("connector \"" + spec_.name + "\": cannot go on from byte " +
                               std::to_string(resume_bytes_) + " of " + path_ + ": " + ErrnoText());
      }
      written_ = resume_bytes_;
    }
    queue_ = std::move(queue);
    thread_ = std::thread(
        [this] { DrainQueue(*queue_, stats_, [this](const OutputChunk& c) { return Write(c); }); });
    return Status::OK();
  }

  void Stop() override {
    if (queue_) queue_->Close();
    if (thread_.joinable()) thread_.join();
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  Status Write(const OutputChunk& chunk) {
    if (chunk.kind == OutputChunk::Kind::kReset) {
      if (::ftruncate(fd_, 0) != 0 || ::lseek(fd_, 0, SEEK_SET) != 0) {
        return Status::IOError("truncating " + path_ + ": " + ErrnoText());
      }
      written_ = 0;
      return Status::OK();
    }
    std::string out;
    uint64_t records = 0;
    auto c = NewCursorOver(chunk.batches);
    for (; c->KeyValid(); c->StepKey()) {
      int64_t w = c->weight();
      if (w == 0) continue;
      SLUICE_RETURN_IF_ERROR(encoder_->Encode(c->key(), w, &out));
      records += static_cast<uint64_t>(w > 0 ? w : -w);
    }
    SLUICE_RETURN_IF_ERROR(c->status());
    size_t done = 0;
    while (done < out.size()) {
      ssize_t n = ::write(fd_, out.data() + done, out.size() - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        return Status::IOError("writing " + path_ + ": " + ErrnoText());
      }
      done += static_cast<size_t>(n);
    }
    stats_.records += records;
    stats_.bytes += out.size();
    written_ += out.size();
    return Status::OK();
  }

  const ConnectorSpec spec_;
  const format::Relation rel_;
  std::string path_;
  int fd_ = -1;
  bool resume_ = false;
  uint64_t resume_bytes_ = 0;
  std::atomic<uint64_t> written_{0};
  std::unique_ptr<format::Encoder> encoder_;
  std::shared_ptr<OutputQueue> queue_;
  std::thread thread_;
};

class NullOutput final : public OutputConnector {
 public:
  ~NullOutput() override { Stop(); }
  Status Start(std::shared_ptr<OutputQueue> queue) override {
    queue_ = std::move(queue);
    thread_ = std::thread([this] {
      DrainQueue(*queue_, stats_, [this](const OutputChunk& c) {
        stats_.records += c.records();
        return Status::OK();
      });
    });
    return Status::OK();
  }
  void Stop() override {
    if (queue_) queue_->Close();
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::shared_ptr<OutputQueue> queue_;
  std::thread thread_;
};

}  // namespace

std::unique_ptr<InputConnector> MakeFileInput(const ConnectorSpec& spec,
                                              const format::Relation& rel) {
  return std::make_unique<FileInput>(spec, rel);
}

std::unique_ptr<OutputConnector> MakeFileOutput(const ConnectorSpec& spec,
                                                const format::Relation& rel) {
  return std::make_unique<FileOutput>(spec, rel);
}

std::unique_ptr<OutputConnector> MakeNullOutput(const ConnectorSpec&) {
  return std::make_unique<NullOutput>();
}

}  // namespace sluice::connector
