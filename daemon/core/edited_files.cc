#include "core/edited_files.h"

#include <algorithm>

namespace mace {
namespace {

// "a/PATH" or "b/PATH" without its prefix; a header may carry a tab and a date after it.
std::string header_path(std::string_view name) {
  name = name.substr(0, name.find('\t'));
  if (name.size() > 2 && (name.substr(0, 2) == "a/" || name.substr(0, 2) == "b/")) name.remove_prefix(2);
  return std::string(name);
}

}  // namespace

std::vector<std::string> edited_files(std::string_view diff) {
  std::vector<std::string> out;
  std::string_view previous;
  // Lines a hunk still has to come: header-looking lines among them are content.
  long hunk_left_old = 0, hunk_left_new = 0;
  while (!diff.empty()) {
    const std::size_t end = diff.find('\n');
    std::string_view line = diff.substr(0, end);
    diff = end == std::string_view::npos ? std::string_view() : diff.substr(end + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);

    if (hunk_left_old > 0 || hunk_left_new > 0) {
      const char c = line.empty() ? ' ' : line.front();
      if (c == '-' || c == ' ') --hunk_left_old;
      if (c == '+' || c == ' ') --hunk_left_new;
      previous = {};
      continue;
    }
    if (line.substr(0, 3) == "@@ ") {
      // "@@ -a,b +c,d @@": b and d lines follow (a missing count is 1).
      auto count = [&](char sign) -> long {
        const std::size_t at = line.find(sign, 3);
        if (at == std::string_view::npos) return 0;
        const std::size_t comma = line.find(',', at);
        const std::size_t blank = line.find(' ', at);
        if (comma == std::string_view::npos || comma > blank) return 1;
        long n = 0;
        for (std::size_t i = comma + 1; i < blank && line[i] >= '0' && line[i] <= '9'; ++i)
          n = n * 10 + (line[i] - '0');
        return n;
      };
      hunk_left_old = count('-');
      hunk_left_new = count('+');
    } else if (line.substr(0, 4) == "+++ " && previous.substr(0, 4) == "--- ") {
      std::string path = header_path(line.substr(4));
      if (path == "/dev/null") path = header_path(previous.substr(4));
      if (std::find(out.begin(), out.end(), path) == out.end()) out.push_back(std::move(path));
    }
    previous = line;
  }
  return out;
}

}  // namespace mace
