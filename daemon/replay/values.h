#pragma once
// The cached value of each tagged function (REQ-REPLAY-2): JSON of exactly what the
// executor and the loop use of its return value, so a call served from the cache
// (REQ-REPLAY-3) leads to the same TaskOutcome and the same decisions as the call did.
// Parsing throws ValueError for a value this MACE cannot read (written by another
// version, or edited): that is reported, never guessed around.

#include <stdexcept>
#include <string>
#include <string_view>

#include "executor/task_calls.h"
#include "loop/run_loop.h"
#include "openpiton/builder.h"

namespace mace::replay {

class ValueError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A build's log tail is kept as far as triage reads it (REQ-FAIL-2).
inline constexpr std::size_t kCachedBuildTailBytes = 16 * 1024;

std::string build_value(const openpiton::BuildResult& build);
openpiton::BuildResult parse_build_value(std::string_view json);

std::string run_value(const executor::WorkloadCall& call);
executor::WorkloadCall parse_run_value(std::string_view json);

std::string prompt_value(const loop::PlannerReply& reply);
loop::PlannerReply parse_prompt_value(std::string_view json);

}  // namespace mace::replay
