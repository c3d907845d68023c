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

Input refused(const std::string& name, const std::string& why) {
  Input input;
  input.error = "cannot read " + name + ": " + why;
  return input;
}

// At most `max_bytes` from `fd`, into `input`'s bytes; its error says why a read failed.
Input read_at_most(int fd, std::size_t max_bytes, const std::string& name, Input input) {
  char buffer[64 * 1024];
  while (input.bytes.size() < max_bytes) {
    std::size_t want = std::min(sizeof buffer, max_bytes - input.bytes.size());
    ssize_t got = ::read(fd, buffer, want);
    if (got < 0) {
      if (errno == EINTR) continue;
      return refused(name, os::errno_text(errno));
    }
    if (got == 0) break;
    input.bytes.append(buffer, static_cast<std::size_t>(got));
  }
  return input;
}

}  // namespace

Input read_input(const std::string& path, std::size_t max_bytes) {
  Input input;
  // Standard input may be a pipe or a terminal: that is what "-" is for.
  if (path == "-") {
    struct stat st {};
    const off_t at = ::lseek(STDIN_FILENO, 0, SEEK_CUR);
    if (::fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode) && at >= 0 && st.st_size >= at)
      input.whole_size = static_cast<std::uint64_t>(st.st_size - at);
    return read_at_most(STDIN_FILENO, max_bytes, "standard input", std::move(input));
  }
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below.
  os::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd) return refused(path, os::errno_text(errno));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return refused(path, os::errno_text(errno));
  if (!S_ISREG(st.st_mode)) return refused(path, "not a regular file (use - for standard input)");
  input.whole_size = static_cast<std::uint64_t>(st.st_size);
  return read_at_most(fd.get(), max_bytes, path, std::move(input));
}

}  // namespace mace::client
