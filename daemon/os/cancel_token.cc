#include "os/cancel_token.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <system_error>

namespace mace::os {

CancelToken::CancelToken() : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  if (!fd_.valid()) throw std::system_error(errno, std::generic_category(), "eventfd");
}

void CancelToken::cancel() noexcept {
  if (cancelled_.exchange(true, std::memory_order_acq_rel)) return;
  const int saved_errno = errno;  // async-signal-safe: leave errno as it was
  const std::uint64_t one = 1;
  ssize_t written;
  do {
    written = ::write(fd_.get(), &one, sizeof one);
  } while (written < 0 && errno == EINTR);
  errno = saved_errno;
}

bool CancelToken::wait_for(std::chrono::milliseconds duration) const {
  using Clock = std::chrono::steady_clock;
  const auto until = Clock::now() + duration;
  while (!cancelled()) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(until - Clock::now());
    if (left <= std::chrono::milliseconds::zero()) return false;
    pollfd fd{fd_.get(), POLLIN, 0};
    // poll takes an int of milliseconds; a day at a time is plenty.
    const auto slice = std::min<std::chrono::milliseconds::rep>(left.count(), 24 * 3600 * 1000);
    if (::poll(&fd, 1, static_cast<int>(slice)) < 0 && errno != EINTR)
      throw std::system_error(errno, std::generic_category(), "poll");
  }
  return true;
}

}  // namespace mace::os
