#pragma once
// One file copied into a run's evidence, and reading it back. A log larger than the
// per-log limit keeps its head (a quarter of the limit) and its tail (the rest), each cut
// at a line break when one is near, with a line between them saying what was cut; a copy
// larger than the compression threshold is written compressed (chunked_gzip.h). The copy
// is written beside its place and linked into it only when complete, so a reader never
// sees half of one, and an existing file is never replaced.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "evidence/chunked_gzip.h"

namespace mace::evidence {

struct KeepLimits {
  // At most this many bytes of a log are kept (its head and tail); 0: no limit.
  std::uint64_t max_log_bytes = 64ull << 20;
  // Copies holding more than this are compressed.
  std::uint64_t compress_above_bytes = 256u << 10;
};

struct KeptFile {
  std::filesystem::path path;  // where the copy is
  std::uint64_t original_bytes = 0;
  std::uint64_t stored_bytes = 0;  // on disk
  // When cut: the first and last bytes of the original that were kept; both 0: all of it.
  std::uint64_t head_bytes = 0;
  std::uint64_t tail_bytes = 0;
  bool compressed = false;
  bool cut() const { return head_bytes + tail_bytes > 0; }
};

// Copies the regular file `source` (a symbolic link is refused) to `target` (`target.gz`
// when compressed; the next free numbered name when taken, layout's numbered_name),
// creating its directories. `rule` says whether the per-log limit applies and whether a
// large copy is compressed. Throws os::FileError naming the file and the reason; nothing is
// left behind then.
struct CopyRule {
  bool cut_to_log_limit = true;
  bool compress_when_large = true;
};
KeptFile keep_copy(const std::filesystem::path& source, const std::filesystem::path& target,
                   CopyRule rule, const KeepLimits& limits);

// The line a cut log holds between its head and tail.
std::string cut_note(std::uint64_t original_bytes, std::uint64_t head_bytes,
                     std::uint64_t tail_bytes, std::uint64_t max_log_bytes);

// A kept file read back: plain or compressed alike, by offset or from its end.
class KeptFileReader {
 public:
  // Throws os::FileError when the file cannot be opened or is not what it should be.
  KeptFileReader(std::filesystem::path path, bool compressed);

  std::uint64_t size() const;  // what reading it gives, uncompressed
  std::string read(std::uint64_t offset, std::size_t max_bytes) const;
  // Its last `max_lines` lines, no more than its last `max_bytes` (os::read_file_tail).
  std::string tail(std::size_t max_lines, std::size_t max_bytes) const;

 private:
  std::filesystem::path path_;
  std::uint64_t plain_size_ = 0;
  std::optional<ChunkedGzipReader> compressed_;
};

// Where a reader that had reached `live_offset` of the original, while it was still being
// written, goes on in the kept copy: the same place in its head or tail, or the note when
// it was in the part that was cut.
std::uint64_t kept_offset(const KeptFile& kept, std::uint64_t kept_size, std::uint64_t live_offset);

}  // namespace mace::evidence
