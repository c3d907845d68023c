#include "maced/recovery.h"

#include <unistd.h>

#include <chrono>
#include <exception>
#include <set>

#include "openpiton/rtl_edits.h"
#include "service/clock.h"
#include "slurm/slurm_commands.h"
#include "slurm/srun_command.h"

namespace mace {

int restore_interrupted_edits(const MacedConfig& config, std::ostream& log) {
  int touched = 0;
  for (const auto& checkout : config.checkouts) {
    openpiton::RestoreReport report;
    try {
      report = openpiton::restore_leftover_edits(checkout.path);
    } catch (const std::exception& e) {
      // A missing or unreadable checkout must not keep maced from serving the others.
      log << "maced: " << checkout.path << ": cannot look for interrupted RTL edits: "
          << e.what() << "\n";
      continue;
    }
    if (report.restored.empty() && report.removed.empty() && report.errors.empty() &&
        !report.discarded_incomplete_journal)
      continue;
    ++touched;
    for (const auto& file : report.restored)
      log << "maced: " << checkout.path << ": restored " << file
          << " (RTL edit of an interrupted task)\n";
    for (const auto& file : report.removed)
      log << "maced: " << checkout.path << ": removed " << file
          << " (created by an interrupted task)\n";
    if (report.discarded_incomplete_journal)
      log << "maced: " << checkout.path
          << ": discarded an incomplete edit journal (no file had been changed)\n";
    for (const auto& error : report.errors)
      log << "maced: " << checkout.path << ": could not restore: " << error << "\n";
  }
  return touched;
}

int keep_interrupted_logs(store::Store& store, const evidence::EvidenceArchive& archive,
                          const std::vector<std::string>& run_ids, std::ostream& log) {
  int kept = 0;
  for (const auto& run_id : run_ids) {
    for (const auto& file : store.log_files(run_id)) {
      if (file.kept_at_ms > 0 || !file.keep_error.empty() || file.removed_at_ms > 0) continue;
      const auto kind = evidence::evidence_kind_from_string(file.kind);
      if (!kind) continue;
      try {
        const evidence::KeptFile copy = archive.keep(
            {file.run_id, file.iteration, file.task_id, file.narrowing, file.workload, *kind}, file.source_path);
        store.keep_log_file(file.id, {copy.path.string(), system_now_ms(),
                                      static_cast<int64_t>(copy.original_bytes),
                                      static_cast<int64_t>(copy.stored_bytes),
                                      static_cast<int64_t>(copy.head_bytes),
                                      static_cast<int64_t>(copy.tail_bytes), copy.compressed});
        ++kept;
      } catch (const std::exception& e) {
        store.log_file_not_kept(file.id, e.what());
        log << "maced: run " << run_id << ": cannot keep " << file.source_path
            << " (left by the maced that stopped): " << e.what() << "\n";
      }
    }
  }
  return kept;
}

int cancel_leftover_jobs(const slurm::SlurmSettings& settings, store::Store& store,
                         std::ostream& log) {
  const slurm::SlurmCommands commands(settings);
  std::vector<store::SlurmJobRecord> recorded;
  try {
    recorded = store.unended_slurm_jobs();
  } catch (const std::exception& e) {
    log << "maced: cannot read the Slurm jobs the last maced recorded: " << e.what() << "\n";
  }
  std::set<std::string> ids;
  for (const auto& job : recorded) ids.insert(job.job_id);
  try {
    const std::string ours = slurm::comment_prefix(settings.instance);
    for (const auto& job : commands.live_jobs_of(::geteuid()))
      if (job.comment.starts_with(ours)) ids.insert(job.id);
  } catch (const slurm::CommandFailure& failure) {
    log << "maced: cannot list this maced's Slurm jobs (" << failure.message
        << "); only the recorded ones are cancelled\n";
  }
  if (ids.empty()) return 0;

  std::vector<std::string> live, still_live;
  try {
    // Only the live ones: a recorded job that ended while no maced watched is just recorded.
    for (const auto& id : ids) {
      auto job = commands.job(id);
      if (job && slurm::is_live(*job)) live.push_back(id);
    }
    still_live = commands.cancel_and_wait(live, settings.cleanup_limit);
    for (const auto& id : live)
      log << "maced: cancelled Slurm job " << id << ", left by a maced that stopped\n";
    for (const auto& id : still_live)
      log << "maced: Slurm job " << id << " is still not gone after " << settings.cleanup_limit.count()
          << " s; its checkout may still be in use\n";
  } catch (const slurm::CommandFailure& failure) {
    log << "maced: cannot cancel the Slurm jobs the last maced left (" << failure.message << ")\n";
    return 0;
  }
  const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  for (const auto& job : recorded) {
    try {
      store.end_slurm_job(job.job_id, job.comment, now, std::string(slurm::kCancelledState),
                          "left by a maced that stopped; cancelled when maced started again");
    } catch (const std::exception&) {
    }
  }
  return static_cast<int>(live.size() - still_live.size());
}

}  // namespace mace
