#pragma once
// Reading the files of a diagnostic tool's places (scope.h), read-only by construction
// (REQ-FAIL-6): a file is opened O_RDONLY through a checked path, and read through its
// descriptor in bounded pieces.

#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "os/errno_text.h"
#include "os/unique_fd.h"
#include "tools/diagnostics/scope.h"
#include "tools/diagnostics/text.h"

namespace mace::tools::diagnostics {

struct OpenedFile {
  os::UniqueFd file;  // opened for reading only
  std::uint64_t size = 0;
};

// Opens a resolved path for reading only; a Refusal when it is not a regular file or
// cannot be opened.
OpenedFile open_regular(const Resolved& r);

// Up to the first `n` bytes of the file.
std::string read_prefix(int fd, std::size_t n);

bool is_binary(int fd);  // a NUL byte in the first kBinaryProbeBytes
bool is_elf(int fd);

struct LineScan {
  std::uint64_t lines = 0;
  bool stopped = false;    // the callback asked to stop
  bool timed_out = false;  // the deadline passed first
};

// Calls f(line_number, line, cut) for every line of the file, from its start, keeping at
// most `keep` bytes of each (a line without an end costs `keep`, not gigabytes). f returns
// false to stop. Reads through the descriptor, so only what open_regular allowed is read.
template <typename F>
LineScan scan_lines(int fd, std::size_t keep, const Deadline& deadline, F&& f) {
  LineScan scan;
  if (::lseek(fd, 0, SEEK_SET) < 0) throw Refusal("cannot read the file: " + os::errno_text(errno));
  std::vector<char> buf(1 << 20);
  std::string line;
  bool cut = false;
  bool partial = false;
  auto deliver = [&]() -> bool {
    if (!cut && !line.empty() && line.back() == '\r') line.pop_back();
    ++scan.lines;
    const bool go_on = f(scan.lines, std::string_view(line), cut);
    line.clear();
    cut = false;
    partial = false;
    return go_on;
  };
  for (;;) {
    const ssize_t r = ::read(fd, buf.data(), buf.size());
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw Refusal("cannot read the file: " + os::errno_text(errno));
    if (r == 0) break;
    const char* p = buf.data();
    const char* end = p + r;
    while (p < end) {
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
      const std::size_t len = static_cast<std::size_t>((nl ? nl : end) - p);
      const std::size_t room = keep - line.size();
      if (len > room) {
        line.append(p, room);
        cut = true;
      } else {
        line.append(p, len);
      }
      partial = true;
      if (nl == nullptr) break;
      if (!deliver()) {
        scan.stopped = true;
        return scan;
      }
      p = nl + 1;
    }
    if (deadline.passed()) {
      scan.timed_out = true;
      return scan;
    }
  }
  if (partial) {
    if (!deliver()) scan.stopped = true;
  }
  return scan;
}

}  // namespace mace::tools::diagnostics
