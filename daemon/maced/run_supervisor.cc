#include "maced/run_supervisor.h"


#include <chrono>
#include <cstdlib>
#include <iostream>

#include <unistd.h>

#include "core/run_spec.h"
#include "core/task_prompt.h"
#include "executor/local_executor.h"
#include "llm/backend_factory.h"
#include "llm/retry.h"
#include "loop/direct_planner.h"
#include "loop/run_loop.h"
#include "maced/llm_planner.h"
#include "maced/recording_observer.h"
#include "maced/run_replay.h"
#include "openpiton/cache_defaults.h"
#include "openpiton/define_search.h"
#include "openpiton/unit_test_env.h"
#include "openpiton/workload.h"
#include "service/clock.h"
#include "tools/command_tool.h"
#include "tools/diagnostic_tools.h"

namespace mace {
namespace {

std::vector<service::PooledCheckout> pooled(const MacedConfig& config) {
  std::vector<service::PooledCheckout> out;
  for (const auto& c : config.checkouts) out.push_back({c.path, c.node});
  return out;
}

}  // namespace

std::string find_mace_client() {
  if (const char* override_path = std::getenv("MACE_CLIENT"); override_path && *override_path)
    return override_path;
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    auto dir = self.parent_path();
    for (auto candidate : {dir / "mace", dir / ".." / "bin" / "mace", dir / ".." / ".." / "client" / "mace"})
      if (::access(candidate.c_str(), X_OK) == 0) return candidate.lexically_normal().string();
  }
  return "mace";
}

RunSupervisor::RunSupervisor(service::RunService& service, const MacedConfig& config,
                             std::filesystem::path workloads_dir, LlmWiring wiring)
    : service_(service),
      config_(config),
      workloads_dir_(std::move(workloads_dir)),
      wiring_(std::move(wiring)),
      pool_(pooled(config)),
      loop_(kj::getCurrentThreadExecutor()) {}

RunSupervisor::~RunSupervisor() {
  for (auto& [id, run] : active_) run.cancel->cancel();
  for (auto& [id, run] : active_)
    if (run.thread.joinable()) run.thread.detach();  // the process is ending
  for (auto& t : ended_)
    if (t.joinable()) t.join();
}

void RunSupervisor::start_queued() {
  for (auto& t : ended_)
    if (t.joinable()) t.join();
  ended_.clear();
  if (stopping_) return;

  store::RunFilter filter;
  filter.states = {RunState::queued};
  filter.limit = 0;
  auto queued_runs = service_.list(filter);
  if (queued_runs.empty()) return;
  if (pool_.size() == 0) {
    if (!told_no_checkouts_) {
      std::cerr << "maced: runs are queued but no OpenPiton checkout is configured "
                   "(\"checkouts\" in the config file)\n";
      told_no_checkouts_ = true;
    }
    return;
  }
  std::vector<service::QueuedRun> queued;
  for (auto it = queued_runs.rbegin(); it != queued_runs.rend(); ++it) {
    int64_t wants = 0;
    if (auto parsed = parse_run_spec_json(it->spec_json); parsed.spec && parsed.spec->checkouts)
      wants = *parsed.spec->checkouts;
    queued.push_back({it->id, it->submitted_by_uid, wants});
  }
  while (auto lease = pool_.lease_next(queued)) {
    auto& run = active_[lease->run_id];
    run.cancel = std::make_unique<os::CancelToken>();
    service_.set_state(lease->run_id, RunState::running, "");
    run.thread = std::thread(&RunSupervisor::run_thread, this, lease->run_id, lease->checkouts, &run);
    std::erase_if(queued, [&](const service::QueuedRun& q) { return q.run_id == lease->run_id; });
  }
}

void RunSupervisor::cancel(const std::string& run_id) {
  if (auto it = active_.find(run_id); it != active_.end()) it->second.cancel->cancel();
}

kj::Promise<void> RunSupervisor::stop_all() {
  stopping_ = true;
  for (auto& [id, run] : active_) run.cancel->cancel();
  if (active_.empty()) return kj::READY_NOW;
  auto paf = kj::newPromiseAndFulfiller<void>();
  all_stopped_ = kj::mv(paf.fulfiller);
  return kj::mv(paf.promise);
}

void RunSupervisor::finished(const std::string& run_id) {
  auto it = active_.find(run_id);
  if (it == active_.end()) return;
  // This runs inside that very thread's executeSync: it cannot be joined yet, only on a
  // later turn once it has returned.
  std::thread ending = std::move(it->second.thread);
  active_.erase(it);
  pool_.release(run_id);
  if (stopping_) {
    ended_.push_back(std::move(ending));
    if (active_.empty() && all_stopped_) all_stopped_->fulfill();
    return;
  }
  start_queued();
  ended_.push_back(std::move(ending));
}

void RunSupervisor::run_thread(std::string run_id, std::vector<size_t> slots, ActiveRun* active) {
  const os::CancelToken& cancel = *active->cancel;
  RunState state = RunState::error;
  std::string reason;
  try {
    store::RunRecord record;
    loop_.executeSync([&] { record = service_.run(run_id); });
    const std::string& spec_json = record.spec_json;
    SpecParseResult parsed = parse_run_spec_json(spec_json);
    if (!parsed.spec) throw std::runtime_error("the recorded spec no longer parses");
    const RunSpec& spec = *parsed.spec;

    std::vector<openpiton::Checkout> checkouts;
    for (size_t slot : slots) checkouts.emplace_back(pool_.at(slot).path);

    RecordingObserver observer(service_, loop_, run_id, spec);
    executor::LocalExecutor executor(spec, checkouts, workloads_dir_, &cancel);
    // REQ-REPLAY-1..4: tagged calls through the cache; a replay's own planner and checks.
    RunReplay replay(service_, loop_, record, spec, config_.replay_cache,
                     [&](const std::string& m) { observer.note(m); });
    executor.task_calls = &replay.task_calls();
    executor.on_stage = [&](int iteration, const std::string& task, const std::string& stage) {
      observer.event("task_stage", iteration, task, stage, stage);
    };

    // REQ-EXEC-7: the tools of maced's configuration the spec names, on every LLM call.
    tools::CommandToolContext tool_context;
    tool_context.run_id = run_id;
    tool_context.cancel = &cancel;
    std::vector<llm::Tool> run_tools =
        tools::select_command_tools(config_.tools, spec.tools, tool_context);

    std::unique_ptr<loop::Planner> planner;
    LlmPlanner* llm_planner = nullptr;
    if (replay.is_replay()) {
      planner = replay.replay_planner(spec, [&observer] { return observer.current_iteration(); }, executor);
    } else if (record.backend == "direct") {
      planner = std::make_unique<loop::DirectPlanner>(spec);
    } else {
      llm::BackendOptions options = backend_options(config_, wiring_);
      auto backend =
          llm::make_backend({record.backend, record.model}, llm::process_environment(), options);
      // Vertex replies carry tokens, not prices: an unpriced model would make max_usd
      // meaningless without anyone noticing.
      if (record.backend == "vertex" && !options.prices.find(backend->model()))
        observer.note("no price is known for model " + backend->model() +
                      ": its calls count as $0 toward budget.max_usd; add it to llm.prices "
                      "in maced's configuration");
      auto diagnostic_tool = [&](const loop::TaskOutcome* failed) -> std::optional<llm::Tool> {
        if (!failed) return std::nullopt;
        try {
          return tools::make_diagnostic_tool(
              diagnostic_scope(*failed, observer.passing_run_dirs(), workloads_dir_));
        } catch (const tools::ToolError& e) {
          observer.note(std::string("diagnostic tools not offered: ") + e.what());  // REQ-FAIL-7
          return std::nullopt;
        }
      };
      auto owned = std::make_unique<LlmPlanner>(
          std::move(backend), service_, loop_, run_id, cancel,
          [&observer] { return observer.current_iteration(); }, run_tools, diagnostic_tool);
      llm_planner = owned.get();
      planner = std::move(owned);
      executor.task_prompt = [&](int iteration, const loop::TaskJob& job) {
        auto reply = replay.prompt(iteration, job.task.id, [&] {
          return llm_planner->task(iteration, job.task.id, task_prompt(spec, job.task));
        });
        if (!reply.ok)  // REQ-EXEC-11
          observer.event("message", iteration, job.task.id, "",
                         "the prompt call of " + job.task.id + " failed (" + reply.error +
                             "); building it anyway");
        return reply.cost_usd;
      };
      executor.agent = [&](int iteration, const loop::TaskJob& job, const std::string& prompt,
                           std::vector<llm::Tool> task_tools) {
        return llm_planner->agent(iteration, job.task.id, prompt, std::move(task_tools));
      };
    }
    loop::LoopInputs in{.spec = spec, .checkouts = checkouts.size(), .default_caches = {}};
    auto core = openpiton::core_from_string(to_string(spec.core));
    if (!core) throw std::runtime_error("unknown core");
    auto defaults = openpiton::read_cache_defaults(checkouts.front(), *core);
    if (!defaults.caches) throw std::runtime_error(defaults.error);
    for (openpiton::Cache c : openpiton::kAllCaches) {
      const auto& g = (*defaults.caches)[c];
      in.default_caches[std::string(openpiton::to_string(c))] = {g.size_bytes, g.associativity};
    }
    in.cancelled = [&] { return cancel.cancelled() || replay.stopping(); };
    // REQ-PLAN-15: defines no file of the checkout mentions are dropped from plans.
    in.define_mentioned = [&](const std::string& define) {
      return openpiton::checkout_mentions_define(checkouts.front(), define);
    };
    in.module_exists = [&](const std::string& module) {
      return openpiton::validate_unit_test_module(checkouts.front().root(), module).ok;
    };
    for (const auto& define : loop::define_candidates(spec.objective))
      if (openpiton::checkout_mentions_define(checkouts.front(), define))
        in.objective_defines.push_back(define);
    in.checksum_problems = [&] { return openpiton::verify_workload_checksums(workloads_dir_); };
    auto result = loop::run_loop(in, *planner, executor, replay.observer(observer));
    std::tie(state, reason) = replay.conclude(result);
  } catch (const std::exception& e) {
    state = RunState::error;  // REQ-BUD-10: this run ends; maced goes on
    reason = e.what();
  } catch (const kj::Exception& e) {
    // The event loop went away under us: maced is exiting.
    state = RunState::error;
    reason = e.getDescription().cStr();
  }
  try {
    report_end(run_id, state, reason);
  } catch (const kj::Exception&) {
    // maced is exiting and its event loop is gone; the restart records the run.
  }
}

void RunSupervisor::report_end(const std::string& run_id, RunState state, std::string reason) {
  loop_.executeSync([&] {
    if (stopping_ && state == RunState::cancelled) {
      state = RunState::error;
      reason = "maced stopped during the run";
    }
    try {
      service_.finish(run_id, state, reason);
    } catch (const std::exception& e) {
      std::cerr << "maced: recording the end of run " << run_id << ": " << e.what() << "\n";
    }
    finished(run_id);
  });
}

}  // namespace mace
