#pragma once
// What maced puts right on start after a maced that died mid-task (REQ-EXEC-17).

#include <ostream>
#include <string>
#include <vector>

#include "evidence/evidence_archive.h"
#include "maced/config.h"
#include "store/store.h"

namespace mace {

// Restores, on every configured checkout, the RTL edits an interrupted task left applied
// (daemon/openpiton/rtl_edits.h), and writes one line to `log` for each file put back or
// removed and for each error. A checkout that cannot be restored is reported, not fatal:
// its next build restores it again before building. Returns how many checkouts had
// something left to restore.
//
// There are no lock files to clear: the checkout pool is in memory, and the store's WAL
// and shared-memory files are recovered by SQLite when it opens them.
int restore_interrupted_edits(const MacedConfig& config, std::ostream& log);

// Copies into each run's own evidence the logs a maced that died left where they were being
// written (the runs it left running, `run_ids`): nothing has run in their checkouts since,
// so they are still theirs. Writes a line to `log` for each that cannot be kept; returns
// how many were kept. Must run before any run starts.
int keep_interrupted_logs(store::Store& store, const evidence::EvidenceArchive& archive,
                          const std::vector<std::string>& run_ids, std::ostream& log);

// Cancels every Slurm job a maced that died left behind, and waits until Slurm is done with
// them, so that no job of the last maced still runs in a checkout this one gives out: the
// jobs the store recorded and did not see end, and every live job of this user whose
// comment carries this maced's instance (a job it submitted but could not record, the disk
// being full, say). Records each as ended. Writes a line to `log` for what it cancelled and
// for each error; returns how many jobs it cancelled. Must run before
// restore_interrupted_edits, which may not touch a checkout a job still builds in.
int cancel_leftover_jobs(const slurm::SlurmSettings& settings, store::Store& store,
                         std::ostream& log);

}  // namespace mace
