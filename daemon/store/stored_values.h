#pragma once
// How the store writes record values its columns cannot hold as they are, and reads them
// back: lists, optional words, "none" as NULL. For the files that implement Store.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/run_state.h"
#include "store/sqlite.h"
#include "store/stored_word.h"

namespace mace::store {

inline RunState parse_state(const Database& db, const std::string& s) {
  return parse_word<RunState>(db, "run state", s);
}

// Optional words are stored as "" when absent.
template <typename Enum>
std::optional<Enum> parse_optional_word(const Database& db, std::string_view column,
                                        const std::string& s) {
  if (s.empty()) return std::nullopt;
  return parse_word<Enum>(db, column, s);
}

template <typename Enum>
std::string_view optional_word(const std::optional<Enum>& value) {
  return value ? to_string(*value) : std::string_view();
}

std::string strings_to_json(const std::vector<std::string>& strings);
// `what` names the column for the error, e.g. "run X: workloads_json".
std::vector<std::string> strings_from_json(const Database& db, const std::string& what,
                                           const std::string& json);

// A list stored as one space-separated column: refuses what would not split back the same.
std::string join_words(const char* column, const std::vector<std::string>& words);
std::vector<std::string> split_words(const std::string& text);

// 0 and "" in a record mean "none"; the schema says so with NULL.
inline std::optional<int64_t> unless_zero(int64_t v) { return v ? std::optional(v) : std::nullopt; }
inline std::optional<std::string> unless_empty(const std::string& s) {
  return s.empty() ? std::nullopt : std::optional(s);
}

// Placeholders ?first, ?first+1, ... for an IN list, bound by the caller in that order.
std::string in_list(int first, size_t count);

}  // namespace mace::store
