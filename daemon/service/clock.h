#pragma once
// Wall-clock time as the daemon's logic sees it; injected so tests can pin it.

#include <chrono>
#include <cstdint>
#include <functional>

namespace mace {

using Clock = std::function<int64_t()>;  // Unix time in milliseconds

inline int64_t system_now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace mace
