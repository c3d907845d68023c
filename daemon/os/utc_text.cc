#include "os/utc_text.h"

#include <ctime>

namespace mace::os {

namespace {

std::string utc_formatted(std::int64_t unix_ms, const char* format) {
  const std::time_t seconds = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char text[32];
  std::strftime(text, sizeof text, format, &tm);
  return text;
}

}  // namespace

std::string utc_text(std::int64_t unix_ms) { return utc_formatted(unix_ms, "%Y-%m-%d %H:%M:%S UTC"); }

std::string utc_iso8601(std::int64_t unix_ms) { return utc_formatted(unix_ms, "%Y-%m-%dT%H:%M:%S"); }

}  // namespace mace::os
