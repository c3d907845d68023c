#pragma once
// What the tests that let maced loose on a checkout look at afterwards: a file's bytes and
// git's view of the tree.

#include <fstream>
#include <sstream>
#include <string>

#include "support/child_process.h"

namespace mace::testing {

// The whole file; "" when it cannot be read.
inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// `git status --porcelain` of the checkout at `root`: "" when it is clean.
inline std::string git_status(const std::string& root) {
  return run_process({"git", "-C", root, "status", "--porcelain"}).out;
}

}  // namespace mace::testing
