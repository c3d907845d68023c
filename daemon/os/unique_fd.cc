#include "os/unique_fd.h"

#include <unistd.h>

#include <cerrno>

namespace mace::os {

void UniqueFd::reset(int fd) noexcept {
  if (fd_ >= 0) {
    const int saved_errno = errno;  // callers read errno after a failed call, then clean up
    ::close(fd_);
    errno = saved_errno;
  }
  fd_ = fd;
}

int UniqueFd::close() noexcept {
  if (fd_ < 0) return 0;
  const int rc = ::close(release());
  return rc == 0 ? 0 : errno;
}

}  // namespace mace::os
