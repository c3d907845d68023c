#pragma once
// The one place a record's fields meet a table's columns, for the files that implement
// Store. A table's columns are listed once, each with the record member it holds:
//
//   const auto kBatchColumns = columns(column("id", &EvalBatchRecord::id),
//                                      column("state", &EvalBatchRecord::state), ...);
//
// and every statement takes its column names, its parameters, its bindings and its row
// reading from that list, so a new column is one line there (and one in a migration).
// Members may be text, integers, bool, double, optionals of those, and the vocabulary
// enums (stored as their words, read back through parse_word; an optional one with no
// value as "").

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>

#include "core/enum_text.h"
#include "store/sqlite.h"
#include "store/stored_word.h"

namespace mace::store {

template <typename Record, typename Field>
struct Column {
  const char* name;
  Field Record::*member;
};

template <typename Record, typename Field>
constexpr Column<Record, Field> column(const char* name, Field Record::*member) {
  return {name, member};
}

namespace columns_detail {

template <typename T>
struct is_optional : std::false_type {};
template <typename T>
struct is_optional<std::optional<T>> : std::true_type {};

// An optional vocabulary word: stored as its word, or "" when there is none.
template <typename T>
struct is_optional_enum : std::false_type {};
template <typename T>
struct is_optional_enum<std::optional<T>> : std::is_enum<T> {};

template <typename Field>
void bind_field(Statement& stmt, int index, const Field& value) {
  if constexpr (std::is_enum_v<Field>)
    stmt.bind(index, std::string_view(to_string(value)));
  else if constexpr (is_optional_enum<Field>::value)
    stmt.bind(index, value ? std::string_view(to_string(*value)) : std::string_view());
  else if constexpr (std::is_same_v<Field, bool> || std::is_floating_point_v<Field> ||
                     std::is_same_v<Field, std::string> || is_optional<Field>::value)
    stmt.bind(index, value);
  else
    stmt.bind(index, static_cast<int64_t>(value));
}

template <typename Field>
Field read_field(const Database& db, const Statement& stmt, int index, const char* name) {
  if constexpr (std::is_enum_v<Field>) {
    return parse_word<Field>(db, name, stmt.text(index));
  } else if constexpr (is_optional_enum<Field>::value) {
    const std::string word = stmt.text(index);
    return word.empty() ? Field() : Field(parse_word<typename Field::value_type>(db, name, word));
  } else if constexpr (std::is_same_v<Field, std::string>) {
    return stmt.text(index);
  } else if constexpr (std::is_same_v<Field, bool>) {
    return stmt.int64(index) != 0;
  } else if constexpr (std::is_floating_point_v<Field>) {
    return static_cast<Field>(stmt.real(index));
  } else if constexpr (std::is_same_v<Field, std::optional<std::string>>) {
    return stmt.optional_text(index);
  } else if constexpr (std::is_same_v<Field, std::optional<double>>) {
    return stmt.optional_real(index);
  } else if constexpr (is_optional<Field>::value) {
    return stmt.optional_int64(index);
  } else {
    return static_cast<Field>(stmt.int64(index));
  }
}

}  // namespace columns_detail

template <typename Record, typename... Fields>
class Columns {
 public:
  static constexpr int count = sizeof...(Fields);

  explicit constexpr Columns(Column<Record, Fields>... list) : list_(list...) {}

  // "a, b, c", or "t.a, t.b, t.c" with a table's alias.
  std::string names(const std::string& alias = "") const {
    std::string out;
    std::apply([&](const auto&... c) { ((out += (out.empty() ? "" : ", ") + prefixed(alias, c.name)), ...); },
               list_);
    return out;
  }
  // "?first, ?first+1, ...", one for each column.
  std::string parameters(int first = 1) const {
    std::string out;
    for (int i = 0; i < count; ++i) out += (i ? ", ?" : "?") + std::to_string(first + i);
    return out;
  }
  // "a = ?first, b = ?first+1, ...": an UPDATE's SET list.
  std::string assignments(int first = 1) const {
    std::string out;
    int i = first;
    std::apply([&](const auto&... c) {
      ((out += (out.empty() ? "" : ", ") + std::string(c.name) + " = ?" + std::to_string(i++)), ...);
    }, list_);
    return out;
  }
  // Binds the record's fields to parameters first, first + 1, ...
  Statement& bind(Statement& stmt, int first, const Record& record) const {
    int i = first;
    std::apply([&](const auto&... c) { (columns_detail::bind_field(stmt, i++, record.*(c.member)), ...); }, list_);
    return stmt;
  }
  // Fills the record's fields from the row's columns first, first + 1, ...
  void read(const Database& db, const Statement& stmt, int first, Record& record) const {
    int i = first;
    std::apply([&](const auto&... c) {
      ((record.*(c.member) = columns_detail::read_field<std::remove_cvref_t<decltype(record.*(c.member))>>(
            db, stmt, i++, c.name)),
       ...);
    }, list_);
  }
  Record read(const Database& db, const Statement& stmt, int first = 0) const {
    Record record;
    read(db, stmt, first, record);
    return record;
  }

 private:
  static std::string prefixed(const std::string& alias, const char* name) {
    return alias.empty() ? std::string(name) : alias + "." + name;
  }
  std::tuple<Column<Record, Fields>...> list_;
};

template <typename Record, typename... Fields>
constexpr Columns<Record, Fields...> columns(Column<Record, Fields>... list) {
  return Columns<Record, Fields...>(list...);
}

}  // namespace mace::store
