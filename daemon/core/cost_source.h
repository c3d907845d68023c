#pragma once
// Where an LLM call's cost came from (REQ-BUD-5, REQ-BUD-12). A budget is only as good as
// the cost it counts, so a cost nobody reported is never passed off as a measured 0.

#include <string_view>

#include "core/enum_text.h"

namespace mace {

enum class CostSource {
  reported,   // the vendor said what the call cost (claude's total_cost_usd, opencode's cost)
  priced,     // the vendor gave token counts, priced from the price table (vertex)
  estimated,  // neither: maced's configured flat estimate per call (llm.unreported_cost)
  unknown,    // neither, and nothing to estimate with: counted as 0, and said so
};

std::string_view to_string(CostSource s);

}  // namespace mace
