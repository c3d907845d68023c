#pragma once
// The building blocks of a unit_test task (REQ-EXEC-8, REQ-EXEC-12, REQ-VER-6, REQ-FAIL-3):
// check the module path the plan names, scaffold an OpenPiton unit-test environment for it
// with OpenPiton's own piton/verif/env/create_env.py, build the environment with Verilator, and put the checkout back as it was.
//
// What create_env.py does (measured on a real checkout, HEAD 41a14a05): it refuses (exit 2)
// when piton/verif/env/<name>/ or piton/tools/src/sims/<name>.config exists, and otherwise
// creates piton/verif/env/<name>/{<name>_top.v, <name>.flist, test_cases/test_template_
// {src,sink}.vmh}, piton/tools/src/sims/{<name>.config, <name>.Linux.x86_64}, and appends
// `#include "<name>.config"` to piton/tools/src/sims/sims.config. Its shebang is
// /usr/bin/python, which Debian 12 does not have, so it is run with python3.
//
// Its output is not buildable as written, in three ways scaffolding repairs:
//   - <name>.config names `-flist=$DV_ROOT/design/<name>/rtl/Flist.<name>`, which does not
//     exist (its TODO says to change it): it is replaced by <name>_dut.flist, written by us,
//     naming the module's file and the include directories it may need;
//   - <name>.config has `-env_base=...`, which today's sims rejects ("Unprocessed argument");
//     the line is dropped;
//   - `sims -vlt_build` always verilates `--top-module cmp_top` with the manycore C++ main
//     (tools/verilator/my_top.cpp), so it cannot build any other environment. The build
//     therefore runs sims only for what it does for every simulator (the model directory,
//     config.v, the merged flist, pyHP for .pyv sources: `sims -sys=<name> -vlt_build
//     -dryrun`) and then runs Verilator itself on that flist with <name>_top as the top.
//
// Everything scaffolding and building writes into the checkout is recorded first and taken
// out again by UnitTestEnv::restore() (or its destructor): the created directories and files,
// build/<name>/, and sims.config's original bytes. Only pyHP's *.tmp.v outputs for a .pyv
// module stay, as after every sims build (git ignores them).
//
// One task owns a checkout at a time; nothing here is safe against a second writer of the
// same checkout.

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "openpiton/failure.h"
#include "openpiton/verilog_ports.h"
#include "os/command_runner.h"
#include "os/process_group.h"

namespace mace::openpiton {

// The Verilator message that says the testbench connects a port the module does not have.
inline constexpr std::string_view kPinNotFound = "%Error-PINNOTFOUND";

struct ModulePathCheck {
  bool ok = false;
  // When !ok: one line naming the path and the problem, e.g.
  // "module path 'piton/x.txt' is not a .v, .sv or .pyv file".
  std::string error;
  // When ok: the file, every symlink resolved (inside the canonical checkout root).
  std::filesystem::path resolved;
  // When ok: `resolved` relative to the canonical checkout root, '/'-separated.
  std::string relative;
};

// REQ-EXEC-12. Accepts `module_path` only if it is relative, stays inside `checkout_root`
// once every `..` and symlink is resolved, ends in .v, .sv or .pyv, and names an existing
// regular file (a symlink to one inside the checkout counts). The failure reason of a
// refused path is Failure::unit_test_bad_module_path. Never throws.
ModulePathCheck validate_unit_test_module(const std::filesystem::path& checkout_root,
                                          std::string_view module_path);

// The environment name of a task: "mace_ut_" and the first 8 hex digits of SHA-256 of the
// task id. A Verilog identifier and a file name whatever the id holds, and distinct per
// task, so two tasks never meet in piton/verif/env/.
std::string unit_test_env_name(std::string_view task_id);

struct ScaffoldOptions;
struct ScaffoldResult;
ScaffoldResult scaffold_unit_test_env(const ScaffoldOptions& options);

// A scaffolded environment. Move-only; restore() (or the destructor) removes what
// scaffolding and building added to the checkout and puts sims.config back byte for byte.
class UnitTestEnv {
 public:
  UnitTestEnv(UnitTestEnv&& other) noexcept;
  UnitTestEnv& operator=(UnitTestEnv&& other) noexcept;
  UnitTestEnv(const UnitTestEnv&) = delete;
  UnitTestEnv& operator=(const UnitTestEnv&) = delete;
  ~UnitTestEnv();  // restore(), errors ignored

  const std::string& name() const { return name_; }
  const std::filesystem::path& checkout_root() const { return root_; }  // canonical
  const std::filesystem::path& env_dir() const { return env_dir_; }  // piton/verif/env/<name>
  // piton/verif/env/<name>/<name>_top.v: the one file the agent may rewrite.
  const std::filesystem::path& testbench() const { return testbench_; }
  // The module under test (resolved), its name as declared, and its path as the task gave it.
  const std::filesystem::path& module_source() const { return module_source_; }
  const std::string& module_name() const { return module_name_; }
  const std::string& module_relative() const { return module_relative_; }
  // build/<name>: where builds of this environment put their models.
  std::filesystem::path model_root() const;

  // Idempotent. Returns one line per thing it could not put back (empty: all restored).
  std::vector<std::string> restore();
  bool restored() const { return restored_; }

 private:
  friend ScaffoldResult scaffold_unit_test_env(const ScaffoldOptions& options);
  UnitTestEnv() = default;

  std::string name_;
  std::filesystem::path root_, env_dir_, testbench_, module_source_;
  std::string module_name_, module_relative_;
  // Paths that did not exist before scaffolding, removed (recursively) by restore().
  std::vector<std::filesystem::path> created_;
  std::filesystem::path sims_config_;
  std::optional<std::string> sims_config_original_;  // nullopt: it did not exist
  bool restored_ = true;
};

struct ScaffoldOptions {
  std::filesystem::path checkout_root;
  std::string env_name;     // unit_test_env_name(task id); must be a Verilog identifier
  std::string module_path;  // as the task names it; validated again here
  // create_env.py runs here and its transcript goes to <work_dir>/create_env.log. Must exist.
  std::filesystem::path work_dir;
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};
  // The daemon's environment, reduced by Checkout::environment(); empty: inherited_environment().
  std::map<std::string, std::string> base_env;
  const os::CancelToken* cancel = nullptr;
};

struct ScaffoldResult {
  std::optional<UnitTestEnv> env;  // set exactly when scaffolding succeeded
  Failure failure_reason = Failure::none;  // unit_test_bad_module_path or unit_test_scaffold_failed
  std::string error;               // one line
  ModuleInterface module;          // the module's interface, read while scaffolding
  os::ProcessResult process;           // create_env.py's run (pid -1 if it never started)
  bool ok() const { return env.has_value(); }
};

// Validates the path (a bad one fails with unit_test_bad_module_path before anything is
// written), refuses a name whose environment already exists, records what it is about to
// change, runs create_env.py through run_process_group with the checkout's environment,
// and repairs its output (see the top of this file). On any failure everything already
// written is taken out again before it returns.
ScaffoldResult scaffold_unit_test_env(const ScaffoldOptions& options);

struct UnitTestBuildOptions {
  std::string build_id = "mace_ut";  // the model lands in build/<env name>/<build_id>/
  // sims runs here (it leaves flist, sims.log, status.log and history.sims in its working
  // directory); must exist.
  std::filesystem::path work_dir;
  // Both steps' transcript; empty: <work_dir>/unit_test_build.log.
  std::filesystem::path log_path;
  // For both steps together.
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  std::map<std::string, std::string> base_env;  // as ScaffoldOptions::base_env
  // Parallel C++ compile jobs for Verilator's --build; the daemon bounds builds.
  int jobs = 1;
  std::vector<std::string> extra_verilator_args;
  const os::CancelToken* cancel = nullptr;
  // Where both steps run: the checkout's runner (Checkout::runner). Null: here.
  const os::CommandRunner* runner = nullptr;
};

struct UnitTestBuildResult {
  bool ok = false;                 // REQ-VER-6: the task passes when this is true
  // testbench_mismatch, unit_test_build_failed, or the host's stop when the machine or
  // scheduler running a step ended it
  Failure failure_reason = Failure::none;
  std::string error;               // one line
  std::vector<std::string> error_lines;  // %Error lines, sims' DIE lines, compiler errors
  std::filesystem::path log_path;
  std::filesystem::path model_dir;  // build/<name>/<build_id>
  bool timed_out = false;
  bool cancelled = false;
  double wall_seconds = 0;
  std::vector<std::string> verilator_argv;  // the second step as run (empty if not reached)
};

// `sims -sys=<name> -vlt_build -dryrun -build_id=<id>`, then `verilator --cc --build` of the
// merged flist with <name>_top as the top, both through run_process_group. A failure whose
// output has kPinNotFound is testbench_mismatch (REQ-FAIL-3), any other unit_test_build_failed.
UnitTestBuildResult build_unit_test_env(const UnitTestEnv& env,
                                        const UnitTestBuildOptions& options);

// REQ-FAIL-3: testbench_mismatch when a failed build's output contains kPinNotFound, else
// unit_test_build_failed. No LLM call, no state.
Failure classify_unit_test_build_failure(std::string_view output);

}  // namespace mace::openpiton
