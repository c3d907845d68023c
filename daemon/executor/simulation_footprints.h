#pragma once
// The most memory one simulation of each model took (its peak resident set), as this maced
// has seen it: what bounds how many of a task's simulations start side by side before any
// of them has ended (gate_workloads.h). A model's build ID names it; a few thousand models
// are remembered, the oldest forgotten first.

#include <cstdint>
#include <string>

namespace mace::executor {

// Remembers `peak_rss_bytes` for `build_id` when it is more than what was known; 0 ignored.
void record_simulation_footprint(const std::string& build_id, std::int64_t peak_rss_bytes);
// 0 when nothing is known.
std::int64_t simulation_footprint(const std::string& build_id);

}  // namespace mace::executor
