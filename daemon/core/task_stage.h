#pragma once
// Where a task is in its life, as events and `mace status` show it (REQ-EXEC-10). A task
// `waiting` was ready to start but is held back, and says why (no free checkout, a model
// another task is building, a checkout lost to the infrastructure).

#include <optional>
#include <string_view>

#include "core/enum_text.h"

namespace mace {

enum class TaskStage { pending, waiting, prompting, building, running, passed, failed, skipped };

std::string_view to_string(TaskStage stage);
std::optional<TaskStage> task_stage_from_string(std::string_view text);

}  // namespace mace
