#pragma once
// What an LLM call cost, from its token counts (REQ-BUD-5, REQ-BUD-12). Vertex's replies
// carry token counts but no price, so the price list lives here, in one place.

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
};

class PriceTable {
 public:
  // The built-in list (see pricing.cc for its source and date).
  static PriceTable defaults();

  // Applies maced's `{"prices": {"<model>": {"input": x, "output": y, "thinking": z}}}`.
  // A field left out keeps the model's current value; a new model without "thinking" is
  // charged its output price for thinking, as Google bills it. On error nothing changes
  // and the SetupError thrown names the place ("prices.gemini-2.5-pro.input: must be a
  // non-negative number").
  void apply_overrides_json(std::string_view json);

  void set(const std::string& model, Price price) { prices_[model] = price; }

  // Exact name first, else the longest listed name that the model extends with "-…" or
  // "@…" (a dated or versioned release: gemini-2.5-flash-001 is priced as gemini-2.5-flash).
  std::optional<Price> find(std::string_view model) const;

  // tokens × price; 0 for a model the table does not know.
  double cost(std::string_view model, const Usage& usage) const;

 private:
  std::map<std::string, Price, std::less<>> prices_;
};

double cost_of(const Price& price, const Usage& usage);

}  // namespace mace::llm
