#include "os/duration_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace mace::os {

std::string duration_text(double seconds) {
  if (!(seconds > 0)) seconds = 0;  // also NaN
  char text[48];
  if (std::round(seconds * 10) < 600) {
    std::snprintf(text, sizeof text, "%.1f s", seconds);
    return text;
  }
  const long long whole = std::llround(std::min(seconds, 1e12));
  if (whole < 3600)
    std::snprintf(text, sizeof text, "%lld min %lld s", whole / 60, whole % 60);
  else
    std::snprintf(text, sizeof text, "%lld h %lld min", whole / 3600, whole % 3600 / 60);
  return text;
}

}  // namespace mace::os
