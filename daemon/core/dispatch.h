#pragma once
// How a level's tasks are put on the run's checkouts (REQ-EXEC-2). Both keep what the seeds
// require: one task per checkout at a time, levels in order, no level after one with a
// failed task.
//   queue    a task starts as soon as a checkout is free, the longest expected first
//            (loop/dispatcher.h); the default.
//   batches  the seeds' literal form: the level cut into batches of one task per checkout,
//            in plan order, each batch waiting for its slowest task.

#include <optional>
#include <string_view>

#include "core/enum_text.h"

namespace mace {

enum class Dispatch { queue, batches };

std::string_view to_string(Dispatch dispatch);
std::optional<Dispatch> dispatch_from_string(std::string_view text);

}  // namespace mace
