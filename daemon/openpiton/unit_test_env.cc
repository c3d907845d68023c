#include "openpiton/unit_test_env.h"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <system_error>
#include <utility>

#include "openpiton/checkout.h"
#include "os/environment.h"
#include "os/file_io.h"
#include "os/path_containment.h"
#include "os/sha256.h"

namespace mace::openpiton {

namespace fs = std::filesystem;

namespace {

std::string single_quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

// Whether `path` could be written: the callers report a failure in their own words.
bool wrote_file(const fs::path& path, std::string_view content) {
  try {
    os::write_file(path, content);
    return true;
  } catch (const os::FileError&) {
    return false;
  }
}

std::string last_line(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  auto nl = text.rfind('\n');
  return std::string(nl == std::string_view::npos ? text : text.substr(nl + 1));
}

// Why a process did not succeed: its launch error, "timed out", "cancelled" or its exit.
std::string failure_cause(const os::ProcessResult& r) {
  return r.launch_failed                      ? r.error
         : r.host_stop != os::HostStop::none  ? r.host_stop_detail
         : r.timed_out                        ? std::string("timed out")
         : r.cancelled   ? std::string("cancelled")
                         : "exit " + std::to_string(r.exit_code);
}

// The environment create_env.py, sims and Verilator run with: the checkout's, built from
// `base_env` (empty: the daemon's own).
std::map<std::string, std::string> environment_of(
    const Checkout& checkout, const std::map<std::string, std::string>& base_env) {
  return checkout.environment(base_env.empty() ? os::inherited_environment() : base_env);
}

// The interface of the module `check` accepted; empty when done, else why not.
std::string read_module_interface(const ModulePathCheck& check, ModuleInterface& module) {
  auto source = os::try_read_file(check.resolved);
  if (!source) return "cannot read " + check.relative;
  module = module_port_list(*source);
  if (module.module.empty()) return check.relative + " declares no module";
  return "";
}

// Where create_env.py puts the environment `name` of the checkout at `root` (canonical).
struct EnvLayout {
  fs::path dv;         // piton/
  fs::path script;     // piton/verif/env/create_env.py
  fs::path sims_src;   // piton/tools/src/sims/
  fs::path env_dir;    // piton/verif/env/<name>/
  fs::path testbench;  // piton/verif/env/<name>/<name>_top.v
  fs::path config;     // piton/tools/src/sims/<name>.config
};

EnvLayout env_layout(const fs::path& root, const std::string& name) {
  EnvLayout layout;
  layout.dv = root / "piton";
  layout.script = layout.dv / "verif/env/create_env.py";
  layout.sims_src = layout.dv / "tools/src/sims";
  layout.env_dir = layout.dv / "verif/env" / name;
  layout.testbench = layout.env_dir / (name + "_top.v");
  layout.config = layout.sims_src / (name + ".config");
  return layout;
}

// The first of `paths` that already exists, as an error naming it; empty: none does.
std::string already_existing(const std::vector<fs::path>& paths, const fs::path& root,
                             const std::string& name) {
  for (const fs::path& p : paths) {
    std::error_code ec;
    if (fs::exists(fs::symlink_status(p, ec))) {
      return "environment " + name + " already exists (" +
             p.lexically_relative(root).string() + ")";
    }
  }
  return "";
}

// Runs create_env.py for `o.env_name`, its run in `process`; empty when it succeeded,
// else why not.
std::string run_create_env(const EnvLayout& layout, const ScaffoldOptions& o,
                           const std::map<std::string, std::string>& environment,
                           os::ProcessResult& process) {
  os::ProcessSpec spec;
  spec.argv = {"python3", layout.script.string(), "--name=" + o.env_name, "--author=mace"};
  spec.env = environment;
  spec.working_dir = o.work_dir.string();
  spec.log_path = (o.work_dir / "create_env.log").string();
  spec.timeout = o.timeout;
  process = os::run_process_group(spec, o.cancel);
  if (process.succeeded()) return "";
  std::string said = last_line(process.tail);
  return "create_env.py failed (" + failure_cause(process) + ")" +
         (said.empty() ? "" : ": " + said);
}

// <name>.config without its -env_base= line and its flist of a design that does not
// exist, and with our <name>_dut.flist in the <name> section; `placed` says whether that
// section was found.
std::string repaired_config(const std::string& config_text, const std::string& name,
                            const std::string& dut_flist_name, bool& placed) {
  std::istringstream lines(config_text);
  std::string line, repaired;
  placed = false;
  while (std::getline(lines, line)) {
    if (line.find("-env_base=") != std::string::npos) continue;
    if (line.find("-flist=$DV_ROOT/design/" + name + "/") != std::string::npos) continue;
    repaired += line + "\n";
    if (!placed && line.find("<" + name + ">") != std::string::npos) {
      repaired += "    -flist=$DV_ROOT/verif/env/" + name + "/" + dut_flist_name + "\n";
      placed = true;
    }
  }
  return repaired;
}

// The flist of the module under test and the include directories it may need.
std::string dut_flist(const EnvLayout& layout, const fs::path& module_file) {
  // sims resolves relative flist entries against the flist's directory and runs pyHP on
  // `X` when `X.pyv` exists, so a .pyv module is listed without its .pyv.
  std::string listed = module_file.string();
  if (listed.ends_with(".pyv")) listed.resize(listed.size() - 4);
  std::string text = "// The module under test, for MACE's unit_test task\n";
  text += "+incdir+" + (layout.dv / "verif/env/test_infrstrct").string() + "\n";
  text += "+incdir+" + (layout.dv / "design/include").string() + "\n";
  text += "+incdir+" + module_file.parent_path().string() + "\n";
  text += listed + "\n";
  return text;
}

// Repairs what create_env.py leaves unbuildable (see the header); empty when done, else
// why not.
std::string repair_created_env(const EnvLayout& layout, const fs::path& root,
                               const std::string& name, const fs::path& module_file) {
  auto config_text = os::try_read_file(layout.config);
  if (!config_text || !fs::is_regular_file(layout.testbench)) {
    return "create_env.py exited 0 but did not write " +
           (config_text ? layout.testbench : layout.config).lexically_relative(root).string();
  }
  const std::string dut_flist_name = name + "_dut.flist";
  bool placed = false;
  const std::string repaired = repaired_config(*config_text, name, dut_flist_name, placed);
  if (!placed || !wrote_file(layout.config, repaired) ||
      !wrote_file(layout.env_dir / dut_flist_name, dut_flist(layout, module_file))) {
    return placed ? "cannot write " + layout.config.lexically_relative(root).string()
                  : layout.config.lexically_relative(root).string() + " has no <" + name +
                        "> section";
  }
  return "";
}

}  // namespace

// ---------------------------------------------------------------------------------------

ModulePathCheck validate_unit_test_module(const fs::path& checkout_root,
                                          std::string_view module_path) {
  ModulePathCheck check;
  auto fail = [&](std::string why) {
    check.error = "module path " + single_quoted(module_path) + " " + why;
    return check;
  };
  if (module_path.empty()) return fail("is empty");
  if (module_path.find('\0') != std::string_view::npos) return fail("contains a NUL byte");
  fs::path given{std::string(module_path)};
  if (given.is_absolute()) return fail("is absolute; name a file relative to the checkout");

  std::error_code ec;
  fs::path root = fs::canonical(checkout_root, ec);
  if (ec) return fail("cannot be checked: checkout " + checkout_root.string() + ": " + ec.message());
  // weakly_canonical resolves every existing component, symlinks included, and `..` after
  // them, so a link that leads out is caught here whether or not its target exists.
  fs::path resolved = fs::weakly_canonical(root / given, ec);
  if (ec) return fail("cannot be resolved: " + ec.message());
  if (!os::is_inside(resolved, root) || resolved == root) {
    return fail("resolves outside the checkout (to " + resolved.string() + ")");
  }
  std::string name = given.filename().string();
  if (!(name.ends_with(".v") || name.ends_with(".sv") || name.ends_with(".pyv"))) {
    return fail("is not a .v, .sv or .pyv file");
  }
  auto status = fs::status(resolved, ec);
  if (ec || !fs::exists(status)) return fail("does not exist in the checkout");
  if (!fs::is_regular_file(status)) return fail("is not a regular file");
  check.ok = true;
  check.resolved = resolved;
  check.relative = resolved.lexically_relative(root).generic_string();
  return check;
}

std::string unit_test_env_name(std::string_view task_id) {
  return "mace_ut_" + os::sha256_hex(task_id).substr(0, 8);
}

// ---------------------------------------------------------------------------------------

UnitTestEnv::UnitTestEnv(UnitTestEnv&& other) noexcept { *this = std::move(other); }

UnitTestEnv& UnitTestEnv::operator=(UnitTestEnv&& other) noexcept {
  if (this != &other) {
    restore();
    name_ = std::move(other.name_);
    root_ = std::move(other.root_);
    env_dir_ = std::move(other.env_dir_);
    testbench_ = std::move(other.testbench_);
    module_source_ = std::move(other.module_source_);
    module_name_ = std::move(other.module_name_);
    module_relative_ = std::move(other.module_relative_);
    created_ = std::move(other.created_);
    sims_config_ = std::move(other.sims_config_);
    sims_config_original_ = std::move(other.sims_config_original_);
    restored_ = other.restored_;
    other.restored_ = true;
    other.created_.clear();
  }
  return *this;
}

UnitTestEnv::~UnitTestEnv() {
  try {
    restore();
  } catch (...) {
  }
}

fs::path UnitTestEnv::model_root() const { return root_ / "build" / name_; }

std::vector<std::string> UnitTestEnv::restore() {
  std::vector<std::string> problems;
  if (restored_) return problems;
  for (const fs::path& p : created_) {
    std::error_code ec;
    fs::remove_all(p, ec);
    if (ec) problems.push_back("cannot remove " + p.string() + ": " + ec.message());
  }
  if (!sims_config_.empty()) {
    auto now = os::try_read_file(sims_config_);
    if (!sims_config_original_) {
      std::error_code ec;
      fs::remove(sims_config_, ec);
      if (ec) problems.push_back("cannot remove " + sims_config_.string() + ": " + ec.message());
    } else if (!now || *now != *sims_config_original_) {
      // Written in place so its inode, owner and mode stay what git and sims expect.
      if (!wrote_file(sims_config_, *sims_config_original_)) {
        problems.push_back("cannot restore " + sims_config_.string());
      }
    }
  }
  restored_ = problems.empty();
  return problems;
}

ScaffoldResult scaffold_unit_test_env(const ScaffoldOptions& o) {
  ScaffoldResult result;
  auto fail = [&](Failure reason, std::string error) {
    result.failure_reason = reason;
    result.error = std::move(error);
    return std::move(result);
  };

  // REQ-EXEC-12: a bad path fails before anything is written.
  ModulePathCheck check = validate_unit_test_module(o.checkout_root, o.module_path);
  if (!check.ok) return fail(Failure::unit_test_bad_module_path, check.error);

  if (!is_verilog_identifier(o.env_name)) {
    return fail(Failure::unit_test_scaffold_failed,
                "environment name " + single_quoted(o.env_name) + " is not a Verilog identifier");
  }
  std::map<std::string, std::string> environment;
  fs::path root;
  try {
    Checkout checkout(o.checkout_root);
    root = fs::canonical(checkout.root());
    environment = environment_of(checkout, o.base_env);
  } catch (const std::exception& e) {
    return fail(Failure::unit_test_scaffold_failed, e.what());
  }

  std::string problem = read_module_interface(check, result.module);
  if (!problem.empty()) return fail(Failure::unit_test_scaffold_failed, problem);
  const EnvLayout layout = env_layout(root, o.env_name);
  if (!fs::is_regular_file(layout.script)) {
    return fail(Failure::unit_test_scaffold_failed, "the checkout has no piton/verif/env/create_env.py");
  }

  UnitTestEnv env;
  env.name_ = o.env_name;
  env.root_ = root;
  env.env_dir_ = layout.env_dir;
  env.testbench_ = layout.testbench;
  env.module_source_ = check.resolved;
  env.module_name_ = result.module.module;
  env.module_relative_ = check.relative;
  const std::vector<fs::path> will_create = {
      layout.env_dir, layout.config, layout.sims_src / (o.env_name + ".Linux.x86_64"),
      env.model_root()};
  // Someone else's: never record it, so restore() cannot remove it.
  problem = already_existing(will_create, root, o.env_name);
  if (!problem.empty()) return fail(Failure::unit_test_scaffold_failed, problem);
  env.created_ = will_create;
  env.sims_config_ = layout.sims_src / "sims.config";
  env.sims_config_original_ = os::try_read_file(env.sims_config_);
  env.restored_ = false;

  problem = run_create_env(layout, o, environment, result.process);
  if (problem.empty()) problem = repair_created_env(layout, root, o.env_name, check.resolved);
  if (!problem.empty()) {
    env.restore();
    return fail(Failure::unit_test_scaffold_failed, problem);
  }
  result.env.emplace(std::move(env));
  return result;
}

Failure classify_unit_test_build_failure(std::string_view output) {
  return output.find(kPinNotFound) != std::string_view::npos ? Failure::testbench_mismatch
                                                             : Failure::unit_test_build_failed;
}

namespace {

// One build of a unit-test environment (build_unit_test_env): two steps that share one
// transcript, one timeout, the error lines collected so far and whether Verilator said
// kPinNotFound, which decides the failure reason.
class UnitTestBuild {
 public:
  UnitTestBuild(const UnitTestEnv& env, const UnitTestBuildOptions& o) : env_(env), o_(o) {
    result_.log_path = o.log_path.empty() ? o.work_dir / "unit_test_build.log" : o.log_path;
    result_.model_dir = env.model_root() / o.build_id;
    start_ = std::chrono::steady_clock::now();
  }

  UnitTestBuildResult run() {
    if (env_.restored()) {
      return finish(false, "environment " + env_.name() + " was already removed");
    }
    if (!is_verilog_identifier(o_.build_id)) {
      return finish(false, "build id " + single_quoted(o_.build_id) + " is not a plain name");
    }
    try {
      environment_ = environment_of(Checkout(env_.checkout_root()), o_.base_env);
    } catch (const std::exception& e) {
      return finish(false, e.what());
    }
    if (std::string problem = prepare_model_dir(); !problem.empty()) return finish(false, problem);
    if (std::string problem = verilate(); !problem.empty()) return finish(false, problem);
    return finish(true, "");
  }

 private:
  // Step 1: sims prepares the model directory as for any simulator; -dryrun stops it
  // before its cmp_top-only Verilator command. Empty when done, else why not.
  std::string prepare_model_dir() {
    os::ProcessSpec sims;
    sims.argv = {"sims", "-sys=" + env_.name(), "-vlt_build", "-dryrun",
                 "-build_id=" + o_.build_id};
    sims.working_dir = o_.work_dir.string();
    os::ProcessResult r = step(std::move(sims), false);
    if (!r.succeeded()) return describe("sims", r);
    if (!fs::is_regular_file(result_.model_dir / "flist")) {
      return "sims did not write " + (result_.model_dir / "flist").string();
    }
    return "";
  }

  // Step 2: Verilator on the merged flist, the testbench's top module as the top, and a C++
  // compile of the model (--build) so that a model that verilates but does not compile
  // fails. Empty when done, else why not.
  std::string verilate() {
    os::ProcessSpec vlt;
    vlt.argv = {"verilator", "--cc", "--build", "-j", std::to_string(std::max(o_.jobs, 1)),
                "--top-module", env_.name() + "_top", "-Mdir", "obj_dir",
                // The flags sims gives every Verilator build of OpenPiton.
                "-Wno-fatal", "-Wno-BLKANDNBLK", "-Wno-TIMESCALEMOD",
                // As the manycore builds: Verilator 5 stops without a timing choice.
                "--no-timing", "-f", "flist"};
    vlt.argv.insert(vlt.argv.end(), o_.extra_verilator_args.begin(),
                    o_.extra_verilator_args.end());
    vlt.working_dir = result_.model_dir.string();
    result_.verilator_argv = vlt.argv;
    os::ProcessResult r = step(std::move(vlt), true);
    if (!r.succeeded()) return describe("verilator", r);
    return "";
  }

  // What is left of the timeout both steps share: 0 (no limit) when there is none, else at
  // least 1 ms, since a spent budget must still time out rather than mean no limit.
  std::chrono::milliseconds remaining() const {
    if (o_.timeout.count() <= 0) return std::chrono::milliseconds(0);
    auto left = o_.timeout - std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::steady_clock::now() - start_);
    return std::max(left, std::chrono::milliseconds(1));
  }

  // Runs one step into the shared transcript and collects its error lines.
  os::ProcessResult step(os::ProcessSpec spec, bool append) {
    spec.env = environment_;
    spec.log_path = result_.log_path.string();
    spec.log_append = append;
    spec.timeout = remaining();
    spec.on_line = [this](std::string_view line) {
      if (line.find(kPinNotFound) != std::string_view::npos) pin_not_found_ = true;
    };
    spec.is_error_line = [](std::string_view line) {
      return line.rfind("%Error", 0) == 0 || line.find("DIE.") != std::string_view::npos ||
             line.find(": error:") != std::string_view::npos;
    };
    spec.purpose = os::CommandPurpose::unit_test_build;
    const os::CommandRunner& runner = o_.runner ? *o_.runner : *os::local_command_runner();
    os::ProcessResult r = runner.run(spec, o_.cancel);
    if (r.host_stop != os::HostStop::none && host_stop_ == os::HostStop::none) {
      host_stop_ = r.host_stop;
      host_stop_detail_ = r.host_stop_detail;
    }
    for (auto& l : r.error_lines) {
      if (result_.error_lines.size() < 200) result_.error_lines.push_back(std::move(l));
    }
    result_.timed_out = result_.timed_out || r.timed_out;
    result_.cancelled = result_.cancelled || r.cancelled;
    return r;
  }

  std::string describe(const char* what, const os::ProcessResult& r) const {
    std::string first =
        result_.error_lines.empty() ? last_line(r.tail) : result_.error_lines.front();
    return std::string(what) + " failed (" + failure_cause(r) + ")" +
           (first.empty() ? "" : ": " + first);
  }

  UnitTestBuildResult finish(bool ok, std::string error) {
    result_.ok = ok;
    result_.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (!ok) {
      result_.failure_reason = host_stop_ != os::HostStop::none ? failure_of(host_stop_)
                               : pin_not_found_ ? Failure::testbench_mismatch
                                                : Failure::unit_test_build_failed;
      result_.error = std::move(error);
    }
    return std::move(result_);
  }

  const UnitTestEnv& env_;
  const UnitTestBuildOptions& o_;
  UnitTestBuildResult result_;
  std::chrono::steady_clock::time_point start_;
  std::map<std::string, std::string> environment_;
  bool pin_not_found_ = false;
  os::HostStop host_stop_ = os::HostStop::none;  // of the first step the host ended
  std::string host_stop_detail_;
};

}  // namespace

UnitTestBuildResult build_unit_test_env(const UnitTestEnv& env, const UnitTestBuildOptions& o) {
  return UnitTestBuild(env, o).run();
}

}  // namespace mace::openpiton
