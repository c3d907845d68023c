#pragma once
// The arguments of one tool call, as a model sent them: a JSON object of named values.
//
// Models send whatever they like, so every accessor checks the type and a missing or
// mistyped argument throws ToolArgumentError naming it; the tool's caller turns that into
// a failed result the model reads (a tool that fails never ends the LLM call).

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>

namespace mace::tools {

class ToolArgumentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class ToolArguments {
 public:
  // `json` must be a JSON object; an empty string counts as {}. Nested objects and arrays
  // are kept only as "present" (no tool of ours takes them) and reject any typed access.
  static ToolArguments parse(std::string_view json);

  std::string string(std::string_view name) const;  // required
  std::optional<std::string> optional_string(std::string_view name) const;
  std::optional<int64_t> optional_integer(std::string_view name) const;
  std::optional<bool> optional_bool(std::string_view name) const;
  bool has(std::string_view name) const { return values_.count(std::string(name)) != 0; }

 private:
  struct Nested {};
  using Value = std::variant<std::monostate /*null*/, std::string, int64_t, double, bool, Nested>;
  const Value* find(std::string_view name) const;
  std::map<std::string, Value, std::less<>> values_;
};

}  // namespace mace::tools
