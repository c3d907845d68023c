#pragma once
// Owns one file descriptor and closes it exactly once, however the owner is left: every
// error path of code that opens files, pipes, sockets or pidfds gets its close for free.

#include <utility>

namespace mace::os {

class UniqueFd {
 public:
  UniqueFd() noexcept = default;
  explicit UniqueFd(int fd) noexcept : fd_(fd) {}
  ~UniqueFd() { reset(); }
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const noexcept { return fd_; }
  bool valid() const noexcept { return fd_ >= 0; }
  explicit operator bool() const noexcept { return valid(); }

  // Closes the descriptor held (if any) and holds `fd` instead. Async-signal-safe.
  void reset(int fd = -1) noexcept;
  // Gives the descriptor up without closing it.
  int release() noexcept { return std::exchange(fd_, -1); }
  // Closes now and reports close(2)'s errno (0 on success): for files whose last write
  // errors only show at close (NFS, a full disk).
  int close() noexcept;

 private:
  int fd_ = -1;
};

}  // namespace mace::os
