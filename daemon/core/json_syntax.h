#pragma once
// Where JSON text stops being JSON (RFC 8259), for people: simdjson says only what kind
// of error it met ("missing or superfluous commas"), not where. When it refuses a run spec,
// an evaluation suite or maced's configuration, this finds the first place the grammar
// breaks and says what was expected there, by line and column, as an editor counts them.
// Iterative and bounded: any text of any nesting is walked once, in linear time.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace mace {

struct JsonSyntaxError {
  std::size_t offset = 0;  // the byte where the grammar breaks
  std::size_t line = 1;    // 1-based
  std::size_t column = 1;  // 1-based, in characters (UTF-8 sequences) since the line's start
  std::string what;        // "expected ',' or '}' after a member, found '\"'"

  // "line 3, column 14: expected ..."
  std::string to_string() const;
};

inline constexpr std::size_t kMaxJsonDepth = 1024;  // simdjson's default

// The first syntax error of `text`, or nullopt when it is one well-formed JSON value.
std::optional<JsonSyntaxError> json_syntax_error(std::string_view text);

// What to say when a JSON parser refused `text` with `parser_message`: "invalid JSON at
// line L, column C: <what>", or the parser's own words when the grammar holds (a number
// out of range, say).
std::string invalid_json_message(std::string_view text, std::string_view parser_message);

}  // namespace mace
