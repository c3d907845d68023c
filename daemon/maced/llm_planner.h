#pragma once
// The LLM side of a run: the planner of an LLM backend, which also answers the diagnosis
// and post-mortem calls and makes the tasks' prompt and agent calls (REQ-EXEC-7, 10, 14,
// REQ-FAIL-1, 10, REQ-BUD-12, 14).

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <kj/async.h>

#include "llm/backend_factory.h"
#include "llm/retry.h"
#include "loop/run_loop.h"
#include "maced/config.h"
#include "maced/run_supervisor.h"
#include "os/process_group.h"
#include "service/clock.h"
#include "service/run_service.h"
#include "tools/diagnostic_tools.h"

namespace mace {

// The planner of an LLM backend, which also answers the diagnosis and post-mortem calls
// and makes the tasks' prompt calls: each call with the vendor's retries (REQ-BUD-14),
// each attempt recorded in llm_calls (REQ-BUD-12), each offered the run's tools
// (REQ-EXEC-7) plus its own.
class LlmPlanner final : public loop::Planner {
 public:
  using DiagnosticToolFor = std::function<std::optional<llm::Tool>(const loop::TaskOutcome*)>;

  LlmPlanner(std::unique_ptr<llm::Backend> backend, service::RunService& service,
             const kj::Executor& loop, std::string run_id, const os::CancelToken& cancel,
             std::function<int()> iteration, std::vector<llm::Tool> run_tools,
             DiagnosticToolFor diagnostic_tool)
      : backend_(std::move(backend)), service_(service), loop_(loop), run_id_(std::move(run_id)),
        cancel_(cancel), iteration_(std::move(iteration)), run_tools_(std::move(run_tools)),
        diagnostic_tool_(std::move(diagnostic_tool)) {}

  loop::PlannerReply plan(const std::string& prompt) override {
    return ask("planning", prompt, "", iteration_(), run_tools_);
  }

  bool can_triage() const override { return true; }

  loop::PlannerReply triage(loop::TriagePhase phase,
                            const std::function<std::string(bool)>& prompt,
                            const loop::TaskOutcome* failed) override {
    std::vector<llm::Tool> tools = run_tools_;
    // REQ-FAIL-5, REQ-FAIL-7: the diagnostic tools when they can start, else none.
    std::optional<llm::Tool> diagnostics = diagnostic_tool_(failed);
    if (diagnostics) tools.push_back(std::move(*diagnostics));
    return ask(phase == loop::TriagePhase::diagnosis ? "diagnosis" : "post_mortem",
               prompt(diagnostics.has_value()), failed ? failed->task_id : "", iteration_(),
               tools);
  }

  // REQ-EXEC-10, 11: a config or workload task's prompt call; a failure is logged and the
  // task builds anyway. Called from the executor's threads, so it takes the iteration.
  loop::PlannerReply task(int iteration, const std::string& task_id, const std::string& prompt) {
    return ask("task", prompt, task_id, iteration, run_tools_);
  }

  // The agent call of an rtl or unit_test task: the run's tools and the task's own
  // (REQ-EXEC-7, 8, 14).
  loop::PlannerReply agent(int iteration, const std::string& task_id, const std::string& prompt,
                           std::vector<llm::Tool> task_tools) {
    std::vector<llm::Tool> tools = run_tools_;
    for (auto& tool : task_tools) tools.push_back(std::move(tool));
    return ask("task", prompt, task_id, iteration, tools);
  }

 private:
  loop::PlannerReply ask(const std::string& phase, const std::string& prompt,
                         const std::string& task_id, int iteration,
                         const std::vector<llm::Tool>& tools) {
    llm::Request request;
    request.phase = phase;
    request.prompt = prompt;
    request.tools = tools;
    auto policy = llm::RetryPolicy::from_environment(llm::process_environment());
    llm::Reply reply = llm::call_with_retries(
        *backend_, request, policy,
        [this](std::chrono::seconds wait) {
          // A cancel must not wait out a rate limit.
          auto until = std::chrono::steady_clock::now() + wait;
          while (std::chrono::steady_clock::now() < until && !cancel_.cancelled())
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
        },
        [&](const llm::Reply& attempt, int) {
          record(phase, task_id, iteration, prompt, attempt);
        });
    return {reply.ok, reply.text, reply.usage.cost_usd, reply.error};
  }

  void record(const std::string& phase, const std::string& task_id, int iteration,
              const std::string& prompt, const llm::Reply& reply) {
    store::LlmCallRecord call;
    call.run_id = run_id_;
    call.iteration = iteration;
    call.phase = phase;
    call.task_id = task_id;
    call.backend = backend_->name();
    call.model = backend_->model();
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
    loop_.executeSync([&] { service_.store().record_llm_call(call); });
  }

  std::unique_ptr<llm::Backend> backend_;
  service::RunService& service_;
  const kj::Executor& loop_;
  std::string run_id_;
  const os::CancelToken& cancel_;
  std::function<int()> iteration_;
  std::vector<llm::Tool> run_tools_;
  DiagnosticToolFor diagnostic_tool_;
};

// What the diagnostic tools of a call about `failed` may read (REQ-FAIL-5): its runs and
// build log, passing runs of the same workloads from earlier tasks, the workloads.
inline tools::DiagnosticScope diagnostic_scope(const loop::TaskOutcome& failed,
                                        const std::vector<std::filesystem::path>& references,
                                        const std::filesystem::path& workloads_dir) {
  tools::DiagnosticScope scope;
  scope.checkout_root = failed.checkout;
  for (const auto& v : failed.verdicts)
    if (!v.run_dir.empty()) scope.run_dirs.emplace_back(v.run_dir);
  if (!failed.build_log.empty()) scope.build_log = failed.build_log;
  scope.reference_run_dirs = references;
  scope.workloads_dir = workloads_dir;
  return scope;
}

// The backend's prices and, for the CLI agents, how their tools reach maced.
inline llm::BackendOptions backend_options(const MacedConfig& config, const LlmWiring& wiring) {
  llm::BackendOptions options;
  if (!config.llm_prices_json.empty()) {
    try {
      options.prices.apply_overrides_json("{\"prices\":" + config.llm_prices_json + "}");
    } catch (const llm::SetupError&) {
      // Checked when the config was read; were it to fail here, the defaults stand, as ever.
    }
  }
  options.cli.mace_binary = wiring.mace_binary;
  options.cli.maced_socket = wiring.maced_socket;
  options.cli.sessions = wiring.sessions;
  return options;
}

}  // namespace mace
