#include "executor/rtl_task.h"

#include "core/agent_prompts.h"
#include "tools/rtl_edit_tool.h"

namespace mace::executor {

openpiton::EditSet to_edit_set(const loop::RtlEdits& edits) {
  openpiton::EditSet out;
  for (const auto& f : edits.files) out.edits.push_back(openpiton::FullContent{f.path, f.content});
  return out;
}

loop::RtlEdits to_rtl_edits(const openpiton::EditSet& edits) {
  loop::RtlEdits out;
  for (const auto& edit : edits.edits) {
    if (const auto* full = std::get_if<openpiton::FullContent>(&edit)) {
      out.files.push_back({full->path, full->content});
    } else {
      // The loop carries only full contents; a replacement is applied to what the file
      // holds at that point of the set.
      throw openpiton::EditError("a text replacement cannot be carried: " +
                                 openpiton::edit_path(edit));
    }
  }
  return out;
}

AgentEdits rtl_agent_edits(int iteration, const loop::TaskJob& job, const RunSpec& spec,
                           const std::filesystem::path& root,
                           const openpiton::EditSet& starting_edits, const Agent& agent,
                           const std::string& core_brief) {
  AgentEdits out;
  out.edits = starting_edits;
  if (!agent) {
    out.agent_recorded_no_edit = true;
    out.agent_reply = "no agent: the run's planner has no LLM";
    return out;
  }
  const auto staging = openpiton::default_staging_dir(root);
  openpiton::discard_staged_edits(staging);  // a dead task's staging is not ours
  tools::StagedRtlEdits staged;
  {
    openpiton::AppliedEdits base = openpiton::apply_edits(root, starting_edits);
    llm::Tool tool = tools::make_rtl_edit_tool(root, staging);
    std::vector<std::string> edited;
    for (const auto& f : openpiton::edited_files(starting_edits)) edited.push_back(f);
    loop::PlannerReply reply =
        agent(iteration, job, rtl_prompt(spec, job.task, edited, tool.name, core_brief), {tool});
    out.agent_reply = reply.ok ? reply.text : "the agent call failed: " + reply.error;
    out.cost_usd = reply.cost_usd;
    // Staged contents are compared with the files as the agent saw them, so collect
    // before the starting edits come out again.
    staged = tools::collect_staged_rtl_edits(root, staging);
    if (auto report = base.restore(); !report.ok())
      throw openpiton::EditError("restoring the starting edits: " + report.errors.front());
  }
  openpiton::discard_staged_edits(staging);
  if (!staged.recorded()) {
    out.agent_recorded_no_edit = true;  // REQ-EXEC-16: it still builds and runs
  } else {
    out.edits.append(staged.edits);
  }
  return out;
}

}  // namespace mace::executor
