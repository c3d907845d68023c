#include "run/planner_task_llm.h"

#include "core/task_prompt.h"

namespace mace::run {

PlannerTaskLlm::PlannerTaskLlm(LlmPlanner& planner, RunReplay& replay, RunRecorder& recorder,
                               const RunSpec& spec)
    : planner_(planner), replay_(replay), recorder_(recorder), spec_(spec) {}

double PlannerTaskLlm::prompt(int iteration, const loop::TaskJob& job) {
  loop::PlannerReply reply = replay_.prompt(iteration, job.task.id, [&] {
    return planner_.task(iteration, job.task.id, task_prompt(spec_, job.task));
  });
  if (!reply.ok)  // REQ-EXEC-11
    recorder_.message(iteration, job.task.id,
                      "the prompt call of " + job.task.id + " failed (" + reply.error +
                          "); building it anyway");
  return reply.cost_usd;
}

loop::PlannerReply PlannerTaskLlm::agent(int iteration, const loop::TaskJob& job,
                                         const std::string& prompt,
                                         std::vector<llm::Tool> task_tools) {
  return planner_.agent(iteration, job.task.id, prompt, std::move(task_tools));
}

}  // namespace mace::run
