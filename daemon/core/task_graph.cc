#include "core/task_graph.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>

namespace mace {
namespace {

// Id -> index of the first task with that id.
std::map<std::string, size_t> index_by_id(const std::vector<PlannedTask>& tasks) {
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < tasks.size(); ++i) index.emplace(tasks[i].id, i);
  return index;
}

std::string path_text(const std::vector<std::string>& ids) {
  std::string out;
  for (const auto& id : ids) out += (out.empty() ? "" : " -> ") + id;
  return out;
}

// Every task `task` depends on, directly or transitively, as indexes (itself excluded
// unless a cycle leads back to it).
std::vector<size_t> ancestors(const std::vector<PlannedTask>& tasks, const PlannedTask& task) {
  auto index = index_by_id(tasks);
  std::vector<bool> seen(tasks.size(), false);
  std::vector<size_t> out;
  std::vector<const std::vector<std::string>*> todo{&task.deps};
  while (!todo.empty()) {
    const auto* deps = todo.back();
    todo.pop_back();
    for (const auto& dep : *deps) {
      auto it = index.find(dep);
      if (it == index.end() || seen[it->second]) continue;
      seen[it->second] = true;
      out.push_back(it->second);
      todo.push_back(&tasks[it->second].deps);
    }
  }
  return out;
}

}  // namespace

std::vector<std::vector<std::string>> dependency_cycles(const std::vector<PlannedTask>& tasks) {
  auto index = index_by_id(tasks);
  enum class Colour { white, grey, black };
  std::vector<Colour> colour(tasks.size(), Colour::white);
  std::vector<size_t> stack;
  std::vector<std::vector<std::string>> cycles;
  std::set<std::set<std::string>> seen_cycles;

  // Plans are a handful of tasks, so recursion depth is no concern.
  std::function<void(size_t)> visit = [&](size_t i) {
    colour[i] = Colour::grey;
    stack.push_back(i);
    for (const auto& dep : tasks[i].deps) {
      auto it = index.find(dep);
      if (it == index.end()) continue;
      size_t j = it->second;
      if (colour[j] == Colour::white) {
        visit(j);
      } else if (colour[j] == Colour::grey) {
        // Edges point from a task to what it needs; the cycle reads the same way.
        auto from = std::find(stack.begin(), stack.end(), j);
        std::vector<std::string> cycle;
        std::set<std::string> members;
        for (auto k = from; k != stack.end(); ++k) {
          cycle.push_back(tasks[*k].id);
          members.insert(tasks[*k].id);
        }
        cycle.push_back(tasks[j].id);
        if (seen_cycles.insert(members).second) cycles.push_back(std::move(cycle));
      }
    }
    stack.pop_back();
    colour[i] = Colour::black;
  };
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (index.at(tasks[i].id) == i && colour[i] == Colour::white) visit(i);
  }
  // Report in plan order of each cycle's first task, not in id order.
  std::stable_sort(cycles.begin(), cycles.end(), [&](const auto& a, const auto& b) {
    return index.at(a.front()) < index.at(b.front());
  });
  return cycles;
}

std::vector<TaskLevel> topological_levels(const std::vector<PlannedTask>& tasks) {
  std::set<std::string> ids;
  for (const auto& t : tasks) {
    if (!ids.insert(t.id).second) throw std::invalid_argument("duplicate task id " + t.id);
  }
  for (const auto& t : tasks) {
    for (const auto& dep : t.deps) {
      if (!ids.count(dep))
        throw std::invalid_argument("task " + t.id + " depends on undefined task " + dep);
    }
  }
  auto cycles = dependency_cycles(tasks);
  if (!cycles.empty()) throw std::invalid_argument("dependency cycle " + path_text(cycles.front()));

  auto index = index_by_id(tasks);
  std::vector<int> level(tasks.size(), -1);
  std::function<int(size_t)> level_of = [&](size_t i) {
    if (level[i] >= 0) return level[i];
    int l = 0;
    for (const auto& dep : tasks[i].deps) l = std::max(l, level_of(index.at(dep)) + 1);
    return level[i] = l;
  };
  std::vector<TaskLevel> levels;
  for (size_t i = 0; i < tasks.size(); ++i) {
    size_t l = static_cast<size_t>(level_of(i));
    if (levels.size() <= l) levels.resize(l + 1);
    levels[l].push_back(tasks[i]);
  }
  return levels;
}

std::vector<TaskLevel> batches(const TaskLevel& level, std::size_t checkouts) {
  if (checkouts < 1) throw std::invalid_argument("batches need at least one checkout");
  std::vector<TaskLevel> out;
  for (size_t i = 0; i < level.size(); i += checkouts) {
    auto end = level.begin() + static_cast<long>(std::min(level.size(), i + checkouts));
    out.emplace_back(level.begin() + static_cast<long>(i), end);
  }
  return out;
}

std::vector<std::string> inherited_defines(const Plan& plan, const PlannedTask& task) {
  std::set<std::string> defines(task.config_rtl.begin(), task.config_rtl.end());
  for (size_t i : ancestors(plan.tasks, task))
    defines.insert(plan.tasks[i].config_rtl.begin(), plan.tasks[i].config_rtl.end());
  return {defines.begin(), defines.end()};
}

bool builds_on_rtl_edits(const Plan& plan, const PlannedTask& task) {
  if (task.kind == TaskKind::rtl) return true;
  auto up = ancestors(plan.tasks, task);
  return std::any_of(up.begin(), up.end(), [&](size_t i) { return plan.tasks[i].kind == TaskKind::rtl; });
}

}  // namespace mace
