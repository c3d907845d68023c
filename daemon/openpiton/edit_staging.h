#pragma once
// Where an rtl task's agent puts its edits before they count (REQ-EXEC-14): the rtl_edit
// tool's replacements are written to a staging directory, never to the checkout; when the
// agent is done the staged files become the task's edit set.

#include <filesystem>
#include <string>
#include <string_view>

#include "openpiton/edit_set.h"

namespace mace::openpiton {

// Relative to the checkout root.
inline constexpr std::string_view kStagingDir = "build/.mace_edit_staging";

// <checkout_root>/build/.mace_edit_staging
std::filesystem::path default_staging_dir(const std::filesystem::path& checkout_root);

// What the agent's replace tool does: reads the file's staged content (or the checkout's,
// when nothing is staged for it yet), applies `edit`, and writes the full result to
// <staging_dir>/<relative path>. Never writes the checkout. Returns the new content.
std::string stage_replacement(const std::filesystem::path& checkout_root,
                              const std::filesystem::path& staging_dir,
                              const TextReplacement& edit);

// What the agent's read tool should show: the staged content if any, else the checkout's.
std::string read_staged_or_checkout(const std::filesystem::path& checkout_root,
                                    const std::filesystem::path& staging_dir,
                                    std::string_view relative);

// The staged files as full-content edits, sorted by path. A staged file whose content equals
// the checkout's current file is left out: an agent that changed a file back recorded no
// edit there (REQ-EXEC-16). No staging dir: an empty set. Throws PathError if a staged path
// is not a design path.
EditSet load_staged_edits(const std::filesystem::path& checkout_root,
                          const std::filesystem::path& staging_dir);

// Removes the staging dir and everything in it (before a task's agent call).
void discard_staged_edits(const std::filesystem::path& staging_dir);

}  // namespace mace::openpiton
