#include "core/prompt_text.h"

namespace mace {

void append_indented(std::string& out, std::string_view text, std::string_view indent) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  if (text.empty()) text = "(none given)";
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    out += indent;
    out += text.substr(begin, end - begin);
    out += '\n';
    begin = end + 1;
  }
}

void append_list(std::string& out, const std::vector<std::string>& items) {
  for (const std::string& item : items) append_indented(out, item, "  - ");
}

std::string tail_text(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return std::string(s);
  size_t start = s.size() - max_bytes;
  if (size_t nl = s.find('\n', start); nl != std::string_view::npos && nl + 1 < s.size())
    start = nl + 1;
  while (start < s.size() && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) ++start;
  return "… " + std::string(s.substr(start));
}

}  // namespace mace
