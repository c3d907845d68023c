#pragma once
// Where a diagnosis came from: narrowing settled it (REQ-FAIL-2), the LLM gave it, a rule
// recognised the failure, or nothing did and the fallback stands.

#include <string_view>

#include "core/enum_text.h"

namespace mace {

enum class DiagnosisSource { narrowing, llm, rule, fallback };

// "narrowing", "llm", "rule", "fallback": as the store, the wire and the log have them.
std::string_view to_string(DiagnosisSource source);

}  // namespace mace
