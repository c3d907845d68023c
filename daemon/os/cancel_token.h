#pragma once
// Lets one thread stop work another thread is doing: a build, a simulation, a tool call, a
// rate-limit wait. One token may be shared by any number of waiters (cancelling it stops
// all of them) and stays cancelled for good.
//
// Why an eventfd and not a flag: the waiters sleep in poll() (for output, a child's exit or
// a deadline); the token's fd is in that poll set so a cancel wakes them at once instead of
// at the next timer tick. The fd is written once and never read, so it stays readable and
// every waiter sees it (level-triggered).

#include <atomic>
#include <chrono>

#include "os/unique_fd.h"

namespace mace::os {

class CancelToken {
 public:
  CancelToken();  // throws std::system_error if no eventfd can be made
  CancelToken(const CancelToken&) = delete;
  CancelToken& operator=(const CancelToken&) = delete;

  // Thread-safe and async-signal-safe (an atomic exchange and one write()), so it may be
  // called from a signal handler too. Idempotent.
  void cancel() noexcept;
  bool cancelled() const noexcept { return cancelled_.load(std::memory_order_acquire); }
  // Readable (POLLIN) once cancelled. For pollers; do not read from it or close it.
  int fd() const noexcept { return fd_.get(); }

  // Sleeps until `duration` has passed or the token is cancelled, whichever comes first.
  // Returns true when it was cancelled.
  bool wait_for(std::chrono::milliseconds duration) const;

 private:
  UniqueFd fd_;
  std::atomic<bool> cancelled_{false};
};

}  // namespace mace::os
