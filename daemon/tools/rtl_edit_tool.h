#pragma once
// The tool an rtl task's agent edits the design with (REQ-EXEC-14): list, read and search
// files under piton/design/, and record text replacements in them.
//
// The agent never writes the checkout. A replacement goes to the staging directory
// (openpiton::stage_replacement), and what the agent staged is applied by the executor for
// the build and taken out again afterwards (REQ-EXEC-15). So a task that is killed
// mid-session leaves the checkout as it was, and the testbench and monitors under
// piton/verif/ can never change: every path goes through openpiton::resolve_design_path,
// directories through the same rule (inside piton/design/ once every symlink is resolved).
//
// The executor clears the staging directory (openpiton::discard_staged_edits) before the
// agent call; the tool itself never does, so a tool made again for the same task sees what
// the agent already changed.

#include <filesystem>
#include <string>
#include <vector>

#include "llm/llm.h"
#include "openpiton/rtl_edits.h"

namespace mace::tools {

// Caps that keep a reply within what a model reads usefully; each reply says when it was
// cut and how to ask for the rest.
inline constexpr size_t kRtlListMaxEntries = 500;
inline constexpr size_t kRtlReadMaxBytes = 64 * 1024;
inline constexpr size_t kRtlSearchMaxMatches = 200;

// The tool "rtl_edit", methods list, read, search and replace. Paths are relative to the
// checkout root and must name something inside piton/design/. An empty `staging_dir` means
// openpiton::default_staging_dir(checkout_root). call() never throws: a refused or failed
// request is a result with ok=false whose content names the path or argument and the reason.
llm::Tool make_rtl_edit_tool(const std::filesystem::path& checkout_root,
                             std::filesystem::path staging_dir = {});

// What the agent recorded, for the task's result (REQ-EXEC-16: `edits` empty means it
// recorded none, and the design is built as it stands).
struct StagedRtlEdits {
  openpiton::EditSet edits;          // full new contents, sorted by path
  std::vector<std::string> files;    // openpiton::edited_files(edits)
  std::string diff;                  // against the checkout as it is now
  bool recorded() const { return !edits.empty(); }
};

// Reads the staging directory (empty: the default one). The diff is taken against the
// checkout's current content, so call this before the edits are applied to it. Throws
// openpiton::EditError (or PathError) when the staging directory cannot be read or names a
// path outside the design.
StagedRtlEdits collect_staged_rtl_edits(const std::filesystem::path& checkout_root,
                                        std::filesystem::path staging_dir = {});

}  // namespace mace::tools
