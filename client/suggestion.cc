#include "suggestion.h"

#include <algorithm>

namespace mace::client {
namespace {

// Edits to turn `a` into `b`: insertions, deletions, substitutions and swaps of two
// neighbouring letters (optimal string alignment distance).
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

std::optional<std::string> closest_word(const std::string& typed,
                                        const std::vector<std::string>& known) {
  // Bounded: a command line word longer than any command is not a typo of one.
  if (typed.empty() || typed.size() > 64) return std::nullopt;
  // The start of exactly one word is that word ("stat" for status).
  std::optional<std::string> extended;
  for (const std::string& word : known) {
    if (word.size() <= typed.size() || word.compare(0, typed.size(), typed) != 0) continue;
    if (extended) {
      extended.reset();
      break;
    }
    extended = word;
  }
  if (extended && typed.size() >= 2) return extended;
  std::optional<std::string> best;
  std::size_t best_distance = 0;
  for (const std::string& word : known) {
    const std::size_t distance = edit_distance(typed, word);
    // A third of the word may be wrong, at least one letter and at most three.
    const std::size_t allowed = std::clamp<std::size_t>(word.size() / 3, 1, 3);
    if (distance <= allowed && (!best || distance < best_distance)) {
      best = word;
      best_distance = distance;
    }
  }
  return best;
}

}  // namespace mace::client
