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
  auto fail = [&](std::string_view reason, std::string error) {
    result.failure_reason = std::string(reason);
    result.error = std::move(error);
    return std::move(result);
  };

  // REQ-EXEC-12: a bad path fails before anything is written.
  ModulePathCheck check = validate_unit_test_module(o.checkout_root, o.module_path);
  if (!check.ok) return fail(kUnitTestBadModulePath, check.error);

  if (!is_verilog_identifier(o.env_name)) {
    return fail(kUnitTestScaffoldFailed,
                "environment name " + single_quoted(o.env_name) + " is not a Verilog identifier");
  }
  std::map<std::string, std::string> environment;
  fs::path root;
  try {
    Checkout checkout(o.checkout_root);
    root = fs::canonical(checkout.root());
    environment = checkout.environment(o.base_env.empty() ? os::inherited_environment() : o.base_env);
  } catch (const std::exception& e) {
    return fail(kUnitTestScaffoldFailed, e.what());
  }

  auto source = os::try_read_file(check.resolved);
  if (!source) return fail(kUnitTestScaffoldFailed, "cannot read " + check.relative);
  result.module = module_port_list(*source);
  if (result.module.module.empty()) {
    return fail(kUnitTestScaffoldFailed, check.relative + " declares no module");
  }

  const fs::path dv = root / "piton";
  const fs::path script = dv / "verif/env/create_env.py";
  const fs::path sims_src = dv / "tools/src/sims";
  if (!fs::is_regular_file(script)) {
    return fail(kUnitTestScaffoldFailed, "the checkout has no piton/verif/env/create_env.py");
  }

  UnitTestEnv env;
  env.name_ = o.env_name;
  env.root_ = root;
  env.env_dir_ = dv / "verif/env" / o.env_name;
  env.testbench_ = env.env_dir_ / (o.env_name + "_top.v");
  env.module_source_ = check.resolved;
  env.module_name_ = result.module.module;
  env.module_relative_ = check.relative;
  const fs::path config = sims_src / (o.env_name + ".config");
  const std::vector<fs::path> will_create = {env.env_dir_, config,
                                             sims_src / (o.env_name + ".Linux.x86_64"),
                                             env.model_root()};
  for (const fs::path& p : will_create) {
    std::error_code ec;
    if (fs::exists(fs::symlink_status(p, ec))) {
      // Someone else's: never record it, so restore() cannot remove it.
      return fail(kUnitTestScaffoldFailed, "environment " + o.env_name + " already exists (" +
                                               p.lexically_relative(root).string() + ")");
    }
  }
  env.created_ = will_create;
  env.sims_config_ = sims_src / "sims.config";
  env.sims_config_original_ = os::try_read_file(env.sims_config_);
  env.restored_ = false;

  os::ProcessSpec spec;
  spec.argv = {"python3", script.string(), "--name=" + o.env_name, "--author=mace"};
  spec.env = environment;
  spec.working_dir = o.work_dir.string();
  spec.log_path = (o.work_dir / "create_env.log").string();
  spec.timeout = o.timeout;
  result.process = os::run_process_group(spec, o.cancel);
  if (!result.process.succeeded()) {
    env.restore();
    std::string why = result.process.launch_failed ? result.process.error
                      : result.process.timed_out   ? "timed out"
                      : result.process.cancelled   ? "cancelled"
                                                   : "exit " + std::to_string(result.process.exit_code);
    std::string said = last_line(result.process.tail);
    return fail(kUnitTestScaffoldFailed,
                "create_env.py failed (" + why + ")" + (said.empty() ? "" : ": " + said));
  }

  // Repair what create_env.py leaves unbuildable (see the header).
  auto config_text = os::try_read_file(config);
  if (!config_text || !fs::is_regular_file(env.testbench_)) {
    env.restore();
    return fail(kUnitTestScaffoldFailed,
                "create_env.py exited 0 but did not write " +
                    (config_text ? env.testbench_ : config).lexically_relative(root).string());
  }
  const std::string dut_flist_name = o.env_name + "_dut.flist";
  std::istringstream lines(*config_text);
  std::string line, repaired;
  bool placed = false;
  while (std::getline(lines, line)) {
    if (line.find("-env_base=") != std::string::npos) continue;
    if (line.find("-flist=$DV_ROOT/design/" + o.env_name + "/") != std::string::npos) continue;
    repaired += line + "\n";
    if (!placed && line.find("<" + o.env_name + ">") != std::string::npos) {
      repaired += "    -flist=$DV_ROOT/verif/env/" + o.env_name + "/" + dut_flist_name + "\n";
      placed = true;
    }
  }
  // sims resolves relative flist entries against the flist's directory and runs pyHP on
  // `X` when `X.pyv` exists, so a .pyv module is listed without its .pyv.
  std::string listed = check.resolved.string();
  if (listed.ends_with(".pyv")) listed.resize(listed.size() - 4);
  std::string dut_flist = "// The module under test, for MACE's unit_test task\n";
  dut_flist += "+incdir+" + (dv / "verif/env/test_infrstrct").string() + "\n";
  dut_flist += "+incdir+" + (dv / "design/include").string() + "\n";
  dut_flist += "+incdir+" + check.resolved.parent_path().string() + "\n";
  dut_flist += listed + "\n";
  if (!placed || !wrote_file(config, repaired) ||
      !wrote_file(env.env_dir_ / dut_flist_name, dut_flist)) {
    env.restore();
    return fail(kUnitTestScaffoldFailed,
                placed ? "cannot write " + config.lexically_relative(root).string()
                       : config.lexically_relative(root).string() + " has no <" + o.env_name +
                             "> section");
  }
  result.env.emplace(std::move(env));
  return result;
}

std::string_view classify_unit_test_build_failure(std::string_view output) {
  return output.find(kPinNotFound) != std::string_view::npos ? kTestbenchMismatch
                                                             : kUnitTestBuildFailed;
}

UnitTestBuildResult build_unit_test_env(const UnitTestEnv& env, const UnitTestBuildOptions& o) {
  UnitTestBuildResult result;
  result.log_path = o.log_path.empty() ? o.work_dir / "unit_test_build.log" : o.log_path;
  result.model_dir = env.model_root() / o.build_id;
  const auto start = std::chrono::steady_clock::now();
  bool pin_not_found = false;

  auto finish = [&](bool ok, std::string error) {
    result.ok = ok;
    result.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!ok) {
      result.failure_reason = std::string(pin_not_found ? kTestbenchMismatch : kUnitTestBuildFailed);
      result.error = std::move(error);
    }
    return result;
  };
  if (env.restored()) return finish(false, "environment " + env.name() + " was already removed");
  if (!is_verilog_identifier(o.build_id)) {
    return finish(false, "build id " + single_quoted(o.build_id) + " is not a plain name");
  }

  std::map<std::string, std::string> environment;
  try {
    environment = Checkout(env.checkout_root())
                      .environment(o.base_env.empty() ? os::inherited_environment() : o.base_env);
  } catch (const std::exception& e) {
    return finish(false, e.what());
  }

  auto remaining = [&]() {
    if (o.timeout.count() <= 0) return std::chrono::milliseconds(0);
    auto left = o.timeout - std::chrono::duration_cast<std::chrono::milliseconds>(
                                std::chrono::steady_clock::now() - start);
    return std::max(left, std::chrono::milliseconds(1));
  };
  auto step = [&](os::ProcessSpec spec, bool append) {
    spec.env = environment;
    spec.log_path = result.log_path.string();
    spec.log_append = append;
    spec.timeout = remaining();
    spec.on_line = [&](std::string_view line) {
      if (line.find(kPinNotFound) != std::string_view::npos) pin_not_found = true;
    };
    spec.is_error_line = [](std::string_view line) {
      return line.rfind("%Error", 0) == 0 || line.find("DIE.") != std::string_view::npos ||
             line.find(": error:") != std::string_view::npos;
    };
    os::ProcessResult r = os::run_process_group(spec, o.cancel);
    for (auto& l : r.error_lines) {
      if (result.error_lines.size() < 200) result.error_lines.push_back(std::move(l));
    }
    result.timed_out = result.timed_out || r.timed_out;
    result.cancelled = result.cancelled || r.cancelled;
    return r;
  };
  auto describe = [&](const char* what, const os::ProcessResult& r) {
    std::string why = r.launch_failed ? r.error
                      : r.timed_out   ? std::string("timed out")
                      : r.cancelled   ? std::string("cancelled")
                                      : "exit " + std::to_string(r.exit_code);
    std::string first = result.error_lines.empty() ? last_line(r.tail) : result.error_lines.front();
    return std::string(what) + " failed (" + why + ")" + (first.empty() ? "" : ": " + first);
  };

  // Step 1: sims prepares the model directory as for any simulator; -dryrun stops it
  // before its cmp_top-only Verilator command.
  os::ProcessSpec sims;
  sims.argv = {"sims", "-sys=" + env.name(), "-vlt_build", "-dryrun", "-build_id=" + o.build_id};
  sims.working_dir = o.work_dir.string();
  os::ProcessResult r = step(std::move(sims), false);
  if (!r.succeeded()) return finish(false, describe("sims", r));
  if (!fs::is_regular_file(result.model_dir / "flist")) {
    return finish(false, "sims did not write " + (result.model_dir / "flist").string());
  }

  // Step 2: Verilator on the merged flist, the testbench's top module as the top, and a C++
  // compile of the model (--build) so that a model that verilates but does not compile fails.
  os::ProcessSpec vlt;
  vlt.argv = {"verilator", "--cc", "--build", "-j", std::to_string(std::max(o.jobs, 1)),
              "--top-module", env.name() + "_top", "-Mdir", "obj_dir",
              // The flags sims gives every Verilator build of OpenPiton.
              "-Wno-fatal", "-Wno-BLKANDNBLK", "-Wno-TIMESCALEMOD",
              // As the manycore builds: Verilator 5 stops without a timing choice.
              "--no-timing", "-f", "flist"};
  vlt.argv.insert(vlt.argv.end(), o.extra_verilator_args.begin(), o.extra_verilator_args.end());
  vlt.working_dir = result.model_dir.string();
  result.verilator_argv = vlt.argv;
  r = step(std::move(vlt), true);
  if (!r.succeeded()) return finish(false, describe("verilator", r));
  return finish(true, "");
}

}  // namespace mace::openpiton
