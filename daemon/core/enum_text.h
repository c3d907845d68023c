#pragma once
// How the daemon's vocabulary enums (RunState, TaskKind, TaskStage, ...) become text and
// back. Each enum's to_string is a switch without a default, so the compiler
// (-Werror=switch) refuses an enumerator without a name; parsing walks the enumerators in
// order through that same to_string, so the two directions cannot disagree. Text appears
// only at the edges: the store's columns, JSON, prompts and the wire.

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>

namespace mace {

// The enumerator whose to_string is `text`. Needs enumerators numbered 0, 1, 2, ... (as
// an enum without explicit values is) and to_string returning "" past the last one.
template <typename Enum>
std::optional<Enum> enum_from_string(std::string_view text) {
  for (int i = 0; i < 256; ++i) {
    const std::string_view name = to_string(static_cast<Enum>(i));
    if (name.empty() && i > 0) break;
    if (name == text) return static_cast<Enum>(i);
  }
  return std::nullopt;
}

// Every enumerator's name, in order, with `separator` between them ("queued, running,
// ..."): what a message listing the accepted words says, from the one list there is.
template <typename Enum>
std::string enum_words(std::string_view separator = ", ") {
  std::string words;
  for (int i = 0; i < 256; ++i) {
    const std::string_view name = to_string(static_cast<Enum>(i));
    if (name.empty() && i > 0) break;
    if (i > 0) words += separator;
    words += name;
  }
  return words;
}

// Writes the enumerator's name: what test failures and log lines show.
template <typename Enum>
  requires std::is_enum_v<Enum> && requires(Enum e) { to_string(e); }
std::ostream& operator<<(std::ostream& out, Enum value) {
  return out << to_string(value);
}

}  // namespace mace
