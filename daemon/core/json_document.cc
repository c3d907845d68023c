#include "core/json_document.h"

#include "os/text.h"

namespace mace {

std::optional<std::string> json_document_problem(std::string_view json, std::string_view what,
                                                 std::size_t max_bytes) {
  const std::string name(what);
  if (json.size() > max_bytes)
    return name + " must be at most " + std::to_string(max_bytes) + " bytes of JSON, got more";
  if (std::size_t nul = json.find('\0'); nul != std::string_view::npos)
    return name + " must not contain a NUL byte, got one at byte " + std::to_string(nul);
  for (std::size_t i = 0; i < json.size();) {
    const std::size_t n = os::utf8_sequence_length(json, i);
    if (n == 0)
      return name + " must be UTF-8 text, got bytes that are not UTF-8 at byte " + std::to_string(i);
    i += n;
  }
  return std::nullopt;
}

}  // namespace mace
