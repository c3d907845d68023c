#include <cstdlib>

#include "llm/llm.h"

namespace mace::llm {

namespace {
// Gemini rejects function declarations whose names exceed 64 characters; CHIA cuts them
// there, and the ut_edit_ tool names (REQ-EXEC-9) are sized so the cut never collides.
constexpr std::size_t kMaxFunctionName = 64;
}  // namespace

std::string function_name(const std::string& tool, const std::string& method) {
  std::string name = tool + "__" + tool + "_" + method;
  if (name.size() > kMaxFunctionName) name.resize(kMaxFunctionName);
  return name;
}

EnvLookup process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

}  // namespace mace::llm
