#pragma once
// SHA-256 (FIPS 180-4), self-contained so the base layer (and with it the OpenPiton adapter,
// REQ-PLAT-9) needs no crypto library. Build IDs, source fingerprints, RTL-edit hashes and
// workload checksums all use it, so its output must never change: tests pin known digests.

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace mace::os {

class Sha256 {
 public:
  using Digest = std::array<std::uint8_t, 32>;

  Sha256();
  void update(const void* data, std::size_t size);
  void update(std::string_view text) { update(text.data(), text.size()); }
  // Ends the message; the object must not be updated or finished again afterwards.
  Digest finish();
  // finish(), as 64 lowercase hex digits.
  std::string finish_hex();

 private:
  void compress(const std::uint8_t* block);

  std::array<std::uint32_t, 8> state_;
  std::array<std::uint8_t, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t total_bytes_ = 0;
};

std::string to_hex(const Sha256::Digest& digest);
// The hex digest of `text`.
std::string sha256_hex(std::string_view text);
// The hex digest of a regular file's content, read in blocks so a large file costs no more
// memory than a small one. A symbolic link as the last component is refused (O_NOFOLLOW),
// as is anything but a regular file; errors throw FileError (os/file_io.h) with the errno.
std::string sha256_file_hex(const std::filesystem::path& path);

}  // namespace mace::os
