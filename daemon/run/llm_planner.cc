#include "run/llm_planner.h"

#include <chrono>
#include <cstdio>

#include "service/clock.h"

namespace mace::run {

LlmPlanner::LlmPlanner(Parts parts, RunRecorder& recorder, const os::CancelToken& cancel)
    : parts_(std::move(parts)), recorder_(recorder), cancel_(cancel) {}

loop::PlannerReply LlmPlanner::plan(const std::string& prompt) {
  return ask(LlmPhase::planning, prompt, "", parts_.iteration(), parts_.run_tools);
}

loop::PlannerReply LlmPlanner::triage(loop::TriagePhase phase,
                                      const std::function<std::string(bool)>& prompt,
                                      const loop::TaskOutcome* failed) {
  std::vector<llm::Tool> tools = parts_.run_tools;
  // REQ-FAIL-5, REQ-FAIL-7: the diagnostic tools when they can start, else none.
  std::optional<llm::Tool> diagnostics =
      parts_.diagnostic_tool ? parts_.diagnostic_tool(failed) : std::nullopt;
  if (diagnostics) tools.push_back(std::move(*diagnostics));
  return ask(loop::llm_phase(phase),
             prompt(diagnostics.has_value()), failed ? failed->task_id : "", parts_.iteration(),
             tools);
}

loop::PlannerReply LlmPlanner::task(int iteration, const std::string& task_id,
                                    const std::string& prompt) {
  return ask(LlmPhase::task, prompt, task_id, iteration, parts_.run_tools);
}

loop::PlannerReply LlmPlanner::agent(int iteration, const std::string& task_id,
                                     const std::string& prompt, std::vector<llm::Tool> task_tools) {
  std::vector<llm::Tool> tools = parts_.run_tools;
  for (auto& tool : task_tools) tools.push_back(std::move(tool));
  return ask(LlmPhase::task, prompt, task_id, iteration, tools);
}

loop::PlannerReply LlmPlanner::ask(LlmPhase phase, const std::string& prompt,
                                   const std::string& task_id, int iteration,
                                   const std::vector<llm::Tool>& tools) {
  llm::Request request;
  request.phase = phase;
  request.prompt = prompt;
  request.tools = tools;
  // REQ-BUD-5: every attempt's cost counts, the rate-limited ones' included, not only the
  // last reply's.
  double cost = 0;
  llm::Reply reply = llm::call_with_retries(
      *parts_.backend, request, parts_.retry,
      // A cancel must not wait out a rate limit.
      [this](std::chrono::seconds wait) { cancel_.wait_for(wait); },
      [&](const llm::Reply& attempt, int) {
        llm::Reply settled = attempt;
        parts_.accounting.settle(settled, parts_.backend->model());
        cost += settled.usage.cost_usd;
        note_unreported_cost(settled);
        record(phase, task_id, iteration, prompt, settled);
      });
  return {reply.ok, reply.text, cost, reply.error};
}

void LlmPlanner::note_unreported_cost(const llm::Reply& reply) {
  using llm::CostSource;
  if (reply.usage.cost_source != CostSource::estimated &&
      reply.usage.cost_source != CostSource::unknown)
    return;
  // An attempt the API turned away costs nothing; it says nothing about the calls that run.
  if (reply.usage.cost_source == CostSource::unknown && llm::turned_away(reply)) return;
  {
    std::lock_guard lock(note_mutex_);
    if (noted_unreported_cost_) return;
    noted_unreported_cost_ = true;
  }
  const std::string backend = parts_.backend->name();
  std::string model = parts_.backend->model().empty() ? reply.model : parts_.backend->model();
  std::string who = backend + (model.empty() ? std::string(" (its default model)") : "/" + model);
  std::string why;
  if (backend == "vertex" && !model.empty() && !parts_.accounting.prices().find(model))
    why = "no price is known for model " + model + " (vertex reports tokens, not cost)";
  else if (reply.usage.has_tokens())
    why = who + " reported tokens but no cost, and no price is known for its model";
  else
    why = who + " reported neither tokens nor cost";
  char amount[64];
  std::snprintf(amount, sizeof amount, "$%.4f", parts_.accounting.policy().usd_per_call);
  if (reply.usage.cost_source == CostSource::estimated)
    recorder_.message(why + ": each such call counts " + amount +
                      " toward budget.max_usd, maced's estimate (llm.unreported_cost); "
                      "`mace calls` marks them estimated");
  else
    recorder_.message(why + ": such calls count $0 toward budget.max_usd, so the budget does "
                            "not hold; `mace calls` shows their cost as unknown. Add the model "
                            "to llm.prices or set llm.unreported_cost in maced's configuration");
}

void LlmPlanner::record(LlmPhase phase, const std::string& task_id, int iteration,
                        const std::string& prompt, const llm::Reply& reply) {
  store::LlmCallRecord call;
  call.run_id = recorder_.run_id();
  call.iteration = iteration;
  call.phase = phase;
  call.task_id = task_id;
  call.backend = parts_.backend->name();
  // A CLI agent on its own default model: the model its vendor says answered.
  call.model = parts_.backend->model().empty() ? reply.model : parts_.backend->model();
  call.input_tokens = reply.usage.input_tokens;
  call.cache_read_tokens = reply.usage.cache_read_tokens;
  call.cache_write_tokens = reply.usage.cache_write_tokens;
  call.output_tokens = reply.usage.output_tokens;
  call.thinking_tokens = reply.usage.thinking_tokens;
  call.cost_usd = reply.usage.cost_usd;
  call.cost_source = reply.usage.cost_source;
  call.wall_s = reply.wall_s;
  call.success = reply.ok;
  call.error_class = reply.ok ? LlmErrorClass::none : reply.error_class;
  call.reply_text = reply.text;
  call.prompt_text = prompt;
  call.created_at_ms = system_now_ms();
  recorder_.with_store([&](store::Store& s) { s.record_llm_call(call); });
}

}  // namespace mace::run
