#pragma once
// The edits an rtl task's build carries (REQ-EXEC-14..16): the edits it starts from, and
// what its agent staged through the rtl_edit tool while those were applied, so the agent
// reads the design it is changing. The checkout is back as it was when this returns; the
// caller applies the result for the build.

#include <filesystem>
#include <string>

#include "executor/task_llm.h"
#include "openpiton/rtl_edits.h"

namespace mace::executor {

struct AgentEdits {
  openpiton::EditSet edits;      // the job's edits, then the agent's
  bool agent_recorded_no_edit = false;
  std::string agent_reply;       // its closing words
  double cost_usd = 0;
};

// Throws openpiton::EditError when the starting edits cannot be applied or restored.
AgentEdits rtl_agent_edits(int iteration, const loop::TaskJob& job, const RunSpec& spec,
                           const std::filesystem::path& checkout_root,
                           const openpiton::EditSet& starting_edits, const Agent& agent,
                           const std::string& core_brief = "");

// The loop's carried edits as the adapter's edit set, and back.
openpiton::EditSet to_edit_set(const loop::RtlEdits& edits);
loop::RtlEdits to_rtl_edits(const openpiton::EditSet& edits);

}  // namespace mace::executor
