#pragma once
// How the store writes record values its columns cannot hold as they are, and reads them
// back: lists and run states. For the files that implement Store; a table's columns use
// them through columns.h.

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

std::string strings_to_json(const std::vector<std::string>& strings);
// `what` names the column for the error, e.g. "run X: workloads_json".
std::vector<std::string> strings_from_json(const Database& db, const std::string& what,
                                           const std::string& json);

// A list stored as one space-separated column: refuses what would not split back the same.
std::string join_words(const char* column, const std::vector<std::string>& words);
std::vector<std::string> split_words(const std::string& text);

// Placeholders ?first, ?first+1, ... for an IN list, bound by the caller in that order.
std::string in_list(int first, size_t count);

}  // namespace mace::store
