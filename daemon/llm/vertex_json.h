#pragma once
// Reading Google's JSON answers (generateContent, errors, token exchanges) leniently: a
// missing or mistyped field is empty, never an exception, because the answer's shape is
// the vendor's and a partial answer must still give a useful message.

#include <cstdint>
#include <string>
#include <string_view>

#include <simdjson.h>

namespace mace::llm::vertex {

std::string string_field(simdjson::dom::element obj, std::string_view key);
// An integer field, also when given as a double or (proto3 JSON int64) a string; 0 if none.
int64_t int_field(simdjson::dom::element obj, std::string_view key);
// The start of a body for a message.
std::string excerpt(std::string_view s, size_t n = 200);

}  // namespace mace::llm::vertex
