#include "eval/pareto.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace mace::eval {

bool dominates(const DesignPoint& a, const DesignPoint& b) {
  return a.area <= b.area && a.cycles <= b.cycles && (a.area < b.area || a.cycles < b.cycles);
}

std::vector<bool> pareto_front(const std::vector<DesignPoint>& points) {
  // One sweep in order of area (a batch may hold thousands of designs): a point is
  // dominated when a smaller design is no slower, or a design of its own area is faster.
  std::vector<std::size_t> order(points.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return points[a].area != points[b].area ? points[a].area < points[b].area
                                            : points[a].cycles < points[b].cycles;
  });
  std::vector<bool> front(points.size(), false);
  int64_t fastest_smaller = std::numeric_limits<int64_t>::max();
  for (std::size_t begin = 0; begin < order.size();) {
    std::size_t end = begin;
    while (end < order.size() && points[order[end]].area == points[order[begin]].area) ++end;
    const int64_t fastest_here = points[order[begin]].cycles;  // sorted by cycles within an area
    for (std::size_t k = begin; k < end; ++k) {
      const int64_t cycles = points[order[k]].cycles;
      front[order[k]] = fastest_smaller > cycles && fastest_here == cycles;
    }
    fastest_smaller = std::min(fastest_smaller, fastest_here);
    begin = end;
  }
  return front;
}

}  // namespace mace::eval
