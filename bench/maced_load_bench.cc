// maced_load_bench SOCKET RUN [WATCHERS] [IDLE] [REQUESTS]: the latency of `status` as one
// client sees it, first alone (the baseline), then while WATCHERS other connections each
// watch RUN and IDLE more sit connected, all in this process. Prints p50 and p99 of each
// phase and their ratio. bench/maced_load.sh starts a maced for it.

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <capnp/rpc-twoparty.h>
#include <kj/async-io.h>

#include "mace.capnp.h"

namespace {

using Clock = std::chrono::steady_clock;

class CountingListener final : public mace::api::RunListener::Server {
 public:
  explicit CountingListener(size_t& events) : events_(events) {}

 protected:
  kj::Promise<void> event(EventContext) override {
    ++events_;
    return kj::READY_NOW;
  }
  kj::Promise<void> done(DoneContext) override { return kj::READY_NOW; }

 private:
  size_t& events_;
};

// One client connection and its bootstrap capability.
struct Connection {
  Connection(kj::AsyncIoContext& io, const std::string& socket)
      : stream(io.provider->getNetwork()
                   .parseAddress("unix:" + socket)
                   .wait(io.waitScope)
                   ->connect()
                   .wait(io.waitScope)),
        rpc(kj::heap<capnp::TwoPartyClient>(*stream)),
        maced(rpc->bootstrap().castAs<mace::api::Maced>()) {}

  kj::Own<kj::AsyncIoStream> stream;
  kj::Own<capnp::TwoPartyClient> rpc;
  mace::api::Maced::Client maced;
};

std::vector<double> status_latencies(kj::AsyncIoContext& io, Connection& c, const std::string& run,
                                     size_t requests) {
  std::vector<double> ms;
  for (size_t i = 0; i < requests; ++i) {
    auto start = Clock::now();
    auto request = c.maced.statusRequest();
    request.setRunId(run);
    request.send().wait(io.waitScope);
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms;
}

double percentile(const std::vector<double>& sorted, double p) {
  return sorted[std::min(sorted.size() - 1, static_cast<size_t>(p * static_cast<double>(sorted.size())))];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: maced_load_bench SOCKET RUN [WATCHERS] [IDLE] [REQUESTS]\n";
    return 2;
  }
  const std::string socket = argv[1], run = argv[2];
  const size_t watchers = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 200;
  const size_t idle = argc > 4 ? std::strtoul(argv[4], nullptr, 10) : 50;
  const size_t requests = argc > 5 ? std::strtoul(argv[5], nullptr, 10) : 2000;
  auto io = kj::setupAsyncIo();

  Connection probe(io, socket);
  const auto alone = status_latencies(io, probe, run, requests);

  size_t events = 0;
  std::vector<kj::Own<Connection>> held;
  std::vector<mace::api::Subscription::Client> subscriptions;
  for (size_t i = 0; i < watchers; ++i) {
    auto c = kj::heap<Connection>(io, socket);
    auto request = c->maced.watchRequest();
    request.setRunId(run);
    request.setListener(kj::heap<CountingListener>(events));
    subscriptions.push_back(request.send().wait(io.waitScope).getSubscription());
    held.push_back(kj::mv(c));
  }
  for (size_t i = 0; i < idle; ++i) {
    auto c = kj::heap<Connection>(io, socket);
    c->maced.versionRequest().send().wait(io.waitScope);
    held.push_back(kj::mv(c));
  }
  const auto loaded = status_latencies(io, probe, run, requests);

  std::cout << "status latency over " << requests << " requests (ms)\n"
            << "  alone:                          p50 " << percentile(alone, 0.5) << "  p99 "
            << percentile(alone, 0.99) << "\n"
            << "  with " << watchers << " watchers and " << idle << " idle connections: p50 "
            << percentile(loaded, 0.5) << "  p99 " << percentile(loaded, 0.99) << "\n"
            << "  ratio loaded/alone: p50 " << percentile(loaded, 0.5) / percentile(alone, 0.5)
            << "x  p99 " << percentile(loaded, 0.99) / percentile(alone, 0.99) << "x\n"
            << "  (the watchers received " << events << " events)\n";
  return 0;
}
