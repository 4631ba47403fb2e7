#include "dataflow/state.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>

#include "zset/cursor.h"
#include "zset/file_batch.h"

namespace sluice {

using Json = nlohmann::json;

struct StateWriter::Impl {
  Json ops = Json::array();
};

StateWriter::StateWriter(std::string dir, std::string prefix)
    : impl_(std::make_unique<Impl>()), dir_(std::move(dir)), prefix_(std::move(prefix)) {}

StateWriter::~StateWriter() = default;

void StateWriter::BeginOp(const std::string& key, const char* name) {
  impl_->ops.push_back({{"op", key}, {"name", name}, {"items", Json::array()}});
}

Result<std::string> StateWriter::WriteBatch(const BatchPtr& batch) {
  const std::string name = prefix_ + "-" + std::to_string(files_++) + ".batch";
  const std::string path = dir_ + "/" + name;
  // A batch already in a file is linked into the checkpoint, not rewritten.
  if (auto* fb = dynamic_cast<const FileBatch*>(batch.get())) {
    if (::link(fb->path().c_str(), path.c_str()) == 0) {
      bytes_ += fb->byte_size();
      return name;
    }
    // Another file system: copy it below.
  }
  SLUICE_ASSIGN_OR_RETURN(
      auto writer,
      FileBatchWriter::Create(path, FileBatchWriter::kDefaultBlockBytes, batch->key_count()));
  auto c = batch->NewCursor();
  for (; c->KeyValid(); c->StepKey()) {
    for (; c->ValValid(); c->StepVal()) {
      SLUICE_RETURN_IF_ERROR(writer->Push(c->key(), c->val(), c->weight()));
    }
  }
  SLUICE_RETURN_IF_ERROR(c->status());
  SLUICE_ASSIGN_OR_RETURN(auto file, writer->Finish(/*remove_on_drop=*/false));
  bytes_ += file->byte_size();
  return name;
}

Status StateWriter::PutBatch(const BatchPtr& batch) {
  if (batch->empty()) {
    impl_->ops.back()["items"].push_back({{"batch", nullptr}});
    return Status::OK();
  }
  SLUICE_ASSIGN_OR_RETURN(std::string name, WriteBatch(batch));
  impl_->ops.back()["items"].push_back({{"batch", name}});
  return Status::OK();
}

Status StateWriter::PutSpine(const Spine& spine) {
  Json files = Json::array();
  for (const BatchPtr& b : spine.Snapshot()) {
    if (b->empty()) continue;
    SLUICE_ASSIGN_OR_RETURN(std::string name, WriteBatch(b));
    files.push_back(name);
  }
  impl_->ops.back()["items"].push_back({{"spine", files}});
  return Status::OK();
}

void StateWriter::PutU64(uint64_t v) { impl_->ops.back()["items"].push_back({{"u64", v}}); }

std::string StateWriter::Manifest() const { return impl_->ops.dump(); }

struct StateReader::Impl {
  std::string dir;
  Json ops;
  std::map<std::string, size_t> by_key;  // operator key -> its entry
  size_t op = 0;                         // 1 + the current entry
  size_t item = 0;                       // next item of the current entry
  size_t read = 0;                       // entries read
  bool started = false;

  Result<const Json*> Next(const char* kind) {
    if (!started) return Status::Corruption("checkpoint state read outside an operator");
    const Json& items = ops[op - 1]["items"];
    if (item >= items.size() || !items[item].contains(kind)) {
      return Status::Corruption("checkpoint state of operator " +
                                ops[op - 1].value("name", std::string("?")) + ": expected " + kind +
                                " as item " + std::to_string(item));
    }
    return &items[item++][kind];
  }

  Result<BatchPtr> Open(const std::string& name, std::shared_ptr<BlockCache> cache = nullptr) {
    SLUICE_ASSIGN_OR_RETURN(
        auto f, FileBatch::Open(dir + "/" + name, /*remove_on_drop=*/false, std::move(cache)));
    return BatchPtr(f);
  }
};

Result<std::unique_ptr<StateReader>> StateReader::Open(std::string dir, std::string_view manifest) {
  std::unique_ptr<StateReader> r(new StateReader());
  r->impl_ = std::make_unique<Impl>();
  r->impl_->dir = std::move(dir);
  r->impl_->ops = Json::parse(manifest, nullptr, false);
  if (r->impl_->ops.is_discarded() || !r->impl_->ops.is_array()) {
    return Status::Corruption("checkpoint state manifest is not valid JSON");
  }
  const Json& ops = r->impl_->ops;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (!ops[i].is_object() || !ops[i].contains("op") || !ops[i]["op"].is_string() ||
        !r->impl_->by_key.emplace(ops[i]["op"].get<std::string>(), i).second) {
      return Status::Corruption("checkpoint state manifest: entry " + std::to_string(i) +
                                " has no operator key or repeats one");
    }
  }
  return r;
}

StateReader::~StateReader() = default;

Status StateReader::BeginOp(const std::string& key, const char* name) {
  Impl& m = *impl_;
  auto it = m.by_key.find(key);
  if (it == m.by_key.end() || m.ops[it->second].value("name", std::string()) != name) {
    return Status::Corruption(std::string("checkpoint state does not match the circuit at ") +
                              name + " (operator " + key + "): was it written by another program?");
  }
  m.op = it->second + 1;
  ++m.read;
  m.item = 0;
  m.started = true;
  return Status::OK();
}

bool StateReader::Has(const std::string& key) const { return impl_->by_key.count(key) > 0; }

Result<BatchPtr> StateReader::GetBatch() {
  SLUICE_ASSIGN_OR_RETURN(const Json* v, impl_->Next("batch"));
  if (v->is_null()) return BatchPtr(MemBatch::Empty());
  return impl_->Open(v->get<std::string>());
}

Status StateReader::GetSpine(Spine* spine) {
  SLUICE_ASSIGN_OR_RETURN(const Json* v, impl_->Next("spine"));
  for (const Json& name : *v) {
    SLUICE_ASSIGN_OR_RETURN(BatchPtr b, impl_->Open(name.get<std::string>(), spine->block_cache()));
    SLUICE_RETURN_IF_ERROR(spine->Insert(std::move(b)));
  }
  return Status::OK();
}

Result<uint64_t> StateReader::GetU64() {
  SLUICE_ASSIGN_OR_RETURN(const Json* v, impl_->Next("u64"));
  return v->get<uint64_t>();
}

Status StateReader::Finish() const {
  if (impl_->read != impl_->ops.size()) {
    return Status::Corruption("checkpoint state has " + std::to_string(impl_->ops.size()) +
                              " operators with state, the circuit read " +
                              std::to_string(impl_->read));
  }
  return Status::OK();
}

}  // namespace sluice
