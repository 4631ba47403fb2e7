// LoopbackCluster: the runtimes of H hosts in one process, joined by TCP
// exchanges on 127.0.0.1, driven as one runtime: for the differential tests
// and benchmarks that compare many hosts with one.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/runtime.h"
#include "runtime/tcp_transport.h"

namespace sluice {

class LoopbackCluster {
 public:
  // Builds host h's circuits with `build(h, circuit)`.
  using HostBuildFn = std::function<Status(int host, Circuit&)>;
  static Result<std::unique_ptr<LoopbackCluster>> Start(int hosts, int workers_per_host,
                                                        const HostBuildFn& build);
  ~LoopbackCluster();

  // Adds `batch` to input `name`, each row on the worker (of whichever
  // host) that owns its key.
  Status Push(const std::string& name, const BatchPtr& batch);
  // Runs one step on every host at once.
  Status Step();
  // Output `name`'s change in the last step, summed over the hosts.
  Result<BatchPtr> Output(const std::string& name) const;

  int hosts() const { return static_cast<int>(runtimes_.size()); }
  Runtime& host(int h) { return *runtimes_[static_cast<size_t>(h)]; }

 private:
  int workers_ = 1;
  std::vector<std::unique_ptr<TcpTransport>> exchanges_;
  std::vector<std::unique_ptr<Runtime>> runtimes_;  // destroyed before the exchanges
};

}  // namespace sluice
