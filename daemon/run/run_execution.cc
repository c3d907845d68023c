#include "run/run_execution.h"

#include <optional>
#include <set>

#include "core/core_descriptor.h"
#include "executor/adapter_bridge.h"
#include "executor/local_executor.h"
#include "loop/direct_planner.h"
#include "loop/run_loop.h"
#include "run/expected_times.h"
#include "run/leased_runner.h"
#include "run/resimulation.h"
#include "openpiton/cache_defaults.h"
#include "openpiton/define_search.h"
#include "openpiton/unit_test_env.h"
#include "openpiton/workload.h"
#include "openpiton/workload_checksums.h"
#include "run/baseline_planner.h"
#include "run/codesign_planner.h"
#include "run/eval_run.h"
#include "run/llm_planner.h"
#include "run/coverage_record.h"
#include "run/waveform_record.h"
#include "run/run_environment.h"
#include "run/log_keeper.h"
#include "run/seeded_fault_planner.h"
#include "run/planner_task_llm.h"
#include "run/progress_events.h"
#include "run/recording_observer.h"
#include "run/run_replay.h"
#include "run/slurm_job_recorder.h"
#include "slurm/slurm_runner.h"
#include "tools/diagnostic_tools.h"

namespace mace::run {
namespace {

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
  if (failed.waveform.captured()) {
    scope.waveform = failed.waveform.path;
    scope.waveform_workload = failed.waveform.workload;
  }
  return scope;
}

std::unique_ptr<llm::Backend> make_run_backend(const RunSettings& settings,
                                               const llm::BackendChoice& choice) {
  if (settings.make_backend) return settings.make_backend(choice);
  return llm::make_backend(choice, settings.environment, settings.backend_options);
}

// The loop's view of the checkout: its cache defaults, the defines and modules it has, the
// workloads' checksums (REQ-PLAN-15, REQ-BUD-7).
loop::LoopInputs loop_inputs(const RunSpec& spec, const openpiton::Checkout& first,
                             const RunSettings& settings) {
  loop::LoopInputs in{.spec = spec,
                      .dispatch = settings.dispatch,
                      .infrastructure_retries = settings.infrastructure_retries,
                      .models_shared = settings.model_store != nullptr,
                      .default_caches = {}};
  auto defaults = openpiton::read_cache_defaults(first, executor::adapter_core(spec.core));
  if (!defaults.caches) throw std::runtime_error(defaults.error);
  in.default_caches = executor::loop_caches(*defaults.caches);
  // REQ-PLAN-15: defines no file of the checkout mentions are dropped from plans.
  in.find_define = [&first](const std::string& define) {
    openpiton::DefineSearch found = openpiton::search_checkout_for_define(first, define);
    return DefineLookup{.mentioned = found.mentioned, .error = std::move(found.error)};
  };
  in.module_exists = [&first](const std::string& module) {
    return openpiton::validate_unit_test_module(first.root(), module).ok;
  };
  for (const auto& define : loop::define_candidates(spec.objective))
    if (in.find_define(define).mentioned) in.objective_defines.push_back(define);
  in.checksum_problems = [&settings] {
    return openpiton::verify_workload_checksums(settings.workloads_dir);
  };
  return in;
}

// The descriptor of a generic run, as the adapter takes it; unset for other cores.
std::optional<openpiton::GenericCore> generic_core_of(const RunSpec& spec) {
  if (spec.core != Core::generic || !spec.core_descriptor_json) return std::nullopt;
  CoreDescriptorParse parsed = parse_core_descriptor(*spec.core_descriptor_json);
  if (!parsed.descriptor) throw std::runtime_error("the recorded core descriptor no longer parses");
  return executor::generic_core(*parsed.descriptor);
}

// REQ-EXEC-20: what keeps the Generic Tile from hosting the core, or a checkout lacks.
std::optional<std::string> unsupported_core_reason(const RunSpec& spec,
                                                   const std::vector<openpiton::Checkout>& checkouts) {
  CoreDescriptorParse parsed = parse_core_descriptor(*spec.core_descriptor_json);
  std::vector<std::string> problems = generic_tile_support_problems(*parsed.descriptor);
  const openpiton::GenericCore core = executor::generic_core(*parsed.descriptor);
  for (const auto& checkout : checkouts)
    for (const auto& file : openpiton::missing_core_files(core, checkout.root()))
      problems.push_back("the checkout " + checkout.root().string() + " lacks " + file +
                         ", which the core descriptor names");
  if (problems.empty()) return std::nullopt;
  std::string reason = "the Generic Tile cannot host the core: ";
  for (std::size_t i = 0; i < problems.size(); ++i) reason += (i ? "; " : "") + problems[i];
  return reason;
}

// The parts of one run, made in the order they need each other.
class Run {
 public:
  Run(RunRecorder& recorder, const RunSettings& settings, RunLease lease,
      const os::CancelToken& cancel)
      : recorder_(recorder),
        settings_(settings),
        cancel_(cancel),
        record_(recorder.run_record()),
        spec_(parse_recorded_spec(record_)),
        observer_(recorder, spec_),
        progress_(recorder, spec_),
        logs_(recorder, settings.evidence),
        replay_(recorder, record_, spec_, settings.replay_cache),
        generic_(generic_core_of(spec_)),
        lease_(std::move(lease)) {
    if (settings_.slurm)
      slurm_jobs_ = std::make_shared<SlurmJobRecorder>(recorder_, settings_.cluster_observer,
                                                       current_iteration());
  }

  RunEnding execute() {
    eval_job_ = eval_job_of(recorder_);
    make_planner();
    if (eval_job_ && eval_job_->method == eval::Method::seeded_fault)  // REQ-EVAL-10
      planner_ = std::make_unique<SeededFaultPlanner>(std::move(planner_), eval_job_->fault_config);
    executor::LocalExecutor executor(spec_, executor_settings());
    LeasedRunner runner(
        executor, std::move(lease_), [this](const auto& pooled) { return place(pooled); },
        [this](const openpiton::Checkout& checkout) { make_ready(checkout); }, cancel_);
    if (runner.held().empty()) throw std::logic_error("a run was started without a checkout");
    // The checkout the run started on: where the checkout's defaults, defines and modules
    // are read (every checkout of the pool has the same sources).
    const openpiton::Checkout home = runner.held().front();
    record_environment(runner.held());
    if (eval_job_) start_eval_job();
    loop::LoopInputs in = loop_inputs(spec_, home, settings_);
    // What its tasks' configurations are told apart from: OpenPiton's own caches.
    recorder_.with_store(
        [&](store::Store& s) { s.set_run_default_caches(recorder_.run_id(), in.default_caches); });
    if (generic_) {
      in.unsupported_core = [this, &runner] { return unsupported_core_reason(spec_, runner.held()); };
      // REQ-EXEC-20: written into each checkout for every build, taken out after it (and
      // after a crash, through the edit journal), as RTL edits are.
      in.generic_files = executor::generic_tile_edits(*generic_, home.root());
      in.generic_wrapper_path = std::string(openpiton::kGeneratedWrapper);
    }
    in.cancelled = [this] { return cancel_.cancelled() || replay_.stopping(); };
    const ExpectedTimes expected(recorder_, spec_, settings_.model_store.get(),
                                 eval_job_ && eval_job_->fault_kind == eval::FaultKind::source);
    in.expected = [&expected](const loop::TaskJob& job) { return expected(job); };
    if (eval_job_ && eval_job_->method != eval::Method::mace &&
        eval_job_->method != eval::Method::seeded_fault)
      in.triage_failures = false;
    loop::LoopResult result;
    try {
      result = loop::run_loop(in, *planner_, runner, replay_.observer(observer_));
    } catch (...) {
      logs_.keep_remaining();
      if (!settings_.keep_run_dirs) logs_.remove_kept_run_dirs();
      throw;
    }
    logs_.keep_remaining();
    if (!settings_.keep_run_dirs) logs_.remove_kept_run_dirs();
    if (eval_job_ && spec_.options.build_only && result.state == RunState::passed)
      if (auto ending = resimulate_accepted_designs(runner, result.iterations)) return *ending;
    auto [state, reason] = replay_.conclude(result);
    if (eval_job_ && eval_job_->method == eval::Method::fault_check) return conclude_fault_check(state, reason);
    return {state, reason};
  }

 private:
  static RunSpec parse_recorded_spec(const store::RunRecord& record) {
    SpecParseResult parsed = parse_run_spec_json(record.spec_json);
    if (!parsed.spec) throw std::runtime_error("the recorded spec no longer parses");
    return *parsed.spec;
  }

  // REQ-EXEC-4: each checkout's commands run where the checkout is: here, or as Slurm jobs
  // on its node, named after this run and recorded in its store.
  openpiton::Checkout place(const service::PooledCheckout& checkout) const {
    if (!settings_.slurm) return openpiton::Checkout(checkout.path);
    slurm::Placement placement{.run_id = recorder_.run_id(),
                               .core = std::string(to_string(spec_.core)),
                               .node = checkout.node, .checkout = checkout.path, .label = ""};
    return openpiton::Checkout(checkout.path, std::make_shared<slurm::SlurmRunner>(
                                                  settings_.slurm, std::move(placement), slurm_jobs_));
  }

  // REQ-EVAL-4, 12: a checkout an evaluation job is given is made ready for it, once.
  void make_ready(const openpiton::Checkout& checkout) {
    if (!eval_job_ || !made_ready_.insert(checkout.root().string()).second) return;
    prepare_eval_checkouts(recorder_, *eval_job_, {checkout});
  }

  std::function<int()> current_iteration() {
    return [this] { return observer_.current_iteration(); };
  }

  // REQ-EVAL-7: the designs a passed build-only run accepted, each simulated and its
  // verdicts recorded; the run still passed (its check was the build), unless cancelled.
  std::optional<RunEnding> resimulate_accepted_designs(loop::TaskRunner& runner, int iteration) {
    const auto designs = observer_.accepted_designs();
    recorder_.message("the build-only check passed: simulating the " + std::to_string(designs.size()) +
                      " design" + (designs.size() == 1 ? "" : "s") + " it accepted (REQ-EVAL-7)");
    const auto records = resimulate_accepted(runner, iteration, designs, spec_.workloads,
                                             [this] { return cancel_.cancelled(); });
    recorder_.with_store(
        [&](store::Store& store) { store.set_eval_resimulations(recorder_.run_id(), records); });
    for (const auto& record : records)
      recorder_.message(iteration, record.task_id,
                        "simulated on model " + record.build_id + ": " + verdicts_text(record));
    if (cancel_.cancelled()) return RunEnding{RunState::cancelled, "cancelled"};
    return std::nullopt;
  }

  // REQ-EVAL-11: caught or missed, said in the run's outcome and reason.
  RunEnding conclude_fault_check(RunState state, const std::string& reason) {
    const auto [tasks, resimulated] = recorder_.with_store([&](store::Store& store) {
      return std::make_pair(store.tasks(recorder_.run_id()), store.eval_resimulations(recorder_.run_id()));
    });
    const FaultCheckConclusion conclusion = run::conclude_fault_check(*eval_job_, state, reason, tasks, resimulated);
    recorder_.with_store([&](store::Store& store) { store.set_run_outcome(recorder_.run_id(), conclusion.outcome); });
    return {conclusion.state, conclusion.reason};
  }

  // REQ-EVAL-9, 10..12: the job's environment (the checkouts it started on, made ready as
  // they were given) and fault recorded.
  // What the run ran in (run_environment.h): the checkouts it started on, as they were.
  void record_environment(const std::vector<openpiton::Checkout>& checkouts) {
    environment_ = environment_json(record_, checkouts);
    recorder_.with_store([&](store::Store& store) { store.set_run_environment(recorder_.run_id(), environment_); });
  }

  void start_eval_job() {
    recorder_.with_store([&](store::Store& store) { store.set_eval_run_env(recorder_.run_id(), environment_); });
    if (!eval_job_->fault.empty())
      recorder_.message("evaluation job " + std::string(to_string(eval_job_->method)) +
                        " with the " +
                        std::string(eval_job_->fault_kind ? eval::to_string(*eval_job_->fault_kind) : "") +
                        " fault " + eval_job_->fault);
  }

  void make_planner() {
    PlannerKind kind = PlannerKind::llm;
    if (eval_job_ && !eval_job_->plan_reply.empty()) {
      // REQ-EVAL-8, 11: a fault check's expert design, a co-design search's candidates.
      const bool codesign = eval_job_->method == eval::Method::codesign;
      kind = codesign ? PlannerKind::codesign : PlannerKind::fault_check;
      planner_ = std::make_unique<FixedPlanner>(eval_job_->plan_reply, codesign,
                                                codesign ? "the co-design search" : "the fault check");
    } else if (replay_.is_replay()) {
      kind = PlannerKind::replay;
      planner_ = replay_.replay_planner(spec_, current_iteration());
      task_llm_ = &replay_.replay_task_llm();
    } else if (is_direct_backend(record_.backend)) {
      kind = PlannerKind::direct;
      planner_ = std::make_unique<loop::DirectPlanner>(spec_);
    } else {
      make_llm_planner();
    }
    recorder_.with_store([&](store::Store& store) { store.set_run_planner(recorder_.run_id(), kind); });
  }

  void make_llm_planner() {
    LlmPlanner::Parts parts;
    parts.backend = make_run_backend(settings_, {record_.backend, record_.model});
    // REQ-BUD-5: a call whose vendor reports no cost is priced, estimated or said to be
    // unknown in the run's log (LlmPlanner::note_unreported_cost), never counted as 0 in
    // silence.
    parts.accounting = settings_.backend_options.accounting();
    parts.retry = settings_.retry;
    parts.run_tools = run_tools();
    parts.iteration = current_iteration();
    parts.diagnostic_tool = [this](const loop::TaskOutcome* failed) -> std::optional<llm::Tool> {
      if (!failed) return std::nullopt;
      try {
        return tools::make_diagnostic_tool(
            diagnostic_scope(*failed, observer_.passing_run_dirs(), settings_.workloads_dir));
      } catch (const tools::ToolError& e) {
        recorder_.message(std::string("diagnostic tools not offered: ") + e.what());  // REQ-FAIL-7
        return std::nullopt;
      }
    };
    auto planner = std::make_unique<LlmPlanner>(std::move(parts), recorder_, cancel_);
    planner_task_llm_ = std::make_unique<PlannerTaskLlm>(*planner, replay_, recorder_, spec_);
    task_llm_ = planner_task_llm_.get();
    planner_ = std::move(planner);
    if (eval_job_ && eval_job_->method == eval::Method::codesign_llm)  // REQ-EVAL-6, 8
      planner_ = std::make_unique<CodesignPlanner>(std::move(planner_), spec_, eval_job_->area_budget);
    else if (eval_job_ && eval::calls_llm(eval_job_->method))  // REQ-EVAL-5, 6
      planner_ = std::make_unique<BaselinePlanner>(std::move(planner_), spec_);
  }

  // REQ-EXEC-7: the tools of maced's configuration the spec names, on every LLM call.
  std::vector<llm::Tool> run_tools() {
    tools::CommandToolContext context;
    context.run_id = recorder_.run_id();
    context.cancel = &cancel_;
    return tools::select_command_tools(settings_.tools, spec_.tools, context);
  }

  executor::ExecutorSettings executor_settings() {
    executor::ExecutorSettings s;
    s.workloads_dir = settings_.workloads_dir;
    s.cancel = &cancel_;
    s.task_calls = &replay_.task_calls();
    if (eval_job_ && eval_job_->fault_kind == eval::FaultKind::source)
      s.fault_edits = fault_edit_set(*eval_job_);  // REQ-EVAL-12
    s.model_store = settings_.model_store.get();
    s.compiler_cache_dir = settings_.compiler_cache_dir;
    s.compiler_cache_max_mb = settings_.compiler_cache_max_mb;
    s.max_sim_output_bytes = settings_.max_sim_output_bytes;
    s.parallel_workloads = settings_.parallel_workloads;
    // An evaluation measures its methods' time and cost: a waveform would be the harness's.
    if (settings_.waveform && spec_.waveform && !eval_job_) {
      s.waveform = *settings_.waveform;
      if (spec_.waveform_cycles) s.waveform->window_cycles = *spec_.waveform_cycles;
    }
    if (settings_.slurm) {  // a build gets its job's allocation, whoever else runs
      const auto& build = slurm::resources_for(*settings_.slurm, slurm::StepKind::build,
                                               std::string(to_string(spec_.core)));
      s.build_share = executor::BuildShare{.cpus = build.cpus, .memory_mb = build.memory_mb};
    }
    s.llm = task_llm_;
    s.generic = generic_;
    s.observer = &task_observer_;
    return s;
  }

  // What the executor tells of each task: its stage recorded as an event and on the task's
  // row, its build's progress and verdicts as progress events, its logs kept.
  class TaskRecording final : public executor::TaskObserver {
   public:
    TaskRecording(RunRecorder& recorder, ProgressEvents& progress, LogKeeper& logs, const RunReplay& replay)
        : recorder_(recorder), progress_(progress), logs_(logs), replay_(replay) {}
    void stage(int iteration, const loop::TaskJob& job, TaskStage stage) override {
      recorder_.event(EventKind::task_stage, iteration, job.task.id, stage, std::string(to_string(stage)));
      // A narrowing rebuild is recorded apart; the task's own row keeps its end.
      if (job.narrowing.empty())
        recorder_.with_store([&](store::Store& store) {
          store.set_task_stage(recorder_.run_id(), iteration, job.task.id, stage, "");
        });
    }
    void build_progress(const executor::TaskCallSite& site, const openpiton::BuildProgress& progress) override {
      progress_.build_progress(site, progress);
    }
    void build_finished(const executor::TaskCallSite& site, const openpiton::BuildResult& build) override {
      progress_.build_finished(site, build);
    }
    void verdict(const executor::TaskCallSite& site, const loop::WorkloadVerdict& verdict) override {
      progress_.verdict(site, verdict);
    }
    void log_started(const executor::TaskCallSite& site, const std::string& workload,
                     const std::filesystem::path& path) override {
      logs_.started(site, workload, path);
      if (!workload.empty()) progress_.workload_started(site, workload);
    }
    void log_finished(const executor::TaskCallSite& site, const std::string& workload) override {
      logs_.finished(site, workload);
    }
    // A replay simulates nothing: the run dirs its cached results name are its original's.
    bool wants_coverage() const override { return !replay_.is_replay(); }
    void coverage(const executor::TaskCallSite& site, const openpiton::CoverageResult& c) override {
      record_coverage(recorder_, logs_, site, c, system_now_ms());
    }
    bool wants_waveform() const override { return !replay_.is_replay(); }
    void waveform_started(const executor::TaskCallSite& site, const std::string& workload) override {
      recorder_.message(site.iteration, site.task_id,
                        "re-simulating " + workload + " on its traced model for the waveform before the failure");
    }
    void waveform(const executor::TaskCallSite& site, const loop::FailureWaveform& w) override {
      record_waveform(recorder_, logs_, site, w, system_now_ms());
    }

   private:
    RunRecorder& recorder_;
    ProgressEvents& progress_;
    LogKeeper& logs_;
    const RunReplay& replay_;
  };

  RunRecorder& recorder_;
  const RunSettings& settings_;
  const os::CancelToken& cancel_;
  store::RunRecord record_;
  RunSpec spec_;
  RecordingObserver observer_;
  ProgressEvents progress_;
  LogKeeper logs_;
  RunReplay replay_;
  TaskRecording task_observer_{recorder_, progress_, logs_, replay_};
  std::unique_ptr<loop::Planner> planner_;
  std::unique_ptr<PlannerTaskLlm> planner_task_llm_;
  executor::TaskLlm* task_llm_ = nullptr;
  std::optional<eval::JobInstructions> eval_job_;
  std::optional<openpiton::GenericCore> generic_;
  RunLease lease_;  // handed to the run's LeasedRunner when it starts
  std::shared_ptr<slurm::JobObserver> slurm_jobs_;
  std::set<std::string> made_ready_;  // checkouts an evaluation job made ready
  std::string environment_;           // record_environment's
};

}  // namespace

RunEnding execute_run(RunRecorder& recorder, const RunSettings& settings, RunLease lease,
                      const os::CancelToken& cancel) {
  try {
    return Run(recorder, settings, std::move(lease), cancel).execute();
  } catch (const std::exception& e) {
    return {RunState::error, e.what()};  // REQ-BUD-10: this run ends; maced goes on
  }
}

}  // namespace mace::run
