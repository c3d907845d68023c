#include "maced/config_fields.h"

#include <set>

#include "core/joined.h"

namespace mace::config_fields {

using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

// Reports unknown and duplicate keys of `obj` at `path`.
void check_keys(object obj, const std::string& path, std::initializer_list<std::string_view> allowed,
                FieldErrors& errors) {
  std::set<std::string_view> seen;
  for (auto [key, value] : obj) {
    (void)value;
    std::string where = path.empty() ? std::string(key) : path + "." + std::string(key);
    bool known = false;
    for (auto a : allowed) known |= (a == key);
    if (!known) {
      errors.push_back({where, "unknown field; expected one of: " + joined(allowed)});
    } else if (!seen.insert(key).second) {
      errors.push_back({where, "given more than once"});
    }
  }
}

std::optional<object> object_with_keys(element value, const std::string& path,
                                       std::initializer_list<std::string_view> allowed,
                                       FieldErrors& errors, std::string_view described) {
  object obj;
  if (!value.get(obj)) {
    check_keys(obj, path, allowed, errors);
    return obj;
  }
  if (!described.empty()) {
    errors.push_back({path, "must be an object " + std::string(described)});
    return std::nullopt;
  }
  std::string keys;
  std::size_t i = 0;
  for (auto key : allowed) {
    keys += (i == 0 ? "" : i + 1 == allowed.size() ? " and " : ", ") + ("\"" + std::string(key) + "\"");
    ++i;
  }
  errors.push_back({path, "must be an object with " + keys});
  return std::nullopt;
}

std::optional<std::string> string_field(object obj, std::string_view key, const std::string& path,
                                        FieldErrors& errors) {
  element value;
  if (obj.at_key(key).get(value)) return std::nullopt;
  std::string_view text;
  if (value.get(text) || text.empty()) {
    errors.push_back({path, "must be a non-empty string"});
    return std::nullopt;
  }
  return std::string(text);
}

// A value shown in a message, cut short so a long one cannot flood the log.
std::string shown(element value) {
  std::string text = simdjson::minify(value);
  if (text.size() > 60) text = text.substr(0, 60) + "...";
  return text;
}


std::optional<std::string> required_string(object obj, std::string_view key,
                                           const std::string& path, FieldErrors& errors) {
  if (obj.at_key(key).error()) {
    errors.push_back({path, "is required"});
    return std::nullopt;
  }
  return string_field(obj, key, path, errors);
}

// An optional integer limit within [1, max], or `fallback` when left out.
std::optional<int64_t> integer_field(object obj, std::string_view key, const std::string& path,
                                     int64_t fallback, int64_t min, int64_t max, std::string_view unit,
                                     FieldErrors& errors) {
  element value;
  if (obj.at_key(key).get(value)) return fallback;
  int64_t n = 0;
  if (value.type() != element_type::INT64 || value.get(n) || n < min || n > max) {
    errors.push_back({path, "must be an integer from " + std::to_string(min) + " to " + std::to_string(max) +
                                " (" + std::string(unit) + "), got " + shown(value)});
    return std::nullopt;
  }
  return n;
}

std::optional<int64_t> limit_field(object obj, std::string_view key, const std::string& path,
                                   int64_t fallback, int64_t max, std::string_view unit,
                                   FieldErrors& errors) {
  return integer_field(obj, key, path, fallback, 1, max, unit, errors);
}

std::optional<bool> bool_field(object obj, std::string_view key, const std::string& path, bool fallback,
                               FieldErrors& errors) {
  element value;
  if (obj.at_key(key).get(value)) return fallback;
  bool b = false;
  if (value.type() != element_type::BOOL || value.get(b)) {
    errors.push_back({path, "must be true or false, got " + shown(value)});
    return std::nullopt;
  }
  return b;
}

}  // namespace mace::config_fields
