#pragma once
// The methods an evaluation batch compares (docs/evaluation.md, "Methods"): the words the
// store, the results and the wire use for them.

#include <optional>
#include <string_view>

#include "core/enum_text.h"

namespace mace {

enum class EvalMethod {
  mace,            // the MACE loop as it is
  baseline,        // one LLM proposal, checked once (REQ-EVAL-5, 6)
  baseline_retry,  // the same, retried with the failure shown a fixed number of times
  fault_check,     // the expert configuration with a seeded fault applied, no LLM (REQ-EVAL-11)
  codesign,        // cache geometries enumerated within the area budget, each checked (REQ-EVAL-8)
  seeded_fault,    // the MACE loop with a config fault laid over its first plan (REQ-EVAL-10)
  codesign_llm,    // designs an LLM proposes within the area budget, each checked (REQ-EVAL-6, 8)
};

std::string_view to_string(EvalMethod method);
std::optional<EvalMethod> eval_method_from_string(std::string_view text);

// A co-design search, enumerated or proposed by an LLM (REQ-EVAL-8).
constexpr bool is_codesign(EvalMethod method) {
  return method == EvalMethod::codesign || method == EvalMethod::codesign_llm;
}

}  // namespace mace
