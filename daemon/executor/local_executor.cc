#include "executor/local_executor.h"

#include <fstream>
#include <thread>

#include "openpiton/build_config.h"
#include "openpiton/builder.h"
#include "openpiton/simulator.h"

namespace mace::executor {
namespace {

openpiton::Core adapter_core(Core core) {
  switch (core) {
    case Core::ariane: return openpiton::Core::ariane;
    case Core::sparc: return openpiton::Core::sparc;
    case Core::pico: return openpiton::Core::pico;
    case Core::generic: return openpiton::Core::generic;
  }
  return openpiton::Core::ariane;
}

// REQ-EXEC-5/6: the task's configuration is the run's core and mesh, the task's caches,
// the defines of the task and its dependencies, and coverage when the spec asks.
openpiton::BuildConfig build_config_for(const RunSpec& spec, const loop::TaskJob& job) {
  openpiton::BuildConfig config;
  config.core = adapter_core(spec.core);
  config.x_tiles = spec.mesh_x;
  config.y_tiles = spec.mesh_y;
  for (openpiton::Cache cache : openpiton::kAllCaches) {
    auto it = job.caches.find(std::string(openpiton::to_string(cache)));
    if (it != job.caches.end())
      config.caches[cache] = {it->second.size, it->second.associativity};
  }
  config.rtl_defines = openpiton::normalise_defines(job.defines);
  if (spec.coverage) config.extra_flags.push_back("-vlt_build_args=--coverage-line");
  return config;
}

// What triage is shown of a log (REQ-FAIL-2): its end, where builds and runs say what
// went wrong.
constexpr std::size_t kTriageTailBytes = 16 * 1024;

std::string last_bytes(const std::string& text, std::size_t n) {
  return text.size() <= n ? text : text.substr(text.size() - n);
}

std::string read_tail(const std::filesystem::path& path, std::size_t n) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  std::streamoff start = size > static_cast<std::streamoff>(n) ? size - static_cast<std::streamoff>(n) : 0;
  in.seekg(start);
  std::string out(static_cast<std::size_t>(size - start), '\0');
  in.read(out.data(), static_cast<std::streamsize>(out.size()));
  out.resize(static_cast<std::size_t>(in.gcount()));
  return out;
}

}  // namespace

LocalExecutor::LocalExecutor(const RunSpec& spec, std::vector<openpiton::Checkout> checkouts,
                             std::filesystem::path workloads_dir,
                             const openpiton::CancelToken* cancel)
    : spec_(spec),
      checkouts_(std::move(checkouts)),
      workloads_dir_(std::move(workloads_dir)),
      cancel_(cancel) {}

std::vector<loop::TaskOutcome> LocalExecutor::run_batch(int iteration,
                                                        const std::vector<loop::TaskJob>& jobs) {
  std::vector<loop::TaskOutcome> outcomes(jobs.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    threads.emplace_back([&, i] {
      try {
        outcomes[i] = run_task(iteration, jobs[i]);
      } catch (const std::exception& e) {
        outcomes[i].task_id = jobs[i].task.id;
        outcomes[i].failure_reason = "executor_error";
        outcomes[i].evidence = {e.what()};
      }
    });
  }
  for (auto& t : threads) t.join();
  return outcomes;
}

loop::TaskOutcome LocalExecutor::run_task(int iteration, const loop::TaskJob& job) {
  loop::TaskOutcome outcome;
  outcome.task_id = job.task.id;
  if (job.slot >= checkouts_.size()) {
    outcome.failure_reason = "no_checkout";
    outcome.evidence = {"the run holds no checkout for slot " + std::to_string(job.slot)};
    return outcome;
  }
  const openpiton::Checkout& checkout = checkouts_[job.slot];
  outcome.checkout = checkout.root().string();

  // REQ-EXEC-10, 11: the prompt call comes first; whatever it answers, the task builds.
  if (job.prompt && task_prompt) {
    if (on_stage) on_stage(iteration, job.task.id, "prompting");
    outcome.llm_cost_usd += task_prompt(iteration, job);
  }
  if (on_stage) on_stage(iteration, job.task.id, "building");
  openpiton::BuildOptions options;
  options.timeout = job.build_limit;
  options.cancel = cancel_;
  // A cancelled run's build must stop at once; nothing of a half-built model is kept.
  options.kill_grace = std::chrono::seconds(3);
  openpiton::BuildResult build = openpiton::build(checkout, build_config_for(spec_, job), options);
  outcome.build_id = build.build_id;
  outcome.reused = build.reused;
  outcome.build_log = build.log_path;
  if (!build.success) {
    outcome.build_output_tail = last_bytes(build.tail, kTriageTailBytes);
    outcome.failure_reason = build.failure_reason;
    outcome.evidence = build.error_lines;
    if (outcome.evidence.empty() && !build.message.empty()) outcome.evidence = {build.message};
    return outcome;
  }
  outcome.built = true;

  if (on_stage) on_stage(iteration, job.task.id, "running");
  openpiton::SimulationRequest request{.checkout = checkout,
                                       .build_id = build.build_id,
                                       .core = adapter_core(spec_.core),
                                       .x_tiles = spec_.mesh_x,
                                       .y_tiles = spec_.mesh_y,
                                       .workloads = spec_.workloads,
                                       .workloads_dir = workloads_dir_,
                                       .rtl_timeout = spec_.effective_rtl_timeout(),
                                       .max_cycle = spec_.max_cycle};
  for (const auto& [program, args] : spec_.workload_args)
    request.per_workload[program] = {args.finish_mask, args.options};
  request.time_limit = job.run_limit;
  request.cancel = cancel_;
  request.kill_grace = std::chrono::seconds(3);
  openpiton::SimulationResult simulated = openpiton::simulate_workloads(request);
  for (const auto& run : simulated.runs) {
    outcome.verdicts.push_back({run.workload, std::string(openpiton::to_string(run.verdict)),
                                run.run_dir, run.wall_seconds, run.returncode});
  }
  outcome.passed = simulated.passed;
  if (!simulated.passed) {
    outcome.failure_reason = simulated.failure_reason;
    if (!simulated.runs.empty()) {
      const auto& last = simulated.runs.back();
      outcome.sim_log_tail = last.sim_log_tail;
      outcome.status_log = read_tail(last.run_dir / "status.log", kTriageTailBytes);
      if (!last.error.empty()) outcome.evidence.push_back(last.error);
      if (!last.marker_line.empty()) outcome.evidence.push_back(last.marker_line);
      if (!last.status_line.empty()) outcome.evidence.push_back(last.status_line);
      outcome.evidence.push_back(last.sim_log_tail);
    } else if (!simulated.failure_detail.empty()) {
      outcome.evidence.push_back(simulated.failure_detail);
    }
  }
  return outcome;
}

}  // namespace mace::executor
