#pragma once
// Builds the Verilator model of one BuildConfig in one checkout with OpenPiton's sims, or
// reuses the model an earlier build of the same configuration left, when nothing it was
// built from has changed since (REQ-VER-12).
//
// The model lives in build/manycore/<build_id>/ (obj_dir/Vcmp_top). Beside it the builder
// keeps mace_build.log (the full transcript) and .mace_build_ok, the marker of a successful
// build, which holds the source fingerprint taken just before that build started.
//
// One build per checkout at a time: sims writes generated sources into piton/design/ and
// flist/sims.log into the checkout root, so two builds in one checkout corrupt each other.
// The caller serialises builds per checkout; this function does not lock.

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "openpiton/build_config.h"
#include "openpiton/build_progress.h"
#include "openpiton/checkout.h"
#include "openpiton/failure.h"
#include "openpiton/model_store.h"
#include "openpiton/sims_command.h"
#include "openpiton/source_fingerprint.h"
#include "os/process_group.h"

namespace mace::openpiton {

inline constexpr std::string_view kBuildMarkerName = ".mace_build_ok";
inline constexpr std::string_view kBuildLogName = "mace_build.log";

struct BuildOptions {
  // The wall-clock limit of the build. The caller passes min(7200 s, the time left in the
  // run's budget); zero or less means the budget is spent and nothing is started
  // (REQ-BUD-11).
  std::chrono::milliseconds timeout = std::chrono::hours(2);
  // Between SIGTERM and SIGKILL to the build's process group on timeout or cancel.
  std::chrono::milliseconds kill_grace = std::chrono::seconds(10);
  // May be null. A cancelled token stops the build (failure_reason cancelled).
  const os::CancelToken* cancel = nullptr;
  // The transcript file; empty: <model dir>/mace_build.log.
  std::string log_path;
  // Called with every line of build output as it arrives, in the builder's thread.
  std::function<void(std::string_view line)> on_line;
  // Called, in the builder's thread, each time the build's progress moves: when make
  // starts compiling (the objects to build then known), after each object, at the link
  // (see build_progress.h). Not called for a reused model.
  std::function<void(const BuildProgress& progress)> on_progress;
  // Called with the transcript's path just before sims starts writing it, or once a
  // reused model's transcript (where it came from) is written (`mace logs`).
  std::function<void(const std::string& log_path)> on_started;
  // sims compiles the model with an unbounded `make -j` (sims,2.0 line 1576; MAKEFLAGS
  // cannot bound it), which peaks at ~10 GiB for a sparc 1x1 on 2 cores. N > 0 bounds it:
  // a `make` wrapper placed first on the build's PATH (<model dir>/.mace_tools/make) runs
  // the real make with `-jN` added last, and GNU make takes the last -j it is given; its
  // sub-makes share that jobserver. 0: sims' own unbounded behaviour.
  int max_parallelism = 0;
  // The environment the checkout's environment is made from (only HOME, USER, LANG,
  // TMPDIR and PATH are used; see Checkout::environment). Empty: the daemon's own.
  std::optional<std::map<std::string, std::string>> base_environment;
  // The Verilator the build will use, when the caller already knows it; otherwise it is
  // detected (once per installation, see detect_verilator_version).
  std::optional<VerilatorVersion> verilator;
  // May be null. Before building, a model of the same build ID and source fingerprint is
  // taken from it instead; after a successful build the model is published to it
  // (docs/model-store.md). Its failures never fail the build: they are in BuildResult::store_notes.
  const ModelStore* model_store = nullptr;
  // Non-empty: the model's C++ is compiled through ccache with this cache directory
  // (Verilator's makefile puts $(OBJCACHE) before every compile). CCACHE_BASEDIR is the
  // checkout's root, so the same sources in two checkouts hit the same entries.
  std::string compiler_cache_dir;
  // ccache's size limit for that directory, in MiB (0: ccache's own default).
  std::int64_t compiler_cache_max_mb = 0;
};

// BuildResult::reused_from values.
namespace reuse_source {
// The model an earlier build left in this checkout (REQ-VER-12).
inline constexpr std::string_view checkout = "checkout";
// A model another checkout, run or node built, taken from the model store.
inline constexpr std::string_view store = "store";
}  // namespace reuse_source

struct BuildResult {
  std::string build_id;
  bool success = false;
  // An earlier build's model was reused and sims did not run.
  bool reused = false;
  // When reused: where the model came from (reuse_source::*); empty when sims built it.
  std::string reused_from;
  // When taken from the store: which entry, and where and when it was built.
  std::string origin;
  // What went wrong with the model store (a damaged entry removed, a full or read-only
  // store): logged, never a reason to fail the build.
  std::vector<std::string> store_notes;
  // none on success; otherwise a build's Failure, or the host's stop (os::HostStop) when
  // the machine or scheduler running the build ended it.
  Failure failure_reason = Failure::none;
  // What went wrong, for people and triage, e.g. "l1d has 8 ways, more than the L1.5's 4".
  std::string message;
  int exit_code = -1;  // sims' exit status; -1 if it did not run or did not exit normally
  // From the call to its return: for a reused model, the check and the copy.
  double wall_seconds = 0;
  // What sims and every process it waited for used (CPU time, the largest process's peak
  // memory): set when sims ran on this machine, whatever came of it; unset for a reused
  // model and for a build a runner placed on another machine (os::ProcessResult::usage).
  std::optional<os::ResourceUsage> usage;
  // Verilator %Error lines (with file:line), g++ "error:" lines, make "*** ... Error"
  // lines and sims's fatal "DIE." / "Caught a SIGDIE." lines, in order (the first 200);
  // %Warning lines are not included. For a failure decided before sims ran, the message.
  std::vector<std::string> error_lines;
  std::string tail;  // the last 64 KiB of the transcript
  std::string log_path;
  std::string model_dir;
  std::vector<std::string> argv;  // the sims command, when one was formed
  // The whole environment it runs with (Checkout::environment and PWD), when formed.
  std::map<std::string, std::string> environment;
  VerilatorVersion verilator;
  // Taken before the build started; the marker records it. Empty digest when it could
  // not be taken (fingerprint_error says why): then nothing is reused or marked.
  SourceFingerprint fingerprint;
  std::string fingerprint_error;
  // Files an interrupted task had left edited, restored before this build (REQ-EXEC-17).
  std::vector<std::string> restored_leftover_edits;
};

// Builds (or reuses) the model of `config` in `checkout`. In order:
//   1. Ariane's way rule (REQ-EXEC-13): a violation fails at once, naming the cache.
//   2. No time left (options.timeout <= 0): budget_exhausted. Cancelled: cancelled.
//   3. The sims command (sims_build_argv); Verilator's version; the source fingerprint.
//   4. Reuse: the marker exists, the binary exists and the marker's fingerprint equals the
//      current one: reused, nothing runs.
//   5. The model store (options.model_store), when the fingerprint is known: an entry of
//      this build ID and fingerprint is copied in and marked; reused, sims does not run.
//   6. Otherwise the marker and the old binary are removed and sims runs in the checkout
//      root with the checkout's environment. Success: exit 0 within the limit and the
//      model binary present; then the marker is written (temp file + rename) and the model
//      is published to the store.
// Reports every failure in the result (a model directory that cannot be made is
// launch_failed); throws only what allocation throws.
BuildResult build(const Checkout& checkout, const BuildConfig& config,
                  const BuildOptions& options = {});

// Whether a line of build output is worth reporting (see BuildResult::error_lines).
bool is_build_error_line(std::string_view line);

}  // namespace mace::openpiton
