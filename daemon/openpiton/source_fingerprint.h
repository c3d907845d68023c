#pragma once
// The source fingerprint of a checkout (REQ-VER-12): a SHA-256 over everything outside a
// build configuration that decides what a build makes. A model built earlier is reused only
// while the fingerprint is unchanged. It covers:
//   - the HEAD commit;
//   - every tracked file whose working-tree content differs from HEAD, by content;
//   - every untracked, non-ignored file, by name and content;
//   - the Ariane submodule's checked-out commit ("absent" when it is not checked out), and
//     the changed files inside any submodule git reports as modified;
//   - the Verilator version string.
// Files git ignores (build/, the *.tmp.v files a build writes) do not count, so a build
// does not change the fingerprint it was started with.
//
// Cost: one `git status --porcelain=v2 -z --branch --no-ahead-behind --untracked-files=all`
// (its header carries the HEAD commit), plus `git rev-parse HEAD` in a checked-out Ariane
// submodule (and a status inside any submodule git reports dirty), plus reading the files
// that status names. The rest of the tree is never read, so on a checkout with few changes
// this costs about what `git status` does (bench/fingerprint.sh). Git runs with
// GIT_OPTIONAL_LOCKS=0, so it never takes the index lock that a concurrent build or edit
// might want, with an explicit environment, and without the daemon user's global excludes.
//
// git's standard error shares the pipe with its output: a warning git prints while
// succeeding makes the output unparseable, and then the fingerprint fails (no reuse)
// rather than guess.

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "openpiton/checkout.h"
#include "os/process_group.h"

namespace mace::openpiton {

inline constexpr std::string_view kArianeSubmodulePath = "piton/design/chip/tile/ariane";

struct SourceFingerprint {
  std::string digest;  // 64 hex digits: SHA-256 of text()

  // The parts, for people working out why a model was rebuilt.
  std::string head;                  // commit id; "none" before the first commit
  std::vector<std::string> changes;  // sorted; one per changed path, see text()
  std::string ariane_submodule;      // checked-out commit, or "absent"
  std::string verilator_version;

  // The canonical text the digest hashes: a header, then "head=", "ariane=", "verilator="
  // and one "change=<kind>\t<path>\t<content sha-256 or deleted>" line per change.
  std::string text() const;
  bool operator==(const SourceFingerprint&) const = default;
};

// Fingerprints the git work tree that holds `root` (normally `root` is its top). Throws
// std::runtime_error, quoting git, when `root` is not in a git work tree, git fails or is
// cancelled through `cancel`, or its output cannot be parsed: a fingerprint that might be
// wrong is never returned.
SourceFingerprint source_fingerprint(const std::filesystem::path& root,
                                     std::string_view verilator_version,
                                     const os::CancelToken* cancel = nullptr);

// The full id of the commit checked out in the git work tree at `root` (`git rev-parse
// HEAD`, run as the fingerprint runs git). Throws std::runtime_error, quoting git, when
// there is none.
std::string head_commit_of(const std::filesystem::path& root, const os::CancelToken* cancel = nullptr);

inline SourceFingerprint source_fingerprint(const Checkout& checkout,
                                            std::string_view verilator_version,
                                            const os::CancelToken* cancel = nullptr) {
  return source_fingerprint(checkout.root(), verilator_version, cancel);
}

}  // namespace mace::openpiton
