#pragma once
// Tool parameter schemas as Vertex's function declarations accept them.

#include <string>
#include <string_view>

#include "llm/setup_error.h"

namespace mace::llm {

// A tool's JSON schema as Gemini's OpenAPI subset accepts it: drops $schema, $id, $defs,
// definitions, additionalProperties and title (which Vertex answers with 400), but never a
// property that happens to carry one of those names. Throws SetupError for a schema that
// is not a JSON object.
std::string gemini_schema(std::string_view schema_json);

}  // namespace mace::llm
