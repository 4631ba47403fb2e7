// The TCP exchange over loopback against a plain TCP copy of the same bytes,
// in one run:
//
//   exchange_bench [--batches N] [--rows R]
//
// Two hosts of one worker each (TcpTransport on loopback): worker 0 sends
// N batches of R rows (40-byte rows) to worker 1, which receives them; the
// rate counts the batches' encoded bytes. The same over TLS (certificates
// of a throwaway CA, as `sluice run --hosts` makes them). Against both: one
// TCP connection over loopback carrying as many bytes in the same frame
// sizes, read to the end. The ratios are the exchange's rates over the
// plain copy's, and TLS's over plain TCP's.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <future>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "base/allocator.h"
#include "runtime/tcp_transport.h"
#include "zset/batch_builder.h"
#include "zset/batch_codec.h"

namespace {

using Clock = std::chrono::steady_clock;

// Plain TCP over loopback: `frames` frames of `size` bytes, written by one
// thread and read to the end by another. Returns seconds.
double PlainCopy(size_t frames, size_t size) {
  std::string bound;
  auto listening = sluice::ListenTcp("127.0.0.1:0", &bound);
  if (!listening.ok()) std::abort();
  const int lfd = *listening;
  sockaddr_in a{};
  socklen_t len = sizeof a;
  ::getsockname(lfd, reinterpret_cast<sockaddr*>(&a), &len);
  std::string frame(size, 'x');
  const auto t0 = Clock::now();
  std::thread writer([&] {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    for (size_t f = 0; f < frames; ++f) {
      for (size_t done = 0; done < size;) {
        const ssize_t n = ::send(fd, frame.data() + done, size - done, MSG_NOSIGNAL);
        if (n <= 0) std::abort();
        done += static_cast<size_t>(n);
      }
    }
    ::close(fd);
  });
  const int fd = ::accept(lfd, nullptr, nullptr);
  std::vector<char> buf(1 << 20);
  while (::recv(fd, buf.data(), buf.size(), 0) > 0) {
  }
  writer.join();
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  ::close(fd);
  ::close(lfd);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  sluice::TuneAllocatorAtStart(argv);  // as `sluice run` does
  size_t batches = 200, rows = 25000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--batches")) batches = std::strtoull(argv[i + 1], nullptr, 10);
    if (!std::strcmp(argv[i], "--rows")) rows = std::strtoull(argv[i + 1], nullptr, 10);
  }
  // The batches: rows of 40 bytes with distinct keys.
  std::vector<sluice::BatchPtr> sent;
  size_t bytes = 0;
  for (size_t b = 0; b < batches; ++b) {
    sluice::BatchBuilder builder;
    char row[41];
    for (size_t r = 0; r < rows; ++r) {
      std::snprintf(row, sizeof row, "%020zu%020zu", b, r);
      builder.Push(std::string_view(row, 40), 1);
    }
    auto batch = *builder.Finish();
    std::string encoded;
    sluice::EncodeBatch(*batch, &encoded);
    bytes += encoded.size();
    sent.push_back(batch);
  }
  // Seconds to send every batch from host 0's worker to host 1's.
  auto run = [&](const std::map<int, sluice::TlsFiles>* tls, size_t* received_rows) -> double {
    auto exchange = sluice::StartLoopbackExchange(2, 1, "bench", tls);
    if (!exchange.ok()) {
      std::fprintf(stderr, "cannot start the exchange: %s\n", exchange.status().ToString().c_str());
      std::exit(1);
    }
    sluice::TcpTransport& host0 = *(*exchange)[0];
    sluice::TcpTransport& host1 = *(*exchange)[1];
    const auto x0 = Clock::now();
    std::thread sender([&] {
      for (size_t b = 0; b < batches; ++b) {
        if (!host0.Send(static_cast<int>(b), 0, 1, sent[b]).ok()) std::abort();
      }
    });
    *received_rows = 0;
    for (size_t b = 0; b < batches; ++b) {
      // Worker 1 receives from both workers: its own (empty) and worker 0's.
      if (!host1.Send(static_cast<int>(b), 1, 1, sluice::MemBatch::Empty()).ok()) std::exit(1);
      std::vector<sluice::BatchPtr> got;
      if (!host1.Receive(static_cast<int>(b), 1, &got).ok()) std::exit(1);
      *received_rows += got[0]->len();
    }
    sender.join();
    return std::chrono::duration<double>(Clock::now() - x0).count();
  };
  size_t received_rows = 0, tls_rows = 0;
  const double xs = run(nullptr, &received_rows);
  char tmpl[] = "/tmp/sluice-bench-tls-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  auto certs = sluice::MakeCertificates(dir, {{"host-0", "127.0.1.1"}, {"host-1", "127.0.1.2"}});
  if (!certs.ok()) {
    std::fprintf(stderr, "%s\n", certs.status().ToString().c_str());
    return 1;
  }
  const std::map<int, sluice::TlsFiles> tls = {{0, (*certs)["host-0"]}, {1, (*certs)["host-1"]}};
  const double ts = run(&tls, &tls_rows);
  std::filesystem::remove_all(dir);
  const double ps = PlainCopy(batches, bytes / batches);
  const double mb = static_cast<double>(bytes) / 1e6;
  std::printf("exchange: %zu batches of %zu rows, %.1f MB encoded, %zu rows received\n", batches,
              rows, mb, received_rows);
  std::printf("  TCP exchange     %6.3f s  %8.1f MB/s\n", xs, mb / xs);
  std::printf("  TLS exchange     %6.3f s  %8.1f MB/s\n", ts, mb / ts);
  std::printf("  plain TCP copy   %6.3f s  %8.1f MB/s\n", ps, mb / ps);
  std::printf("  ratio exchange / plain copy: %.2f\n", ps / xs);
  std::printf("  ratio TLS exchange / TCP exchange: %.2f\n", xs / ts);
  return received_rows == batches * rows && tls_rows == batches * rows ? 0 : 1;
}
