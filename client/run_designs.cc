#include "run_designs.h"

#include <algorithm>

#include "capnp_text.h"
#include "core/cache_area.h"
#include "render.h"
#include "tile_figures_text.h"

namespace mace::client {

ComparedDesign compared_design(api::RunDetail::Reader run, api::TaskState::Reader t) {
  ComparedDesign d;
  d.run_id = text(run.getSummary().getRunId());
  d.task_id = text(t.getTaskId());
  d.iteration = t.getIteration();
  d.run_state = state_name(run.getSummary().getState());
  if (has_configuration(t)) {
    d.configuration = design_configuration(t);
    d.area = design_cache_area(*d.configuration);
  }
  d.build = build_figures_text(t);
  if (t.getBuildWallS() >= 0) d.build_wall_s = t.getBuildWallS();
  if (t.getBuildCpuS() >= 0) d.build_cpu_s = t.getBuildCpuS();
  if (t.getBuildPeakRssBytes() >= 0) d.build_peak_rss_bytes = t.getBuildPeakRssBytes();
  for (auto w : run.getSummary().getWorkloads()) d.gate_workloads.push_back(text(w));
  for (auto r : t.getResults()) {
    ComparedResult result;
    result.workload = text(r.getWorkload());
    result.verdict = verdict_name(r.getVerdict());
    if (r.getCycles() >= 0) result.cycles = r.getCycles();
    if (r.getVerdictTime() >= 0) result.verdict_time = r.getVerdictTime();
    result.wall_s = r.getWallS();
    result.tiles = tile_figures_of(r.getTiles());
    d.results.push_back(std::move(result));
  }
  return d;
}

std::optional<Comparison> run_designs_comparison(api::RunDetail::Reader run) {
  uint32_t last = 0;
  for (auto t : run.getTasks()) last = std::max(last, t.getIteration());
  std::vector<ComparedDesign> designs;
  for (auto t : run.getTasks())
    if (t.getIteration() == last && t.getKind() == "config" && has_configuration(t))
      designs.push_back(compared_design(run, t));
  if (designs.size() < 2) return std::nullopt;
  // The baseline first: the task named so, else the first of OpenPiton's defaults.
  auto base = std::find_if(designs.begin(), designs.end(), [](const ComparedDesign& d) { return d.task_id == "baseline"; });
  if (base == designs.end())
    base = std::find_if(designs.begin(), designs.end(),
                        [](const ComparedDesign& d) { return is_default_configuration(*d.configuration); });
  if (base != designs.end()) std::rotate(designs.begin(), base, base + 1);
  return compare_designs(std::move(designs));
}

}  // namespace mace::client
