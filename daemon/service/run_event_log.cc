#include "service/run_event_log.h"

#include <algorithm>
#include <map>
#include <utility>

namespace mace::service {
namespace {

std::string source_of(const store::EventRecord& e) {
  if (e.task_id.empty()) return "maced";
  // A stage change says its stage in its text: "iter1/build  passed", not "passed" twice.
  const bool stage_in_text = e.kind == EventKind::task_stage;
  return "iter" + std::to_string(e.iteration) + "/" + e.task_id +
         (e.stage && !stage_in_text ? "/" + std::string(to_string(*e.stage)) : "");
}

std::string text_of(const store::EventRecord& e) {
  if (e.kind == EventKind::verdict && e.verdict) {
    std::string text = e.workload + " " + std::string(to_string(*e.verdict));
    return e.message.empty() ? text : text + " (" + e.message + ")";
  }
  return e.message.empty() ? std::string(to_string(e.kind)) : e.message;
}

}  // namespace

std::vector<RunLogLine> run_log(const std::vector<store::EventRecord>& events) {
  // From the end: a progress event is kept when no later one of the same build follows
  // before that task's next other event.
  std::map<std::pair<int64_t, std::string>, bool> later_progress;
  std::vector<bool> keep(events.size(), true);
  for (std::size_t i = events.size(); i-- > 0;) {
    const auto& e = events[i];
    if (e.task_id.empty()) continue;
    bool& seen = later_progress[{e.iteration, e.task_id}];
    if (e.kind == EventKind::build_progress) {
      keep[i] = !seen;
      seen = true;
    } else {
      seen = false;
    }
  }
  // A workload's start is for live views: its verdict line says it ran.
  for (std::size_t i = 0; i < events.size(); ++i)
    if (events[i].kind == EventKind::workload_started) keep[i] = false;
  std::vector<RunLogLine> lines;
  for (std::size_t i = 0; i < events.size(); ++i)
    if (keep[i]) lines.push_back({events[i].seq, events[i].at_ms, source_of(events[i]),
                                  text_of(events[i])});
  return lines;
}

}  // namespace mace::service
