#pragma once
// REQ-TOOL-8 as this version reads it. The spec pins the Python version's OpenPiton commit
// (1c6bfd2); this MACE was built and verified on commit 41a14a05 (the patch, the Generic
// Tile, the verdict lines, the shipped faults), so that is the commit a checkout is
// compared with. A checkout at another commit may work; maced says so when it starts,
// rather than refusing, and says when the Ariane submodule is not checked out, since an
// ariane run cannot build there.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace mace::openpiton {

inline constexpr std::string_view kVerifiedOpenPitonCommit = "41a14a05";

enum class PinDifference {
  other_commit,        // HEAD is not the verified commit
  commit_unreadable,   // git cannot tell which commit HEAD is
  no_ariane,           // the Ariane submodule is not checked out
};

struct PinNote {
  PinDifference difference;
  // What follows "checkout <path> ": "is at commit 1c6bfd2…, not 41a14a05, …", "its commit
  // cannot be read (…)", "has no Ariane submodule checked out (…): …". One line.
  std::string text;
};

// How the checkout at `root` differs from the one MACE was verified on. Empty when it does
// not. Never throws.
std::vector<PinNote> checkout_pin_notes(const std::filesystem::path& root);

}  // namespace mace::openpiton
