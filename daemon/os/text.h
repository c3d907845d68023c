#pragma once
// Small text operations used all over MACE, each with a name that says what it does at
// line ends, so two callers never disagree about what "the lines of" a text are.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mace::os {

// "a\nb\n" → {"a\n", "b\n"}; "a\nb" → {"a\n", "b"}; "" → {}. Joining the pieces gives the
// text back: what a diff compares.
std::vector<std::string_view> split_lines_keeping_newlines(std::string_view text);

// "a\nb" → {"a", "b"}; "a\n" → {"a"}; "" → {}. A last line without '\n' counts; the
// newline after the last line does not start another. What a file viewer shows.
std::vector<std::string_view> split_lines_dropping_newlines(std::string_view text);

// Every piece between `separator`s, empty ones too: "a,,b" → {"a", "", "b"}; "a," →
// {"a", ""}; "" → {""}. So n separators always give n + 1 pieces.
std::vector<std::string_view> split_at(std::string_view text, char separator);

// split_at(text, '\n'): "a\n" → {"a", ""}. A '\r' before a '\n' stays. What a reader of
// replies sees, where an empty last piece is harmless.
std::vector<std::string_view> split_at_newlines(std::string_view text);

// The last `max_lines` lines of `text`, a piece from the end of something longer (a file's
// last bytes): each line keeps its '\n'. When fewer lines are there and the piece does not
// start at a line's start, its first, cut line is dropped, unless it is the only one.
std::string_view last_lines(std::string_view text, std::size_t max_lines, bool starts_at_line_start);

// The last `n` bytes of `text` (all of it when shorter).
std::string_view last_bytes(std::string_view text, std::size_t n);

// At most `max_bytes` of `s`, backed up over UTF-8 continuation bytes so a cut never
// splits a character.
std::string_view clip_utf8(std::string_view s, std::size_t max_bytes);

// The length of the well-formed UTF-8 sequence that starts at s[i] (1 for ASCII), or 0
// when the bytes there are not one: a stray continuation byte, an overlong form, a
// surrogate, a code point past U+10FFFF, or a sequence cut short.
std::size_t utf8_sequence_length(std::string_view s, std::size_t i);

// The code point of the well-formed sequence of `n` bytes at s[i], `n` being what
// utf8_sequence_length said (1 to 4).
char32_t utf8_code_point(std::string_view s, std::size_t i, std::size_t n);

// How many of the last bytes of `s` (0 to 3) begin a UTF-8 sequence that is well formed so
// far but cut short: what a reader of text that arrives in pieces keeps for the next one.
std::size_t unfinished_utf8_tail(std::string_view s);

// `s` without leading and trailing whitespace (space, tab, CR, LF, VT, FF).
std::string_view trim(std::string_view s);

// ASCII character classes, the same whatever the process's locale: what names, options
// and transcripts are checked against.
constexpr bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }
// [A-Za-z0-9_]
constexpr bool is_word_char(char c) {
  return is_ascii_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
// [A-Za-z_][A-Za-z0-9_]*: a preprocessor symbol, a plusarg, an option name.
bool is_identifier(std::string_view s);

// Whether `s` starts with `prefix`, ASCII letters compared without case.
bool starts_with_ignoring_case(std::string_view s, std::string_view prefix);

// A size for people in MiB: "4096 MiB" when whole, else one decimal ("12.5 MiB").
std::string mib_text(std::uint64_t bytes);

}  // namespace mace::os
