#pragma once
// Which files of a checkout an agent's RTL edits may touch (REQ-EXEC-14): regular files
// under piton/design/, judged after every symlink is resolved. The testbench and monitors
// under piton/verif/ must stay as they are, or an agent could make any design "pass".

#include <filesystem>
#include <string>
#include <string_view>

namespace mace::openpiton {

// The only part of the checkout an agent may change.
inline constexpr std::string_view kDesignDir = "piton/design";

struct DesignPath {
  // Every symlink resolved; inside <canonical root>/piton/design/.
  std::filesystem::path absolute;
  // `absolute` relative to the canonical checkout root, '/'-separated
  // ("piton/design/chip/tile/rtl/tile.v"): the name an edit goes by everywhere else.
  std::string relative;
  bool exists = false;
};

// Accepts `relative` only if, after resolving every symlink of every existing component, it
// names a file (existing or not) inside <checkout_root>/piton/design/. Refuses: empty paths,
// NUL bytes, absolute paths, any `..` component, paths outside piton/design/, symlinks that
// lead out (also dangling ones, whose target a write would create), a piton/design that is
// itself a symlink, directories and other non-regular files. Throws PathError.
DesignPath resolve_design_path(const std::filesystem::path& checkout_root,
                               std::string_view relative);

// The checkout root with every symlink resolved. Throws EditError naming it.
std::filesystem::path canonical_checkout_root(const std::filesystem::path& checkout_root);

// `path` with empty and "." components dropped ("a//./b" → "a/b"); ".." is kept as it is.
// How edits name their files in hashes and lists.
std::string lexically_normal(std::string_view path);

}  // namespace mace::openpiton
