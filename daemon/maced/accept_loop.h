#pragma once
// maced's accept loop: takes every connection clients make to the listening socket and
// hands it on, for as long as maced runs.
//
// No failure of accept(2) ends it: a maced that stays up, pinging the watchdog, while
// nobody can connect until someone restarts it is worse than any error. So:
// - Running out of descriptors (EMFILE, ENFILE) or of kernel memory (ENOBUFS, ENOMEM) is
//   waited out. accept is tried again after 100 ms, then at doubling intervals up to 1 s,
//   while the connections already open are served as usual: their closing is what gives
//   descriptors back. The pending connections wait in the socket's backlog meanwhile.
// - A connection that broke before it was taken (ECONNABORTED, EPROTO) and an
//   interrupted call (EINTR) concern that one connection or that one call: accept is
//   tried again at once, without a word.
// - Any other error is unexpected, and retried the same way as the first kind, so one
//   that passes (whatever it was) does not deafen maced either.
// Each episode is logged once when it starts (and once more for each other errno it
// brings) and once when it ends, never once per retry. It ends when maced has taken every
// connection that was waiting (accept finds none), not at the first one it takes again.

#include <chrono>
#include <functional>
#include <optional>
#include <ostream>
#include <set>

#include <kj/async-io.h>
#include <kj/async-unix.h>
#include <kj/timer.h>

#include "os/unique_fd.h"

namespace mace {

enum class AcceptFailure {
  retry_now,         // the one connection or the one call: try again at once
  out_of_resources,  // descriptors or memory: wait, serving what is open
  unexpected,        // anything else: wait the same way, and say it is unexpected
};

// How an errno of accept(2) is handled.
AcceptFailure classify_accept_failure(int error);

// The wait before retry number `retries` (from 0) of one episode: 100 ms, doubling, at
// most 1 s.
std::chrono::milliseconds accept_backoff(unsigned retries);

class AcceptLoop {
 public:
  using Accepted = std::function<void(kj::Own<kj::AsyncIoStream>)>;

  // Takes `listen_fd` (a listening stream socket; made non-blocking here) and gives every
  // connection to `accepted`.
  AcceptLoop(os::UniqueFd listen_fd, kj::UnixEventPort& event_port,
             kj::LowLevelAsyncIoProvider& provider, kj::Timer& timer, std::ostream& log,
             Accepted accepted);

  // Never resolves.
  kj::Promise<void> run();

 private:
  struct Episode {
    std::chrono::steady_clock::time_point since;
    unsigned retries = 0;
    unsigned backoff_step = 0;
    std::set<int> errors_logged;
  };

  kj::Promise<void> retry_later(int error);
  void accepting_again();

  os::UniqueFd listen_fd_;
  kj::UnixEventPort::FdObserver observer_;  // after listen_fd_: goes before it is closed
  kj::LowLevelAsyncIoProvider& provider_;
  kj::Timer& timer_;
  std::ostream& log_;
  Accepted accepted_;
  std::optional<Episode> episode_;
};

}  // namespace mace
