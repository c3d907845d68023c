#pragma once
// One interface for the four LLM backends of REQ-PLAT-7 (vertex over HTTPS; claude,
// opencode and antigravity as command-line agents). The run loop asks a Backend for a
// reply to one prompt, offering tools; what comes back carries the text, the usage and
// cost to record (REQ-BUD-12), and an error class the retry policy understands.
//
// Nothing here knows about the event loop: a call blocks the calling (run) thread.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/cost_source.h"
#include "core/llm_error_class.h"
#include "core/llm_phase.h"
#include "llm/tool.h"

namespace mace::llm {

// The vertex function-declaration name of a tool method: `{tool}__{tool}_{method}` cut to
// 64 characters.
std::string function_name(const std::string& tool, const std::string& method);

// The words of a call's failure and of its cost's source live in the core vocabulary, so
// the store records them as the words they are.
using ErrorClass = ::mace::LlmErrorClass;
using CostSource = ::mace::CostSource;

// Token counts as the vendor reports them, each kind apart because each has its own price.
// input_tokens excludes the cached ones; output_tokens excludes thinking.
struct Usage {
  int64_t input_tokens = 0;
  int64_t cache_read_tokens = 0;   // input served from the vendor's prompt cache (discounted)
  int64_t cache_write_tokens = 0;  // input written to the prompt cache (claude bills it extra)
  int64_t output_tokens = 0;
  int64_t thinking_tokens = 0;
  double cost_usd = 0.0;           // what counts toward max_usd; see cost_source
  CostSource cost_source = CostSource::unknown;

  bool has_tokens() const {
    return input_tokens || cache_read_tokens || cache_write_tokens || output_tokens ||
           thinking_tokens;
  }
};

struct Request {
  LlmPhase phase = LlmPhase::planning;
  std::string system;        // system instruction
  std::string prompt;
  std::vector<Tool> tools;   // the run's tools plus the call's own
  std::chrono::seconds timeout{600};
};

struct Reply {
  bool ok = false;
  std::string text;
  Usage usage;
  ErrorClass error_class = ErrorClass::none;
  std::string error;                                  // for people
  std::optional<std::chrono::seconds> retry_after;    // the vendor's reset time, if given
  double wall_s = 0;
  int tool_calls = 0;
  // The model the vendor says answered, when it says (claude's modelUsage); a CLI run with
  // its own default model has no other way to tell.
  std::string model;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  virtual std::string model() const = 0;
  virtual Reply call(const Request& request) = 0;
};

// Reads one environment variable; nullopt when unset. Every backend and setting reads the
// environment through one of these so tests can supply their own.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;
// The process's own environment (getenv).
EnvLookup process_environment();

}  // namespace mace::llm
