#include "openpiton/checkout_pin.h"

#include <exception>

#include "openpiton/source_fingerprint.h"

namespace mace::openpiton {

std::vector<std::string> checkout_pin_notes(const std::filesystem::path& root) {
  std::vector<std::string> notes;
  try {
    const std::string head = head_commit_of(root);
    if (!head.starts_with(kVerifiedOpenPitonCommit))
      notes.push_back("is at commit " + head.substr(0, 12) + ", not " + std::string(kVerifiedOpenPitonCommit) +
                      ", the OpenPiton commit MACE was verified on; its builds may differ");
  } catch (const std::exception& e) {
    notes.push_back("its commit cannot be read (" + std::string(e.what()).substr(0, 300) + ")");
  }
  // A checked-out submodule has its .git (a file pointing into the superproject's).
  std::error_code ec;
  if (!std::filesystem::exists(root / kArianeSubmodulePath / ".git", ec))
    notes.push_back("has no Ariane submodule checked out (" + std::string(kArianeSubmodulePath) +
                    "): ariane runs cannot build on it; pico, sparc and generic runs can");
  return notes;
}

}  // namespace mace::openpiton
