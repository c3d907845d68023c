#pragma once
// The tasks' LLM calls of a run planned by an LLM backend: a config or workload task's
// prompt call goes through the replay cache (function "prompt") and its failure is logged,
// never fatal (REQ-EXEC-10, 11); an rtl or unit_test task's agent call is the planner's.

#include "core/run_spec.h"
#include "executor/task_llm.h"
#include "run/llm_planner.h"
#include "run/run_recorder.h"
#include "run/run_replay.h"

namespace mace::run {

class PlannerTaskLlm final : public executor::TaskLlm {
 public:
  PlannerTaskLlm(LlmPlanner& planner, RunReplay& replay, RunRecorder& recorder, const RunSpec& spec);

  double prompt(int iteration, const loop::TaskJob& job) override;
  loop::PlannerReply agent(int iteration, const loop::TaskJob& job, const std::string& prompt,
                           std::vector<llm::Tool> task_tools) override;

 private:
  LlmPlanner& planner_;
  RunReplay& replay_;
  RunRecorder& recorder_;
  const RunSpec& spec_;
};

}  // namespace mace::run
