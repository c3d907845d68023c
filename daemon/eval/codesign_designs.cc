#include "eval/codesign_designs.h"

#include <algorithm>

#include "core/direct_planner.h"
#include "core/joined.h"
#include "core/cache_area.h"

namespace mace::eval {

std::vector<std::string_view> searchable_networks(Core core, int64_t x, int64_t y) {
  if ((core == Core::pico || core == Core::sparc) && x > 1 && y == 1) return {"xbar_config"};
  return {};
}

std::vector<CodesignDesign> codesign_designs(const RunSpec& spec, const SuiteConfig& expert,
                                             double area_budget) {
  struct Candidate {
    SuiteConfig config;
    double area;
  };
  std::vector<Candidate> fitting;
  for (int64_t l1d : {4096, 8192, 16384, 32768})
    for (int64_t l15 : {4096, 8192, 16384})
      for (int64_t l2 : {32768, 65536, 131072}) {
        SuiteConfig c = expert;
        c.caches["l1d"] = {l1d, 4};
        c.caches["l15"] = {l15, 4};
        c.caches["l2"] = {l2, 4};
        double area = tile_cache_area(c.caches);
        if (area <= area_budget) fitting.push_back({std::move(c), area});
      }
  std::stable_sort(fitting.begin(), fitting.end(),
                   [](const Candidate& a, const Candidate& b) { return a.area > b.area; });
  const auto networks = searchable_networks(spec.core, spec.mesh_x, spec.mesh_y);
  std::vector<CodesignDesign> out;
  for (const auto& candidate : fitting) {
    // The network does not change the cache area: each geometry is tried on every network
    // before a smaller geometry is, so the largest geometries are compared across networks.
    out.push_back({candidate.config, ""});
    for (auto network : networks) out.push_back({candidate.config, std::string(network)});
    if (out.size() >= kMaxCodesignDesigns) break;
  }
  if (out.size() > kMaxCodesignDesigns) out.resize(kMaxCodesignDesigns);
  return out;
}

std::string codesign_plan_reply(const RunSpec& spec, const std::vector<CodesignDesign>& designs) {
  std::string reply;
  for (size_t i = 0; i < designs.size(); ++i) {
    const CodesignDesign& design = designs[i];
    reply += design_task_lines(
        "d" + std::to_string(i + 1),
        "Co-design candidate " + std::to_string(i + 1) + " (cache area " +
            std::to_string(static_cast<int64_t>(tile_cache_area(design.config.caches))) + " KiB-equivalents per tile" +
            (design.network.empty() ? "" : ", network " + design.network) + "): build the " +
            std::string(to_string(spec.core)) + " " + std::to_string(spec.mesh_x) + "x" + std::to_string(spec.mesh_y) +
            " mesh and run " + joined(spec.workloads),
        design.config.caches, design.config.defines, design.network);
  }
  return reply;
}

}  // namespace mace::eval
