#pragma once
// How much room a directory's file system has left, as an unprivileged writer sees it.

#include <cstdint>
#include <filesystem>
#include <optional>

namespace mace::os {

struct FreeSpace {
  std::filesystem::path measured_at;  // `dir`, or its nearest ancestor that exists
  std::uint64_t available_bytes = 0;  // what a process without root may still write
  std::uint64_t total_bytes = 0;
};

// statvfs(2) of `dir`, or of its nearest existing ancestor when it is not made yet (a model
// store's directory before its first model). nullopt when none can be asked.
std::optional<FreeSpace> free_space(const std::filesystem::path& dir);

}  // namespace mace::os
