#include "maced/recovery.h"

#include <exception>

#include "openpiton/rtl_edits.h"

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

}  // namespace mace
