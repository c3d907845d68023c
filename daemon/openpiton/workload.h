#pragma once
// Gate workloads: how a workload name in a run spec becomes what sims runs.
//
// MACE's own programs live in the project's workloads/ folder (REQ-BUD-7):
//   workloads/<name>.c          a C program; main() returning 0 is a pass. Built for pico
//                               by MACE (sims does not compile C for pico), given to sims
//                               as is for ariane.
//   workloads/pico/start.S      the pico start-up code a generated wrapper includes.
//   workloads/sparc/<name>.s    an OpenSPARC T1 assembly program.
//   workloads/CHECKSUMS         sha256sum of every program file, checked before a run.
// Any other name (with its extension, e.g. "add.S", "princeton-test-test.s") is one of the
// checkout's own diags, found by sims under piton/verif/diag.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "openpiton/build_config.h"
#include "openpiton/failure.h"
#include "os/command_runner.h"

namespace mace::openpiton {

// What to add to one sims -vlt_run to run a workload, prepared inside its run directory.
struct PreparedWorkload {
  std::string diag_name;                 // the positional argument to sims
  std::vector<std::string> sims_args;    // e.g. -asm_diag_path=..., -pre_process_cmd=...
  std::string error;                     // non-empty: could not prepare; nothing to run
  // With error, when no model would change it: workload_not_found (no program of that name
  // for the core, or a name it cannot have) or workload_not_built (the program does not
  // compile, assemble or link). none for something of the machine (a timeout, a file that
  // cannot be written).
  Failure problem = Failure::none;
};

// core generic: what MACE's own C programs are built for instead of PicoRV32 (REQ-EXEC-20).
struct GenericProgramTarget {
  std::string march;                  // the core's ISA, e.g. "rv32ima"
  uint32_t reset_vector = 0;          // where every tile starts (the wake-up trigger)
  std::filesystem::path link_script;  // the descriptor's, as written into the checkout
};

struct WorkloadContext {
  std::filesystem::path workloads_dir;   // the project's workloads/ folder (absolute)
  std::filesystem::path run_dir;         // fresh, absolute; files may be written here
  Core core = Core::pico;
  int x_tiles = 1;
  int y_tiles = 1;
  // The environment for the compiler (PATH etc.) when building C programs for pico:
  // normally the checkout's environment (Checkout::environment).
  std::map<std::string, std::string> environment;
  // Where the compiler runs: the checkout's runner (Checkout::runner). Null: here.
  const os::CommandRunner* runner = nullptr;
  // core generic: set when the core's own programs are built for a descriptor's core.
  std::optional<GenericProgramTarget> generic = {};
};

// A workload that could not be prepared: `message` says why, `problem` whether any model
// would change it.
PreparedWorkload unprepared(std::string message, Failure problem = Failure::none);

// Resolves `name` and prepares it in ctx.run_dir: for a pico C program, compiles it and
// writes the wrapper; for a multi-tile pico mesh, writes the event file that wakes every
// tile (REQ-VER-7: tiles other than 0 sleep until tile 0's first instruction triggers
// their wake-up interrupt). Compiler errors are reported in `error` with the compiler's
// own lines, not left for sims to run an empty image.
PreparedWorkload prepare_workload(const std::string& name, const WorkloadContext& ctx);

// Whether sims could run a gate workload, checked before a run is queued (no file is
// written, nothing is compiled): MACE's own program for `core` in `workloads_dir`, or, for
// a name with an extension, the one diag of that name sims would find on each checkout
// (`checkout_diag_roots`: each checkout's piton/verif/diag), searched as sims searches (that
// root first, then `workloads_dir`; the first holding any match decides, and two matches
// there are an error too). A checkout whose diag root cannot be read here (a Slurm node's)
// is not judged.
struct WorkloadLookup {
  bool found = false;
  // When not found: names the workload and every place looked. Empty when nobody can
  // tell here (a diag name, and no checkout's diag root could be read).
  std::string problem;
};
WorkloadLookup find_workload(const std::string& name, Core core,
                             const std::filesystem::path& workloads_dir,
                             const std::vector<std::filesystem::path>& checkout_diag_roots);

// One finish-mask bit per tile: thread 0 of tile N is bit 4N (REQ-VER-7). Hex digits, no 0x.
std::string default_finish_mask(int x_tiles, int y_tiles);

}  // namespace mace::openpiton
