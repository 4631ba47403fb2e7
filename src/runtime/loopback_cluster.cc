#include "runtime/loopback_cluster.h"

#include <future>

#include "dataflow/operators/exchange.h"
#include "zset/merge.h"

namespace sluice {

Result<std::unique_ptr<LoopbackCluster>> LoopbackCluster::Start(int hosts, int workers_per_host,
                                                                const HostBuildFn& build) {
  auto c = std::make_unique<LoopbackCluster>();
  c->workers_ = workers_per_host;
  SLUICE_ASSIGN_OR_RETURN(c->exchanges_,
                          StartLoopbackExchange(hosts, workers_per_host, "loopback-cluster"));
  for (int h = 0; h < hosts; ++h) {
    RuntimeOptions o;
    o.workers = workers_per_host;
    o.host = h;
    o.hosts = hosts;
    o.transport = c->exchanges_[static_cast<size_t>(h)].get();
    SLUICE_ASSIGN_OR_RETURN(auto rt,
                            Runtime::Start(o, [&](Circuit& circuit) { return build(h, circuit); }));
    c->runtimes_.push_back(std::move(rt));
  }
  return c;
}

LoopbackCluster::~LoopbackCluster() { runtimes_.clear(); }

Status LoopbackCluster::Push(const std::string& name, const BatchPtr& batch) {
  const int total = workers_ * hosts();
  SLUICE_ASSIGN_OR_RETURN(std::vector<MemBatchPtr> parts, PartitionByKey(*batch, total));
  for (int w = 0; w < total; ++w) {
    SLUICE_RETURN_IF_ERROR(runtimes_[static_cast<size_t>(w / workers_)]->PushToWorker(
        name, w, parts[static_cast<size_t>(w)]));
  }
  return Status::OK();
}

Status LoopbackCluster::Step() {
  std::vector<std::future<Status>> others;
  for (size_t h = 1; h < runtimes_.size(); ++h) {
    others.push_back(std::async(std::launch::async, [this, h] { return runtimes_[h]->Step(); }));
  }
  Status s = runtimes_[0]->Step();
  for (auto& f : others) {
    Status o = f.get();
    if (s.ok()) s = o;
  }
  return s;
}

Result<BatchPtr> LoopbackCluster::Output(const std::string& name) const {
  std::vector<BatchPtr> parts;
  for (const auto& rt : runtimes_) {
    SLUICE_ASSIGN_OR_RETURN(BatchPtr b, rt->Output(name));
    parts.push_back(std::move(b));
  }
  return MergeBatches(parts, {});
}

}  // namespace sluice
