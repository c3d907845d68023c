#include "os/line_diff.h"

#include <algorithm>

#include "os/text.h"

namespace mace::os {
namespace {

// One single-line edit of a shortest edit script.
struct Edit {
  bool insert;  // a line of b; else a deleted line of a
  long pos;     // its index in b (insert) or a (delete)
};

// Myers' search on a and b (no common head or tail left); the edits in order, or false
// when more than max_d are needed.
template <typename Line>
bool shortest_edits(const Line* a, long n, const Line* b, long m, long max_d, std::vector<Edit>& edits) {
  const long limit = std::min(n + m, max_d);
  const long offset = limit + 1;
  std::vector<long> v(static_cast<std::size_t>(2 * limit + 3), 0);
  std::vector<std::vector<long>> trace;  // trace[d][k + d] = furthest x on diagonal k
  long found_d = -1;
  for (long d = 0; d <= limit && found_d < 0; ++d) {
    for (long k = -d; k <= d; k += 2) {
      long x = (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1])) ? v[offset + k + 1]
                                                                              : v[offset + k - 1] + 1;
      long y = x - k;
      while (x < n && y < m && a[x] == b[y]) ++x, ++y;
      v[offset + k] = x;
      if (x >= n && y >= m) found_d = d;
    }
    trace.emplace_back(v.begin() + offset - d, v.begin() + offset + d + 1);
  }
  if (found_d < 0) return false;

  // Walk back from (n, m), collecting the edits last first.
  long x = n, y = m;
  for (long d = found_d; d > 0; --d) {
    const auto& prev = trace[static_cast<std::size_t>(d - 1)];
    auto at = [&](long k) { return prev[static_cast<std::size_t>(k + d - 1)]; };
    const long k = x - y;
    const bool down = k == -d || (k != d && at(k - 1) < at(k + 1));
    const long prev_k = down ? k + 1 : k - 1;
    const long prev_x = at(prev_k);
    const long prev_y = prev_x - prev_k;
    while (x > prev_x && y > prev_y) --x, --y;
    edits.push_back(down ? Edit{true, y - 1} : Edit{false, x - 1});
    x = prev_x;
    y = prev_y;
  }
  std::reverse(edits.begin(), edits.end());
  return true;
}

// Groups single-line edits into changes. Between two edits the lines are equal, so
// positions in a and b advance together.
std::vector<LineChange> group(const std::vector<Edit>& edits, std::size_t shift) {
  std::vector<LineChange> changes;
  long ai = 0, bi = 0;  // next unconsumed line of a and b
  std::size_t i = 0;
  while (i < edits.size()) {
    const long skip = edits[i].insert ? edits[i].pos - bi : edits[i].pos - ai;
    ai += skip;
    bi += skip;
    LineChange c{static_cast<std::size_t>(ai), 0, static_cast<std::size_t>(bi), 0};
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
    c.a_start += shift;
    c.b_start += shift;
    changes.push_back(c);
  }
  return changes;
}

std::string hunk_range(std::size_t start, std::size_t count) {
  // An empty range names the line before it (GNU diff, git).
  std::string out = std::to_string(count == 0 ? start : start + 1);
  if (count != 1) out += "," + std::to_string(count);
  return out;
}

void append_line(std::string& out, char mark, std::string_view line) {
  out += mark;
  out.append(line);
  if (line.empty() || line.back() != '\n') out += "\n\\ No newline at end of file\n";
}

constexpr std::size_t kContext = 3;

}  // namespace

template <typename Line>
LineDiff diff_lines(const std::vector<Line>& a, const std::vector<Line>& b, std::size_t max_distance) {
  std::size_t head = 0;
  while (head < a.size() && head < b.size() && a[head] == b[head]) ++head;
  std::size_t tail = 0;
  while (tail < a.size() - head && tail < b.size() - head &&
         a[a.size() - 1 - tail] == b[b.size() - 1 - tail])
    ++tail;
  const std::size_t n = a.size() - head - tail;
  const std::size_t m = b.size() - head - tail;
  LineDiff diff;
  if (n == 0 && m == 0) return diff;
  const LineChange everything{head, n, head, m};
  // One side only adds or drops lines: no search needed, however many.
  if (n == 0 || m == 0) {
    diff.changes.push_back(everything);
    return diff;
  }
  std::vector<Edit> edits;
  if (!shortest_edits(a.data() + head, static_cast<long>(n), b.data() + head, static_cast<long>(m),
                      static_cast<long>(max_distance), edits)) {
    diff.changes.push_back(everything);
    diff.minimal = false;
    return diff;
  }
  diff.changes = group(edits, head);
  return diff;
}

template LineDiff diff_lines<int>(const std::vector<int>&, const std::vector<int>&, std::size_t);
template LineDiff diff_lines<std::string_view>(const std::vector<std::string_view>&,
                                               const std::vector<std::string_view>&, std::size_t);

std::string unified_diff_text(std::string_view old_text, std::string_view new_text,
                              std::string_view old_name, std::string_view new_name) {
  if (old_text == new_text) return "";
  // Each line keeps its '\n', so a last line without one differs from the same text with one.
  const auto a = split_lines_keeping_newlines(old_text);
  const auto b = split_lines_keeping_newlines(new_text);
  const std::vector<LineChange> changes = diff_lines(a, b).changes;

  std::string out = "--- " + std::string(old_name) + "\n+++ " + std::string(new_name) + "\n";
  std::size_t i = 0;
  while (i < changes.size()) {
    // Changes whose contexts would touch or overlap share a hunk.
    std::size_t j = i;
    while (j + 1 < changes.size() &&
           changes[j + 1].a_start - (changes[j].a_start + changes[j].a_len) <= 2 * kContext)
      ++j;
    const LineChange& first = changes[i];
    const LineChange& last = changes[j];
    const std::size_t lead = std::min(kContext, first.a_start);
    const std::size_t trail = std::min(kContext, a.size() - (last.a_start + last.a_len));
    const std::size_t a_from = first.a_start - lead, b_from = first.b_start - lead;
    const std::size_t a_to = last.a_start + last.a_len + trail;
    const std::size_t b_to = last.b_start + last.b_len + trail;
    out += "@@ -" + hunk_range(a_from, a_to - a_from) + " +" + hunk_range(b_from, b_to - b_from) +
           " @@\n";
    std::size_t ai = a_from;
    for (std::size_t h = i; h <= j; ++h) {
      const LineChange& c = changes[h];
      for (; ai < c.a_start; ++ai) append_line(out, ' ', a[ai]);
      for (std::size_t k = 0; k < c.a_len; ++k) append_line(out, '-', a[c.a_start + k]);
      for (std::size_t k = 0; k < c.b_len; ++k) append_line(out, '+', b[c.b_start + k]);
      ai = c.a_start + c.a_len;
    }
    for (; ai < a_to; ++ai) append_line(out, ' ', a[ai]);
    i = j + 1;
  }
  return out;
}

}  // namespace mace::os
