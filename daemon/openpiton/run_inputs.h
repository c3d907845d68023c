#pragma once
// What a simulation's run directory holds before sims starts (the program MACE compiled, its
// start-up wrapper, the event file that wakes a mesh's tiles): read then, so that a
// simulation that fails can be reproduced after its run directory is gone. Bounded: a
// reproduction embeds them in one script.

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace mace::openpiton {

struct RunInputFile {
  std::string path;     // relative to the run directory
  std::string content;
};

struct RunInputs {
  std::vector<RunInputFile> files;  // sorted by path
  // Why some or all are missing (too large, unreadable, a link); "" when `files` is all.
  std::string note;
};

inline constexpr std::size_t kMaxRunInputBytes = 1024 * 1024;
inline constexpr std::size_t kMaxRunInputFiles = 256;

// The regular files under `dir`, at most kMaxRunInputFiles of kMaxRunInputBytes in all:
// beyond either, none (a reproduction without all of them would not reproduce), with the
// note saying why. Symbolic links are not followed; each is named in the note.
RunInputs read_run_inputs(const std::filesystem::path& dir);

}  // namespace mace::openpiton
