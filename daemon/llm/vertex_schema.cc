#include "llm/vertex_schema.h"

#include <set>

#include <simdjson.h>

#include "core/json_writer.h"

namespace mace::llm {
namespace {

using simdjson::dom::element;

// Writes a parsed schema back out without the keys Gemini rejects.
void write_schema(JsonWriter& w, element e, bool property_map) {
  static const std::set<std::string, std::less<>> kDrop = {
      "$schema", "$id", "$defs", "definitions", "additionalProperties", "title"};
  switch (e.type()) {
    case simdjson::dom::element_type::OBJECT: {
      simdjson::dom::object obj;
      if (e.get_object().get(obj)) break;
      w.begin_object();
      for (auto [k, v] : obj) {
        if (!property_map && kDrop.count(k)) continue;
        w.key(k);
        // The children of "properties" are property names, not schema keywords.
        write_schema(w, v, !property_map && k == "properties");
      }
      w.end_object();
      break;
    }
    case simdjson::dom::element_type::ARRAY: {
      simdjson::dom::array arr;
      if (e.get_array().get(arr)) break;
      w.begin_array();
      for (element v : arr) write_schema(w, v, false);
      w.end_array();
      break;
    }
    default:
      w.raw(simdjson::minify(e));
  }
}

}  // namespace

std::string gemini_schema(std::string_view schema_json) {
  simdjson::dom::parser parser;
  element root;
  if (auto e = parser.parse(schema_json.data(), schema_json.size()).get(root); e)
    throw SetupError(std::string("not valid JSON: ") + simdjson::error_message(e));
  if (!root.is_object()) throw SetupError("a parameters schema must be a JSON object");
  JsonWriter w;
  write_schema(w, root, false);
  return w.take();
}

}  // namespace mace::llm
