#pragma once
// Where a task is in its life, as events and `mace status` show it (REQ-EXEC-10).

#include <optional>
#include <string_view>

#include "core/enum_text.h"

namespace mace {

enum class TaskStage { pending, prompting, building, running, passed, failed, skipped };

std::string_view to_string(TaskStage stage);
std::optional<TaskStage> task_stage_from_string(std::string_view text);

}  // namespace mace
