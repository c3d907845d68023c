#include "tools/diagnostics/text.h"

#include <algorithm>

namespace mace::tools::diagnostics {

// Log bytes are arbitrary; what reaches a JSON request must be valid UTF-8 without control
// characters but line ends (an escape sequence from a coloured log would otherwise go along
// as is).
void append_printable(std::string& out, std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '\t' || c == '\n' || (c >= 0x20 && c < 0x7f)) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xbf;  // allowed range of the second byte
    if (c >= 0xc2 && c <= 0xdf) {
      n = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
      n = 3;
      if (c == 0xe0) lo = 0xa0;  // overlong
      if (c == 0xed) hi = 0x9f;  // surrogates
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 4;
      if (c == 0xf0) lo = 0x90;
      if (c == 0xf4) hi = 0x8f;
    }
    bool valid = n != 0 && i + n <= s.size();
    for (std::size_t j = 1; valid && j < n; ++j) {
      const auto d = static_cast<unsigned char>(s[i + j]);
      valid = j == 1 ? (d >= lo && d <= hi) : (d & 0xc0) == 0x80;
    }
    if (valid) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      out += '?';
      ++i;
    }
  }
}

std::string printable(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  append_printable(out, s);
  return out;
}

std::string in_quotes(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\0') {
      out += "\\0";
    } else {
      out += c;
    }
  }
  out += '"';
  return printable(out);
}

// One line as shown: cut to `limit` bytes, saying so.
void append_shown_line(std::string& out, std::string_view line, bool already_cut,
                       std::size_t limit) {
  const bool cut = already_cut || line.size() > limit;
  append_printable(out, line.substr(0, std::min(line.size(), limit)));
  if (cut) out += " [...line cut]";
}

}  // namespace mace::tools::diagnostics
