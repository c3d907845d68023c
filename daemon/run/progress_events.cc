#include "run/progress_events.h"

#include <algorithm>
#include <cstdio>

namespace mace::run {
namespace {

std::string site_key(const executor::TaskCallSite& site) {
  return std::to_string(site.iteration) + "/" + site.task_id + "/" + site.narrowing;
}

std::string progress_message(const openpiton::BuildProgress& p) {
  std::string text(openpiton::to_string(p.phase));
  if (p.phase != openpiton::BuildPhase::verilating) {
    text += " " + std::to_string(p.objects_done);
    if (p.objects_total > 0) text += "/" + std::to_string(p.objects_total);
    text += " objects";
  }
  return text;
}

// How much of the compiling is done: by bytes of source when their sizes are known, else
// by objects (the one started last counting half); negative while not known.
double fraction_done(const openpiton::BuildProgress& p) {
  if (p.phase == openpiton::BuildPhase::verilating) return -1;
  if (p.phase == openpiton::BuildPhase::linking) return 1;
  if (p.work_total > 0) return static_cast<double>(p.work_done) / static_cast<double>(p.work_total);
  if (p.objects_total > 0)
    return (p.objects_done - (p.objects_done > 0 ? 0.5 : 0)) / p.objects_total;
  return -1;
}

}  // namespace

ProgressEvents::ProgressEvents(RunRecorder& recorder, const RunSpec& spec, Clock now_ms)
    : recorder_(recorder), spec_(spec), now_ms_(std::move(now_ms)) {}

void ProgressEvents::build_progress(const executor::TaskCallSite& site,
                                    const openpiton::BuildProgress& progress) {
  const int64_t now = now_ms_();
  store::EventRecord e;
  {
    std::lock_guard lock(mutex_);
    auto it = builds_.find(site_key(site));
    if (it == builds_.end()) {
      const std::string core(to_string(spec_.core));
      const auto typical_s = recorder_.with_store([&](store::Store& s) {
        return s.typical_build_seconds(core, spec_.mesh_x, spec_.mesh_y);
      });
      std::optional<int64_t> typical_ms;
      if (typical_s) typical_ms = static_cast<int64_t>(*typical_s * 1000);
      it = builds_.emplace(site_key(site), RunningBuild{now, 0, BuildTimeEstimate(typical_ms), {}})
               .first;
    }
    RunningBuild& build = it->second;
    if (progress.phase != openpiton::BuildPhase::verilating && build.compiling_since_ms == 0)
      build.compiling_since_ms = now;
    build.last = progress;
    e.elapsed_ms = now - build.started_ms;
    const int64_t compiling_ms = build.compiling_since_ms ? now - build.compiling_since_ms : 0;
    e.estimate_left_ms = build.estimate.update(e.elapsed_ms, compiling_ms, fraction_done(progress));
  }
  e.run_id = recorder_.run_id();
  e.kind = EventKind::build_progress;
  e.iteration = site.iteration;
  e.task_id = site.task_id;
  e.stage = TaskStage::building;
  e.message = progress_message(progress) + (site.narrowing.empty() ? "" : " (narrowing: " + site.narrowing + ")");
  e.objects_done = progress.objects_done;
  e.objects_total = progress.objects_total;
  recorder_.record(e);
}

void ProgressEvents::build_finished(const executor::TaskCallSite& site,
                                    const openpiton::BuildResult& build) {
  std::optional<RunningBuild> ran;
  {
    std::lock_guard lock(mutex_);
    auto it = builds_.find(site_key(site));
    if (it != builds_.end()) {
      ran = it->second;
      builds_.erase(it);
    }
  }
  // Only a build seen running here took the time it reports: a reused model or one served
  // from the replay cache took none.
  if (!ran || !build.success || build.reused) return;
  store::BuildTimeRecord record{recorder_.run_id(),
                                build.build_id,
                                std::string(to_string(spec_.core)),
                                spec_.mesh_x,
                                spec_.mesh_y,
                                build.wall_seconds,
                                ran->last.objects_done,
                                now_ms_()};
  recorder_.with_store([&](store::Store& s) { s.record_build_time(record); });
}

void ProgressEvents::workload_started(const executor::TaskCallSite& site, const std::string& workload) {
  if (!site.narrowing.empty()) return;
  store::EventRecord e;
  e.kind = EventKind::workload_started;
  e.iteration = site.iteration;
  e.task_id = site.task_id;
  e.workload = workload;
  recorder_.record(e);
}

void ProgressEvents::verdict(const executor::TaskCallSite& site, const loop::WorkloadVerdict& v) {
  if (!site.narrowing.empty()) return;
  char wall[32];
  std::snprintf(wall, sizeof wall, "%.1f s", v.wall_s);
  store::EventRecord e;
  e.kind = EventKind::verdict;
  e.iteration = site.iteration;
  e.task_id = site.task_id;
  e.workload = v.workload;
  e.verdict = v.verdict;
  e.message = wall;
  if (v.cycles) e.message += ", " + std::to_string(*v.cycles) + " cycles";
  e.verdict_time = v.verdict_time;
  e.cycles = v.cycles;
  recorder_.record(e);
}

}  // namespace mace::run
