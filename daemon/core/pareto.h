#pragma once
// The trade-off between a design's cache area (the area model of core/cache_area.h) and one
// gate workload's simulated cycles, smaller being better in both: a co-design search's, and
// a run's own designs'. The designs on the Pareto front are those no other design beats in
// one without losing in the other: the ones an architect chooses among. Drawn as an SVG
// chart with the front as a table, the same in the evaluation report and the run report.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mace {

struct ParetoPoint {
  std::string label;  // which design: "job 3 iter1 d2", "l15_4k"
  std::string configuration;
  double area = 0;
  int64_t cycles = 0;
};

// Whether `a` dominates `b`: no larger in area or cycles, and smaller in one.
bool dominates(const ParetoPoint& a, const ParetoPoint& b);

// For each point, whether it is on the front (no other point dominates it). Two designs
// equal in both are both on it.
std::vector<bool> pareto_front(const std::vector<ParetoPoint>& points);

// A chart draws at most this many designs (the front first), so thousands of designs still
// give a page a browser opens.
inline constexpr std::size_t kMaxChartPoints = 500;

// HTML: `points` (at least one) as area (x) against `workload`'s cycles (y), in an <svg>
// with id "plot-pareto-<index + 1>", the front filled and joined by its staircase, every
// other design hollow; below it, the front as a table. Every text in it is escaped.
std::string pareto_chart_html(std::size_t index, const std::string& workload, std::vector<ParetoPoint> points);

// 133920 as "133,920".
std::string grouped_digits(int64_t n);

}  // namespace mace
