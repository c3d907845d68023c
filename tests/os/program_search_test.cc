// os::find_program: the first absolute PATH directory holding an executable regular file.

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "os/program_search.h"
#include "os/temp_dir.h"

namespace mace::os {
namespace {

namespace fs = std::filesystem;

void write_program(const fs::path& path, mode_t mode) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << "#!/bin/sh\n";
  ::chmod(path.c_str(), mode);
}

TEST(ProgramSearchTest, FindsTheFirstExecutableInAnAbsoluteDirectory) {
  TempDir dir(fs::temp_directory_path(), "mace-program-search");
  const fs::path a = dir.path() / "a", b = dir.path() / "b", c = dir.path() / "c";
  write_program(a / "tool", 0644);          // not executable: passed over
  fs::create_directories(b / "tool");       // a directory: passed over
  write_program(c / "tool", 0755);
  write_program(dir.path() / "d" / "tool", 0755);
  const std::string path = "::relative:" + a.string() + ":" + b.string() + ":" + c.string() + ":" +
                           (dir.path() / "d").string();
  EXPECT_EQ(find_program("tool", path), c / "tool");
  EXPECT_EQ(find_program("missing", path), std::nullopt);
  EXPECT_EQ(find_program("c/tool", dir.path().string()), std::nullopt);  // a name, not a path
  EXPECT_EQ(find_program("", path), std::nullopt);
  EXPECT_EQ(find_program("tool", ""), std::nullopt);
}

TEST(ProgramSearchTest, ARelativeDirectoryIsNeverSearched) {
  TempDir dir(fs::temp_directory_path(), "mace-program-search");
  write_program(dir.path() / "tool", 0755);
  const fs::path previous = fs::current_path();
  fs::current_path(dir.path());
  EXPECT_EQ(find_program("tool", ".:"), std::nullopt);
  fs::current_path(previous);
}

}  // namespace
}  // namespace mace::os
