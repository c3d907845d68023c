#include "core/run_id.h"

#include "os/text.h"

#include <cstdio>
#include <ctime>
#include <random>

namespace mace {

std::string RunIdGenerator::next(int64_t now_ms) {
  int64_t ms;
  {
    std::lock_guard lock(mu_);
    ms = now_ms > last_ms_ ? now_ms : last_ms_ + 1;
    last_ms_ = ms;
  }
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  static thread_local std::mt19937 rng{std::random_device{}()};
  unsigned suffix = rng() & 0xffffffu;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d%02d%02d-%02d%02d%02d-%03d-%06x", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(ms % 1000), suffix);
  return buf;
}

bool looks_like_run_id(const std::string& s) {
  // 8 digits, '-', 6 digits, '-', 3 digits, '-', 6 hex digits
  static constexpr const char* kShape = "dddddddd-dddddd-ddd-xxxxxx";
  size_t n = std::char_traits<char>::length(kShape);
  if (s.size() != n) return false;
  for (size_t i = 0; i < n; ++i) {
    char c = s[i];
    switch (kShape[i]) {
      case 'd': if (c < '0' || c > '9') return false; break;
      case 'x': if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false; break;
      default: if (c != kShape[i]) return false;
    }
  }
  return true;
}

std::string id_for_message(const std::string& id) {
  constexpr std::size_t kShownBytes = 64;
  if (id.size() <= kShownBytes) return id;
  return std::string(os::clip_utf8(id, kShownBytes)) + "... (" + std::to_string(id.size()) + " bytes)";
}

}  // namespace mace
