#include "core/failure_history.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "core/failure_signature.h"

namespace mace {
namespace {

// "Later" compares the run's submission time, then its ID (IDs sort by submission), so two
// runs submitted in one millisecond still have an order.
using RunOrder = std::pair<int64_t, std::string>;

RunOrder order_of(const ObservedResult& r) { return {r.run_at_ms, r.run_id}; }

struct Building {
  FailureHistoryEntry entry;
  RunOrder first, last;
  std::set<std::string> runs;
  std::map<std::string, int64_t> configurations, workloads;
  // (configuration, workload) -> the run of its last failure
  std::map<std::pair<std::string, std::string>, RunOrder> pairs;
};

// The names, most counted first (ties by name), at most `max`.
std::vector<std::string> most_counted(const std::map<std::string, int64_t>& counts, std::size_t max) {
  std::vector<std::pair<std::string, int64_t>> sorted(counts.begin(), counts.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> names;
  for (std::size_t i = 0; i < sorted.size() && i < max; ++i) names.push_back(sorted[i].first);
  return names;
}

}  // namespace

std::vector<FailureHistoryEntry> failure_history(const std::vector<ObservedResult>& results) {
  // (configuration, workload) -> the newest run that passed it
  std::map<std::pair<std::string, std::string>, RunOrder> last_pass;
  std::map<std::string, Building> by_signature;
  for (const auto& r : results) {
    const RunOrder order = order_of(r);
    const auto pair = std::make_pair(r.configuration, r.workload);
    if (r.verdict == Verdict::pass) {
      auto [it, added] = last_pass.emplace(pair, order);
      if (!added && it->second < order) it->second = order;
      continue;
    }
    const std::string signature = failure_signature(r.verdict, r.error_line);
    auto [it, added] = by_signature.try_emplace(signature);
    Building& b = it->second;
    if (added) {
      b.entry.signature = signature;
      b.entry.verdict = r.verdict;
      b.first = b.last = order;
      b.entry.error_line = r.error_line;
    }
    ++b.entry.occurrences;
    b.runs.insert(r.run_id);
    if (order < b.first) b.first = order;
    if (b.last < order) {
      b.last = order;
      b.entry.error_line = r.error_line;
    }
    ++b.configurations[r.configuration];
    ++b.workloads[r.workload];
    auto [p, new_pair] = b.pairs.emplace(pair, order);
    if (!new_pair && p->second < order) p->second = order;
  }

  std::vector<FailureHistoryEntry> history;
  for (auto& [signature, b] : by_signature) {
    FailureHistoryEntry& e = b.entry;
    e.runs = static_cast<int64_t>(b.runs.size());
    e.first_at_ms = b.first.first;
    e.first_run_id = b.first.second;
    e.last_at_ms = b.last.first;
    e.last_run_id = b.last.second;
    e.configurations = most_counted(b.configurations, kMaxHistoryConfigurations);
    e.configurations_total = static_cast<int64_t>(b.configurations.size());
    e.workloads = most_counted(b.workloads, kMaxHistoryWorkloads);
    e.workloads_total = static_cast<int64_t>(b.workloads.size());
    for (const auto& [pair, failed_last] : b.pairs) {
      const auto pass = last_pass.find(pair);
      if (pass != last_pass.end() && failed_last < pass->second) ++e.passed_later;
      else ++e.still_failing;
    }
    history.push_back(std::move(e));
  }
  std::stable_sort(history.begin(), history.end(), [](const FailureHistoryEntry& a, const FailureHistoryEntry& b) {
    return std::tie(a.occurrences, a.last_at_ms) > std::tie(b.occurrences, b.last_at_ms);
  });
  return history;
}

}  // namespace mace
