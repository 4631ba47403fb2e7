#include "pipeline/checkpoint_store.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/bytes.h"
#include "base/hash.h"
#include "storage/file.h"
#include "zset/file_batch.h"

namespace sluice::pipeline {
namespace {

using Json = nlohmann::json;
namespace fs = std::filesystem;

std::string SeqName(uint64_t seq) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%010llu", static_cast<unsigned long long>(seq));
  return buf;
}

// Every batch file a manifest's body names.
void CollectFiles(const Json& j, std::vector<std::string>* out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key() == "batch" && it->is_string()) out->push_back(it->get<std::string>());
      if (it.key() == "spine" && it->is_array()) {
        for (const Json& f : *it) {
          if (f.is_string()) out->push_back(f.get<std::string>());
        }
      }
      CollectFiles(*it, out);
    }
  } else if (j.is_array()) {
    for (const Json& e : j) CollectFiles(e, out);
  }
}

uint64_t DirBytes(const std::string& dir) {
  uint64_t n = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_regular_file(ec)) n += e.file_size(ec);
  }
  return n;
}

std::string Checksum(const std::string& text) {
  return Hex64(Checksum64(text.data(), text.size()));
}

}  // namespace

std::string CheckpointStore::Dir(uint64_t seq) const { return root_ + "/" + SeqName(seq); }
std::string CheckpointStore::TmpDir(uint64_t seq) const { return root_ + "/.tmp-" + SeqName(seq); }

std::vector<uint64_t> CheckpointStore::List() const {
  std::vector<uint64_t> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root_, ec)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    out.push_back(std::strtoull(name.c_str(), nullptr, 10));
  }
  std::sort(out.rbegin(), out.rend());
  return out;
}

Result<std::string> CheckpointStore::Begin(uint64_t seq) {
  const std::string tmp = TmpDir(seq);
  std::error_code ec;
  fs::remove_all(tmp, ec);
  SLUICE_RETURN_IF_ERROR(CreateDirs(tmp));
  return tmp;
}

Status CheckpointStore::Commit(uint64_t seq, const std::string& body) {
  const Json b = Json::parse(body, nullptr, false);
  if (b.is_discarded()) return Status::Internal("a checkpoint's manifest body is not JSON");
  // The checksum covers the body as it is written (dump() of the parsed
  // body), which is how ReadBody computes it again.
  const std::string text = b.dump();
  const Json manifest = {{"body", b}, {"checksum", Checksum(text)}};
  const std::string tmp = TmpDir(seq);
  SLUICE_RETURN_IF_ERROR(WriteWholeFile(tmp + "/pipeline.json", manifest.dump(1)));
  return RenameFile(tmp, Dir(seq));
}

void CheckpointStore::Abandon(uint64_t seq) {
  std::error_code ec;
  fs::remove_all(TmpDir(seq), ec);
}

Result<std::string> CheckpointStore::ReadBody(uint64_t seq) const {
  const std::string dir = Dir(seq);
  std::ifstream in(dir + "/pipeline.json");
  if (!in) return Status::NotFound("no pipeline.json in " + dir);
  std::stringstream ss;
  ss << in.rdbuf();
  Json j = Json::parse(ss.str(), nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("body") || !j.contains("checksum") ||
      !j["body"].is_object()) {
    return Status::Corruption(dir + "/pipeline.json is torn or not a checkpoint manifest");
  }
  const std::string text = j["body"].dump();
  if (!j["checksum"].is_string() || Checksum(text) != j["checksum"].get<std::string>()) {
    return Status::Corruption(dir + "/pipeline.json does not match its checksum");
  }
  return text;
}

Status CheckpointStore::Validate(uint64_t seq) const {
  SLUICE_ASSIGN_OR_RETURN(std::string body, ReadBody(seq));
  std::vector<std::string> files;
  CollectFiles(Json::parse(body), &files);
  const std::string dir = Dir(seq);
  for (const std::string& f : files) {
    SLUICE_ASSIGN_OR_RETURN(auto fb, FileBatch::Open(dir + "/" + f, /*remove_on_drop=*/false));
    for (size_t b = 0; b < fb->block_count(); ++b) {
      SLUICE_RETURN_IF_ERROR(fb->ReadBlock(b).status());
    }
  }
  return Status::OK();
}

void CheckpointStore::SetAside(uint64_t seq, const Status& why) {
  const std::string dir = Dir(seq);
  const std::string aside = root_ + "/.corrupt-" + SeqName(seq);
  std::error_code ec;
  fs::remove_all(aside, ec);
  fs::rename(dir, aside, ec);
  std::fprintf(stderr, "sluice: skipping checkpoint %s (moved to %s): %s\n", dir.c_str(),
               aside.c_str(), why.ToString().c_str());
}

void CheckpointStore::DropBefore(uint64_t seq) {
  // The files of batches still in use stay alive while they are open.
  std::error_code ec;
  for (uint64_t k : List()) {
    if (k < seq) fs::remove_all(Dir(k), ec);
  }
}

void CheckpointStore::DropAfter(uint64_t seq) {
  std::error_code ec;
  for (uint64_t k : List()) {
    if (k > seq) fs::remove_all(Dir(k), ec);
  }
}

std::vector<CheckpointInfo> CheckpointStore::Info() const {
  std::vector<CheckpointInfo> list;
  for (uint64_t seq : List()) {
    CheckpointInfo c;
    c.checkpoint_sequence_number = seq;
    c.size_bytes = DirBytes(Dir(seq));
    auto body = ReadBody(seq);
    if (body.ok()) {
      c.step = Json::parse(*body).value("step", uint64_t{0});
    } else {
      c.error = body.status().ToString();
    }
    list.push_back(c);
  }
  return list;
}

}  // namespace sluice::pipeline
