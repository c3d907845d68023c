#pragma once
// maced's configuration file (JSON; see README "Configuring maced"):
//
//   {
//     "checkouts": [ {"path": "/srv/piton/a"}, {"path": "/srv/piton/b", "node": "local"} ],
//     "llm": { "backend": "vertex", "model": "gemini-2.5-flash",
//              "prices": { "gemini-2.5-flash": {"input": 0.30, "output": 2.50} } }
//   }
//
// Every field is optional; unknown fields are errors so a typo never silently falls back
// to a default. Environment variables MACE_LLM and MACE_LLM_MODEL override `llm`.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/field_error.h"

namespace mace {

struct CheckoutConfig {
  std::string path;            // an OpenPiton checkout maced owns
  std::string node = "local";  // the machine that holds it (executors, REQ-EXEC-4)
};

struct MacedConfig {
  std::vector<CheckoutConfig> checkouts;
  std::string llm_backend = "vertex";
  std::string llm_model;  // empty: the backend's default
  // `llm.prices`: per-model prices replacing the built-in table (daemon/llm/pricing.cc),
  // as JSON `{"<model>": {"input": x, "output": y, "thinking": z}}` (USD per million
  // tokens), already checked; empty: none.
  std::string llm_prices_json;
};

struct ConfigParseResult {
  std::optional<MacedConfig> config;
  FieldErrors errors;
};

ConfigParseResult parse_maced_config(std::string_view json);

// Applies MACE_LLM / MACE_LLM_MODEL, looked up through `getenv`-like `lookup`; an unknown
// backend name is an error naming the variable.
FieldErrors apply_environment(MacedConfig& config,
                              const std::function<const char*(const char*)>& lookup);

}  // namespace mace
