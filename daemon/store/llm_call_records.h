#pragma once
// Each LLM call of a run as the store keeps it (store/llm_call_records.cc).

#include <cstdint>
#include <optional>
#include <string>

#include "core/cost_source.h"
#include "core/llm_error_class.h"
#include "core/llm_phase.h"

namespace mace::store {

// One LLM call as REQ-BUD-12 asks it recorded: phase, tokens, cost, wall time, success and
// the reply's text. Its cost counts towards the run's max_usd (REQ-BUD-5).
struct LlmCallRecord {
  int64_t id = 0;  // assigned by record_llm_call
  std::string run_id;
  int64_t iteration = 0;   // 0: outside any iteration (a post-mortem, say)
  LlmPhase phase = LlmPhase::planning;
  std::string task_id;
  std::string backend;
  std::string model;
  int64_t input_tokens = 0;   // uncached input
  int64_t output_tokens = 0;  // thinking apart
  int64_t thinking_tokens = 0;
  double cost_usd = 0;        // what counted toward max_usd
  double wall_s = 0;
  bool success = false;
  LlmErrorClass error_class = LlmErrorClass::none;  // none on success
  std::string reply_text;
  int64_t created_at_ms = 0;
  std::string prompt_text = {};  // what the call asked (the system instruction aside)
  int64_t cache_read_tokens = 0;   // input served from the vendor's prompt cache
  int64_t cache_write_tokens = 0;  // input written to it
  // Where cost_usd came from: reported (the vendor's), priced (tokens × the price table),
  // estimated (maced's flat llm.unreported_cost), unknown (nothing to count: 0 was
  // counted); none for calls recorded before MACE kept it.
  std::optional<CostSource> cost_source = {};
};

}  // namespace mace::store
