#include "llm/pricing.h"

#include <simdjson.h>

namespace mace::llm {

PriceTable PriceTable::defaults() {
  // Vertex AI on-demand list prices, USD per 1M tokens, standard tier, text input, prompts
  // up to 200K tokens (2.5 Pro doubles input and raises output to $15 above that; longer
  // prompts are under-counted here). Thinking tokens are billed at the output price.
  // Cached input (usageMetadata.cachedContentTokenCount, implicit or explicit context
  // caching) is billed at the "cached input" price: 10% of input for the 2.5 models, 25%
  // for 2.0. Vertex bills no per-call price for writing a cache (explicit caches are
  // billed for storage by the hour, outside any one call), so cache_write is 0.
  // Source: Google, "Vertex AI generative AI pricing",
  // https://cloud.google.com/vertex-ai/generative-ai/pricing (Gemini 2.5 and 2.0 tables),
  // recorded 2026-12-01 from the published list; this machine has no network to fetch it
  // again. Prices change: CHECK THEM before relying on a budget, and override them in
  // maced's configuration ("llm.prices") rather than editing this table when they differ.
  PriceTable t;
  //                            input  output thinking cache_read cache_write
  t.set("gemini-2.5-pro",        {1.25, 10.00, 10.00, 0.125, 0});
  t.set("gemini-2.5-flash",      {0.30, 2.50, 2.50, 0.030, 0});
  t.set("gemini-2.5-flash-lite", {0.10, 0.40, 0.40, 0.010, 0});
  t.set("gemini-2.0-flash",      {0.15, 0.60, 0.60, 0.0375, 0});
  t.set("gemini-2.0-flash-lite", {0.075, 0.30, 0.30, 0.01875, 0});
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
  auto at = [](int64_t tokens, double rate) { return static_cast<double>(tokens) * rate; };
  return (at(usage.input_tokens, price.input) + at(usage.output_tokens, price.output) +
          at(usage.thinking_tokens, price.thinking) +
          at(usage.cache_read_tokens, price.cache_read) +
          at(usage.cache_write_tokens, price.cache_write)) /
         1e6;
}

std::optional<double> PriceTable::price(std::string_view model, const Usage& usage) const {
  auto price = find(model);
  if (!price) return std::nullopt;
  return cost_of(*price, usage);
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
      throw SetupError(place + ": must be an object with input, output and thinking (and "
                               "optionally cache_read, cache_write)");
    auto existing = updated.find(model);
    bool known = existing != updated.end();
    Price p = known ? existing->second : Price{};
    bool has_output = false, has_thinking = false, has_cache_read = false,
         has_cache_write = false;
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
      } else if (field_key == "cache_read") {
        p.cache_read = number;
        has_cache_read = true;
      } else if (field_key == "cache_write") {
        p.cache_write = number;
        has_cache_write = true;
      } else {
        throw SetupError(field +
                         ": unknown field; expected input, output, thinking, cache_read or "
                         "cache_write");
      }
    }
    if (!known && has_output && !has_thinking) p.thinking = p.output;
    if (!known && !has_cache_read) p.cache_read = p.input;
    if (!known && !has_cache_write) p.cache_write = p.input;
    updated[model] = p;
  }
  prices_ = std::move(updated);
}

}  // namespace mace::llm
