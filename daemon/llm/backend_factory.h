#pragma once
// Which backend and model a run uses (REQ-PLAT-7, REQ-PLAT-8), and making it.

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "llm/cli_backend.h"
#include "llm/cost_accounting.h"
#include "llm/llm.h"
#include "llm/pricing.h"
#include "llm/setup_error.h"

namespace mace::llm {

struct BackendChoice {
  std::string backend;
  std::string model;  // empty: the CLI agent's own default model
};

// The four backend names REQ-PLAT-7 allows, and no others.
bool is_known_backend(std::string_view name);

// backend: the spec's, else MACE_LLM, else "vertex". model: the spec's, else MACE_LLM_MODEL,
// else gemini-2.5-flash for vertex and nothing (the agent's default) for the CLI agents.
// An empty string counts as not given.
BackendChoice resolve_choice(const std::optional<std::string>& spec_backend,
                             const std::optional<std::string>& spec_model, const EnvLookup& env);

struct BackendOptions {
  PriceTable prices = PriceTable::defaults();  // vertex's cost; maced's "prices" applied
  UnreportedCostPolicy unreported_cost;        // maced's llm.unreported_cost
  CliOptions cli;                              // claude, opencode, antigravity

  CostAccounting accounting() const { return {prices, unreported_cost}; }
};

// Throws SetupError when the backend is unknown or cannot be configured (for vertex:
// missing credentials or project; for the CLI agents: a missing CLI; named in the message).
std::unique_ptr<Backend> make_backend(const BackendChoice& choice, const EnvLookup& env,
                                      const BackendOptions& options = BackendOptions{});

// What submit checks (so a run that cannot work is refused at once, not an hour later):
// the backend can be made (make_backend), its CLI can authenticate as far as that can be
// known without a call (llm/cli_auth_check.h), and its costs can be counted under maced's
// llm.unreported_cost (CostAccounting::unreported_cost_problem). The problem, with what to
// do about it; nothing when the run may go.
std::optional<std::string> check_backend(const BackendChoice& choice, const EnvLookup& env,
                                         const BackendOptions& options);

}  // namespace mace::llm
