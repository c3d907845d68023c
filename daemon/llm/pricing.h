#pragma once
// What an LLM call cost, from its token counts (REQ-BUD-5, REQ-BUD-12). Vertex's replies
// carry token counts but no price, so the price list lives here, in one place. Each kind of
// token has its own rate: cached input is billed at a fraction of fresh input, thinking at
// the output rate.

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "llm/llm.h"
#include "llm/setup_error.h"

namespace mace::llm {

// US dollars per million tokens.
struct Price {
  double input = 0;
  double output = 0;
  double thinking = 0;
  double cache_read = 0;   // input served from the prompt cache
  double cache_write = 0;  // input written to the prompt cache
};

class PriceTable {
 public:
  // The built-in list (see pricing.cc for its source and date).
  static PriceTable defaults();

  // Applies maced's `{"prices": {"<model>": {"input": x, "output": y, "thinking": z,
  // "cache_read": r, "cache_write": w}}}`. A field left out keeps the model's current
  // value; a new model without "thinking" is charged its output price for thinking, as
  // Google bills it, and without "cache_read" / "cache_write" its input price (no discount
  // assumed, so a budget errs on the safe side). On error nothing changes
  // and the SetupError thrown names the place ("prices.gemini-2.5-pro.input: must be a
  // non-negative number").
  void apply_overrides_json(std::string_view json);

  void set(const std::string& model, Price price) { prices_[model] = price; }

  // Exact name first, else the longest listed name that the model extends with "-…" or
  // "@…" (a dated or versioned release: gemini-2.5-flash-001 is priced as gemini-2.5-flash).
  std::optional<Price> find(std::string_view model) const;

  // tokens × price, each kind at its rate; nothing for a model the table does not know.
  std::optional<double> price(std::string_view model, const Usage& usage) const;

 private:
  std::map<std::string, Price, std::less<>> prices_;
};

double cost_of(const Price& price, const Usage& usage);

}  // namespace mace::llm
