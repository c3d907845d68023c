#include "evidence/chunked_gzip.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>

#include "os/file_io.h"
#include "os/unique_fd.h"

namespace mace::evidence {
namespace {

namespace fs = std::filesystem;

// The fixed part of every member's header: magic, deflate, FEXTRA, no time, unknown OS,
// XLEN 12, then subfield "MC" of 8 bytes (member length, log bytes; little-endian).
constexpr std::size_t kHeaderBytes = 10 + 2 + 4 + 8;
constexpr std::size_t kTrailerBytes = 8;  // CRC-32, ISIZE
constexpr std::array<unsigned char, 16> kHeaderStart = {0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff,
                                                        12,   0,    'M', 'C', 8, 0};

void put_le32(unsigned char* at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) at[i] = static_cast<unsigned char>(v >> (8 * i));
}

std::uint32_t get_le32(const unsigned char* at) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | at[i];
  return v;
}

void write_all(int fd, const void* data, std::size_t size, const fs::path& path) {
  const auto* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) os::throw_file_error("write", path, n < 0 ? errno : EIO);
    p += n;
    size -= static_cast<std::size_t>(n);
  }
}

bool read_exactly(int fd, std::uint64_t offset, void* out, std::size_t size) {
  auto* p = static_cast<char*>(out);
  std::size_t got = 0;
  while (got < size) {
    const ssize_t n = ::pread(fd, p + got, size - got, static_cast<off_t>(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    got += static_cast<std::size_t>(n);
  }
  return true;
}

[[noreturn]] void damaged(const fs::path& path, const std::string& why) {
  throw os::FileError("cannot read the kept log " + path.string() + ": " + why, EINVAL);
}

os::UniqueFd open_for_reading(const fs::path& path) {
  os::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd) os::throw_file_error("open", path, errno);
  return fd;
}

}  // namespace

ChunkedGzipWriter::ChunkedGzipWriter(int fd, fs::path path) : fd_(fd), path_(std::move(path)) {}

void ChunkedGzipWriter::write(std::string_view data) {
  while (!data.empty()) {
    const std::size_t take = std::min(data.size(), kGzipChunkBytes - pending_.size());
    pending_.append(data.substr(0, take));
    data.remove_prefix(take);
    if (pending_.size() == kGzipChunkBytes) {
      emit(pending_);
      pending_.clear();
    }
  }
}

void ChunkedGzipWriter::finish() {
  if (!pending_.empty() || !any_member_) emit(pending_);
  pending_.clear();
}

void ChunkedGzipWriter::emit(std::string_view chunk) {
  z_stream z{};
  // Raw deflate (negative window bits): the gzip header and trailer are ours. Level 1: a
  // log compresses well at any level, and a large one is kept while its task waits.
  if (deflateInit2(&z, 1, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    os::throw_file_error("compress into", path_, ENOMEM);
  std::string out(kHeaderBytes + deflateBound(&z, chunk.size()) + kTrailerBytes, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(chunk.data()));
  z.avail_in = static_cast<uInt>(chunk.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data() + kHeaderBytes);
  z.avail_out = static_cast<uInt>(out.size() - kHeaderBytes - kTrailerBytes);
  const int status = deflate(&z, Z_FINISH);
  const std::size_t deflated = z.total_out;
  deflateEnd(&z);
  if (status != Z_STREAM_END) os::throw_file_error("compress into", path_, EIO);

  const std::size_t member = kHeaderBytes + deflated + kTrailerBytes;
  auto* bytes = reinterpret_cast<unsigned char*>(out.data());
  std::copy(kHeaderStart.begin(), kHeaderStart.end(), bytes);
  put_le32(bytes + 16, static_cast<std::uint32_t>(member));
  put_le32(bytes + 20, static_cast<std::uint32_t>(chunk.size()));
  const auto crc = crc32(0L, reinterpret_cast<const Bytef*>(chunk.data()), static_cast<uInt>(chunk.size()));
  put_le32(bytes + kHeaderBytes + deflated, static_cast<std::uint32_t>(crc));
  put_le32(bytes + kHeaderBytes + deflated + 4, static_cast<std::uint32_t>(chunk.size()));
  write_all(fd_, out.data(), member, path_);
  written_ += member;
  any_member_ = true;
}

ChunkedGzipReader::ChunkedGzipReader(const fs::path& path) : path_(path) {
  os::UniqueFd fd = open_for_reading(path);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) os::throw_file_error("stat", path, errno);
  if (!S_ISREG(st.st_mode)) os::throw_file_error("read", path, EINVAL);
  const auto file_size = static_cast<std::uint64_t>(st.st_size);
  std::uint64_t at = 0;
  while (at < file_size) {
    std::array<unsigned char, kHeaderBytes> header{};
    if (!read_exactly(fd.get(), at, header.data(), header.size()))
      damaged(path, "a member header is cut short at byte " + std::to_string(at));
    if (!std::equal(kHeaderStart.begin(), kHeaderStart.end(), header.begin()))
      damaged(path, "no MACE member header at byte " + std::to_string(at));
    Member m{at, get_le32(header.data() + 16), size_, get_le32(header.data() + 20)};
    if (m.member_bytes < kHeaderBytes + kTrailerBytes || m.member_bytes > file_size - at ||
        m.log_bytes > kGzipChunkBytes)
      damaged(path, "the member at byte " + std::to_string(at) + " claims impossible sizes");
    members_.push_back(m);
    size_ += m.log_bytes;
    at += m.member_bytes;
  }
  if (members_.empty()) damaged(path, "it is empty");
}

std::string ChunkedGzipReader::inflate_member(const Member& m) const {
  os::UniqueFd fd = open_for_reading(path_);
  std::string compressed(m.member_bytes, '\0');
  if (!read_exactly(fd.get(), m.file_offset, compressed.data(), compressed.size()))
    damaged(path_, "the member at byte " + std::to_string(m.file_offset) + " is cut short");
  std::string out(m.log_bytes, '\0');
  z_stream z{};
  if (inflateInit2(&z, -15) != Z_OK) damaged(path_, "zlib could not start");
  z.next_in = reinterpret_cast<Bytef*>(compressed.data() + kHeaderBytes);
  z.avail_in = static_cast<uInt>(compressed.size() - kHeaderBytes - kTrailerBytes);
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  // An empty member inflates to nothing: zlib still wants room to say so.
  char spare = 0;
  if (out.empty()) {
    z.next_out = reinterpret_cast<Bytef*>(&spare);
    z.avail_out = 1;
  }
  const int status = inflate(&z, Z_FINISH);
  const std::size_t produced = z.total_out;
  inflateEnd(&z);
  const auto* trailer =
      reinterpret_cast<const unsigned char*>(compressed.data() + compressed.size() - kTrailerBytes);
  const auto crc = crc32(0L, reinterpret_cast<const Bytef*>(out.data()), static_cast<uInt>(out.size()));
  if (status != Z_STREAM_END || produced != m.log_bytes || get_le32(trailer) != crc ||
      get_le32(trailer + 4) != m.log_bytes)
    damaged(path_, "the member at byte " + std::to_string(m.file_offset) + " does not inflate to what it says");
  return out;
}

std::string ChunkedGzipReader::read(std::uint64_t offset, std::size_t max_bytes) const {
  std::string out;
  if (offset >= size_ || max_bytes == 0) return out;
  // The first member whose end lies past the offset.
  auto it = std::upper_bound(members_.begin(), members_.end(), offset,
                             [](std::uint64_t o, const Member& m) { return o < m.log_offset + m.log_bytes; });
  for (; it != members_.end() && out.size() < max_bytes; ++it) {
    if (it->log_bytes == 0) continue;
    const std::string data = inflate_member(*it);
    const std::size_t from = offset > it->log_offset ? static_cast<std::size_t>(offset - it->log_offset) : 0;
    out.append(data, from, std::min(data.size() - from, max_bytes - out.size()));
  }
  return out;
}

}  // namespace mace::evidence
