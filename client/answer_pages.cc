#include "answer_pages.h"

#include "maced_refusal.h"

namespace mace::client {

ListPages list_pages(api::Maced::Client& maced, kj::WaitScope& wait, uint32_t limit,
                     const std::function<void(api::ListFilter::Builder)>& select) {
  ListPages pages;
  std::string before;
  uint32_t received = 0;
  for (;;) {
    auto request = maced.listRequest();
    auto filter = request.initFilter();
    select(filter);
    filter.setLimit(limit == 0 ? 0 : limit - received);
    filter.setBefore(before);
    pages.push_back(answered(request.send().wait(wait)));
    const auto& page = pages.back();
    received += page.getRuns().size();
    const std::string next = page.getNext().cStr();
    // An older maced sends no `next`; each page must move on, or it would be asked again.
    if (next.empty() || page.getRuns().size() == 0 || (limit > 0 && received >= limit) ||
        (!before.empty() && next >= before))
      return pages;
    before = next;
  }
}

kj::Own<capnp::MallocMessageBuilder> whole_run_detail(api::Maced::Client& maced, kj::WaitScope& wait,
                                                      const std::string& run_id) {
  std::vector<capnp::Response<api::Maced::StatusResults>> pages;
  uint32_t tasks = 0, diagnoses = 0, builds = 0;
  for (;;) {
    auto request = maced.statusRequest();
    request.setRunId(run_id);
    request.setTasksFrom(tasks);
    request.setDiagnosesFrom(diagnoses);
    request.setNarrowingBuildsFrom(builds);
    pages.push_back(answered(request.send().wait(wait)));
    auto run = pages.back().getRun();
    const uint32_t came = run.getTasks().size() + run.getDiagnoses().size() + run.getNarrowingBuilds().size();
    tasks += run.getTasks().size();
    diagnoses += run.getDiagnoses().size();
    builds += run.getNarrowingBuilds().size();
    // An older maced never says `more`; each page must move on, or it would be asked again.
    if (!pages.back().getMore() || came == 0) break;
  }
  auto message = kj::heap<capnp::MallocMessageBuilder>();
  auto out = message->initRoot<api::RunDetail>();
  const auto first = pages.front().getRun();
  out.setSummary(first.getSummary());
  out.setSpecJson(first.getSpecJson());
  if (first.hasPostMortem()) out.setPostMortem(first.getPostMortem());
  out.setQueuedAhead(first.getQueuedAhead());
  // The run's own parts come whole with every page.
  if (first.hasDefaultCaches()) out.setDefaultCaches(first.getDefaultCaches());
  out.setEnvironmentJson(first.getEnvironmentJson());
  // The run-wide lists come with the first page only.
  if (first.hasFailureGroups()) out.setFailureGroups(first.getFailureGroups());
  if (first.hasCoverage()) out.setCoverage(first.getCoverage());
  if (first.hasWaveforms()) out.setWaveforms(first.getWaveforms());
  auto out_tasks = out.initTasks(tasks);
  auto out_diagnoses = out.initDiagnoses(diagnoses);
  auto out_builds = out.initNarrowingBuilds(builds);
  uint32_t t = 0, d = 0, b = 0;
  for (const auto& page : pages) {
    for (auto task : page.getRun().getTasks()) out_tasks.setWithCaveats(t++, task);
    for (auto diagnosis : page.getRun().getDiagnoses()) out_diagnoses.setWithCaveats(d++, diagnosis);
    for (auto build : page.getRun().getNarrowingBuilds()) out_builds.setWithCaveats(b++, build);
  }
  return message;
}

CallPages call_pages(api::Maced::Client& maced, kj::WaitScope& wait, const std::string& run_id) {
  CallPages pages;
  uint32_t from = 0;
  for (;;) {
    auto request = maced.callsRequest();
    request.setRunId(run_id);
    request.setFrom(from);
    pages.push_back(answered(request.send().wait(wait)));
    const uint32_t next = pages.back().getNext();
    if (next <= from) return pages;
    from = next;
  }
}

void each_log_entry(api::Maced::Client& maced, kj::WaitScope& wait, const std::string& run_id,
                    const std::function<void(api::LogEntry::Reader)>& each) {
  uint64_t after = 0;
  for (;;) {
    auto request = maced.logsRequest();
    request.setRunId(run_id);
    request.setAfterSeq(after);
    request.setLimit(0);
    auto page = answered(request.send().wait(wait));
    for (auto entry : page.getEntries()) each(entry);
    const uint64_t next = page.getNext();
    if (next <= after) return;
    after = next;
  }
}

}  // namespace mace::client
