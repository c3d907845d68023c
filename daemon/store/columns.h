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
// value as ""). A member the column does not hold as it is says how, as a third argument:
//
//   column("started_at_ms", &RunRecord::started_at_ms, null_when_none)
//   column("deps_json", &TaskRecord::deps, json_list)

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "core/enum_text.h"
#include "store/sqlite.h"
#include "store/stored_values.h"
#include "store/stored_word.h"

namespace mace::store {

// How a column holds its member: a type with
//   static void bind(Statement&, int index, const Field&, const char* column);
//   template <typename Field> static Field read(const Database&, const Statement&, int index,
//                                                const char* column);
// These are the common ones; a table with a value of its own (runs' cache geometry) declares
// one beside its columns.
namespace held {
struct AsIs;
// The record's "none" (0, "", an optional without a value) as NULL, which the schema
// uses for it; read back as that none.
struct NullWhenNone;
// A list of strings as a JSON array.
struct JsonList;
// A list of words as one space-separated text, refusing a word that would not split back.
struct Words;
// The same for a set, whose order means nothing: stored sorted.
struct SortedWords;
}  // namespace held

template <typename Record, typename Field, typename Held = held::AsIs>
struct Column {
  const char* name;
  Field Record::*member;
};

template <typename Record, typename Field>
constexpr Column<Record, Field> column(const char* name, Field Record::*member) {
  return {name, member};
}

template <typename Record, typename Field, typename Held>
constexpr Column<Record, Field, Held> column(const char* name, Field Record::*member, Held) {
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
  } else if constexpr (is_optional<Field>::value) {  // of an integer or bool
    const std::optional<int64_t> value = stmt.optional_int64(index);
    return value ? Field(static_cast<typename Field::value_type>(*value)) : Field();
  } else {
    return static_cast<Field>(stmt.int64(index));
  }
}

template <typename Field>
bool is_none(const Field& value) {
  if constexpr (is_optional<Field>::value)
    return !value.has_value();
  else
    return value == Field{};
}

template <typename Record, typename Field, typename Held>
Field field_type_of(const Column<Record, Field, Held>&);
template <typename Record, typename Field, typename Held>
Held held_of(const Column<Record, Field, Held>&);

}  // namespace columns_detail

namespace held {

struct AsIs {
  template <typename Field>
  static void bind(Statement& stmt, int index, const Field& value, const char*) {
    columns_detail::bind_field(stmt, index, value);
  }
  template <typename Field>
  static Field read(const Database& db, const Statement& stmt, int index, const char* column) {
    return columns_detail::read_field<Field>(db, stmt, index, column);
  }
};

struct NullWhenNone : AsIs {  // NULL reads as 0, "" and no word: the record's none
  template <typename Field>
  static void bind(Statement& stmt, int index, const Field& value, const char* column) {
    if (columns_detail::is_none(value))
      stmt.bind(index, std::nullopt);
    else
      AsIs::bind(stmt, index, value, column);
  }
};

struct JsonList {
  static void bind(Statement& stmt, int index, const std::vector<std::string>& value, const char*) {
    stmt.bind(index, strings_to_json(value));
  }
  template <typename Field>
  static Field read(const Database& db, const Statement& stmt, int index, const char* column) {
    return strings_from_json(db, column, stmt.text(index));
  }
};

struct Words {
  static void bind(Statement& stmt, int index, const std::vector<std::string>& value, const char* column) {
    stmt.bind(index, join_words(column, value));
  }
  template <typename Field>
  static Field read(const Database&, const Statement& stmt, int index, const char*) {
    return split_words(stmt.text(index));
  }
};

struct SortedWords : Words {
  static void bind(Statement& stmt, int index, std::vector<std::string> value, const char* column) {
    std::sort(value.begin(), value.end());
    Words::bind(stmt, index, value, column);
  }
};

}  // namespace held

inline constexpr held::NullWhenNone null_when_none{};
inline constexpr held::JsonList json_list{};
inline constexpr held::Words words{};
inline constexpr held::SortedWords sorted_words{};

template <typename Record, typename... Listed>
class Columns {
 public:
  static constexpr int count = sizeof...(Listed);

  explicit constexpr Columns(Listed... list) : list_(list...) {}

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
  // "c = excluded.c, ...", for every column after the first `key_columns`: an upsert's
  // DO UPDATE SET list.
  std::string updates_from_excluded(int key_columns) const {
    std::string out;
    int i = 0;
    std::apply([&](const auto&... c) {
      ((i++ >= key_columns ? void(out += (out.empty() ? "" : ", ") + std::string(c.name) +
                                          " = excluded." + c.name)
                           : void()),
       ...);
    }, list_);
    return out;
  }
  // "INSERT INTO table (a, b) VALUES (?1, ?2)"; `verb` may be "INSERT OR REPLACE" or the like.
  std::string insert_sql(std::string_view table, std::string_view verb = "INSERT") const {
    return std::string(verb) + " INTO " + std::string(table) + " (" + names() + ") VALUES (" + parameters() + ")";
  }
  // "SELECT a, b FROM table " + rest.
  std::string select_sql(std::string_view table, std::string_view rest) const {
    return "SELECT " + names() + " FROM " + std::string(table) + " " + std::string(rest);
  }
  // Binds the record's fields to parameters first, first + 1, ...
  Statement& bind(Statement& stmt, int first, const Record& record) const {
    int i = first;
    std::apply([&](const auto&... c) {
      (decltype(columns_detail::held_of(c))::bind(stmt, i++, record.*(c.member), c.name), ...);
    }, list_);
    return stmt;
  }
  // Fills the record's fields from the row's columns first, first + 1, ...
  void read(const Database& db, const Statement& stmt, int first, Record& record) const {
    int i = first;
    std::apply([&](const auto&... c) {
      ((record.*(c.member) = decltype(columns_detail::held_of(c))::template read<
            decltype(columns_detail::field_type_of(c))>(db, stmt, i++, c.name)),
       ...);
    }, list_);
  }
  Record read(const Database& db, const Statement& stmt, int first = 0) const {
    Record record;
    read(db, stmt, first, record);
    return record;
  }
  // Every row `stmt` (its parameters bound) gives, read from column 0.
  std::vector<Record> read_all(const Database& db, Statement& stmt) const {
    std::vector<Record> out;
    while (stmt.step()) out.push_back(read(db, stmt));
    return out;
  }
  // The first row `stmt` gives; nothing when it gives none.
  std::optional<Record> read_first(const Database& db, Statement& stmt) const {
    if (!stmt.step()) return std::nullopt;
    return read(db, stmt);
  }

 private:
  static std::string prefixed(const std::string& alias, const char* name) {
    return alias.empty() ? std::string(name) : alias + "." + name;
  }
  std::tuple<Listed...> list_;
};

template <typename Record, typename... Fields, typename... Helds>
constexpr Columns<Record, Column<Record, Fields, Helds>...> columns(Column<Record, Fields, Helds>... list) {
  return Columns<Record, Column<Record, Fields, Helds>...>(list...);
}

}  // namespace mace::store
