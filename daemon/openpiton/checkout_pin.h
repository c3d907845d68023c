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

// How the checkout at `root` differs from the one MACE was verified on: its HEAD is another
// commit (or git cannot tell which), its Ariane submodule is not checked out. Empty when
// neither. Never throws.
std::vector<std::string> checkout_pin_notes(const std::filesystem::path& root);

}  // namespace mace::openpiton
