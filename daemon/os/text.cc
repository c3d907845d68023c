#include "os/text.h"

#include <cstdio>

namespace mace::os {

std::vector<std::string_view> split_lines_keeping_newlines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t nl = text.find('\n', start);
    std::size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    lines.push_back(text.substr(start, end - start));
    start = end;
  }
  return lines;
}

std::vector<std::string_view> split_lines_dropping_newlines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

std::vector<std::string_view> split_at_newlines(std::string_view text) { return split_at(text, '\n'); }

std::vector<std::string_view> split_at(std::string_view text, char separator) {
  std::vector<std::string_view> out;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    std::size_t end = text.find(separator, begin);
    if (end == std::string_view::npos) end = text.size();
    out.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return out;
}

std::string_view last_bytes(std::string_view text, std::size_t n) {
  return text.size() <= n ? text : text.substr(text.size() - n);
}

std::string_view clip_utf8(std::string_view s, std::size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  std::size_t end = max_bytes;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
  return s.substr(0, end);
}

std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
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
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t j = 1; j < n; ++j) {
    const auto d = static_cast<unsigned char>(s[i + j]);
    if (j == 1 ? (d < lo || d > hi) : (d & 0xc0) != 0x80) return 0;
  }
  return n;
}

char32_t utf8_code_point(std::string_view s, std::size_t i, std::size_t n) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  switch (n) {
    case 1: return b(0);
    case 2: return (char32_t(b(0) & 0x1F) << 6) | (b(1) & 0x3F);
    case 3: return (char32_t(b(0) & 0x0F) << 12) | (char32_t(b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    default:
      return (char32_t(b(0) & 0x07) << 18) | (char32_t(b(1) & 0x3F) << 12) |
             (char32_t(b(2) & 0x3F) << 6) | (b(3) & 0x3F);
  }
}

std::size_t unfinished_utf8_tail(std::string_view s) {
  // A sequence is at most 4 bytes: its lead byte is among the last 3 when it is unfinished.
  for (std::size_t back = 1; back <= 3 && back <= s.size(); ++back) {
    const std::size_t start = s.size() - back;
    const auto c = static_cast<unsigned char>(s[start]);
    if ((c & 0xC0) == 0x80) continue;  // a continuation byte: the lead is further back
    if (c < 0xC2 || c > 0xF4) return 0;
    const std::size_t needed = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if (back >= needed) return 0;
    // Well formed so far? Pad it with the smallest continuation bytes that could follow.
    std::string padded(s.substr(start));
    while (padded.size() < needed) padded += static_cast<char>(0x80);
    if (padded.size() >= 2 && back == 1) {
      // The second byte's range depends on the lead (no overlong form, no surrogate).
      padded[1] = static_cast<char>(c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80);
    }
    return utf8_sequence_length(padded, 0) == needed ? back : 0;
  }
  return 0;
}

namespace {
bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}
}  // namespace

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::string_view last_lines(std::string_view text, std::size_t max_lines, bool starts_at_line_start) {
  if (max_lines == 0) return {};
  std::size_t end = text.size();
  if (end > 0 && text[end - 1] == '\n') --end;  // it ends the last line, it starts none
  std::size_t seen = 0;
  for (std::size_t i = end; i-- > 0;) {
    if (text[i] == '\n' && ++seen == max_lines) return text.substr(i + 1);
  }
  if (starts_at_line_start) return text;
  // Fewer lines than asked for: the first one is cut, so drop it, unless it is all there is
  // (one huge line).
  auto nl = text.find('\n');
  if (nl == std::string_view::npos || nl + 1 >= text.size()) return text;
  return text.substr(nl + 1);
}

bool is_identifier(std::string_view s) {
  if (s.empty() || is_ascii_digit(s.front())) return false;
  for (char c : s)
    if (!is_word_char(c)) return false;
  return true;
}

bool starts_with_ignoring_case(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (lower(s[i]) != lower(prefix[i])) return false;
  return true;
}

std::string mib_text(std::uint64_t bytes) {
  if (bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return text;
}

}  // namespace mace::os
