#pragma once
// A private directory (mode 0700) for one piece of work, removed with everything in it
// when the owner goes: an LLM call's scratch files, a tool program's working directory.

#include <filesystem>
#include <string>
#include <string_view>

namespace mace::os {

class TempDir {
 public:
  // Creates <parent>/<prefix>XXXXXX. Throws std::system_error naming the parent.
  TempDir(const std::filesystem::path& parent, std::string_view prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Where temporary directories go by default: $TMPDIR when set, else /tmp.
std::filesystem::path default_temp_parent();

}  // namespace mace::os
