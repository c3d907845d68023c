#include "core/run_input.h"

#include <simdjson.h>

#include "core/json_writer.h"
#include "os/base64.h"

namespace mace {

std::string run_inputs_json(const std::vector<RunInput>& inputs) {
  if (inputs.empty()) return "";
  JsonWriter w;
  w.begin_array();
  for (const auto& input : inputs)
    w.begin_object().field("path", input.path).field("base64", os::base64_encode(input.content)).end_object();
  w.end_array();
  return w.str();
}

std::optional<std::vector<RunInput>> run_inputs_from_json(std::string_view json) {
  std::vector<RunInput> out;
  if (json.empty()) return out;
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json);
  simdjson::dom::array inputs;
  if (parser.parse(padded).get_array().get(inputs)) return std::nullopt;
  for (simdjson::dom::element e : inputs) {
    std::string_view path, encoded;
    if (e["path"].get_string().get(path) || e["base64"].get_string().get(encoded)) return std::nullopt;
    auto content = os::base64_decode(encoded);
    if (!content) return std::nullopt;
    out.push_back({std::string(path), std::move(*content)});
  }
  return out;
}

}  // namespace mace
