#pragma once
// The line diff MACE shows people and models: the RTL edits a task carried, a failed
// transcript against a passing one. Myers' O((N+M)D) shortest edit script, with the
// common head and tail stripped first (usually nearly everything of an RTL edit or a
// transcript), and a cap on D, because the search keeps O(D^2) of trace.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace mace::os {

// a[a_start, a_start + a_len) replaced by b[b_start, b_start + b_len).
struct LineChange {
  std::size_t a_start, a_len, b_start, b_len;
  bool operator==(const LineChange&) const = default;
};

struct LineDiff {
  // In order; positions in the whole sequences. Empty: the sequences are equal.
  std::vector<LineChange> changes;
  // False when more than the cap of lines differ: `changes` is then one change covering
  // everything between the common head and tail, which is still a correct diff.
  bool minimal = true;
};

inline constexpr std::size_t kMaxDiffDistance = 2000;

// Any sequences of lines, or of lines already turned into integers (equal lines, equal
// integers), which compare faster. Instantiated for int and std::string_view.
template <typename Line>
LineDiff diff_lines(const std::vector<Line>& a, const std::vector<Line>& b,
                    std::size_t max_distance = kMaxDiffDistance);

// A unified diff (`--- old_name`, `+++ new_name`, `@@` hunks with 3 lines of context,
// "\ No newline at end of file" where one is missing) of two texts, as `patch -p1` and
// `git apply` read it. Empty when the texts are equal.
std::string unified_diff_text(std::string_view old_text, std::string_view new_text,
                              std::string_view old_name, std::string_view new_name);

}  // namespace mace::os
