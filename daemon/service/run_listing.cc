#include "service/run_listing.h"

#include <algorithm>

#include "service/answer_pages.h"

namespace mace::service {

void show_only_what_caller_may_see(store::RunRecord& run, OthersSee others_see,
                                   const Caller& caller) {
  if (caller.admin || others_see == OthersSee::everything || run.submitted_by_uid == caller.uid)
    return;
  // The queue, not the design: which run, whose, where it stands.
  run.objective.clear();
  run.workloads.clear();
  run.reason.clear();
  run.spec_json.clear();
}

RunPage list_runs_page(const store::Store& store, OthersSee others_see,
                       const store::RunFilter& filter, const Caller& caller) {
  const int64_t page = filter.limit > 0 ? std::min(filter.limit, kMaxRunsPerAnswer) : kMaxRunsPerAnswer;
  store::RunFilter bounded = filter;
  bounded.limit = page + 1;  // one more says whether another page follows
  const std::vector<std::string> ids = store.list_run_ids(bounded);
  RunPage out;
  AnswerBudget budget;
  bool full = false;
  store.each_run_summary(ids, [&](store::RunRecord run) {
    show_only_what_caller_may_see(run, others_see, caller);
    if (static_cast<int64_t>(out.runs.size()) == page || !budget.take(answer_bytes(run))) {
      full = true;
      return false;
    }
    out.runs.push_back(std::move(run));
    return true;
  });
  const auto fit = static_cast<int64_t>(out.runs.size());
  // Runs beyond the caller's own limit were not asked for.
  if (full && fit > 0 && (filter.limit == 0 || fit < filter.limit)) out.next = out.runs.back().id;
  return out;
}

}  // namespace mace::service
