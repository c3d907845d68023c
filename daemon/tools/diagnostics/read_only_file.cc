#include "tools/diagnostics/read_only_file.h"

#include <fcntl.h>
#include <sys/stat.h>

#include "tools/diagnostic_tools.h"

namespace mace::tools::diagnostics {

// Opens a resolved path for reading only. O_NONBLOCK so that a FIFO planted in a run
// directory cannot hang the call; O_NOFOLLOW because the path is already canonical, so a
// symlink here means the tree changed under us.
OpenedFile open_regular(const Resolved& r) {
  struct stat st {};
  if (::stat(r.path.c_str(), &st) != 0) {
    const int e = errno;
    throw Refusal("path " + in_quotes(r.name) + ": " + os::errno_text(e));
  }
  if (S_ISDIR(st.st_mode))
    throw Refusal("path " + in_quotes(r.name) +
                  " is a directory; list it with list_files and name a file in it");
  if (!S_ISREG(st.st_mode)) throw Refusal("path " + in_quotes(r.name) + " is not a regular file");
  const int fd = ::open(r.path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) {
    const int e = errno;
    throw Refusal("cannot open " + in_quotes(r.name) + ": " + os::errno_text(e));
  }
  OpenedFile out{os::UniqueFd(fd), 0};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    throw Refusal("path " + in_quotes(r.name) + " is not a regular file");
  out.size = static_cast<std::uint64_t>(st.st_size);
  return out;
}

std::string read_prefix(int fd, std::size_t n) {
  std::string buf(n, '\0');
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd, buf.data() + got, n - got, static_cast<off_t>(got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<std::size_t>(r);
  }
  buf.resize(got);
  return buf;
}

bool is_binary(int fd) { return read_prefix(fd, kBinaryProbeBytes).find('\0') != std::string::npos; }
bool is_elf(int fd) { return read_prefix(fd, 4) == std::string_view("\x7f" "ELF", 4); }

}  // namespace mace::tools::diagnostics
