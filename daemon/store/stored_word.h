#pragma once
// Reading the store's vocabulary columns back, for the files that implement Store.

#include <stdexcept>
#include <string>
#include <string_view>

#include "core/enum_text.h"
#include "store/sqlite.h"

namespace mace::store {

// A vocabulary word read back from a column: a word this maced does not know (a newer
// maced's database, a hand edit) is an error naming it, never a silent default.
template <typename Enum>
Enum parse_word(const Database& db, std::string_view column, const std::string& s) {
  auto value = enum_from_string<Enum>(s);
  if (!value)
    throw std::runtime_error(db.path().string() + ": unknown " + std::string(column) + " \"" +
                             s + "\"");
  return *value;
}

}  // namespace mace::store
