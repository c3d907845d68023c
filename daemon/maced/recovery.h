#pragma once
// What maced puts right on start after a maced that died mid-task (REQ-EXEC-17).

#include <ostream>

#include "maced/config.h"

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

}  // namespace mace
