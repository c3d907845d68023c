#include "real_checkout.h"

#include <cstdlib>
#include <filesystem>

namespace mace::testing {

std::optional<std::string> real_checkout_root() {
  const char* root = std::getenv("MACE_TEST_PITON_ROOT");
  if (root == nullptr || *root == '\0') return std::nullopt;
  std::string path = std::filesystem::absolute(root).lexically_normal().string();
  if (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

}  // namespace mace::testing
