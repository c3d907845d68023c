#include "llm/cost_accounting.h"

#include <cmath>

#include <simdjson.h>

namespace mace::llm {

UnreportedCostPolicy UnreportedCostPolicy::from_json(std::string_view json) {
  const std::string place = "llm.unreported_cost";
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  simdjson::dom::object object;
  if (parser.parse(json.data(), json.size()).get(root) || root.get_object().get(object))
    throw SetupError(place + R"(: must be an object: {"policy": "refuse"} or {"policy": )"
                             R"("estimate", "usd_per_call": N})");
  UnreportedCostPolicy policy;
  std::string_view kind;
  bool has_amount = false;
  for (auto [key, value] : object) {
    if (key == "policy") {
      if (value.get_string().get(kind) || (kind != "refuse" && kind != "estimate"))
        throw SetupError(place + ".policy: must be \"refuse\" or \"estimate\"");
    } else if (key == "usd_per_call") {
      double number = 0;
      int64_t whole = 0;
      if (!value.get_double().get(number)) {
      } else if (!value.get_int64().get(whole)) {
        number = static_cast<double>(whole);
      } else {
        throw SetupError(place + ".usd_per_call: must be a non-negative number");
      }
      if (!(number >= 0) || !std::isfinite(number))
        throw SetupError(place + ".usd_per_call: must be a non-negative number");
      policy.usd_per_call = number;
      has_amount = true;
    } else {
      throw SetupError(place + "." + std::string(key) +
                       ": unknown field; expected policy and usd_per_call");
    }
  }
  if (kind.empty()) throw SetupError(place + ".policy: required (\"refuse\" or \"estimate\")");
  policy.kind = kind == "estimate" ? UnreportedCostPolicy::Kind::estimate
                                   : UnreportedCostPolicy::Kind::refuse;
  if (policy.kind == UnreportedCostPolicy::Kind::estimate && !has_amount)
    throw SetupError(place + ".usd_per_call: required with \"estimate\"");
  if (policy.kind == UnreportedCostPolicy::Kind::refuse && has_amount)
    throw SetupError(place + ".usd_per_call: only with \"estimate\"");
  return policy;
}

bool turned_away(const Reply& reply) {
  if (reply.ok) return false;
  switch (reply.error_class) {
    case ErrorClass::rate_limit:
    case ErrorClass::authentication:
    case ErrorClass::billing:
    case ErrorClass::invalid_request:
    case ErrorClass::server:
      return true;
    default:
      return false;
  }
}

void CostAccounting::settle(Reply& reply, const std::string& model) const {
  Usage& u = reply.usage;
  if (u.cost_source == CostSource::reported || u.cost_source == CostSource::priced) return;
  const std::string& priced_as = model.empty() ? reply.model : model;
  if (u.has_tokens()) {
    if (auto cost = prices_.price(priced_as, u)) {
      u.cost_usd = *cost;
      u.cost_source = CostSource::priced;
      return;
    }
  }
  if (!turned_away(reply) && policy_.kind == UnreportedCostPolicy::Kind::estimate) {
    u.cost_usd = policy_.usd_per_call;
    u.cost_source = CostSource::estimated;
    return;
  }
  u.cost_usd = 0;
  u.cost_source = CostSource::unknown;
}

std::optional<std::string> CostAccounting::unreported_cost_problem(const std::string& backend,
                                                                   const std::string& model) const {
  if (policy_.kind == UnreportedCostPolicy::Kind::estimate) return std::nullopt;
  const std::string remedy =
      R"(; set "llm": {"unreported_cost": {"policy": "estimate", "usd_per_call": N}} in )"
      "maced's configuration to count a flat N dollars per call instead";
  if (backend == "antigravity")
    return "antigravity (agy) reports neither tokens nor cost, so budget.max_usd cannot be "
           "kept" + remedy;
  if (backend == "vertex" && !prices_.find(model))
    return "no price is known for vertex model '" + model +
           "' (vertex reports tokens, not cost), so budget.max_usd cannot be kept; add it to "
           "llm.prices in maced's configuration" + remedy;
  return std::nullopt;
}

}  // namespace mace::llm
