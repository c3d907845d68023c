#include "openpiton/checkout_pin.h"

#include <exception>

#include "openpiton/source_fingerprint.h"

namespace mace::openpiton {

namespace {

// git's message on one line: a note is a line of maced's log and of `mace doctor`.
std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

}  // namespace

std::vector<PinNote> checkout_pin_notes(const std::filesystem::path& root) {
  std::vector<PinNote> notes;
  try {
    const std::string head = head_commit_of(root);
    if (!head.starts_with(kVerifiedOpenPitonCommit))
      notes.push_back({PinDifference::other_commit,
                       "is at commit " + head.substr(0, 12) + ", not " + std::string(kVerifiedOpenPitonCommit) +
                           ", the OpenPiton commit MACE was verified on; its builds may differ"});
  } catch (const std::exception& e) {
    notes.push_back({PinDifference::commit_unreadable,
                     "its commit cannot be read (" + one_line(std::string(e.what()).substr(0, 300)) + ")"});
  }
  // A checked-out submodule has its .git (a file pointing into the superproject's).
  std::error_code ec;
  if (!std::filesystem::exists(root / kArianeSubmodulePath / ".git", ec))
    notes.push_back({PinDifference::no_ariane,
                     "has no Ariane submodule checked out (" + std::string(kArianeSubmodulePath) +
                         "): ariane runs cannot build on it; pico, sparc and generic runs can"});
  return notes;
}

}  // namespace mace::openpiton
