#pragma once
// The trade-off a co-design search explores: each feasible design's cache area (the area
// model of eval/cache_area.h) against one gate workload's simulated cycles, smaller being
// better in both. The designs on the Pareto front are those no other design beats in one
// without losing in the other: the ones an architect chooses among.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mace::eval {

struct DesignPoint {
  std::string label;  // which design: "job 3 iter1 d2"
  std::string configuration;
  double area = 0;
  int64_t cycles = 0;
};

// Whether `a` dominates `b`: no larger in area or cycles, and smaller in one.
bool dominates(const DesignPoint& a, const DesignPoint& b);

// For each point, whether it is on the front (no other point dominates it). Two designs
// equal in both are both on it.
std::vector<bool> pareto_front(const std::vector<DesignPoint>& points);

}  // namespace mace::eval
