#include "llm/pricing.h"

#include <simdjson.h>

namespace mace::llm {

PriceTable PriceTable::defaults() {
  // Vertex AI on-demand list prices, USD per 1M tokens, standard tier, text input, prompts
  // up to 200K tokens (2.5 Pro doubles input and raises output to $15 above that; longer
  // prompts are under-counted here). Thinking tokens are billed at the output price.
  // Source: https://cloud.google.com/vertex-ai/generative-ai/pricing as recorded in 2025.
  // Prices change: CHECK THEM before relying on a budget, and override them in maced's
  // configuration ("prices") rather than editing this table when they differ.
  PriceTable t;
  t.set("gemini-2.5-pro", {1.25, 10.00, 10.00});
  t.set("gemini-2.5-flash", {0.30, 2.50, 2.50});
  t.set("gemini-2.5-flash-lite", {0.10, 0.40, 0.40});
  t.set("gemini-2.0-flash", {0.15, 0.60, 0.60});
  t.set("gemini-2.0-flash-lite", {0.075, 0.30, 0.30});
  return t;
}

std::optional<Price> PriceTable::find(std::string_view model) const {
  if (auto it = prices_.find(model); it != prices_.end()) return it->second;
  const Price* best = nullptr;
  size_t best_length = 0;
  for (const auto& [name, price] : prices_) {
    if (model.size() > name.size() && model.substr(0, name.size()) == name &&
        (model[name.size()] == '-' || model[name.size()] == '@') && name.size() > best_length) {
      best = &price;
      best_length = name.size();
    }
  }
  if (best == nullptr) return std::nullopt;
  return *best;
}

double cost_of(const Price& price, const Usage& usage) {
  return (static_cast<double>(usage.input_tokens) * price.input +
          static_cast<double>(usage.output_tokens) * price.output +
          static_cast<double>(usage.thinking_tokens) * price.thinking) /
         1e6;
}

double PriceTable::cost(std::string_view model, const Usage& usage) const {
  auto price = find(model);
  return price ? cost_of(*price, usage) : 0.0;
}

void PriceTable::apply_overrides_json(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (auto e = parser.parse(json.data(), json.size()).get(root); e) {
    throw SetupError(std::string("prices: not valid JSON: ") + simdjson::error_message(e));
  }
  simdjson::dom::object top;
  if (root.get_object().get(top)) throw SetupError("prices: expected a JSON object");
  simdjson::dom::element prices_el;
  if (top["prices"].get(prices_el)) return;  // nothing to override
  simdjson::dom::object prices;
  if (prices_el.get_object().get(prices)) throw SetupError("prices: must be an object of models");
  auto updated = prices_;
  for (auto [model_key, entry] : prices) {
    std::string model(model_key);
    std::string place = "prices." + model;
    simdjson::dom::object fields;
    if (entry.get_object().get(fields))
      throw SetupError(place + ": must be an object with input, output and thinking");
    auto existing = updated.find(model);
    bool known = existing != updated.end();
    Price p = known ? existing->second : Price{};
    bool has_output = false, has_thinking = false;
    for (auto [field_key, value] : fields) {
      const std::string field = place + "." + std::string(field_key);
      double number = 0;
      if (value.get_double().get(number)) {
        int64_t as_int = 0;
        uint64_t as_uint = 0;
        if (!value.get_int64().get(as_int)) {
          number = static_cast<double>(as_int);
        } else if (!value.get_uint64().get(as_uint)) {
          number = static_cast<double>(as_uint);
        } else {
          throw SetupError(field + ": must be a non-negative number");
        }
      }
      if (number < 0) throw SetupError(field + ": must be a non-negative number");
      if (field_key == "input") {
        p.input = number;
      } else if (field_key == "output") {
        p.output = number;
        has_output = true;
      } else if (field_key == "thinking") {
        p.thinking = number;
        has_thinking = true;
      } else {
        throw SetupError(field + ": unknown field; expected input, output or thinking");
      }
    }
    if (!known && has_output && !has_thinking) p.thinking = p.output;
    updated[model] = p;
  }
  prices_ = std::move(updated);
}

}  // namespace mace::llm
