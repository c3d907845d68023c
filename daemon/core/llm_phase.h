#pragma once
// Which of a run's LLM calls this is (REQ-BUD-12): the plan of an iteration, a task's own
// call (a prompt, or an rtl or unit_test task's agent), a failed task's diagnosis, or the
// run's post-mortem. Replay serves the loop's own calls (planning, diagnosis, post-mortem)
// in order and each task's by task.

#include <string_view>

#include "core/enum_text.h"

namespace mace {

enum class LlmPhase { planning, task, diagnosis, post_mortem };

// "planning", "task", "diagnosis", "post_mortem": as the store, the wire and `mace calls`
// have them.
std::string_view to_string(LlmPhase phase);

// The loop's own, sequential calls: every phase but a task's.
inline bool is_loop_phase(LlmPhase phase) { return phase != LlmPhase::task; }

}  // namespace mace
