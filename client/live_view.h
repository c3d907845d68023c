#pragma once
// What `mace watch` keeps at the bottom of a terminal: one line per task under way (its
// stage, a bar of its build's objects, the time since it entered its stage, the estimate
// of what is left), redrawn in place below the scrolling event log. Pure text: the caller
// moves the cursor (watch_command.cc).

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "mace.capnp.h"

namespace mace::client {

class LiveView {
 public:
  void on_event(api::Event::Reader event);
  // The lines to draw at `now_ms`, each at most `width` columns; one per active task,
  // oldest first, after a line with the run's state.
  std::vector<std::string> lines(int64_t now_ms, std::size_t width) const;

 private:
  struct Active {
    std::string stage;
    int64_t since_ms = 0;        // when it entered its stage (the event's time)
    int64_t build_started_ms = 0;
    uint32_t done = 0, total = 0;
    int64_t estimate_left_ms = -1, estimate_at_ms = 0;
    std::string phase;
    uint32_t verdicts = 0;
    std::vector<std::string> running;  // workloads started and not yet judged, in order
  };
  std::string state_ = "…";
  std::map<std::pair<uint32_t, std::string>, Active> active_;
  std::vector<std::pair<uint32_t, std::string>> order_;
};

}  // namespace mace::client
