#include "tools/diagnostics/line_diff.h"

#include <algorithm>
#include <utility>

namespace mace::tools::diagnostics {

std::optional<std::vector<Change>> myers(const std::vector<int>& a, const std::vector<int>& b) {
  const auto n = static_cast<long>(a.size());
  const auto m = static_cast<long>(b.size());
  const long max_d = std::min<long>(n + m, static_cast<long>(kMaxEditDistance));
  const long offset = max_d + 1;
  std::vector<long> v(static_cast<std::size_t>(2 * max_d + 3), 0);
  std::vector<std::vector<long>> trace;  // trace[d][k + d] = furthest x on diagonal k
  long found_d = -1;
  for (long d = 0; d <= max_d && found_d < 0; ++d) {
    for (long k = -d; k <= d; k += 2) {
      long x;
      if (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]))
        x = v[offset + k + 1];
      else
        x = v[offset + k - 1] + 1;
      long y = x - k;
      while (x < n && y < m && a[x] == b[y]) ++x, ++y;
      v[offset + k] = x;
      if (x >= n && y >= m) found_d = d;
    }
    std::vector<long> band(static_cast<std::size_t>(2 * d + 1));
    for (long k = -d; k <= d; ++k) band[k + d] = v[offset + k];
    trace.push_back(std::move(band));
  }
  if (found_d < 0) return std::nullopt;

  // Walk back from (n, m), collecting single-line edits, last first.
  struct Edit {
    bool insert;  // a line of b; else a deleted line of a
    long pos;     // its index in b (insert) or a (delete)
  };
  std::vector<Edit> edits;
  long x = n, y = m;
  for (long d = found_d; d > 0; --d) {
    const auto& prev = trace[static_cast<std::size_t>(d - 1)];
    const long k = x - y;
    auto at = [&](long kk) { return prev[kk + d - 1]; };
    const bool down = k == -d || (k != d && at(k - 1) < at(k + 1));
    const long prev_k = down ? k + 1 : k - 1;
    const long prev_x = at(prev_k);
    const long prev_y = prev_x - prev_k;
    while (x > prev_x && y > prev_y) --x, --y;
    if (down) {
      edits.push_back(Edit{true, y - 1});
    } else {
      edits.push_back(Edit{false, x - 1});
    }
    x = prev_x;
    y = prev_y;
  }
  std::reverse(edits.begin(), edits.end());

  // Group edits into changes. Between two edits the lines are equal, so positions in a
  // and b advance together.
  std::vector<Change> changes;
  long ai = 0, bi = 0;  // next unconsumed line of a and b
  std::size_t i = 0;
  while (i < edits.size()) {
    // Lines up to this edit are equal.
    const long edit_a = edits[i].insert ? -1 : edits[i].pos;
    const long edit_b = edits[i].insert ? edits[i].pos : -1;
    const long skip = edit_a >= 0 ? edit_a - ai : edit_b - bi;
    ai += skip;
    bi += skip;
    Change c{static_cast<std::size_t>(ai), 0, static_cast<std::size_t>(bi), 0};
    while (i < edits.size()) {
      const Edit& e = edits[i];
      if (e.insert && e.pos == bi) {
        ++bi, ++c.b_len, ++i;
      } else if (!e.insert && e.pos == ai) {
        ++ai, ++c.a_len, ++i;
      } else {
        break;
      }
    }
    changes.push_back(c);
  }
  return changes;
}

}  // namespace mace::tools::diagnostics
