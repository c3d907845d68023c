#pragma once
// A line diff for compare_transcript: Myers' O(ND) algorithm over lines already turned
// into integers (equal lines, equal integers).

#include <cstddef>
#include <optional>
#include <vector>

namespace mace::tools::diagnostics {

// A run of changed lines: a[a_start, a_start+a_len) replaced by b[b_start, b_start+b_len).
struct Change {
  std::size_t a_start, a_len, b_start, b_len;
};

inline constexpr std::size_t kMaxEditDistance = 2000;

// Myers' O(ND) line diff between a and b, both already stripped of a common prefix and
// suffix. Returns nullopt when more than kMaxEditDistance lines differ (memory is
// O(D^2) for the trace).
std::optional<std::vector<Change>> myers(const std::vector<int>& a, const std::vector<int>& b);

}  // namespace mace::tools::diagnostics
