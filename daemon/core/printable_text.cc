#include "core/printable_text.h"

#include <cstdint>
#include <cstdio>

#include "core/json_writer.h"
#include "os/text.h"

namespace mace {
namespace {

struct Range {
  char32_t first;
  char32_t last;
};

// Unicode 15's format characters (Cf) other than the bidirectional ones below, in order.
constexpr Range kFormatCharacters[] = {
    {0x00AD, 0x00AD},   {0x0600, 0x0605},   {0x06DD, 0x06DD},   {0x070F, 0x070F},
    {0x0890, 0x0891},   {0x08E2, 0x08E2},   {0x180E, 0x180E},   {0x200B, 0x200D},
    {0x2060, 0x2064},   {0x206A, 0x206F},   {0xFEFF, 0xFEFF},   {0xFFF9, 0xFFFB},
    {0x110BD, 0x110BD}, {0x110CD, 0x110CD}, {0x13430, 0x1343F}, {0x1BCA0, 0x1BCA3},
    {0x1D173, 0x1D17A}, {0xE0001, 0xE0001}, {0xE0020, 0xE007F},
};

// The characters that change the direction text is drawn in (Trojan Source).
constexpr Range kBidiCharacters[] = {
    {0x061C, 0x061C}, {0x200E, 0x200F}, {0x202A, 0x202E}, {0x2066, 0x2069},
};

constexpr Range kInvisibleLetters[] = {
    {0x115F, 0x1160}, {0x3164, 0x3164}, {0xFFA0, 0xFFA0},
};

template <std::size_t N>
bool in(const Range (&ranges)[N], char32_t c) {
  for (const Range& r : ranges)
    if (c >= r.first && c <= r.last) return true;
  return false;
}

bool is_noncharacter(char32_t c) { return (c >= 0xFDD0 && c <= 0xFDEF) || (c & 0xFFFE) == 0xFFFE; }

// What kind of character `c` is when it is not printable; empty when it is.
std::string_view unprintable_kind(char32_t c) {
  if (c < 0x20 || c == 0x7F || (c >= 0x80 && c <= 0x9F)) return "a control character";
  if (c < 0xA0) return {};
  if (in(kBidiCharacters, c)) return "a bidirectional formatting character";
  if (in(kFormatCharacters, c)) return "an invisible formatting character";
  if (c == 0x2028 || c == 0x2029) return "a line or paragraph separator";
  if (in(kInvisibleLetters, c)) return "an invisible filler character";
  if (is_noncharacter(c)) return "a noncharacter";
  return {};
}

std::string code_point_name(char32_t c) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(c));
  return buf;
}

void append_u_escape(std::string& out, unsigned unit) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "\\u%04x", unit);
  out += buf;
}

// `c` as JSON's \u escapes: a surrogate pair beyond the basic plane.
void append_escaped(std::string& out, char32_t c) {
  if (c < 0x10000) {
    append_u_escape(out, static_cast<unsigned>(c));
    return;
  }
  c -= 0x10000;
  append_u_escape(out, 0xD800 + static_cast<unsigned>(c >> 10));
  append_u_escape(out, 0xDC00 + static_cast<unsigned>(c & 0x3FF));
}

// `text` with its non-ASCII characters that are not printable escaped, and, when
// `json_escape_ascii`, its ASCII as a JSON string's contents.
void append_displayable(std::string& out, std::string_view text, bool json_escape_ascii) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = os::utf8_sequence_length(text, i);
    if (n == 0) {
      out += "\\ufffd";
      ++i;
      continue;
    }
    if (n == 1) {
      if (json_escape_ascii)
        append_json_escaped(out, text.substr(i, 1));
      else
        out += text[i];
    } else {
      const char32_t c = os::utf8_code_point(text, i, n);
      if (unprintable_kind(c).empty())
        out.append(text.substr(i, n));
      else
        append_escaped(out, c);
    }
    i += n;
  }
}

}  // namespace

bool is_printable_character(char32_t c) { return unprintable_kind(c).empty(); }

std::optional<std::string> unprintable_text_problem(std::string_view text, TextKind kind) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = os::utf8_sequence_length(text, i);
    if (n == 0)
      return "must be UTF-8 text; the bytes at byte " + std::to_string(i) + " are not UTF-8";
    const char32_t c = os::utf8_code_point(text, i, n);
    const bool allowed_blank = kind == TextKind::prose && (c == '\n' || c == '\t');
    if (std::string_view what = unprintable_kind(c); !what.empty() && !allowed_blank) {
      std::string message = "must be printable text";
      if (kind == TextKind::prose) message += " (newline and tab allowed)";
      return message + ", got " + code_point_name(c) + " (" + std::string(what) + ") at byte " +
             std::to_string(i);
    }
    i += n;
  }
  return std::nullopt;
}

std::string quoted_for_display(std::string_view text, std::size_t max_bytes) {
  const std::string_view shown = os::clip_utf8(text, max_bytes);
  std::string out = "\"";
  append_displayable(out, shown, /*json_escape_ascii=*/true);
  out += '"';
  if (shown.size() < text.size()) out += "...";
  return out;
}

std::string json_for_display(std::string_view json) {
  std::string out;
  append_displayable(out, json, /*json_escape_ascii=*/false);
  return out;
}

}  // namespace mace
