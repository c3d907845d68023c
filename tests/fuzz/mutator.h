#pragma once
// Deterministic mutations of an input, for the fuzz driver: the same seed gives the same
// sequence of inputs on every machine, so a failure CI finds is a failure anyone can
// reproduce with the seed it prints.

#include <cstdint>
#include <string>
#include <vector>

namespace mace::fuzz {

class Mutator {
 public:
  // `dictionary`: tokens the target's grammar uses ("TASK:", "\"budget\"", "->"), spliced
  // in whole so mutations reach past the first syntax check.
  Mutator(uint64_t seed, std::vector<std::string> dictionary);

  // A new input made from `input` by one to four random edits: bit flips, byte changes,
  // insertions and deletions of bytes and runs, repeats of a piece (long lines, deep
  // nesting), dictionary tokens, splices with `other`, truncation. Never longer than
  // `max_size`.
  std::string mutate(const std::string& input, const std::string& other, std::size_t max_size);

  uint64_t next();
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(next() % n); }

 private:
  void edit_once(std::string& s, const std::string& other, std::size_t max_size);

  uint64_t state_;
  std::vector<std::string> dictionary_;
};

}  // namespace mace::fuzz
