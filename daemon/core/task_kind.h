#pragma once
// The four kinds of task a plan may hold (REQ-PLAN-6): a build configuration, a gate
// workload run, an RTL change by an agent, and a unit test of one module.

#include <optional>
#include <string_view>

#include "core/enum_text.h"

namespace mace {

enum class TaskKind { config, workload, unit_test, rtl };

inline constexpr TaskKind kAllTaskKinds[] = {TaskKind::config, TaskKind::workload,
                                             TaskKind::unit_test, TaskKind::rtl};

std::string_view to_string(TaskKind kind);  // "config", "workload", "unit_test", "rtl"
std::optional<TaskKind> task_kind_from_string(std::string_view text);

// Config and workload tasks build the plan's configuration and run the gate workloads
// without an agent; their prompt call is optional (REQ-EXEC-10).
inline bool builds_without_agent(TaskKind kind) {
  return kind == TaskKind::config || kind == TaskKind::workload;
}

}  // namespace mace
