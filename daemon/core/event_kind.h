#pragma once
// What a run's progress event reports (`mace watch`, `mace logs`).

#include <optional>
#include <string_view>

#include "core/enum_text.h"

namespace mace {

enum class EventKind {
  submitted,
  state_changed,
  iteration_started,
  level_started,
  task_stage,
  verdict,
  iteration_finished,
  message,
  build_progress,  // a build's phase and objects compiled, with elapsed time and estimate
  workload_started,  // a task started simulating one gate workload (its verdict follows,
                     // unless an earlier one's failure stopped it)
};

std::string_view to_string(EventKind kind);
std::optional<EventKind> event_kind_from_string(std::string_view text);

}  // namespace mace
