#include "service/failures_across_runs.h"

#include <algorithm>

#include "core/design_configuration.h"
#include "os/text.h"
#include "service/service_error.h"
#include "store/task_configuration.h"

namespace mace::service {
namespace {

// What a result's configuration is called: its build configuration in words, or for a task
// that builds none (a unit_test task) its kind and ID.
std::string configuration_name(const store::TaskRecord& task, const store::RunRecord& run) {
  if (store::has_configuration(task)) return configuration_text(store::task_configuration(task, run.default_caches));
  return std::string(to_string(task.kind)) + " " + task.task_id;
}

}  // namespace

void check_failure_query(const FailureQuery& query) {
  if (query.max_runs < 0 || query.max_runs > kMaxFailureRuns)
    throw RequestError(RequestErrorKind::invalid, {"query.maxRuns", "must be 0 (the default, " + std::to_string(kDefaultFailureRuns) +
                                             ") to " + std::to_string(kMaxFailureRuns) + ", got " +
                                             std::to_string(query.max_runs)});
}

FailureHistory failures_across_runs(const store::Store& store, OthersSee others_see, const FailureQuery& query,
                                    const Caller& caller) {
  check_failure_query(query);
  const int64_t max_runs = query.max_runs > 0 ? query.max_runs : kDefaultFailureRuns;
  store::RunFilter filter;
  // Only what the caller may read: an administrator, or anyone where others see everything,
  // reads every run; anyone else their own.
  if (!caller.admin && others_see != OthersSee::everything) filter.submitted_by_uid = caller.uid;
  filter.limit = 0;

  FailureHistory out;
  std::vector<ObservedResult> results;
  store.each_run_summary(store.list_run_ids(filter), [&](store::RunRecord run) {
    if (run.submitted_at_ms < query.since_ms) return false;  // newest first: the rest are older
    if (!query.core.empty() && run.core != query.core) return true;
    if (out.runs_read == max_runs) {
      out.more_runs = true;
      return false;
    }
    ++out.runs_read;
    for (const auto& task : store.tasks(run.id)) {
      std::string configuration;
      for (const auto& r : task.results) {
        if (configuration.empty()) configuration = configuration_name(task, run);
        results.push_back({run.id, run.submitted_at_ms, configuration, r.workload, r.verdict, r.error_line});
      }
    }
    return true;
  });
  out.entries = failure_history(results);
  out.signatures_total = static_cast<int64_t>(out.entries.size());
  if (out.entries.size() > kMaxFailureSignatures) out.entries.resize(kMaxFailureSignatures);
  for (auto& e : out.entries) e.error_line = std::string(os::clip_utf8(e.error_line, kMaxFailureLineBytes));
  return out;
}

}  // namespace mace::service
