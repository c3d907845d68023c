#include "core/directive_line.h"

#include <cctype>

#include "os/text.h"

namespace mace {
namespace {

bool bold_at(std::string_view v) { return v.substr(0, 2) == "**" || v.substr(0, 2) == "__"; }

}  // namespace

std::optional<std::string_view> directive_body(std::string_view line, std::string_view tag) {
  std::string_view s = os::trim(line);
  if (!bold_at(s)) {
    if (!s.empty() && (s.front() == '-' || s.front() == '*' || s.front() == '+')) {
      s = os::trim(s.substr(1));
    } else {
      size_t digits = 0;
      while (digits < s.size() && std::isdigit(static_cast<unsigned char>(s[digits]))) ++digits;
      if (digits > 0 && digits < s.size() && (s[digits] == '.' || s[digits] == ')'))
        s = os::trim(s.substr(digits + 1));
    }
  }
  bool bold = bold_at(s);
  if (bold) s = os::trim(s.substr(2));
  if (!os::starts_with_ignoring_case(s, tag)) return std::nullopt;
  std::string_view rest = s.substr(tag.size());
  bool closed = false;
  if (bold && bold_at(rest)) {  // **TAG**:
    rest.remove_prefix(2);
    closed = true;
  }
  rest = os::trim(rest);
  if (rest.empty() || rest.front() != ':') return std::nullopt;
  rest.remove_prefix(1);
  if (bold && !closed && bold_at(rest)) {  // **TAG:**
    rest.remove_prefix(2);
    closed = true;
  }
  rest = os::trim(rest);
  // "**TAG: text**": the bold closes at the end of the line instead.
  if (bold && !closed && rest.size() >= 2 && bold_at(rest.substr(rest.size() - 2)))
    rest = os::trim(rest.substr(0, rest.size() - 2));
  return rest;
}

}  // namespace mace
