#pragma once
// What one call counts toward a run's max_usd (REQ-BUD-5, REQ-BUD-12), whatever its
// backend reports:
//   1. the vendor's own cost (claude's total_cost_usd, opencode's cost): `reported`;
//   2. else its token counts at the price table's rates (vertex): `priced`;
//   3. else nothing usable (agy reports nothing; a model the table does not price): maced's
//      configuration decides. `estimate` counts a flat amount per call; `refuse` turns such
//      runs away at submit (see unreported_cost_problem), so a budget never counts zero in
//      silence. A call that still slips through (a CLI that printed no usage this once) is
//      `unknown`: it counts 0 and the run's log and `mace calls` say so.
// An attempt the API turned away (rate limit, authentication, billing, a bad request, an
// overloaded server) was not billed: it counts 0 as `unknown` under every policy.

#include <optional>
#include <string>
#include <string_view>

#include "llm/llm.h"
#include "llm/pricing.h"
#include "llm/setup_error.h"

namespace mace::llm {

// maced's `llm.unreported_cost`.
struct UnreportedCostPolicy {
  enum class Kind { refuse, estimate };
  Kind kind = Kind::refuse;
  double usd_per_call = 0;  // with `estimate`

  // Reads `{"policy": "refuse"}` or `{"policy": "estimate", "usd_per_call": 0.05}`. Throws
  // SetupError naming the place ("llm.unreported_cost.usd_per_call: must be a
  // non-negative number").
  static UnreportedCostPolicy from_json(std::string_view json);
};

class CostAccounting {
 public:
  CostAccounting() = default;
  CostAccounting(PriceTable prices, UnreportedCostPolicy policy)
      : prices_(std::move(prices)), policy_(policy) {}

  // Sets reply.usage.cost_usd and cost_source by the rules above. `model` is the one the
  // run asked for; the vendor's own (reply.model) is used when the run named none.
  void settle(Reply& reply, const std::string& model) const;

  // Why a run on `backend` / `model` cannot keep a cost budget under a `refuse` policy,
  // with what to do about it; nothing when its calls report or can be priced, or the
  // policy estimates. The CLI agents that report a cost (claude, opencode) always pass.
  std::optional<std::string> unreported_cost_problem(const std::string& backend,
                                                     const std::string& model) const;

  const PriceTable& prices() const { return prices_; }
  const UnreportedCostPolicy& policy() const { return policy_; }

 private:
  PriceTable prices_ = PriceTable::defaults();
  UnreportedCostPolicy policy_;
};

// True for the failures where the API turned the request away before any model ran.
bool turned_away(const Reply& reply);

}  // namespace mace::llm
