#pragma once
// A run's log as `mace logs RUN` shows it: its events in order, each as a line for people.
// A build's progress events are folded to the last one of each stretch (the one that says
// how far it got) and a verdict names its workload and verdict with the simulation's time.

#include <cstdint>
#include <string>
#include <vector>

#include "store/store.h"

namespace mace::service {

struct RunLogLine {
  int64_t seq = 0;
  int64_t at_ms = 0;
  std::string source;  // "maced", or iter<N>/<task>[/<stage>]
  std::string text;
};

std::vector<RunLogLine> run_log(const std::vector<store::EventRecord>& events);

}  // namespace mace::service
