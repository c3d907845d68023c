#include "tools/diagnostics/text.h"

#include "os/text.h"

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
    const std::size_t n = c < 0x80 ? 0 : os::utf8_sequence_length(s, i);
    if (n > 0) {
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
