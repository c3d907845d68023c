// The FILE argument of `spec check`, `submit` and `plan parse`: a regular file, or standard
// input for "-", read up to a limit.
//
// Why the limit and the file type: what is read is held in memory and, for submit, sent to
// maced whole, so `mace spec check /dev/zero` must not grow until the machine runs out of
// memory, and a FIFO or a device other than standard input is refused rather than waited
// on. One byte more than the caller's limit is read, so the parser can tell "exactly at
// the limit" from "over it" and say so; the bytes are returned as read, NULs included, so
// what is checked and what is sent are the same.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "commands.h"
#include "os/errno_text.h"
#include "os/unique_fd.h"

namespace mace::client {
namespace {

// Appends at most `max_bytes` from `fd` to `out`; false with `error` set on a read error.
bool read_at_most(int fd, std::size_t max_bytes, const std::string& name, std::string& out,
                  std::string& error) {
  char buffer[64 * 1024];
  while (out.size() < max_bytes) {
    std::size_t want = std::min(sizeof buffer, max_bytes - out.size());
    ssize_t got = ::read(fd, buffer, want);
    if (got < 0) {
      if (errno == EINTR) continue;
      error = "cannot read " + name + ": " + os::errno_text(errno);
      return false;
    }
    if (got == 0) break;
    out.append(buffer, static_cast<std::size_t>(got));
  }
  return true;
}

}  // namespace

bool read_input(const std::string& path, std::size_t max_bytes, std::string& out,
                std::string& error, std::optional<std::uint64_t>* whole_size) {
  out.clear();
  if (whole_size) whole_size->reset();
  // Standard input may be a pipe or a terminal: that is what "-" is for.
  if (path == "-") {
    struct stat st {};
    const off_t at = ::lseek(STDIN_FILENO, 0, SEEK_CUR);
    if (whole_size && ::fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode) && at >= 0 &&
        st.st_size >= at)
      *whole_size = static_cast<std::uint64_t>(st.st_size - at);
    return read_at_most(STDIN_FILENO, max_bytes, "standard input", out, error);
  }
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below.
  os::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd) {
    error = "cannot read " + path + ": " + os::errno_text(errno);
    return false;
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) {
    error = "cannot read " + path + ": " + os::errno_text(errno);
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    error = "cannot read " + path + ": not a regular file (use - for standard input)";
    return false;
  }
  if (whole_size) *whole_size = static_cast<std::uint64_t>(st.st_size);
  return read_at_most(fd.get(), max_bytes, path, out, error);
}

}  // namespace mace::client
