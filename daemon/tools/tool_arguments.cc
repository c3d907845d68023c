#include "tools/tool_arguments.h"

#include <simdjson.h>

namespace mace::tools {
namespace {

std::string quoted(std::string_view name) { return "\"" + std::string(name) + "\""; }

}  // namespace

ToolArguments ToolArguments::parse(std::string_view json) {
  ToolArguments out;
  if (json.find_first_not_of(" \t\r\n") == std::string_view::npos) return out;
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json);
  simdjson::dom::element root;
  if (parser.parse(padded).get(root) != simdjson::SUCCESS)
    throw ToolArgumentError("the arguments are not valid JSON");
  simdjson::dom::object object;
  if (root.get_object().get(object) != simdjson::SUCCESS)
    throw ToolArgumentError("the arguments must be a JSON object");
  for (auto field : object) {
    Value value;
    switch (field.value.type()) {
      case simdjson::dom::element_type::STRING:
        value = std::string(std::string_view(field.value.get_string().value()));
        break;
      case simdjson::dom::element_type::INT64:
        value = field.value.get_int64().value();
        break;
      case simdjson::dom::element_type::UINT64:
        value = static_cast<double>(field.value.get_uint64().value());
        break;
      case simdjson::dom::element_type::DOUBLE:
        value = field.value.get_double().value();
        break;
      case simdjson::dom::element_type::BOOL:
        value = field.value.get_bool().value();
        break;
      case simdjson::dom::element_type::NULL_VALUE:
        value = std::monostate{};
        break;
      default:
        value = Nested{};
    }
    out.values_[std::string(field.key)] = std::move(value);
  }
  return out;
}

const ToolArguments::Value* ToolArguments::find(std::string_view name) const {
  auto it = values_.find(name);
  if (it == values_.end() || std::holds_alternative<std::monostate>(it->second)) return nullptr;
  return &it->second;
}

std::string ToolArguments::string(std::string_view name) const {
  auto value = optional_string(name);
  if (!value) throw ToolArgumentError("missing argument " + quoted(name) + " (a string)");
  return *value;
}

std::optional<std::string> ToolArguments::optional_string(std::string_view name) const {
  const Value* v = find(name);
  if (!v) return std::nullopt;
  if (auto s = std::get_if<std::string>(v)) return *s;
  throw ToolArgumentError("argument " + quoted(name) + " must be a string");
}

std::optional<int64_t> ToolArguments::optional_integer(std::string_view name) const {
  const Value* v = find(name);
  if (!v) return std::nullopt;
  if (auto i = std::get_if<int64_t>(v)) return *i;
  // Some models write 3.0 for 3.
  if (auto d = std::get_if<double>(v); d && *d == static_cast<double>(static_cast<int64_t>(*d)))
    return static_cast<int64_t>(*d);
  throw ToolArgumentError("argument " + quoted(name) + " must be an integer");
}

std::optional<bool> ToolArguments::optional_bool(std::string_view name) const {
  const Value* v = find(name);
  if (!v) return std::nullopt;
  if (auto b = std::get_if<bool>(v)) return *b;
  throw ToolArgumentError("argument " + quoted(name) + " must be true or false");
}

}  // namespace mace::tools
