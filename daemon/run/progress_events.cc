#include "run/progress_events.h"

#include <algorithm>
#include <cstdio>

namespace mace::run {
namespace {

std::string site_key(const executor::TaskCallSite& site) {
  return std::to_string(site.iteration) + "/" + site.task_id + "/" + site.narrowing;
}

// Objects compiled before their pace is trusted to say how long the rest will take.
constexpr int kObjectsBeforeAPace = 3;

std::string progress_message(const openpiton::BuildProgress& p) {
  std::string text(openpiton::to_string(p.phase));
  if (p.phase != openpiton::BuildPhase::verilating) {
    text += " " + std::to_string(p.objects_done);
    if (p.objects_total > 0) text += "/" + std::to_string(p.objects_total);
    text += " objects";
  }
  return text;
}

}  // namespace

ProgressEvents::ProgressEvents(RunRecorder& recorder, const RunSpec& spec, Clock now_ms)
    : recorder_(recorder), spec_(spec), now_ms_(std::move(now_ms)) {}

void ProgressEvents::build_progress(const executor::TaskCallSite& site,
                                    const openpiton::BuildProgress& progress) {
  const int64_t now = now_ms_();
  RunningBuild build;
  {
    std::lock_guard lock(mutex_);
    auto it = builds_.find(site_key(site));
    if (it == builds_.end()) {
      RunningBuild fresh;
      fresh.started_ms = now;
      const std::string core(to_string(spec_.core));
      fresh.typical_s = recorder_.with_store([&](store::Store& s) {
        return s.typical_build_seconds(core, spec_.mesh_x, spec_.mesh_y);
      });
      it = builds_.emplace(site_key(site), fresh).first;
    }
    if (progress.phase != openpiton::BuildPhase::verilating && it->second.compiling_since_ms == 0)
      it->second.compiling_since_ms = now;
    it->second.last = progress;
    build = it->second;
  }
  store::EventRecord e;
  e.run_id = recorder_.run_id();
  e.kind = EventKind::build_progress;
  e.iteration = site.iteration;
  e.task_id = site.task_id;
  e.stage = TaskStage::building;
  e.message = progress_message(progress) + (site.narrowing.empty() ? "" : " (narrowing: " + site.narrowing + ")");
  e.objects_done = progress.objects_done;
  e.objects_total = progress.objects_total;
  e.elapsed_ms = now - build.started_ms;
  if (build.typical_s)
    e.estimate_left_ms = std::max<int64_t>(0, static_cast<int64_t>(*build.typical_s * 1000) - e.elapsed_ms);
  if (progress.phase == openpiton::BuildPhase::compiling && progress.objects_total > 0 &&
      progress.objects_done >= kObjectsBeforeAPace) {
    const int64_t per_object = (now - build.compiling_since_ms) / progress.objects_done;
    const int64_t by_pace = per_object * (progress.objects_total - progress.objects_done);
    e.estimate_left_ms = e.estimate_left_ms < 0 ? by_pace : std::min(e.estimate_left_ms, by_pace);
  }
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

void ProgressEvents::verdict(const executor::TaskCallSite& site, const loop::WorkloadVerdict& v) {
  if (!site.narrowing.empty()) return;
  char wall[32];
  std::snprintf(wall, sizeof wall, "%.1f s", v.wall_s);
  recorder_.event(EventKind::verdict, site.iteration, site.task_id, std::nullopt, wall, v.workload,
                  v.verdict);
}

}  // namespace mace::run
