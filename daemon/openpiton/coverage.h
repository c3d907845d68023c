#pragma once
// Line coverage of a task's design over its gate workloads (REQ-EXEC-6): what a model built
// with Verilator's --coverage-line counted in each simulation, merged with
// verilator_coverage (Debian's verilator package ships it), summarised per top-level module
// of the design, and annotated source for people to read.
//
// Each simulation of a coverage model writes `coverage.dat` into its run directory when
// it ends (the testbench main does so once scripts/patch_openpiton.sh has patched it; an
// unpatched checkout's models write nothing, and merging says so). Merging runs, through
// the checkout's command runner (here, or as a job on its node):
//
//   verilator_coverage --write <dir>/coverage.dat <run dir>/coverage.dat ...
//   verilator_coverage --annotate <dir>/annotated <dir>/coverage.dat
//
// in `<model dir>/coverage/<n>`, n one more than the highest there, so nothing is ever
// overwritten. verilator_coverage is looked for on the checkout environment's PATH, where
// verilator is.
//
// The summary is read from the merged file. Verilator's line coverage counts points: one
// per block of statements (`v_line/<module>`) and one per branch (`v_branch/<module>`),
// each with the source lines it spans. A source line is counted once, however many
// points span it, and is covered when any point that spans it was reached. Points and
// lines are summed per top-level module, named by its hierarchy below the testbench top
// cmp_top: the design's instances directly in its chip and chipset
// (`TOP.cmp_top.system.chip.tile0.l15...` counts to `system.chip.tile0`,
// `...system.chipset.chipset_impl...` to `system.chipset.chipset_impl`), the chip's and
// chipset's own points to `system.chip` and `system.chipset`, and each first-level
// testbench instance to itself (`TOP.cmp_top.monitor.pc_cmp` to `monitor`). Verilator
// names the points of a module instantiated in several places once, with a `*` where the
// instance names differ (`system.chip.*_ff`): those count to the level above the `*`
// (`system.chip`). The whole design's counts are over every point, testbench included.
//
// Only the C++ standard library and POSIX (REQ-PLAT-9).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "openpiton/checkout.h"
#include "os/cancel_token.h"
#include "os/process_group.h"

namespace mace::openpiton {

struct ModuleCoverage {
  std::string module;  // the top-level instance (see above); "" for the whole design
  std::int64_t lines_covered = 0;
  std::int64_t lines_total = 0;
  std::int64_t points_covered = 0;
  std::int64_t points_total = 0;
};

struct CoverageSummary {
  std::vector<ModuleCoverage> modules;  // by module name
  ModuleCoverage total;                 // module ""
};

// Reads a coverage.dat (Verilator's "SystemC::Coverage-3" format): the line and branch
// points, summarised as above. Other points (toggle, user) are not counted. A line that is
// not a point is skipped. At most kMaxCoveragePoints points are read.
CoverageSummary summarise_coverage_data(std::istream& in);

struct CoverageRequest {
  const Checkout& checkout;
  std::string build_id{};
  // The task's simulations, in order; each one's coverage.dat is merged when it has one.
  std::vector<std::filesystem::path> run_dirs{};
  std::chrono::milliseconds time_limit = std::chrono::minutes(30);  // each command's
  const os::CancelToken* cancel = nullptr;
  // The environment Checkout::environment() starts from. Unset: the daemon's own.
  std::optional<std::map<std::string, std::string>> base_environment{};
};

struct CoverageResult {
  bool merged = false;
  // Why there is no merged coverage, for people: no simulation wrote coverage.dat (the
  // checkout's testbench main is not patched), verilator_coverage is missing or failed.
  std::string error;
  std::filesystem::path directory;  // <model dir>/coverage/<n>; empty when none was made
  std::filesystem::path data;       // directory/coverage.dat
  std::filesystem::path annotated;  // directory/annotated
  // The annotated sources, relative to `annotated`, sorted; at most kMaxAnnotatedFiles.
  std::vector<std::filesystem::path> annotated_files;
  std::size_t runs_merged = 0;  // simulations whose coverage.dat was merged
  std::vector<std::filesystem::path> runs_without_data;  // run dirs that had none
  CoverageSummary summary;
  // The machine or scheduler that ran verilator_coverage ended it.
  os::HostStop host_stop = os::HostStop::none;
};

// Merges, annotates and summarises the coverage of `request.run_dirs`. Never throws for
// what the tools or the files do: the result says why. Blocks the calling thread.
CoverageResult merge_coverage(const CoverageRequest& request);

inline constexpr std::size_t kMaxCoveragePoints = 4'000'000;
inline constexpr std::size_t kMaxAnnotatedFiles = 10'000;

}  // namespace mace::openpiton
