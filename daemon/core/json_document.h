#pragma once
// What a JSON document from a user (a run spec, an evaluation suite) must be as text,
// checked before any of it is parsed or kept: within its size (a reader may have stopped
// one byte past the limit, so the size is never claimed), without a NUL (a C string, a
// log line or a terminal would take it for something else; simdjson would read past it)
// and UTF-8 throughout.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace mace {

// Why `json` cannot be `what` ("a run spec", "a suite"), or nullopt.
std::optional<std::string> json_document_problem(std::string_view json, std::string_view what,
                                                 std::size_t max_bytes);

}  // namespace mace
