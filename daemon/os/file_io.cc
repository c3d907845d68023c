#include "os/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <limits>

#include "os/errno_text.h"
#include "os/text.h"
#include "os/unique_fd.h"

namespace mace::os {
namespace fs = std::filesystem;

namespace {

void write_all(int fd, std::string_view content, const fs::path& path) {
  while (!content.empty()) {
    ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw_file_error("write", path, errno);
    }
    content.remove_prefix(static_cast<std::size_t>(n));
  }
}

fs::path default_temp_path(const fs::path& target) {
  return target.parent_path() / ("." + target.filename().string() + ".tmp");
}

}  // namespace

void throw_file_error(std::string_view what, const fs::path& path, int error) {
  throw FileError("cannot " + std::string(what) + " " + path.string() + ": " + errno_text(error),
                  error);
}

std::optional<std::string> read_file_if_exists(const fs::path& path, std::size_t max_bytes,
                                               FileMeta* meta) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below anyway.
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd) {
    if (errno == ENOENT) return std::nullopt;
    throw_file_error("open", path, errno);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw_file_error("stat", path, errno);
  if (!S_ISREG(st.st_mode))
    throw FileError(path.string() + " is not a regular file", S_ISDIR(st.st_mode) ? EISDIR : EINVAL);
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes)
    throw FileError(path.string() + " is larger than " + std::to_string(max_bytes) + " bytes",
                    EFBIG);
  if (meta != nullptr)
    *meta = FileMeta{static_cast<mode_t>(st.st_mode & 07777), st.st_uid, st.st_gid};
  std::string content;
  content.reserve(static_cast<std::size_t>(st.st_size));
  char buffer[65536];
  for (;;) {
    ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw_file_error("read", path, errno);
    }
    if (n == 0) break;
    // It may grow while we read: the limit holds for what we keep, not only for fstat.
    if (content.size() + static_cast<std::size_t>(n) > max_bytes)
      throw FileError(path.string() + " is larger than " + std::to_string(max_bytes) + " bytes",
                      EFBIG);
    content.append(buffer, static_cast<std::size_t>(n));
  }
  return content;
}

std::string read_file(const fs::path& path, std::size_t max_bytes, FileMeta* meta) {
  auto content = read_file_if_exists(path, max_bytes, meta);
  if (!content) throw_file_error("open", path, ENOENT);
  return std::move(*content);
}

std::optional<std::string> try_read_file(const fs::path& path, std::size_t max_bytes) {
  try {
    return read_file_if_exists(path, max_bytes);
  } catch (const FileError&) {
    return std::nullopt;
  }
}

std::string read_file_tail(const fs::path& path, std::size_t max_lines, std::size_t max_bytes) {
  if (max_lines == 0 || max_bytes == 0) return {};
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd) return {};
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return {};
  const auto size = static_cast<std::uint64_t>(st.st_size);
  const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(size, max_bytes));
  constexpr std::size_t kBlock = 16 * 1024;

  // Filled from its end towards its front, one block per read, until enough line breaks
  // have been seen; the file's final '\n' ends the last line and does not count.
  std::string data(want, '\0');
  std::size_t filled = 0;
  std::size_t breaks = 0;
  bool io_error = false;
  while (filled < want && breaks <= max_lines) {
    const std::size_t n = std::min(kBlock, want - filled);
    const std::size_t at = want - filled - n;
    const auto offset = static_cast<off_t>(size - filled - n);
    std::size_t got = 0;
    while (got < n) {
      ssize_t r = ::pread(fd.get(), data.data() + at + got, n - got, offset + static_cast<off_t>(got));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      got += static_cast<std::size_t>(r);
    }
    if (got < n) {  // shrank under us or failed: keep what is complete from the end
      io_error = true;
      break;
    }
    for (std::size_t i = at; i < at + n; ++i)
      if (data[i] == '\n' && !(filled == 0 && i + 1 == want)) ++breaks;
    filled += n;
  }
  if (io_error && filled == 0) return {};
  std::string_view text(data);
  text.remove_prefix(want - filled);
  return std::string(last_lines(text, max_lines, !io_error && filled == size));
}

UniqueFd open_regular_file(const fs::path& path, struct stat& st) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW));
  if (!fd) throw_file_error("open", path, errno);
  if (::fstat(fd.get(), &st) != 0) throw_file_error("stat", path, errno);
  if (!S_ISREG(st.st_mode))
    throw FileError(path.string() + " is not a regular file", S_ISDIR(st.st_mode) ? EISDIR : EINVAL);
  return fd;
}

FileRange read_file_range(const fs::path& path, std::uint64_t offset, std::size_t max_bytes) {
  struct stat st {};
  const UniqueFd fd = open_regular_file(path, st);
  FileRange range;
  range.size = static_cast<std::uint64_t>(st.st_size);
  if (offset >= range.size) return range;
  range.data.resize(static_cast<std::size_t>(std::min<std::uint64_t>(range.size - offset, max_bytes)));
  std::size_t got = 0;
  while (got < range.data.size()) {
    const ssize_t r = ::pread(fd.get(), range.data.data() + got, range.data.size() - got,
                              static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw_file_error("read", path, errno);
    if (r == 0) break;  // shrank under us
    got += static_cast<std::size_t>(r);
  }
  range.data.resize(got);
  return range;
}

std::string read_file_end(const fs::path& path, std::size_t max_bytes) {
  return read_file_tail(path, std::numeric_limits<std::size_t>::max(), max_bytes);
}

std::string read_first_line(const fs::path& path, std::size_t max_bytes) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd) return {};
  std::string buf(max_bytes, '\0');
  std::size_t got = 0;
  while (got < max_bytes) {
    ssize_t n = ::read(fd.get(), buf.data() + got, max_bytes - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
    if (buf.find('\n') < got) break;
  }
  buf.resize(got);
  buf.resize(std::min(buf.find('\n'), buf.size()));
  if (!buf.empty() && buf.back() == '\r') buf.pop_back();
  return buf;
}

void write_file_atomically(const fs::path& target, std::string_view content, const AtomicWrite& how) {
  const fs::path temp = how.temp_path.empty() ? default_temp_path(target) : how.temp_path;
  (void)::unlink(temp.c_str());
  UniqueFd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd) throw_file_error("create", temp, errno);
  try {
    write_all(fd.get(), content, temp);
    if (how.meta) {
      struct stat st {};
      if (::fstat(fd.get(), &st) == 0 && (st.st_uid != how.meta->uid || st.st_gid != how.meta->gid)) {
        // Only root may give a file away; a daemon running as the file's owner never needs to.
        (void)::fchown(fd.get(), how.meta->uid, how.meta->gid);
      }
    }
    // After fchown, which clears set-id bits.
    if (::fchmod(fd.get(), how.meta ? how.meta->mode : 0644) != 0) throw_file_error("chmod", temp, errno);
    if (how.durable && ::fsync(fd.get()) != 0) throw_file_error("fsync", temp, errno);
    if (int error = fd.close(); error != 0) throw_file_error("close", temp, error);
  } catch (...) {
    fd.reset();
    (void)::unlink(temp.c_str());
    throw;
  }
  if (how.on_step) how.on_step("temp");
  if (::rename(temp.c_str(), target.c_str()) != 0) {
    int error = errno;
    (void)::unlink(temp.c_str());
    throw_file_error("rename onto", target, error);
  }
  if (how.on_step) how.on_step("rename");
  if (how.durable) fsync_directory(target.parent_path());
}

void write_file(const fs::path& path, std::string_view content, mode_t mode) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode));
  if (!fd) throw_file_error("open", path, errno);
  write_all(fd.get(), content, path);
  if (int error = fd.close(); error != 0) throw_file_error("close", path, error);
}

void write_new_file(const fs::path& path, std::string_view content, mode_t mode) {
  (void)::unlink(path.c_str());
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode));
  if (!fd) throw_file_error("create", path, errno);
  write_all(fd.get(), content, path);
  if (::fsync(fd.get()) != 0) throw_file_error("fsync", path, errno);
  if (int error = fd.close(); error != 0) throw_file_error("close", path, error);
}

void fsync_directory(const fs::path& dir) noexcept {
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd) (void)::fsync(fd.get());
}

}  // namespace mace::os
