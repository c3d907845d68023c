#include "core/failure_signature.h"
#include "os/text.h"

#include <algorithm>
#include <map>

namespace mace {
namespace {

bool is_hex_digit(char c) {
  return os::is_ascii_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// A word that is an address or a value printed in hex ("400005a0", "fffff00000082000",
// "a0b1", "deadbeef"): hex digits only, with a letter a-f, and digits or eight characters
// at least. Digits alone are a decimal number ("N"), however long.
bool is_hex_word(std::string_view word) {
  if (word.size() < 4 || !std::all_of(word.begin(), word.end(), is_hex_digit)) return false;
  const bool digits = std::any_of(word.begin(), word.end(), os::is_ascii_digit);
  const bool letters = std::any_of(word.begin(), word.end(), [](char c) { return !os::is_ascii_digit(c); });
  return letters && (digits || word.size() >= 8);
}

}  // namespace

std::string normalise_error_line(std::string_view line) {
  std::string out;
  std::size_t i = 0;
  const std::size_t n = line.size();
  auto at_word_start = [&](std::size_t k) { return k == 0 || !os::is_word_char(line[k - 1]); };
  while (i < n && out.size() < kMaxSignatureBytes) {
    const char c = line[i];
    if (c == '0' && i + 2 < n && (line[i + 1] == 'x' || line[i + 1] == 'X') &&
        is_hex_digit(line[i + 2]) && at_word_start(i)) {
      i += 2;
      while (i < n && (is_hex_digit(line[i]) || line[i] == '_')) ++i;
      out += "0x#";
    } else if (c == '\'' && i + 2 < n && std::string_view("hHdDbBoO").find(line[i + 1]) !=
                                              std::string_view::npos &&
               (os::is_word_char(line[i + 2]) || line[i + 2] == '?')) {
      // A Verilog literal's value (64'h0000000040000000); its size is digits, below.
      i += 2;
      while (i < n && (os::is_word_char(line[i]) || line[i] == '?')) ++i;
      out += "'#";
    } else if (os::is_word_char(c)) {
      std::size_t end = i;
      while (end < n && os::is_word_char(line[end])) ++end;
      const std::string_view word = line.substr(i, end - i);
      if (is_hex_word(word)) {
        out += '#';
      } else {
        for (std::size_t k = 0; k < word.size();) {
          if (os::is_ascii_digit(word[k])) {
            while (k < word.size() && os::is_ascii_digit(word[k])) ++k;
            out += 'N';
          } else {
            out += word[k++];
          }
        }
      }
      i = end;
    } else if (is_blank(c)) {
      while (i < n && is_blank(line[i])) ++i;
      if (!out.empty()) out += ' ';
    } else {
      out += c;
      ++i;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (out.size() > kMaxSignatureBytes) out.resize(kMaxSignatureBytes);
  return out;
}

std::string failure_signature(Verdict verdict, std::string_view error_line) {
  std::string signature(to_string(verdict));
  const std::string line = normalise_error_line(error_line);
  if (!line.empty()) signature += ": " + line;
  return signature;
}

std::vector<FailureGroup> group_failures(const std::vector<FailedWorkload>& failures) {
  std::vector<FailureGroup> groups;
  std::map<std::string, std::size_t> index;  // by signature
  for (const auto& f : failures) {
    std::string signature = failure_signature(f.verdict, f.error_line);
    auto [it, added] = index.emplace(signature, groups.size());
    if (added) groups.push_back({std::move(signature), f.verdict, f.error_line, {}});
    groups[it->second].members.push_back(f);
  }
  std::stable_sort(groups.begin(), groups.end(), [](const FailureGroup& a, const FailureGroup& b) {
    return a.members.size() > b.members.size();
  });
  return groups;
}

}  // namespace mace
