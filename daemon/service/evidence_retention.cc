#include "service/evidence_retention.h"

#include <exception>

#include "os/text.h"

namespace mace::service {

EvidenceRetention::EvidenceRetention(store::Store& store, RunService& runs,
                                     const evidence::EvidenceArchive& archive, std::ostream& log,
                                     Clock clock)
    : store_(store), runs_(runs), archive_(archive), log_(log), clock_(std::move(clock)) {}

EvidenceRetention::Report EvidenceRetention::apply() {
  std::vector<evidence::RunEvidence> runs;
  for (const auto& r : store_.evidence_by_run())
    runs.push_back({r.run_id, is_final(r.state), r.finished_at_ms, static_cast<std::uint64_t>(r.stored_bytes)});
  const int64_t now = clock_();
  const auto& limits = archive_.settings().retention;
  const evidence::RetentionPlan plan = evidence::plan_retention(runs, limits, now);
  Report report{{}, 0, plan.total_bytes, plan.still_over};
  const std::string why = "the runs' kept logs took " + os::mib_text(plan.total_bytes) + ", above evidence.max_mb (" +
                          os::mib_text(limits.max_total_bytes) + "), and this run's were among the oldest";
  for (const auto& run_id : plan.remove) {
    try {
      archive_.remove_run(run_id);
    } catch (const std::exception& e) {
      log_ << "maced: cannot remove the kept logs of run " << run_id << ": " << e.what() << "\n";
      continue;
    }
    const int64_t files = store_.mark_evidence_removed(run_id, now, why);
    store::EventRecord event;
    event.run_id = run_id;
    event.kind = EventKind::message;
    event.message = "the retention rule removed this run's " + std::to_string(files) + " kept log file" +
                    (files == 1 ? "" : "s") + ": " + why;
    runs_.record_event(std::move(event));
    for (const auto& r : runs)
      if (r.run_id == run_id) report.freed_bytes += r.bytes;
    report.removed.push_back(run_id);
    log_ << "maced: removed the " << files << " kept log file(s) of run " << run_id
         << " (retention rule: " << why << ")\n";
  }
  if (plan.still_over && !said_over_)
    log_ << "maced: the runs' kept logs take " << os::mib_text(plan.total_bytes - report.freed_bytes)
         << ", above evidence.max_mb (" << os::mib_text(limits.max_total_bytes)
         << "), and every run left is running or finished less than evidence.keep_recent_hours ago\n";
  said_over_ = plan.still_over;
  return report;
}

}  // namespace mace::service
