#include "mutator.h"

#include <algorithm>

namespace mace::fuzz {

Mutator::Mutator(uint64_t seed, std::vector<std::string> dictionary)
    : state_(seed ? seed : 0x9e3779b97f4a7c15ull), dictionary_(std::move(dictionary)) {}

uint64_t Mutator::next() {  // xorshift64*
  state_ ^= state_ >> 12;
  state_ ^= state_ << 25;
  state_ ^= state_ >> 27;
  return state_ * 0x2545f4914f6cdd1dull;
}

std::string Mutator::mutate(const std::string& input, const std::string& other, std::size_t max_size) {
  std::string s = input;
  const std::size_t edits = 1 + below(4);
  for (std::size_t i = 0; i < edits; ++i) edit_once(s, other, max_size);
  if (s.size() > max_size) s.resize(max_size);
  return s;
}

void Mutator::edit_once(std::string& s, const std::string& other, std::size_t max_size) {
  // Bytes that matter to the targets' grammars and to UTF-8.
  static constexpr char kInteresting[] = {'\0', '\n', '\r', '|', ',', ':', '"', '\\', '{', '}',
                                          '[', ']', '-', '=', ' ', '\t', '\x7f', '\xc3', '\xff',
                                          '\xe2', '\x80', '9', '0'};
  const std::size_t pos = below(s.size() + 1);
  switch (below(11)) {
    case 0:  // flip a bit
      if (!s.empty()) s[below(s.size())] ^= static_cast<char>(1u << below(8));
      break;
    case 1:  // set an interesting byte
      if (!s.empty()) s[below(s.size())] = kInteresting[below(sizeof kInteresting)];
      break;
    case 2:  // insert an interesting byte
      s.insert(pos, 1, kInteresting[below(sizeof kInteresting)]);
      break;
    case 3:  // delete a run
      if (!s.empty()) s.erase(below(s.size()), 1 + below(std::min<std::size_t>(s.size(), 64)));
      break;
    case 4:  // repeat a piece: long lines, long lists, deep nesting
      if (!s.empty()) {
        const std::size_t from = below(s.size());
        const std::size_t len = 1 + below(std::min<std::size_t>(s.size() - from, 32));
        const std::string piece = s.substr(from, len);
        const std::size_t times = 1 + below(below(2) ? 8 : 2000);
        std::string repeated;
        for (std::size_t i = 0; i < times && repeated.size() < max_size; ++i) repeated += piece;
        s.insert(pos, repeated);
      }
      break;
    case 5:  // a dictionary token
      if (!dictionary_.empty()) s.insert(pos, dictionary_[below(dictionary_.size())]);
      break;
    case 6:  // splice with another input
      if (!other.empty()) s = s.substr(0, pos) + other.substr(below(other.size()));
      break;
    case 7:  // truncate
      s.resize(pos);
      break;
    case 8:  // a number at its edges
      {
        static const char* kNumbers[] = {"0", "-1", "1", "4294967297", "9223372036854775807",
                                         "18446744073709551616", "1e308", "-0", "0.5", "NaN"};
        s.insert(pos, kNumbers[below(std::size(kNumbers))]);
      }
      break;
    case 9:  // swap two bytes
      if (s.size() > 1) std::swap(s[below(s.size())], s[below(s.size())]);
      break;
    default:  // a random byte
      s.insert(pos, 1, static_cast<char>(next() & 0xff));
  }
}

}  // namespace mace::fuzz
