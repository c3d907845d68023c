#include "core/pareto.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <numeric>

#include "core/html_text.h"

namespace mace {

bool dominates(const ParetoPoint& a, const ParetoPoint& b) {
  return a.area <= b.area && a.cycles <= b.cycles && (a.area < b.area || a.cycles < b.cycles);
}

std::vector<bool> pareto_front(const std::vector<ParetoPoint>& points) {
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

namespace {

std::string escaped(const std::string& s) { return html_escaped(s); }

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

constexpr int kWidth = 520;

}  // namespace

std::string grouped_digits(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  for (int at = static_cast<int>(digits.size()) - 3; at > 0; at -= 3) digits.insert(static_cast<std::size_t>(at), ",");
  return (n < 0 ? "-" : "") + digits;
}

std::string pareto_chart_html(std::size_t index, const std::string& workload, std::vector<ParetoPoint> points) {
  constexpr int kHeight = 320, kLeft = 80, kRight = 20, kTop = 30, kBottom = 46;
  std::vector<bool> front = pareto_front(points);
  // The front first, each part by area: what is drawn when not everything can be.
  std::vector<std::size_t> order(points.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (front[a] != front[b]) return static_cast<bool>(front[a]);
    return points[a].area < points[b].area;
  });
  const std::size_t drawn = std::min(order.size(), kMaxChartPoints);
  double min_area = points[order[0]].area, max_area = min_area;
  int64_t min_cycles = points[order[0]].cycles, max_cycles = min_cycles;
  for (std::size_t k = 0; k < drawn; ++k) {
    const auto& p = points[order[k]];
    min_area = std::min(min_area, p.area);
    max_area = std::max(max_area, p.area);
    min_cycles = std::min(min_cycles, p.cycles);
    max_cycles = std::max(max_cycles, p.cycles);
  }
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  auto x_of = [&](double area) {
    return kLeft + (max_area > min_area ? plot_w * (area - min_area) / (max_area - min_area) : plot_w / 2);
  };
  auto y_of = [&](int64_t cycles) {
    return kTop + (max_cycles > min_cycles
                       ? plot_h * (1.0 - static_cast<double>(cycles - min_cycles) /
                                             static_cast<double>(max_cycles - min_cycles))
                       : plot_h / 2);
  };
  const std::string id = "plot-pareto-" + std::to_string(index + 1);
  std::string svg = "<svg id=\"" + id + "\" class=\"plot pareto\" data-workload=\"" + escaped(workload) +
                    "\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(kWidth) +
                    "\" height=\"" + std::to_string(kHeight) + "\" role=\"img\" aria-label=\"cache area against " +
                    escaped(workload) + " cycles\">";
  svg += "<text x=\"4\" y=\"18\" font-weight=\"bold\">" + escaped(workload) +
         ": cycles against cache area per tile</text>";
  svg += "<rect x=\"" + std::to_string(kLeft) + "\" y=\"" + std::to_string(kTop) + "\" width=\"" +
         fixed(plot_w, 0) + "\" height=\"" + fixed(plot_h, 0) + "\" fill=\"none\" stroke=\"#ccc\"/>";
  // The staircase through the front: from each front design to the next larger one.
  std::vector<std::size_t> on_front;
  for (std::size_t k = 0; k < drawn; ++k)
    if (front[order[k]]) on_front.push_back(order[k]);
  std::string path;
  for (std::size_t k = 0; k < on_front.size(); ++k) {
    const auto& p = points[on_front[k]];
    path += k == 0 ? "M" + fixed(x_of(p.area), 1) + " " + fixed(y_of(p.cycles), 1)
                   : " H" + fixed(x_of(p.area), 1) + " V" + fixed(y_of(p.cycles), 1);
  }
  if (on_front.size() > 1)
    svg += "<path class=\"front-line\" d=\"" + path + "\" fill=\"none\" stroke=\"#c0504d\"/>";
  for (std::size_t k = 0; k < drawn; ++k) {
    const auto& p = points[order[k]];
    const bool f = front[order[k]];
    svg += "<circle class=\"" + std::string(f ? "front" : "dominated") + "\" cx=\"" + fixed(x_of(p.area), 1) +
           "\" cy=\"" + fixed(y_of(p.cycles), 1) + "\" r=\"5\" " +
           (f ? "fill=\"#c0504d\"" : "fill=\"none\" stroke=\"#4a7bb7\"") + "><title>" + escaped(p.label) +
           ": " + escaped(p.configuration) + "; area " + fixed(p.area, 1) + ", " + grouped_digits(p.cycles) +
           " cycles</title></circle>";
  }
  const int axis_y = kHeight - kBottom;
  svg += "<text x=\"" + std::to_string(kLeft) + "\" y=\"" + std::to_string(axis_y + 16) + "\">" +
         fixed(min_area, 1) + "</text>";
  svg += "<text x=\"" + fixed(kLeft + plot_w, 0) + "\" y=\"" + std::to_string(axis_y + 16) +
         "\" text-anchor=\"end\">" + fixed(max_area, 1) + "</text>";
  svg += "<text x=\"" + fixed(kLeft + plot_w / 2, 0) + "\" y=\"" + std::to_string(axis_y + 36) +
         "\" text-anchor=\"middle\">cache area per tile (KiB-equivalents)</text>";
  svg += "<text x=\"" + std::to_string(kLeft - 6) + "\" y=\"" + std::to_string(kTop + 10) +
         "\" text-anchor=\"end\">" + grouped_digits(max_cycles) + "</text>";
  svg += "<text x=\"" + std::to_string(kLeft - 6) + "\" y=\"" + std::to_string(axis_y) +
         "\" text-anchor=\"end\">" + grouped_digits(min_cycles) + "</text>";
  svg += "<text x=\"4\" y=\"" + std::to_string(kTop + static_cast<int>(plot_h / 2)) + "\">cycles</text>";
  svg += "</svg>\n";
  if (drawn < points.size())
    svg += "<p class=\"not-drawn\">" + std::to_string(points.size() - drawn) + " of " +
           std::to_string(points.size()) + " designs not drawn: a chart shows at most " +
           std::to_string(kMaxChartPoints) + ", the Pareto front first.</p>\n";
  std::string table = "<table class=\"pareto-front\" data-workload=\"" + escaped(workload) +
                      "\"><thead><tr><th>design</th><th>configuration</th><th>area</th><th>" + escaped(workload) +
                      " cycles</th></tr></thead><tbody>\n";
  for (std::size_t k = 0; k < on_front.size(); ++k) {
    const auto& p = points[on_front[k]];
    table += "<tr><td>" + escaped(p.label) + "</td><td>" + escaped(p.configuration) + "</td><td class=\"num\">" +
             fixed(p.area, 1) + "</td><td class=\"num\">" + grouped_digits(p.cycles) + "</td></tr>\n";
  }
  return svg + table + "</tbody></table>\n";
}

}  // namespace mace
