#pragma once
// How long a Verilator build should still take, told to people while it runs.
//
// Two sources: the build's history (the median wall time of recent builds of the same core
// and mesh, less the time spent) and its pace (the time spent compiling over the part of
// the compiling done, times the part left; trusted once a tenth is done, since the first
// objects say little). With both, they are blended by the part done: history first, pace
// by the end. Each report's raw figure is noisy (objects finish in bursts, and the part
// done is only an estimate of the work), so what is said is a predicted end that moves
// towards each new figure by how much time passed since the last: about two thirds of the
// way in 40 s. The time left then counts down steadily instead of swinging with every
// object. On the recorded progress of a real pico 1x1 build (tests/core/fixtures/) the time
// said was within 17% of the time really left at the median, where the object-count pace
// it replaces was off by 56%, and the predicted end moved by at most 22 s between two
// reports instead of 105 s.

#include <cstdint>
#include <optional>

namespace mace {

class BuildTimeEstimate {
 public:
  // `typical_ms`: the history's figure for a whole build; nullopt when there is none.
  explicit BuildTimeEstimate(std::optional<int64_t> typical_ms);

  // One progress report: `elapsed_ms` since the build started, `compiling_ms` since make
  // started compiling, `fraction_done` of the compiling (0..1; negative while not known,
  // as while Verilator runs). Returns the time left in milliseconds, or -1 while neither
  // history nor pace can tell.
  int64_t update(int64_t elapsed_ms, int64_t compiling_ms, double fraction_done);

 private:
  std::optional<int64_t> typical_ms_;
  std::optional<double> end_ms_;  // the predicted elapsed time at the build's end
  int64_t last_elapsed_ms_ = 0;
};

}  // namespace mace
