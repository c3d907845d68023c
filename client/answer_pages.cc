#include "answer_pages.h"

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
    pages.push_back(request.send().wait(wait));
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

CallPages call_pages(api::Maced::Client& maced, kj::WaitScope& wait, const std::string& run_id) {
  CallPages pages;
  uint32_t from = 0;
  for (;;) {
    auto request = maced.callsRequest();
    request.setRunId(run_id);
    request.setFrom(from);
    pages.push_back(request.send().wait(wait));
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
    auto page = request.send().wait(wait);
    for (auto entry : page.getEntries()) each(entry);
    const uint64_t next = page.getNext();
    if (next <= after) return;
    after = next;
  }
}

}  // namespace mace::client
