#pragma once
// Reading and writing whole files the way MACE needs them everywhere: errors that name the
// file and the reason, sizes bounded where the file comes from someone else, writes that a
// crash or a concurrent reader never sees half done.
//
// Errors: FileError (a std::runtime_error) whose what() reads "cannot open /x/y: No such
// file or directory"; functions that may meet a missing file on purpose say so in their
// name (read_file_if_exists) or their result.

#include <sys/stat.h>
#include <sys/types.h>

#include <cstdint>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "os/unique_fd.h"

namespace mace::os {

class FileError : public std::runtime_error {
 public:
  FileError(const std::string& what, int error) : std::runtime_error(what), error_(error) {}
  // The errno behind it (EFBIG for a file over a size limit, EISDIR/EINVAL for one that is
  // not a regular file).
  int error() const noexcept { return error_; }

 private:
  int error_;
};

// "cannot <what> <path>: <errno text>", thrown as FileError.
[[noreturn]] void throw_file_error(std::string_view what, const std::filesystem::path& path,
                                   int error);

// Permission bits and owner of a file, to give a rewritten file the same ones.
struct FileMeta {
  mode_t mode = 0644;
  uid_t uid = 0;
  gid_t gid = 0;
};

inline constexpr std::size_t kNoSizeLimit = std::numeric_limits<std::size_t>::max();

// The whole content of a regular file (a directory, a FIFO or a device is refused rather
// than blocked on). Throws FileError; also when the file holds more than `max_bytes`.
// `meta`, when given, receives the file's mode and owner.
std::string read_file(const std::filesystem::path& path, std::size_t max_bytes = kNoSizeLimit,
                      FileMeta* meta = nullptr);
// As read_file, but nullopt when the file does not exist (ENOENT); other errors throw.
std::optional<std::string> read_file_if_exists(const std::filesystem::path& path,
                                               std::size_t max_bytes = kNoSizeLimit,
                                               FileMeta* meta = nullptr);
// As read_file, but nullopt when the file cannot be read for any reason: for files whose
// absence or damage the caller handles the same way (a default, a message of its own).
std::optional<std::string> try_read_file(const std::filesystem::path& path,
                                         std::size_t max_bytes = kNoSizeLimit);

// Opens a regular file for reading and fills `st` (fstat): a symbolic link as the last
// component is refused (O_NOFOLLOW), as is a directory, FIFO or device (FileError, EISDIR or
// EINVAL), and a FIFO cannot block the open (O_NONBLOCK).
UniqueFd open_regular_file(const std::filesystem::path& path, struct stat& st);

// The last `max_lines` lines of a file, read backwards from its end in blocks, never more
// than `max_bytes` of it (so a multi-gigabyte transcript, or one huge line, costs
// max_bytes). Lines keep their '\n' separators; a line cut by max_bytes is dropped unless
// it is the only one. Empty for a missing or unreadable file: what callers show is a
// courtesy, never the reason something fails.
std::string read_file_tail(const std::filesystem::path& path, std::size_t max_lines,
                           std::size_t max_bytes);
// read_file_tail with no limit on lines: the whole lines in the last `max_bytes` of it.
std::string read_file_end(const std::filesystem::path& path, std::size_t max_bytes);
// Up to `max_bytes` of a regular file from `offset`, and the file's size when read: a
// piece of a file that may be gigabytes and may still be growing. A symbolic link as the
// last component is refused (O_NOFOLLOW), as is anything but a regular file; throws
// FileError. An offset at or past the end gives no data.
struct FileRange {
  std::string data;
  std::uint64_t size = 0;
};
FileRange read_file_range(const std::filesystem::path& path, std::uint64_t offset,
                          std::size_t max_bytes);

// The first line of a file without its line end, at most `max_bytes`; empty when unreadable.
std::string read_first_line(const std::filesystem::path& path, std::size_t max_bytes = 4096);

// How write_file_atomically writes.
struct AtomicWrite {
  // The new file's mode and owner (the owner only when we may set it); unset: 0644, ours.
  std::optional<FileMeta> meta;
  // fsync the file before the rename and its directory after: the new content survives a
  // power cut. Off for scratch files that are rebuilt anyway.
  bool durable = true;
  // The temporary file beside the target; empty: ".<name>.tmp" in the target's directory.
  // A caller that cleans up after a crash names it, so it knows what to remove.
  std::filesystem::path temp_path = {};
  // Told "temp" once the temporary is complete and "rename" once it replaced the target:
  // crash tests stop the process there.
  std::function<void(std::string_view step)> on_step = {};
};

// Replaces `target` with `content` through a temporary file and rename(2), so a reader or
// a crash sees the old file or the new one, never half of either. Throws FileError; the
// temporary file is removed on failure.
void write_file_atomically(const std::filesystem::path& target, std::string_view content,
                           const AtomicWrite& how = {});

// Writes `content` into `path` in place (created with `mode` if missing, truncated
// otherwise; the inode, its mode and its owner stay). Readers may see it half written: for
// files only we read, or only after we are done. Throws FileError.
void write_file(const std::filesystem::path& path, std::string_view content, mode_t mode = 0644);

// Creates `path` (replacing any file there) with `content` and `mode`, and fsyncs it. Not
// atomic: for files that count only once something else (a manifest) names them.
void write_new_file(const std::filesystem::path& path, std::string_view content, mode_t mode);

// fsync(2) of a directory, so a rename or unlink in it survives a power cut. Best effort:
// some file systems refuse it, and only durability depends on it.
void fsync_directory(const std::filesystem::path& dir) noexcept;

}  // namespace mace::os
