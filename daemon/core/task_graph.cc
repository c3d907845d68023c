#include "core/task_graph.h"

#include <algorithm>
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
  // Where each grey task stands on the path, so a back edge finds its cycle at once.
  std::vector<size_t> position(tasks.size(), 0);
  std::vector<size_t> path;
  std::vector<std::vector<std::string>> cycles;
  std::set<std::set<std::string>> seen_cycles;

  // Depth-first, with an explicit stack: a model's reply can chain thousands of tasks, and
  // recursion that deep would overflow the thread's stack.
  struct Frame {
    size_t task;
    size_t next_dep = 0;
  };
  for (size_t root = 0; root < tasks.size(); ++root) {
    if (index.at(tasks[root].id) != root || colour[root] != Colour::white) continue;
    std::vector<Frame> stack{{root}};
    colour[root] = Colour::grey;
    position[root] = path.size();
    path.push_back(root);
    while (!stack.empty()) {
      Frame& frame = stack.back();
      const auto& deps = tasks[frame.task].deps;
      if (frame.next_dep == deps.size()) {
        colour[frame.task] = Colour::black;
        path.pop_back();
        stack.pop_back();
        continue;
      }
      auto it = index.find(deps[frame.next_dep++]);
      if (it == index.end()) continue;
      const size_t j = it->second;
      if (colour[j] == Colour::white) {
        colour[j] = Colour::grey;
        position[j] = path.size();
        path.push_back(j);
        stack.push_back({j});
      } else if (colour[j] == Colour::grey && cycles.size() < kMaxReportedCycles) {
        // Edges point from a task to what it needs; the cycle reads the same way.
        std::vector<std::string> cycle;
        std::set<std::string> members;
        for (size_t k = position[j]; k < path.size(); ++k) {
          cycle.push_back(tasks[path[k]].id);
          members.insert(tasks[path[k]].id);
        }
        cycle.push_back(tasks[j].id);
        if (seen_cycles.insert(members).second) cycles.push_back(std::move(cycle));
      }
    }
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
  auto index = index_by_id(tasks);
  // Kahn's algorithm: a task's level is one past its deepest dependency's, settled once
  // all its dependencies are. Iterative, linear in tasks and dependencies.
  std::vector<std::vector<size_t>> dependents(tasks.size());
  std::vector<size_t> unsettled(tasks.size(), 0);
  for (size_t i = 0; i < tasks.size(); ++i) {
    unsettled[i] = tasks[i].deps.size();
    for (const auto& dep : tasks[i].deps) dependents[index.at(dep)].push_back(i);
  }
  std::vector<size_t> level(tasks.size(), 0);
  std::vector<size_t> ready;
  for (size_t i = 0; i < tasks.size(); ++i)
    if (unsettled[i] == 0) ready.push_back(i);
  size_t settled = 0;
  while (!ready.empty()) {
    const size_t i = ready.back();
    ready.pop_back();
    ++settled;
    for (size_t d : dependents[i]) {
      level[d] = std::max(level[d], level[i] + 1);
      if (--unsettled[d] == 0) ready.push_back(d);
    }
  }
  if (settled != tasks.size()) {
    auto cycles = dependency_cycles(tasks);
    throw std::invalid_argument("dependency cycle " +
                                (cycles.empty() ? std::string("") : path_text(cycles.front())));
  }
  std::vector<TaskLevel> levels;
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (levels.size() <= level[i]) levels.resize(level[i] + 1);
    levels[level[i]].push_back(tasks[i]);
  }
  return levels;
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
