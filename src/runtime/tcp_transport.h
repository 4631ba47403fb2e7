// TcpTransport: the exchange between hosts. Each host runs one, with the
// addresses of every host's exchange; batches between two workers of this
// host stay in memory (as in MemoryTransport), batches to a worker of
// another host go over TCP as chunks of the batch codec (zset/batch_codec.h:
// the rows' bytes as they are, never decoded and encoded again).
//
// Connections: every host listens on its address and opens one connection
// to every other host, which it sends on; it reads what the others send on
// the connections they opened. With TLS files, every connection is TLS,
// both sides' certificates checked against the pipeline's CA (and the
// listener's against the address dialled); each carries data one way, so
// each TLS session is used by one thread. A connection starts with a hello
// that carries the pipeline's secret and the sender's host index; a
// connection without the right secret, or whose handshake fails, is closed.
//
// Frames: u32 length of the body, u8 type, body:
//   'H' hello   u32 host, secret
//   'B' batch   u32 exchange id, u32 from worker, u32 to worker, chunk
//   'P' ping    (nothing): sent every ping_interval, so a silent peer is
//               told apart from a busy one
//   'A' abort   the reason: the sender failed its step
//
// Liveness: a peer from which nothing (not even a ping) arrives for
// io_timeout, whose connection ends, or to which a send does not complete
// within io_timeout, is lost: the transport aborts (every waiting and later
// Receive returns an error naming the host, its address and when), and
// stays failed. Nothing waits on the network without a timeout.
//
// Thread safety: Send, Receive and Abort from any worker thread at once.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/tls.h"
#include "dataflow/transport.h"

namespace sluice {

struct TcpTransportOptions {
  int host = 0;                        // this host's index
  std::vector<std::string> addresses;  // "ip:port" of every host's exchange, by index
  int workers_per_host = 1;
  std::string secret;
  TlsFiles tls;                                      // none: plain TCP
  std::chrono::milliseconds connect_timeout{10000};  // for every peer to be connected
  std::chrono::milliseconds io_timeout{10000};       // a send, or a silent peer
  std::chrono::milliseconds ping_interval{1000};
  // A socket already listening on addresses[host] (ListenTcp), which the
  // transport takes over and closes; -1: the transport listens there itself.
  int listen_fd = -1;
};

class TcpTransport final : public Transport {
 public:
  // Listens, connects to every other host and waits until every other host
  // has connected (up to connect_timeout).
  static Result<std::unique_ptr<TcpTransport>> Start(TcpTransportOptions options);
  ~TcpTransport() override;

  Status Send(int id, int from, int to, BatchPtr batch) override;
  Status Receive(int id, int to, std::vector<BatchPtr>* out) override;
  void Abort(const Status& status) override;

  // The first peer lost, or OK.
  Status lost() const;
  uint64_t bytes_sent() const override;

 private:
  struct Impl;
  explicit TcpTransport(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// A TCP socket listening on `address` ("ip:port"; port 0: one the kernel
// picks, so that many hosts on one machine never race for a port). Returns
// the socket, and sets *bound to the "ip:port" it listens on.
Result<int> ListenTcp(const std::string& address, std::string* bound);

// Starts `hosts` exchanges on loopback (127.0.1.1, 127.0.1.2, ...: ports
// the kernel picks), each with `workers_per_host` workers, at once, so that
// they find each other.
// With `tls`, over TLS (certificates for 127.0.1.1, ... in it).
Result<std::vector<std::unique_ptr<TcpTransport>>> StartLoopbackExchange(
    int hosts, int workers_per_host, const std::string& secret,
    const std::map<int, TlsFiles>* tls = nullptr);

}  // namespace sluice
