#pragma once
// A duration as people read it: "1.8 s", "3 min 9 s", "2 h 5 min". Used wherever MACE
// writes a time for a person (the run's log, `mace status`, `mace watch`).

#include <string>

namespace mace::os {

// Under a minute to a tenth of a second; under an hour in minutes and whole seconds;
// beyond, in hours and minutes. A negative duration reads as "0.0 s".
std::string duration_text(double seconds);

}  // namespace mace::os
