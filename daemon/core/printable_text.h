#pragma once
// Printable text: what a string from a run spec may hold, and how a string that may not be
// printable is shown in a message.
//
// Strings of a spec (the objective, the model, workload names, ...) end up on other
// people's terminals (`mace list`, `mace status`, `mace watch`), in logs and in prompts.
// A control character there can move the cursor, retitle a terminal or hide what follows;
// a bidirectional override or an invisible character makes text read differently from
// what it is ("Trojan Source"). So the rule is an allowlist: well-formed UTF-8 made of
// printable characters, and, where a field is prose, newline and tab. Printable means
// every Unicode scalar value except
//
//   - control characters: U+0000-U+001F, U+007F, U+0080-U+009F (Unicode category Cc);
//   - format characters (category Cf): the bidirectional marks, embeddings, overrides
//     and isolates (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069), zero-width
//     characters and joiners (U+200B-U+200D, U+2060-U+2064, U+FEFF), the soft hyphen,
//     tags (U+E0001, U+E0020-U+E007F) and the rest of Cf;
//   - the line and paragraph separators U+2028, U+2029 (Zl, Zp), which some terminals
//     and most JSON readers treat as line ends;
//   - the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0), letters that draw nothing;
//   - noncharacters (U+FDD0-U+FDEF and the last two code points of every plane).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace mace {

enum class TextKind {
  line,   // a name, a model, an option: printable characters only
  prose,  // the objective: printable characters, newline and tab
};

// Whether the character `c` (a Unicode scalar value) is printable in the sense above.
bool is_printable_character(char32_t c);

// Why `text` is not printable text of `kind`, naming the first offending character and its
// byte offset ("U+202E (a bidirectional formatting character) at byte 12"), or nullopt.
std::optional<std::string> unprintable_text_problem(std::string_view text, TextKind kind);

// `text` as a JSON string literal fit for a message: at most `max_bytes` of it (not
// splitting a character; "..." after the closing quote when cut), every character that
// is not printable escaped as \uXXXX, bytes that are not UTF-8 as \ufffd. What it shows
// can be pasted back into a spec.
std::string quoted_for_display(std::string_view text, std::size_t max_bytes);

// JSON text (minified, as simdjson writes it) with every character that is not printable
// escaped as above; those can only be inside its strings, so it stays the same JSON.
std::string json_for_display(std::string_view json);

}  // namespace mace
