#pragma once
// The order a plan's tasks run in (REQ-EXEC-1; which checkout each goes on is
// loop/dispatcher.h) and what a task inherits from the tasks it depends on (REQ-EXEC-5).

#include <cstddef>
#include <string>
#include <vector>

#include "core/plan.h"

namespace mace {

using TaskLevel = std::vector<PlannedTask>;

// Levels in which every task's dependencies lie in earlier levels; within a level, tasks
// keep their plan order. Throws std::invalid_argument on a duplicate id, a dependency on
// an undefined task, or a cycle, naming the ids.
std::vector<TaskLevel> topological_levels(const std::vector<PlannedTask>& tasks);

// Each dependency cycle found, as the ids along it with the first repeated at the end
// ("a", "b", "a"). At least one per cyclic part of the graph, at most kMaxReportedCycles;
// unknown dependencies are ignored and a duplicated id stands for its first task.
inline constexpr std::size_t kMaxReportedCycles = 20;
std::vector<std::vector<std::string>> dependency_cycles(const std::vector<PlannedTask>& tasks);

// The task's CONFIG_RTL defines and those of every task it depends on, directly or
// transitively: sorted, unique. Unknown dependencies are ignored.
std::vector<std::string> inherited_defines(const Plan& plan, const PlannedTask& task);

// Whether the task is rtl or depends, directly or transitively, on an rtl task.
bool builds_on_rtl_edits(const Plan& plan, const PlannedTask& task);

}  // namespace mace
