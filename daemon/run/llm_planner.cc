#include "run/llm_planner.h"

#include <chrono>

#include "service/clock.h"

namespace mace::run {

LlmPlanner::LlmPlanner(Parts parts, RunRecorder& recorder, const os::CancelToken& cancel)
    : parts_(std::move(parts)), recorder_(recorder), cancel_(cancel) {}

loop::PlannerReply LlmPlanner::plan(const std::string& prompt) {
  return ask("planning", prompt, "", parts_.iteration(), parts_.run_tools);
}

loop::PlannerReply LlmPlanner::triage(loop::TriagePhase phase,
                                      const std::function<std::string(bool)>& prompt,
                                      const loop::TaskOutcome* failed) {
  std::vector<llm::Tool> tools = parts_.run_tools;
  // REQ-FAIL-5, REQ-FAIL-7: the diagnostic tools when they can start, else none.
  std::optional<llm::Tool> diagnostics =
      parts_.diagnostic_tool ? parts_.diagnostic_tool(failed) : std::nullopt;
  if (diagnostics) tools.push_back(std::move(*diagnostics));
  return ask(phase == loop::TriagePhase::diagnosis ? "diagnosis" : "post_mortem",
             prompt(diagnostics.has_value()), failed ? failed->task_id : "", parts_.iteration(),
             tools);
}

loop::PlannerReply LlmPlanner::task(int iteration, const std::string& task_id,
                                    const std::string& prompt) {
  return ask("task", prompt, task_id, iteration, parts_.run_tools);
}

loop::PlannerReply LlmPlanner::agent(int iteration, const std::string& task_id,
                                     const std::string& prompt, std::vector<llm::Tool> task_tools) {
  std::vector<llm::Tool> tools = parts_.run_tools;
  for (auto& tool : task_tools) tools.push_back(std::move(tool));
  return ask("task", prompt, task_id, iteration, tools);
}

loop::PlannerReply LlmPlanner::ask(const std::string& phase, const std::string& prompt,
                                   const std::string& task_id, int iteration,
                                   const std::vector<llm::Tool>& tools) {
  llm::Request request;
  request.phase = phase;
  request.prompt = prompt;
  request.tools = tools;
  llm::Reply reply = llm::call_with_retries(
      *parts_.backend, request, parts_.retry,
      // A cancel must not wait out a rate limit.
      [this](std::chrono::seconds wait) { cancel_.wait_for(wait); },
      [&](const llm::Reply& attempt, int) { record(phase, task_id, iteration, prompt, attempt); });
  return {reply.ok, reply.text, reply.usage.cost_usd, reply.error};
}

void LlmPlanner::record(const std::string& phase, const std::string& task_id, int iteration,
                        const std::string& prompt, const llm::Reply& reply) {
  store::LlmCallRecord call;
  call.run_id = recorder_.run_id();
  call.iteration = iteration;
  call.phase = phase;
  call.task_id = task_id;
  call.backend = parts_.backend->name();
  call.model = parts_.backend->model();
  call.input_tokens = reply.usage.input_tokens;
  call.output_tokens = reply.usage.output_tokens;
  call.thinking_tokens = reply.usage.thinking_tokens;
  call.cost_usd = reply.usage.cost_usd;
  call.wall_s = reply.wall_s;
  call.success = reply.ok;
  call.error_class = reply.ok ? "" : std::string(llm::to_string(reply.error_class));
  call.reply_text = reply.text;
  call.prompt_text = prompt;
  call.created_at_ms = system_now_ms();
  recorder_.with_store([&](store::Store& s) { s.record_llm_call(call); });
}

}  // namespace mace::run
