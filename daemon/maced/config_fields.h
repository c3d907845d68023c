#pragma once
// Reading one field of maced's configuration file: the checks every section shares, each
// problem reported at its path ("executor.slurm.build.cpus") so a typo is named, never
// silently replaced by a default.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include <simdjson.h>

#include "core/field_error.h"

namespace mace::config_fields {

// Reports unknown and duplicate keys of `obj` at `path`.
void check_keys(simdjson::dom::object obj, const std::string& path,
                std::initializer_list<std::string_view> allowed, FieldErrors& errors);

// `value` as an object of a section at `path`, its unknown and repeated keys reported;
// nullopt when it is not an object, after "must be an object" and `described` ("with" the
// allowed keys when empty).
std::optional<simdjson::dom::object> object_with_keys(simdjson::dom::element value, const std::string& path,
                                                      std::initializer_list<std::string_view> allowed,
                                                      FieldErrors& errors,
                                                      std::string_view described = {});

// The string at `key`, nullopt when absent; an error when it is not a non-empty string.
std::optional<std::string> string_field(simdjson::dom::object obj, std::string_view key,
                                        const std::string& path, FieldErrors& errors);

// As string_field, and an error when absent.
std::optional<std::string> required_string(simdjson::dom::object obj, std::string_view key,
                                           const std::string& path, FieldErrors& errors);

// An optional integer within [min, max], or `fallback` when left out.
std::optional<int64_t> integer_field(simdjson::dom::object obj, std::string_view key,
                                     const std::string& path, int64_t fallback, int64_t min,
                                     int64_t max, std::string_view unit, FieldErrors& errors);

// An optional integer limit within [1, max], or `fallback` when left out.
std::optional<int64_t> limit_field(simdjson::dom::object obj, std::string_view key,
                                   const std::string& path, int64_t fallback, int64_t max,
                                   std::string_view unit, FieldErrors& errors);

// An optional true or false, or `fallback` when left out.
std::optional<bool> bool_field(simdjson::dom::object obj, std::string_view key, const std::string& path,
                               bool fallback, FieldErrors& errors);

// A value shown in a message, cut short so a long one cannot flood the log.
std::string shown(simdjson::dom::element value);

}  // namespace mace::config_fields
