#pragma once
// A kept log compressed so that any piece of it can be read without inflating everything
// before it: a gzip file made of independent members (RFC 1952 allows members one after
// another), each holding at most kGzipChunkBytes of the log, and each header carrying, in
// an extra field gzip readers skip (subfield "MC"), the member's own length and how many
// bytes of the log it holds. `zcat`, `zless` and `gzip -d` read it as any gzip file; MACE
// walks the headers (a few bytes each) to the member that holds an offset and inflates
// that one alone, so serving a MiB of a kept log costs about a MiB whatever its size.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace mace::evidence {

inline constexpr std::size_t kGzipChunkBytes = 1 << 20;

// Compresses what it is given into `fd` (which it does not own), a member per
// kGzipChunkBytes. Throws os::FileError naming `path` when a write fails.
class ChunkedGzipWriter {
 public:
  ChunkedGzipWriter(int fd, std::filesystem::path path);
  void write(std::string_view data);
  // Writes the last member (also the only one of an empty log: a valid gzip file).
  void finish();
  std::uint64_t written_bytes() const { return written_; }

 private:
  void emit(std::string_view chunk);

  int fd_;
  std::filesystem::path path_;
  std::string pending_;
  std::uint64_t written_ = 0;
  bool any_member_ = false;
};

// Reads pieces of a file ChunkedGzipWriter wrote. Opening walks the member headers;
// anything that is not such a file (another gzip file, a damaged or cut one) throws
// os::FileError naming the path, as does a member whose data does not match its CRC.
class ChunkedGzipReader {
 public:
  explicit ChunkedGzipReader(const std::filesystem::path& path);

  // The uncompressed size.
  std::uint64_t size() const { return size_; }
  // Up to `max_bytes` from `offset` of the uncompressed log; empty at or past its end.
  std::string read(std::uint64_t offset, std::size_t max_bytes) const;

 private:
  struct Member {
    std::uint64_t file_offset = 0;  // of its header
    std::uint32_t member_bytes = 0;
    std::uint64_t log_offset = 0;   // of its first byte in the log
    std::uint32_t log_bytes = 0;
  };
  std::string inflate_member(const Member& member) const;

  std::filesystem::path path_;
  std::vector<Member> members_;
  std::uint64_t size_ = 0;
};

}  // namespace mace::evidence
