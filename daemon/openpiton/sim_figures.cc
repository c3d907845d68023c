#include "openpiton/sim_figures.h"

namespace mace::openpiton {
namespace {

constexpr std::size_t kMaxDigits = 18;  // below INT64_MAX whatever they are

bool is_blank(char c) { return c == ' ' || c == '\t'; }

}  // namespace

SimulationFigures figures_from_verdict_line(std::string_view line) {
  SimulationFigures figures;
  std::size_t i = 0;
  while (i < line.size() && is_blank(line[i])) ++i;
  const std::size_t first_digit = i;
  std::int64_t time = 0;
  while (i < line.size() && line[i] >= '0' && line[i] <= '9') {
    if (i - first_digit == kMaxDigits) return figures;
    time = time * 10 + (line[i] - '0');
    ++i;
  }
  if (i == first_digit) return figures;
  while (i < line.size() && is_blank(line[i])) ++i;
  if (i == line.size() || line[i] != ':') return figures;
  ++i;
  while (i < line.size() && is_blank(line[i])) ++i;
  if (line.substr(i, 10) != "Simulation") return figures;
  figures.verdict_time = time;
  figures.cycles = time / kVerilatorTimePerCycle;
  return figures;
}

}  // namespace mace::openpiton
