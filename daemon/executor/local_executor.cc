#include "executor/local_executor.h"

#include <algorithm>
#include <thread>

#include "executor/adapter_bridge.h"
#include "executor/failure_waveform.h"
#include "executor/gate_workloads.h"
#include "executor/simulation_footprints.h"
#include "executor/rtl_task.h"
#include "executor/task_calls.h"
#include "executor/unit_test_task.h"
#include "openpiton/build_config.h"
#include "openpiton/builder.h"
#include "openpiton/simulator.h"
#include "os/text.h"

namespace mace::executor {
namespace {

// What triage is shown of a log (REQ-FAIL-2): its end, where builds and runs say what
// went wrong.
constexpr std::size_t kTriageTailBytes = 16 * 1024;

}  // namespace

LocalExecutor::LocalExecutor(const RunSpec& spec, ExecutorSettings settings)
    : spec_(spec),
      settings_(std::move(settings)),
      calls_(settings_.task_calls ? *settings_.task_calls : direct_calls_) {
  if (TaskLlm* llm = settings_.llm) {
    agent_ = [llm](int iteration, const loop::TaskJob& job, const std::string& prompt,
                   std::vector<llm::Tool> task_tools) {
      return llm->agent(iteration, job, prompt, std::move(task_tools));
    };
  }
}

void LocalExecutor::stage(int iteration, const loop::TaskJob& job, TaskStage stage) const {
  if (settings_.observer) settings_.observer->stage(iteration, job, stage);
}

LocalExecutor::~LocalExecutor() {
  for (auto& worker : workers_)
    if (worker.thread.joinable()) worker.thread.join();
}

void LocalExecutor::join_ended() {
  std::erase_if(workers_, [](Worker& worker) {
    if (!worker.ended->load()) return false;
    worker.thread.join();
    return true;
  });
}

void LocalExecutor::start(int iteration, loop::TaskJob job, openpiton::Checkout checkout,
                          std::function<void(const loop::TaskJob&, loop::TaskOutcome)> done) {
  join_ended();
  auto ended = std::make_shared<std::atomic<bool>>(false);
  ++under_way_;
  std::thread thread([this, iteration, job = std::move(job), checkout = std::move(checkout),
                      done = std::move(done), ended] {
    loop::TaskOutcome outcome = run(iteration, job, checkout);
    --under_way_;
    done(job, std::move(outcome));
    ended->store(true);
  });
  workers_.push_back({std::move(thread), std::move(ended)});
}

loop::TaskOutcome LocalExecutor::run(int iteration, const loop::TaskJob& job,
                                     const openpiton::Checkout& checkout) {
  try {
    return run_task(iteration, job, checkout);
  } catch (const std::exception& e) {
    loop::TaskOutcome outcome;
    outcome.task_id = job.task.id;
    outcome.failure_reason = FailureReason::executor_error;
    outcome.evidence = {e.what()};
    return outcome;
  }
}

loop::TaskOutcome LocalExecutor::run_task(int iteration, const loop::TaskJob& job,
                                          const openpiton::Checkout& leased) {
  loop::TaskOutcome outcome;
  outcome.task_id = job.task.id;
  // Named after its task, so a cluster's queue says whose work a job is.
  const openpiton::Checkout checkout = leased.labelled(
      job.narrowing.empty() ? job.task.id : job.task.id + "." + job.narrowing);
  outcome.checkout = checkout.root().string();

  if (job.task.kind == TaskKind::unit_test) {
    stage(iteration, job, TaskStage::building);  // REQ-EXEC-10
    return run_unit_test_task(iteration, job, spec_, checkout, agent_, settings_.cancel);
  }

  // REQ-EXEC-10, 11: the prompt call comes first; whatever it answers, the task builds.
  if (job.prompt && settings_.llm) {
    stage(iteration, job, TaskStage::prompting);
    outcome.llm_cost_usd += settings_.llm->prompt(iteration, job);
  }

  // REQ-EXEC-14..17: the edits the build carries go in before it and come out after its
  // runs, however the task ends (the guard restores on every way out).
  openpiton::EditSet edits;
  openpiton::AppliedEdits applied;
  try {
    // REQ-EVAL-12: a seeded source fault goes in first, as the full content it gives each
    // file of this checkout (what the loop carries between tasks).
    if (!settings_.fault_edits.empty())
      for (const auto& file : openpiton::compute_edited_files(checkout.root(), settings_.fault_edits))
        edits.edits.push_back(openpiton::FullContent{file.path.relative, file.content});
    edits.append(to_edit_set(job.edits));
    if (job.task.kind == TaskKind::rtl) {
      stage(iteration, job, TaskStage::prompting);
      const std::string brief =
          settings_.generic ? openpiton::wrapper_brief(*settings_.generic, checkout.root()) : "";
      AgentEdits agent_edits =
          rtl_agent_edits(iteration, job, spec_, checkout.root(), edits, agent_, brief);
      edits = std::move(agent_edits.edits);
      outcome.llm_cost_usd += agent_edits.cost_usd;
      outcome.agent_reply = agent_edits.agent_reply;
      outcome.agent_recorded_no_edit = agent_edits.agent_recorded_no_edit;
    }
    if (!edits.empty()) {
      outcome.applied_edits = to_rtl_edits(edits);
      outcome.edits_diff = openpiton::unified_diff(edits, checkout.root());
      outcome.edits_hash = openpiton::edits_hash(edits);
      applied = openpiton::apply_edits(checkout.root(), edits);
    }
  } catch (const openpiton::EditError& e) {
    outcome.failure_reason = FailureReason::rtl_edits_failed;
    outcome.evidence = {e.what()};
    return outcome;
  }
  // What is left of the run's wall-clock budget when the task was given to us (REQ-BUD-11):
  // the build's limit is capped by it, and the waveform of a failure must end by then too.
  const auto budget_end = std::chrono::steady_clock::now() + job.build_limit;
  build_and_simulate(iteration, job, checkout, outcome.edits_hash, budget_end, outcome);
  if (auto report = applied.restore(); !report.ok())
    for (const auto& error : report.errors) outcome.evidence.push_back("restoring RTL edits: " + error);
  return outcome;
}

void LocalExecutor::build_and_simulate(int iteration, const loop::TaskJob& job,
                                       const openpiton::Checkout& checkout,
                                       const std::string& edits_hash,
                                       std::chrono::steady_clock::time_point budget_end,
                                       loop::TaskOutcome& outcome) {
  // REQ-REPLAY-1: each build and workload run is a call of its own, tagged by its site.
  const TaskCallSite site{iteration, job.task.id, job.narrowing};
  stage(iteration, job, TaskStage::building);
  const BuildCall build = build_model(site, job, checkout, edits_hash);
  take_build(build, outcome);
  if (!build.result.success) return;
  if (!job.simulate) {  // a build-only check: the build is the verdict
    outcome.passed = true;
    return;
  }
  stage(iteration, job, TaskStage::running);
  simulate_gate(site, job, checkout, build.result.build_id, budget_end, outcome);
}

openpiton::BuildOptions LocalExecutor::build_options(const loop::TaskJob& job) const {
  openpiton::BuildOptions options;
  options.timeout = job.build_limit;
  options.cancel = settings_.cancel;
  // A cancelled run's build must stop at once; nothing of a half-built model is kept.
  options.kill_grace = std::chrono::seconds(3);
  options.model_store = settings_.model_store;
  options.compiler_cache_dir = settings_.compiler_cache_dir;
  options.compiler_cache_max_mb = settings_.compiler_cache_max_mb;
  return options;
}

SideBySideLimit LocalExecutor::side_by_side_limit(const std::string& build_id) const {
  const std::size_t cap = spec_.parallel_workloads ? static_cast<std::size_t>(*spec_.parallel_workloads)
                                                   : settings_.parallel_workloads;
  // On Slurm the task's workloads are steps of one allocation of that many simulate
  // steps, each bounded by the memory its step asks for; without a cap, one at a time, as
  // the partition's simulate resources were sized for.
  if (settings_.build_share) return {.at_once = cap ? cap : 1};
  const BuildShare share = local_build_share(std::max(under_way_.load(), LocalBuildSlot::in_process()));
  const auto cpus = static_cast<std::size_t>(share.cpus);
  return {.at_once = cap ? std::min(cap, cpus) : cpus,
          .memory_bytes = share.memory_mb * 1024 * 1024,
          .footprint_bytes = simulation_footprint(build_id)};
}

int LocalExecutor::compile_jobs_now(const LocalBuildSlot& slot) const {
  return compile_jobs(settings_.build_share.value_or(
      local_build_share(std::max(under_way_.load(), slot.builds_under_way()))));
}

BuildCall LocalExecutor::build_model(const TaskCallSite& site, const loop::TaskJob& job,
                                     const openpiton::Checkout& checkout,
                                     const std::string& edits_hash) {
  openpiton::BuildOptions options = build_options(job);
  openpiton::BuildConfig config = build_config_for(spec_, job);
  config.rtl_edits_hash = edits_hash;  // an edited design gets its own build ID
  if (TaskObserver* observer = settings_.observer) {
    options.on_progress = [observer, &site](const openpiton::BuildProgress& progress) {
      observer->build_progress(site, progress);
    };
    options.on_started = [observer, &site](const std::string& log_path) {
      observer->log_started(site, "", log_path);
    };
  }
  BuildCall build;
  {
    // sims' unbounded `make -j` within what this build was given. Here, the machine is
    // divided between this run's tasks under way and the builds of other runs.
    const LocalBuildSlot slot;
    options.max_parallelism = compile_jobs_now(slot);
    build = calls_.build(site, checkout, config, options);
  }
  if (settings_.observer) {
    settings_.observer->log_finished(site, "");
    settings_.observer->build_finished(site, build.result);
  }
  return build;
}

void LocalExecutor::take_build(const BuildCall& call, loop::TaskOutcome& outcome) const {
  const openpiton::BuildResult& build = call.result;
  outcome.build_id = build.build_id;
  outcome.build_figures.wall_s = build.wall_seconds;
  if (build.usage) {
    outcome.build_figures.cpu_s = build.usage->cpu_seconds;
    outcome.build_figures.peak_rss_bytes = build.usage->peak_rss_bytes;
  }
  outcome.reused = build.reused;
  outcome.reused_from = build.reused_from;
  outcome.build_origin = build.origin;
  outcome.store_notes = build.store_notes;
  outcome.build_log = build.log_path;
  outcome.build_argv = build.argv;
  outcome.build_environment = build.environment;
  outcome.built = build.success;
  if (build.success) return;
  outcome.build_output_tail = std::string(os::last_bytes(build.tail, kTriageTailBytes));
  outcome.failure_reason =
      call.cache_miss ? FailureReason::cache_miss : loop_failure_reason(build.failure_reason);
  if (lost_to_infrastructure(outcome.failure_reason)) outcome.lost_detail = build.message;
  outcome.evidence = build.error_lines;
  if (outcome.evidence.empty() && !build.message.empty()) outcome.evidence = {build.message};
}

openpiton::SimulationRequest LocalExecutor::simulation_request(const openpiton::Checkout& checkout,
                                                               const std::string& build_id) const {
  openpiton::SimulationRequest request{.checkout = checkout,
                                       .build_id = build_id,
                                       .core = adapter_core(spec_.core),
                                       .x_tiles = spec_.mesh_x,
                                       .y_tiles = spec_.mesh_y,
                                       .workloads = spec_.workloads,
                                       .workloads_dir = settings_.workloads_dir,
                                       .rtl_timeout = spec_.effective_rtl_timeout(),
                                       .max_cycle = spec_.max_cycle};
  for (const auto& [program, args] : spec_.workload_args)
    request.per_workload[program] = {args.finish_mask, args.options, args.rtl_timeout,
                                     args.max_cycle};
  if (settings_.generic)
    request.generic = openpiton::GenericProgramTarget{
        settings_.generic->march, settings_.generic->reset_vector,
        checkout.root() / openpiton::kGeneratedLinkScript};
  request.cancel = settings_.cancel;
  request.kill_grace = std::chrono::seconds(3);
  request.monitors = spec_.monitors;
  request.max_output_bytes = settings_.max_sim_output_bytes;
  return request;
}

void LocalExecutor::simulate_gate(const TaskCallSite& site, const loop::TaskJob& job,
                                  const openpiton::Checkout& checkout, const std::string& build_id,
                                  std::chrono::steady_clock::time_point budget_end,
                                  loop::TaskOutcome& outcome) {
  SideBySideLimit limit = side_by_side_limit(build_id);
  // Side by side on a cluster, the simulations hold one allocation on the checkout's node,
  // released as soon as they have ended; none to be had, they go one at a time.
  std::optional<openpiton::Checkout> held;
  if (limit.at_once > 1 && spec_.workloads.size() > 1) {
    std::string why;
    held = checkout.side_by_side(std::min(limit.at_once, spec_.workloads.size()), settings_.cancel, why);
    if (!held) limit.at_once = 1;
  }
  openpiton::SimulationRequest request = simulation_request(held ? *held : checkout, build_id);
  request.time_limit = job.run_limit;
  // A narrowing rebuild asks only whether its design passes: its first failure says so.
  request.run_every_workload = spec_.run_every_workload && job.narrowing.empty();
  TaskObserver* observer = settings_.observer;
  if (observer) {
    request.on_run_dir = [observer, &site](const std::string& workload, const std::filesystem::path& dir) {
      observer->log_started(site, workload, dir / "sim.log");
    };
  }
  WorkloadCall gate =
      run_gate_workloads(calls_, site, request, [&](const openpiton::WorkloadRunResult& run) {
        record_simulation_footprint(build_id, run.peak_rss_bytes);
        if (observer) observer->log_finished(site, run.workload);
        outcome.verdicts.push_back({run.workload, loop_verdict(run.verdict), run.run_dir,
                                    run.wall_seconds, run.returncode, run.verdict_time,
                                    run.cycles, run.error_line, run.excerpt, loop_tiles(run.tiles),
                                    run.argv, run.environment, loop_inputs(run.inputs), run.inputs.note});
        if (observer) observer->verdict(site, outcome.verdicts.back());
      }, limit);
  held.reset();
  const openpiton::SimulationResult& simulated = gate.result;
  merge_coverage(site, job, checkout, build_id, simulated);
  outcome.passed = simulated.passed;
  // REQ-VER-17: the task's first simulation decides, even when every workload passed.
  if (settings_.generic && !simulated.runs.empty() && !simulated.runs.front().run_dir.empty()) {
    const auto requests = openpiton::read_first_requests(
        std::filesystem::path(simulated.runs.front().run_dir) / "sim.log");
    if (auto problem = openpiton::first_request_problem(requests, settings_.generic->reset_vector)) {
      outcome.passed = false;
      outcome.failure_reason = FailureReason::wrong_first_request;
      outcome.evidence.push_back(*problem);
      return;
    }
  }
  if (!simulated.passed) {
    outcome.failure_reason =
        gate.cache_miss ? FailureReason::cache_miss : loop_failure_reason(simulated.failure_reason);
    if (lost_to_infrastructure(outcome.failure_reason)) outcome.lost_detail = simulated.failure_detail;
    // A failure after the last run passed (no time left for the next workload, a cache
    // miss) is its own evidence, not that run's transcript.
    if (const openpiton::WorkloadRunResult* failed = openpiton::deciding_failure(simulated)) {
      capture_waveform(site, job, checkout, *failed, budget_end, outcome);
      const auto& last = *failed;
      outcome.sim_log_tail = last.sim_log_tail;
      outcome.status_log = gate.status_log;
      if (!last.error.empty()) outcome.evidence.push_back(last.error);
      if (!last.marker_line.empty()) outcome.evidence.push_back(last.marker_line);
      if (!last.status_line.empty()) outcome.evidence.push_back(last.status_line);
      outcome.evidence.push_back(last.sim_log_tail);
    } else if (!simulated.failure_detail.empty()) {
      outcome.evidence.push_back(simulated.failure_detail);
    }
  }
}

void LocalExecutor::capture_waveform(const TaskCallSite& site, const loop::TaskJob& job,
                                     const openpiton::Checkout& checkout,
                                     const openpiton::WorkloadRunResult& failed,
                                     std::chrono::steady_clock::time_point budget_end,
                                     loop::TaskOutcome& outcome) const {
  // A narrowing rebuild asks whether its design passes; the task's own failure is traced.
  TaskObserver* observer = settings_.observer;
  if (!settings_.waveform || !job.narrowing.empty() || !observer || !observer->wants_waveform()) return;
  if (failed.cannot_run != openpiton::Failure::none || failed.host_stop != os::HostStop::none) return;
  if (settings_.cancel && settings_.cancel->cancelled()) return;
  observer->waveform_started(site, failed.workload);
  openpiton::BuildConfig config = build_config_for(spec_, job);
  config.rtl_edits_hash = outcome.edits_hash;
  openpiton::SimulationRequest simulation = simulation_request(checkout, "");
  simulation.time_limit = job.run_limit;
  simulation.deadline = budget_end;  // its time counts in the run's budget
  {
    const LocalBuildSlot slot;
    openpiton::BuildOptions options = build_options(job);
    options.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::min<std::chrono::steady_clock::duration>(job.build_limit, budget_end - std::chrono::steady_clock::now()));
    options.max_parallelism = compile_jobs_now(slot);
    outcome.waveform = trace_failure({.checkout = checkout,
                                      .config = std::move(config),
                                      .build = std::move(options),
                                      .simulation = std::move(simulation),
                                      .failed = failed,
                                      .settings = *settings_.waveform});
  }
  observer->waveform(site, outcome.waveform);
}

void LocalExecutor::merge_coverage(const TaskCallSite& site, const loop::TaskJob& job,
                                   const openpiton::Checkout& checkout, const std::string& build_id,
                                   const openpiton::SimulationResult& simulated) const {
  // A narrowing rebuild asks whether its design passes, not what it covers.
  if (!spec_.coverage || !job.narrowing.empty() || !settings_.observer || !settings_.observer->wants_coverage())
    return;
  if (settings_.cancel && settings_.cancel->cancelled()) return;
  openpiton::CoverageRequest request{.checkout = checkout, .build_id = build_id};
  for (const auto& run : simulated.runs)
    if (run.sims_invoked && !run.run_dir.empty()) request.run_dirs.push_back(run.run_dir);
  if (request.run_dirs.empty()) return;
  request.cancel = settings_.cancel;
  settings_.observer->coverage(site, openpiton::merge_coverage(request));
}

}  // namespace mace::executor
