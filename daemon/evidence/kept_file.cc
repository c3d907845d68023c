#include "evidence/kept_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>

#include "evidence/evidence_layout.h"
#include "os/file_io.h"
#include "os/text.h"
#include "os/unique_fd.h"

namespace mace::evidence {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kCopyBlock = 1 << 20;
// How far from the cut a line break is looked for, so the head ends and the tail starts
// with whole lines; beyond it, one long line is cut where the limit falls.
constexpr std::size_t kLineSearch = 64 * 1024;
constexpr int kMaxNumbered = 1000;

std::string read_at(int fd, std::uint64_t offset, std::size_t size, const fs::path& path) {
  std::string data(size, '\0');
  std::size_t got = 0;
  while (got < size) {
    const ssize_t n = ::pread(fd, data.data() + got, size - got, static_cast<off_t>(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) os::throw_file_error("read", path, errno);
    if (n == 0) os::throw_file_error("read", path, EIO);  // shrank while being kept
    got += static_cast<std::size_t>(n);
  }
  return data;
}

// The head ends after the last line break in the kLineSearch bytes before `head`.
std::uint64_t head_at_line_end(int fd, std::uint64_t head, const fs::path& path) {
  const std::size_t span = static_cast<std::size_t>(std::min<std::uint64_t>(head, kLineSearch));
  const std::string block = read_at(fd, head - span, span, path);
  const auto nl = block.rfind('\n');
  return nl == std::string::npos ? head : head - span + nl + 1;
}

// The tail starts after the first line break in the kLineSearch bytes from `start`.
std::uint64_t tail_at_line_start(int fd, std::uint64_t start, std::uint64_t size, const fs::path& path) {
  const std::size_t span = static_cast<std::size_t>(std::min<std::uint64_t>(size - start, kLineSearch));
  const std::string block = read_at(fd, start, span, path);
  const auto nl = block.find('\n');
  return nl == std::string::npos || nl + 1 == block.size() ? start : start + nl + 1;
}

// Where the kept bytes go: plain, or compressed. Counts what it was given.
class CopySink {
 public:
  CopySink(int fd, fs::path path, bool compressed)
      : fd_(fd), path_(std::move(path)) {
    if (compressed) gzip_.emplace(fd, path_);
  }
  void write(std::string_view data) {
    if (gzip_) {
      gzip_->write(data);
      return;
    }
    while (!data.empty()) {
      const ssize_t n = ::write(fd_, data.data(), data.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) os::throw_file_error("write", path_, n < 0 ? errno : EIO);
      data.remove_prefix(static_cast<std::size_t>(n));
    }
  }
  void finish() {
    if (gzip_) gzip_->finish();
  }

 private:
  int fd_;
  fs::path path_;
  std::optional<ChunkedGzipWriter> gzip_;
};

void copy_range(int from, std::uint64_t offset, std::uint64_t size, CopySink& sink, const fs::path& path) {
  while (size > 0) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(size, kCopyBlock));
    sink.write(read_at(from, offset, n, path));
    offset += n;
    size -= n;
  }
}

// Links the complete temporary copy at the first free name of `target`'s, and returns it.
fs::path link_at_free_name(const fs::path& temp, const fs::path& target) {
  for (int n = 1; n <= kMaxNumbered; ++n) {
    const fs::path candidate = numbered_name(target, n);
    if (::link(temp.c_str(), candidate.c_str()) == 0) return candidate;
    if (errno != EEXIST) os::throw_file_error("create", candidate, errno);
  }
  os::throw_file_error("create", target, EEXIST);
}

}  // namespace

std::string cut_note(std::uint64_t original_bytes, std::uint64_t head_bytes, std::uint64_t tail_bytes,
                     std::uint64_t max_log_bytes) {
  return "[mace: " + std::to_string(original_bytes - head_bytes - tail_bytes) +
         " bytes cut here. The log was " + std::to_string(original_bytes) +
         " bytes; a run keeps at most " + std::to_string(max_log_bytes >> 20) +
         " MiB of each log (evidence.max_log_mb): its first " + std::to_string(head_bytes) +
         " and its last " + std::to_string(tail_bytes) + " bytes]\n";
}

KeptFile keep_copy(const fs::path& source, const fs::path& target, CopyRule rule, const KeepLimits& limits) {
  os::UniqueFd from(::open(source.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW));
  if (!from) os::throw_file_error("open", source, errno);
  struct stat st {};
  if (::fstat(from.get(), &st) != 0) os::throw_file_error("stat", source, errno);
  if (!S_ISREG(st.st_mode)) throw os::FileError(source.string() + " is not a regular file", EINVAL);

  KeptFile kept;
  kept.original_bytes = static_cast<std::uint64_t>(st.st_size);
  std::string note;
  if (rule.cut_to_log_limit && limits.max_log_bytes > 0 && kept.original_bytes > limits.max_log_bytes) {
    kept.head_bytes = head_at_line_end(from.get(), limits.max_log_bytes / 4, source);
    const std::uint64_t tail_start = tail_at_line_start(
        from.get(), kept.original_bytes - (limits.max_log_bytes - limits.max_log_bytes / 4),
        kept.original_bytes, source);
    kept.tail_bytes = kept.original_bytes - tail_start;
    note = cut_note(kept.original_bytes, kept.head_bytes, kept.tail_bytes, limits.max_log_bytes);
    if (kept.head_bytes > 0 && read_at(from.get(), kept.head_bytes - 1, 1, source) != "\n")
      note.insert(note.begin(), '\n');
  }
  const std::uint64_t copy_bytes =
      kept.cut() ? kept.head_bytes + note.size() + kept.tail_bytes : kept.original_bytes;
  kept.compressed = rule.compress_when_large && copy_bytes > limits.compress_above_bytes;
  const fs::path final_target = kept.compressed ? fs::path(target.string() + ".gz") : target;

  std::error_code ec;
  fs::create_directories(final_target.parent_path(), ec);
  if (ec) os::throw_file_error("create the directory", final_target.parent_path(), ec.value());
  std::string temp_name = (final_target.parent_path() / ("." + final_target.filename().string() + ".XXXXXX")).string();
  os::UniqueFd to(::mkostemp(temp_name.data(), O_CLOEXEC));
  if (!to) os::throw_file_error("create", temp_name, errno);
  const fs::path temp = temp_name;
  try {
    CopySink sink(to.get(), temp, kept.compressed);
    if (kept.cut()) {
      copy_range(from.get(), 0, kept.head_bytes, sink, source);
      sink.write(note);
      copy_range(from.get(), kept.original_bytes - kept.tail_bytes, kept.tail_bytes, sink, source);
    } else {
      copy_range(from.get(), 0, kept.original_bytes, sink, source);
    }
    sink.finish();
    if (::fchmod(to.get(), 0640) != 0) os::throw_file_error("chmod", temp, errno);
    if (::fsync(to.get()) != 0) os::throw_file_error("fsync", temp, errno);
    struct stat written {};
    if (::fstat(to.get(), &written) != 0) os::throw_file_error("stat", temp, errno);
    kept.stored_bytes = static_cast<std::uint64_t>(written.st_size);
    if (int error = to.close(); error != 0) os::throw_file_error("close", temp, error);
    kept.path = link_at_free_name(temp, final_target);
  } catch (...) {
    (void)::unlink(temp.c_str());
    throw;
  }
  (void)::unlink(temp.c_str());
  os::fsync_directory(kept.path.parent_path());
  return kept;
}

KeptFileReader::KeptFileReader(fs::path path, bool compressed) : path_(std::move(path)) {
  if (compressed) {
    compressed_.emplace(path_);
    return;
  }
  plain_size_ = os::read_file_range(path_, 0, 0).size;
}

std::uint64_t KeptFileReader::size() const { return compressed_ ? compressed_->size() : plain_size_; }

std::string KeptFileReader::read(std::uint64_t offset, std::size_t max_bytes) const {
  if (compressed_) return compressed_->read(offset, max_bytes);
  return os::read_file_range(path_, offset, max_bytes).data;
}

std::string KeptFileReader::tail(std::size_t max_lines, std::size_t max_bytes) const {
  if (!compressed_) return os::read_file_tail(path_, max_lines, max_bytes);
  const std::uint64_t size = compressed_->size();
  const std::uint64_t want = std::min<std::uint64_t>(size, max_bytes);
  const std::string end = compressed_->read(size - want, static_cast<std::size_t>(want));
  return std::string(os::last_lines(end, max_lines, want == size));
}

std::uint64_t kept_offset(const KeptFile& kept, std::uint64_t kept_size, std::uint64_t live_offset) {
  if (!kept.cut() || live_offset <= kept.head_bytes) return std::min(live_offset, kept_size);
  const std::uint64_t tail_start = kept.original_bytes - kept.tail_bytes;
  if (live_offset < tail_start) return kept.head_bytes;  // in what was cut: from the note on
  const std::uint64_t tail_in_copy = kept_size - kept.tail_bytes;
  return std::min(kept_size, tail_in_copy + (live_offset - tail_start));
}

}  // namespace mace::evidence
