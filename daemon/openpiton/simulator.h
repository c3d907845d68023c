#pragma once
// Simulating gate workloads on a model that is already built (REQ-VER-1..8, REQ-VER-16,
// REQ-BUD-11): one `sims -vlt_run` per workload, in order, each in a fresh directory, each
// judged from its testbench transcript.
//
// Why the transcript: sims exits 0 whether or not the program passed, so the exit code is
// only used to tell "the process ran" from "it timed out / could not be launched" (the
// spec's decide(): returncode -1 for those two), never as the verdict (REQ-VER-2).
//
// Why a new directory per run: sims writes sim.log, status.log, diag.* ... into its working
// directory, so a rerun in the same place would mix two runs' files, and a run directory
// is what people look at when a gate fails. Runs go to
// `<model dir>/runs/<workload>-<n>`, n one more than the highest n already there, so
// nothing is ever overwritten (also with several simulations of one model at once).
//
// The argv of one run (never a shell string):
//
//   <checkout>/piton/tools/bin/sims -sys=manycore -x_tiles=X -y_tiles=Y -vlt_run
//       -build_id=ID [-pico|-ariane] -rtl_timeout=N [-max_cycle=M] -finish_mask=MASK
//       [-rv32_target_triple=riscv64-unknown-elf] <prepare_workload's sims_args>
//       <the workload's own options> <diag name>
//
// (-pico also for generic, which the build puts on the RV32 tile path: sims_command.h),
// with the run directory as working directory and Checkout::environment() as the whole
// environment. MASK is the workload's own finish mask when the request gives one, else
// default_finish_mask(X, Y): every tile must reach the good trap (REQ-VER-7). N and M are
// likewise the workload's own rtl_timeout and max_cycle when it has them, else the
// request's (as OpenPiton's diag lists give single diags their own limits). The triple
// is added for pico and generic only when riscv32-unknown-elf-gcc is not on the checkout
// environment's PATH but riscv64-unknown-elf-gcc is (Debian's toolchain; sims would
// otherwise call a riscv32 compiler that does not exist), and never when a later
// argument already sets it.
//
// Only the C++ standard library and POSIX (REQ-PLAT-9).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "openpiton/build_config.h"
#include "openpiton/checkout.h"
#include "openpiton/run_inputs.h"
#include "openpiton/sim_figures.h"
#include "openpiton/tile_figures.h"
#include "openpiton/verdict.h"
#include "openpiton/workload.h"
#include "os/process_group.h"

namespace mace::openpiton {

// What the run specification says about one program (MaceSpec.workload_args).
struct WorkloadOverrides {
  // Hex digits without 0x; empty: default_finish_mask (one bit per tile, REQ-VER-7).
  std::string finish_mask{};
  // Extra sims options, each starting with '-', placed after MACE's own flags so that
  // sims (whose option parser keeps the last value) lets them win. Which options are safe
  // to pass is the caller's business (MACE's run specs allow only a few).
  std::vector<std::string> options{};
  // This workload's -rtl_timeout and -max_cycle (cycles, > 0); unset: the request's.
  std::optional<int64_t> rtl_timeout{};
  std::optional<int64_t> max_cycle{};
};

// One simulation of one workload.
struct WorkloadRunResult {
  std::string workload;
  std::filesystem::path run_dir;   // absolute; sims' files: sim.log, sims.log, status.log...
  std::vector<std::string> argv;   // as executed; empty when sims was not invoked
  // The whole environment sims ran with (Checkout::environment), as executed.
  std::map<std::string, std::string> environment;
  // Only for a run that did not pass: what its run directory held before sims started
  // (run_inputs.h), for a reproduction once the directory is gone.
  RunInputs inputs;

  Verdict verdict = Verdict::none;
  // The spec's returncode: sims' exit status (ignored for the verdict, REQ-VER-2), 128+N
  // when a signal N we did not send killed it, -1 when it timed out, was cancelled, was
  // never launched (launch failure, prepare_workload error).
  int returncode = -1;
  bool timed_out = false;      // hit its wall-clock limit (verdict: transcript's or timeout)
  bool cancelled = false;      // stopped by the request's os::CancelToken
  bool launch_failed = false;  // sims could not be started (see error)
  bool output_limit_reached = false;  // a file of the run reached max_output_bytes (see error)
  bool sims_invoked = false;   // false when prepare_workload failed
  // The machine or scheduler that ran sims ended it; error says what happened.
  os::HostStop host_stop = os::HostStop::none;
  // Why the run did not produce a usable verdict, for people: prepare_workload's error,
  // the launch error, sims' "DIE. ..." line(s) when it died before simulating, the
  // wall-clock limit, an unreadable transcript, the assembler's complaint for pico.
  // Empty for a run with a verdict and nothing odd about it.
  std::string error;
  // Set when the workload could not be run at all, whatever the design: workload_not_found
  // (no such program, or sims found no single diag of that name), workload_not_built (it
  // does not compile or assemble), sims_option_rejected (sims refused an option). Such a
  // run fails the same way on every model.
  Failure cannot_run = Failure::none;

  double wall_seconds = 0;              // of the sims process group; 0 when not invoked
  // The largest resident set of one of sims' processes (the model's, for any real model);
  // 0 when not known (not invoked, or run by a scheduler elsewhere).
  std::int64_t peak_rss_bytes = 0;
  std::chrono::milliseconds time_limit{0};  // the limit this run was given
  std::string marker_line;              // the transcript line that decided the verdict
  // The simulation time and clock cycles at the verdict, read from marker_line
  // (sim_figures.h); unset when the transcript gives none.
  std::optional<std::int64_t> verdict_time;
  std::optional<std::int64_t> cycles;
  // What each tile did, counted from the monitors' lines (tile_figures.h); only for a
  // request that asked for them (a model built with monitors), and a transcript there is.
  std::optional<TileFigures> tiles;
  // The last lines of sim.log (up to kSimLogTailLines, at most kSimLogTailBytes), read from
  // the end of the file; empty when there is no sim.log.
  std::string sim_log_tail;
  // OpenPiton's own verdict, first line of status.log ("Diag: hello-1  PASS"), for people
  // to compare with ours; empty when absent.
  std::string status_line;
  // Only for a run that did not pass (transcript_excerpt.h): the line that says what went
  // wrong (the transcript's first error line, else its verdict line, else the first line
  // of `error`), and the transcript's lines around its error and its verdict ("" without
  // a transcript).
  std::string error_line;
  std::string excerpt;

  // run_passed(returncode, verdict) and not cancelled (REQ-VER-5).
  bool passed = false;
};

inline constexpr int64_t kDefaultSimRtlTimeout = 1'000'000;  // REQ-VER-8
inline constexpr std::chrono::milliseconds kDefaultSimTimeLimit = std::chrono::hours(1);

// Meant for designated initialisation; members other than `checkout` carry initializers
// (even empty ones) so that leaving them out draws no -Wmissing-field-initializers.
struct SimulationRequest {
  const Checkout& checkout;
  // A build whose model already exists (build/manycore/<build_id>/obj_dir/Vcmp_top). A
  // missing model is not checked here: sims says why it cannot run, and that line becomes
  // the run's error.
  std::string build_id{};
  Core core = Core::pico;  // generic runs as the build runs it: on the pico (RV32) path
  int x_tiles = 1;
  int y_tiles = 1;
  // Program names, run in this order (REQ-VER-1); see workload.h for what a name means.
  std::vector<std::string> workloads{};
  // The project's workloads/ folder, given to prepare_workload.
  std::filesystem::path workloads_dir{};
  int64_t rtl_timeout = kDefaultSimRtlTimeout;  // REQ-VER-8; must be > 0
  std::optional<int64_t> max_cycle{};           // REQ-VER-16; passed only when set; > 0
  std::map<std::string, WorkloadOverrides> per_workload{};  // by program name
  // core generic: what MACE's own programs are built for (workload.h); unset otherwise.
  std::optional<GenericProgramTarget> generic{};
  // The model was built with monitors (BuildConfig::monitors): each run's tile figures are
  // counted from its transcript.
  bool monitors = false;

  // Wall-clock limit of EACH simulation (seconds convert implicitly). The caller caps it
  // with what is left of the run's budget (REQ-BUD-11); a limit <= 0 means the budget is
  // spent: nothing is started and the result's failure_reason is budget_exhausted.
  std::chrono::milliseconds time_limit = kDefaultSimTimeLimit;
  // Optional end of the run's wall-clock budget. A single cap on time_limit taken before
  // the call would let the second workload run for the whole remainder again; with a
  // deadline each simulation gets min(time_limit, deadline - now) when it starts, and no
  // simulation starts once the deadline has passed ("budget_exhausted").
  std::optional<std::chrono::steady_clock::time_point> deadline{};
  // Between SIGTERM and SIGKILL to a simulation's process group on timeout or cancel.
  std::chrono::milliseconds kill_grace{5000};
  // The largest file a simulation may write (sim.log above all), in bytes; 0: no limit. A
  // run that reaches it is stopped there (os::ProcessSpec::max_file_bytes) and does not
  // pass: its error says the limit was reached, so a design printing without end fails
  // before it fills the checkout's disk.
  std::uint64_t max_output_bytes = 0;

  // May be null. Cancelling stops the running simulation (its whole process group) and
  // starts no further one; failure_reason cancelled.
  const os::CancelToken* cancel = nullptr;

  // The environment Checkout::environment() starts from (it keeps only HOME, USER, LANG,
  // TMPDIR and PATH of it). Unset: the daemon's own environment.
  std::optional<std::map<std::string, std::string>> base_environment{};
  // Set on top of the checkout's environment for sims and the model (a traced model's
  // MACE_WAVE_* variables, waveform_trace.h); recorded with the run's environment.
  std::map<std::string, std::string> extra_environment{};

  // Progress, called in the calling thread while no simulation is running: when a
  // workload's run directory exists and its run is about to be prepared and started
  // ("running hello"), and when the run has been judged. May be empty. What they throw
  // propagates out of simulate_workloads.
  std::function<void(const std::string& workload)> on_workload_started{};
  std::function<void(const WorkloadRunResult& run)> on_workload_finished{};
  // Called when a workload's run directory has been claimed, before sims runs in it.
  std::function<void(const std::string& workload, const std::filesystem::path& run_dir)>
      on_run_dir{};

  // Simulate every workload whatever the others gave, as OpenPiton's regressions do
  // (sims -group): a workload that did not pass does not stop the next. A cancel, the
  // budget's end and a machine that stopped a run still stop everything. Off: stop at the
  // first workload that does not pass (REQ-VER-1).
  bool run_every_workload = false;
};

struct SimulationResult {
  // One per workload that was started, in order; the last is the first that did not pass
  // when passed is false (REQ-VER-1: later workloads are not run), unless the request ran
  // every workload (deciding_failure then says which run the failure is of).
  std::vector<WorkloadRunResult> runs;
  // Every workload ran and each passed (REQ-VER-5). False for an empty workload list:
  // a design that ran no gate workload has not been verified.
  bool passed = false;
  // none when passed. Otherwise one of:
  //   workload_failed   the last run did not pass (its verdict, returncode and error say why)
  //   workload_not_found, workload_not_built, sims_option_rejected
  //                     the last run could not run its workload at all (its cannot_run)
  //   budget_exhausted  a simulation was due but no time was left (REQ-BUD-11)
  //   cancelled         the CancelToken was cancelled
  //   no_workloads      the request named no workload
  //   node_failure, out_of_memory, never_started, killed_by_scheduler
  //                     the machine or scheduler running the last run ended it
  //                     (os::HostStop; only when the checkout's runner places work elsewhere)
  //   invalid_request   see failure_detail; nothing was started
  Failure failure_reason = Failure::none;
  // One sentence for people, e.g. "hello: verdict fail (4498250 : Simulation -> FAIL(HIT
  // BAD TRAP))" or "budget exhausted before memstress".
  std::string failure_detail;
};

// The run whose failure `result.failure_reason` names: the first run that could not run
// its workload at all (its cannot_run: no design will ever run it), else the first that
// did not pass; null when every run passed (a failure after the last run: the budget, a
// cancel). With run_every_workload off it is the last run, when that one did not pass.
const WorkloadRunResult* deciding_failure(const SimulationResult& result);

// Runs request.workloads in order, stopping at the first that does not pass (every one
// with run_every_workload; the failure is then deciding_failure's). Blocks the
// calling thread; any number of calls may run at once (distinct run directories are
// claimed with mkdir). Problems of a run are reported in the result; throws only for
// what cannot be worked around (the run directory cannot be created:
// std::filesystem::filesystem_error) or what a callback throws.
SimulationResult simulate_workloads(const SimulationRequest& request);

// The sims argv of one run, as described at the top of this file. `sims_path` is argv[0];
// `environment` is the child's (for the rv32 toolchain check). Exposed for tests and for
// people reproducing a run by hand.
std::vector<std::string> simulation_argv(const SimulationRequest& request,
                                         const std::string& workload,
                                         const std::string& diag_name,
                                         const std::vector<std::string>& prepared_sims_args,
                                         const std::string& sims_path,
                                         const std::map<std::string, std::string>& environment);

inline constexpr std::size_t kSimLogTailLines = 200;
inline constexpr std::size_t kSimLogTailBytes = 64 * 1024;

}  // namespace mace::openpiton
