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
#include "openpiton/cache_defaults.h"
#include "openpiton/define_search.h"
#include "openpiton/workload.h"
#include "service/clock.h"
#include "tools/command_tool.h"
#include "tools/diagnostic_tools.h"

namespace mace {
namespace {

// Everything the loop reports, carried to the event-loop thread and recorded there.
class RecordingObserver final : public loop::LoopObserver {
 public:
  RecordingObserver(service::RunService& service, const kj::Executor& loop, std::string run_id,
                    const RunSpec& spec)
      : service_(service), loop_(loop), run_id_(std::move(run_id)), spec_(spec) {}

  void event(const std::string& kind, int iteration, const std::string& task_id,
             const std::string& stage, const std::string& message,
             const std::string& workload = "", const std::string& verdict = "") {
    store::EventRecord e;
    e.run_id = run_id_;
    e.kind = kind;
    e.iteration = iteration;
    e.task_id = task_id;
    e.stage = stage;
    e.message = message;
    e.workload = workload;
    e.verdict = verdict;
    loop_.executeSync([&] { service_.record_event(e); });
  }

  int current_iteration() const { return iteration_; }
  // Runs that passed in this run so far: references for comparing a failed transcript.
  std::vector<std::filesystem::path> passing_run_dirs() const { return passing_run_dirs_; }

  void iteration_started(int iteration) override {
    iteration_ = iteration;
    started_ms_ = system_now_ms();
    event("iteration_started", iteration, "", "", "iteration " + std::to_string(iteration));
  }

  void plan_made(int iteration, const Plan& plan, const std::string& reply) override {
    plan_ = plan;
    loop_.executeSync([&] {
      service_.store().record_iteration_start(run_id_, iteration, started_ms_, reply);
    });
    std::string ids;
    for (const auto& t : plan.tasks) ids += (ids.empty() ? "" : ", ") + t.id;
    event("message", iteration, "", "", "plan: " + ids);
  }

  void level_started(int iteration, std::size_t level,
                     const std::vector<std::string>& task_ids) override {
    std::string ids;
    for (const auto& id : task_ids) ids += (ids.empty() ? "" : ", ") + id;
    event("level_started", iteration, "", "", "level " + std::to_string(level) + ": " + ids);
  }

  void task_finished(int iteration, const loop::TaskJob& job,
                     const loop::TaskOutcome& outcome) override {
    store::TaskRecord t;
    t.run_id = run_id_;
    t.iteration = iteration;
    t.task_id = job.task.id;
    t.kind = job.task.kind;
    t.instruction = job.task.instruction;
    t.deps = job.task.deps;
    t.checkout = outcome.checkout;
    t.core = std::string(to_string(spec_.core));
    t.mesh_x = spec_.mesh_x;
    t.mesh_y = spec_.mesh_y;
    auto cache = [&](const char* name, int64_t& size, int64_t& assoc) {
      if (auto it = job.caches.find(name); it != job.caches.end()) {
        size = it->second.size;
        assoc = it->second.associativity;
      }
    };
    cache("l1i", t.l1i_size, t.l1i_assoc);
    cache("l1d", t.l1d_size, t.l1d_assoc);
    cache("l15", t.l15_size, t.l15_assoc);
    cache("l2", t.l2_size, t.l2_assoc);
    t.rtl_defines = job.defines;
    if (spec_.coverage) t.extra_flags = {"-vlt_build_args=--coverage-line"};
    t.build_id = outcome.build_id;
    t.build_outcome = !outcome.built ? (outcome.build_id.empty() ? "" : "failed")
                      : outcome.reused ? "reused" : "succeeded";
    t.build_reused = outcome.reused;
    t.failure_reason = outcome.failure_reason;
    t.stage = outcome.passed ? "passed" : "failed";
    t.passed = outcome.passed;
    t.finished_at_ms = system_now_ms();
    int64_t ordinal = 0;
    for (const auto& v : outcome.verdicts) {
      t.results.push_back({ordinal++, v.workload, v.verdict, v.returncode, v.run_dir, v.wall_s});
      if (v.verdict == "pass" && !v.run_dir.empty()) passing_run_dirs_.push_back(v.run_dir);
    }
    loop_.executeSync([&] { service_.store().upsert_task(t); });
    for (const auto& v : outcome.verdicts)
      event("verdict", iteration, job.task.id, "", "", v.workload, v.verdict);
    std::string message = outcome.passed ? "passed" : "failed: " + outcome.failure_reason;
    if (!outcome.passed && !outcome.evidence.empty()) message += ": " + outcome.evidence.front();
    event("task_stage", iteration, job.task.id, outcome.passed ? "passed" : "failed", message);
  }

  void iteration_finished(int iteration, bool passed, double cost_usd, double wall_s) override {
    loop_.executeSync([&] {
      service_.store().record_iteration_end(run_id_, iteration, system_now_ms(), cost_usd, wall_s,
                                            passed);
    });
    event("iteration_finished", iteration, "", "",
          std::string(passed ? "passed" : "failed") + " in " + std::to_string(wall_s) + " s");
  }

  void note(const std::string& message) override { event("message", 0, "", "", message); }

  void narrowing_finished(int iteration, const loop::TaskJob& job,
                          const loop::TaskOutcome& outcome) override {
    store::NarrowingBuildRecord b{run_id_, iteration, job.task.id, job.narrowing,
                                  outcome.build_id, outcome.checkout, outcome.passed,
                                  outcome.failure_reason, system_now_ms()};
    loop_.executeSync([&] { service_.store().record_narrowing_build(b); });
    event("message", iteration, job.task.id, "",
          "narrowing " + job.task.id + ": " + job.narrowing + ": " +
              (outcome.passed ? "passed" : "failed (" + outcome.failure_reason + ")"));
  }

  void diagnosed(int iteration, const std::string& task_id, const Diagnosis& d) override {
    loop_.executeSync([&] {
      service_.store().record_diagnosis(run_id_, iteration, task_id, d.label, d.fix, d.source,
                                        d.evidence, system_now_ms());
    });
    event("message", iteration, task_id, "",
          "diagnosis of " + task_id + " (" + d.source + "): " + d.label +
              (d.fix.empty() ? "" : "; fix: " + d.fix));
  }

  void failures_recovered() override {
    loop_.executeSync([&] { service_.store().mark_failures_recovered(run_id_); });
  }

  void post_mortem_made(const PostMortem& pm) override {
    loop_.executeSync([&] {
      service_.store().record_post_mortem(
          run_id_, {pm.assessment, pm.explanation, pm.next_steps, system_now_ms()});
    });
    event("message", 0, "", "", "post-mortem: " + pm.assessment + ": " + pm.explanation);
  }

 private:
  service::RunService& service_;
  const kj::Executor& loop_;
  std::string run_id_;
  const RunSpec& spec_;
  int64_t started_ms_ = 0;
  int iteration_ = 0;
  Plan plan_;
  std::vector<std::filesystem::path> passing_run_dirs_;
};

// The planner of an LLM backend, which also answers the diagnosis and post-mortem calls
// and makes the tasks' prompt calls: each call with the vendor's retries (REQ-BUD-14),
// each attempt recorded in llm_calls (REQ-BUD-12), each offered the run's tools
// (REQ-EXEC-7) plus its own.
class LlmPlanner final : public loop::Planner {
 public:
  using DiagnosticToolFor = std::function<std::optional<llm::Tool>(const loop::TaskOutcome*)>;

  LlmPlanner(std::unique_ptr<llm::Backend> backend, service::RunService& service,
             const kj::Executor& loop, std::string run_id, const openpiton::CancelToken& cancel,
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
        [&](const llm::Reply& attempt, int) { record(phase, task_id, iteration, attempt); });
    return {reply.ok, reply.text, reply.usage.cost_usd, reply.error};
  }

  void record(const std::string& phase, const std::string& task_id, int iteration,
              const llm::Reply& reply) {
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
    call.created_at_ms = system_now_ms();
    loop_.executeSync([&] { service_.store().record_llm_call(call); });
  }

  std::unique_ptr<llm::Backend> backend_;
  service::RunService& service_;
  const kj::Executor& loop_;
  std::string run_id_;
  const openpiton::CancelToken& cancel_;
  std::function<int()> iteration_;
  std::vector<llm::Tool> run_tools_;
  DiagnosticToolFor diagnostic_tool_;
};

// What the diagnostic tools of a call about `failed` may read (REQ-FAIL-5): its runs and
// build log, passing runs of the same workloads from earlier tasks, the workloads.
tools::DiagnosticScope diagnostic_scope(const loop::TaskOutcome& failed,
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
llm::BackendOptions backend_options(const MacedConfig& config, const LlmWiring& wiring) {
  llm::BackendOptions options;
  if (!config.llm_prices_json.empty()) {
    std::string error;  // checked when the config was read
    options.prices.apply_overrides_json("{\"prices\":" + config.llm_prices_json + "}", error);
  }
  options.cli.mace_binary = wiring.mace_binary;
  options.cli.maced_socket = wiring.maced_socket;
  options.cli.sessions = wiring.sessions;
  return options;
}

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
    run.cancel = std::make_unique<openpiton::CancelToken>();
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
  const openpiton::CancelToken& cancel = *active->cancel;
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
    executor.on_stage = [&](int iteration, const std::string& task, const std::string& stage) {
      observer.event("task_stage", iteration, task, stage, stage);
    };

    // REQ-EXEC-7: the tools of maced's configuration the spec names, on every LLM call.
    tools::CommandToolContext tool_context;
    tool_context.run_id = run_id;
    tool_context.cancel = &cancel;
    std::string tool_error;
    std::vector<llm::Tool> run_tools =
        tools::select_command_tools(config_.tools, spec.tools, tool_context, tool_error);
    if (!tool_error.empty()) throw std::runtime_error(tool_error);

    std::unique_ptr<loop::Planner> planner;
    LlmPlanner* llm_planner = nullptr;
    if (record.backend == "direct") {
      planner = std::make_unique<loop::DirectPlanner>(spec);
    } else {
      std::string error;
      auto backend = llm::make_backend({record.backend, record.model}, llm::process_environment(),
                                       error, backend_options(config_, wiring_));
      if (!backend) throw std::runtime_error(error);
      auto diagnostic_tool = [&](const loop::TaskOutcome* failed) -> std::optional<llm::Tool> {
        if (!failed) return std::nullopt;
        std::string why;
        auto tool = tools::make_diagnostic_tool(
            diagnostic_scope(*failed, observer.passing_run_dirs(), workloads_dir_), why);
        if (!tool) observer.note("diagnostic tools not offered: " + why);  // REQ-FAIL-7
        return tool;
      };
      auto owned = std::make_unique<LlmPlanner>(
          std::move(backend), service_, loop_, run_id, cancel,
          [&observer] { return observer.current_iteration(); }, run_tools, diagnostic_tool);
      llm_planner = owned.get();
      planner = std::move(owned);
      executor.task_prompt = [&](int iteration, const loop::TaskJob& job) {
        auto reply = llm_planner->task(iteration, job.task.id, task_prompt(spec, job.task));
        if (!reply.ok)  // REQ-EXEC-11
          observer.event("message", iteration, job.task.id, "",
                         "the prompt call of " + job.task.id + " failed (" + reply.error +
                             "); building it anyway");
        return reply.cost_usd;
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
    in.cancelled = [&] { return cancel.cancelled(); };
    // REQ-PLAN-15: defines no file of the checkout mentions are dropped from plans.
    in.define_mentioned = [&](const std::string& define) {
      return openpiton::checkout_mentions_define(checkouts.front(), define);
    };
    for (const auto& define : loop::define_candidates(spec.objective))
      if (openpiton::checkout_mentions_define(checkouts.front(), define))
        in.objective_defines.push_back(define);
    in.checksum_problems = [&] { return openpiton::verify_workload_checksums(workloads_dir_); };
    auto result = loop::run_loop(in, *planner, executor, observer);
    state = result.state;
    reason = result.reason;
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
