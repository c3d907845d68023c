#include "replay/tag.h"

namespace mace::replay {

std::string call_tag(std::string_view run_id, int iteration, std::string_view task_id,
                     std::string_view phase) {
  std::string tag(run_id);
  tag += "/iter" + std::to_string(iteration) + "/";
  tag += task_id;
  tag += '/';
  tag += phase;
  return tag;
}

std::string run_phase(std::size_t workload_index, std::string_view workload) {
  if (workload_index == 0) return std::string(kRunFunction);
  return std::string(kRunFunction) + ":" + std::string(workload);
}

std::string narrowing_phase(std::string_view phase, std::string_view narrowing) {
  if (narrowing.empty()) return std::string(phase);
  return std::string(phase) + "[" + std::string(narrowing) + "]";
}

std::string with_run_id(std::string_view tag, std::string_view run_id) {
  // Run IDs hold no '/', so the first one ends the run's part.
  std::size_t slash = tag.find('/');
  std::string out(run_id);
  if (slash != std::string_view::npos) out += tag.substr(slash);
  return out;
}

}  // namespace mace::replay
