#include "maced/check_up.h"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>

#include "llm/backend_factory.h"
#include "maced/settings_of_config.h"
#include "openpiton/checkout.h"
#include "openpiton/checkout_check.h"
#include "openpiton/checkout_pin.h"
#include "openpiton/host_tools.h"
#include "openpiton/sims_command.h"
#include "openpiton/workload_checksums.h"
#include "os/environment.h"
#include "os/free_space.h"
#include "slurm/job_status.h"
#include "slurm/slurm_commands.h"

namespace mace {
namespace {

namespace fs = std::filesystem;
using openpiton::CheckoutProblem;

// Below these, a model build (a sparc model's objects take about a gigabyte) or a day's
// evidence may not fit.
constexpr std::uint64_t kFailBelowBytes = 1ull << 30;
constexpr std::uint64_t kWarnBelowBytes = 5ull << 30;

CheckFinding finding(CheckTopic topic, std::string subject, CheckLevel level, std::string what,
                     std::string fix = "") {
  return {topic, std::move(subject), level, std::move(what), std::move(fix)};
}

std::string user_name(uid_t uid) {
  std::array<char, 4096> buffer{};
  passwd entry{};
  passwd* found = nullptr;
  if (::getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) == 0 && found)
    return found->pw_name;
  return "uid " + std::to_string(uid);
}

std::string maced_user() { return user_name(::geteuid()); }

// The patch script where this maced can point at it: installed beside the workloads, else
// in the source tree it was built from.
std::string patch_command(const std::string& checkout) {
  for (const char* script : {MACE_INSTALLED_PATCH_SCRIPT, MACE_SOURCE_PATCH_SCRIPT}) {
    std::error_code ignored;
    if (fs::exists(script, ignored)) return std::string(script) + " " + checkout;
  }
  return "scripts/patch_openpiton.sh " + checkout + " (in MACE's source tree)";
}

const char* const kRestart = "; then restart maced, which checks its checkouts when it starts";

// How bad each problem is for runs, and what to do about it.
CheckFinding checkout_finding(const std::string& path, const openpiton::CheckoutFinding& f) {
  const auto fail = [&](std::string what, std::string fix) {
    return finding(CheckTopic::checkout, path, CheckLevel::failure, std::move(what), std::move(fix) + kRestart);
  };
  const auto warn = [&](std::string what, std::string fix) {
    return finding(CheckTopic::checkout, path, CheckLevel::warning, std::move(what), std::move(fix));
  };
  const std::string elsewhere = "or change `checkouts` in maced's configuration";
  switch (f.problem) {
    case CheckoutProblem::missing:
      return fail("nothing is there", "clone OpenPiton there and patch it (" + patch_command(path) + "), " + elsewhere);
    case CheckoutProblem::inaccessible:
      return fail("maced's user (" + maced_user() + ") cannot look at it (" + f.detail + ")",
                  "let it through every directory on the way (chmod o+x, or a group it is in), " + elsewhere);
    case CheckoutProblem::not_a_directory:
      return fail("it is not a directory", "point it at the top of an OpenPiton checkout, " + elsewhere);
    case CheckoutProblem::not_openpiton:
      return fail("not an OpenPiton checkout (" + f.detail + ")",
                  "name the checkout's top directory, the one that holds piton/, " + elsewhere);
    case CheckoutProblem::unusable_path:
      return fail("its path cannot be used: " + f.detail,
                  "move the checkout (or clone it) to a path of letters, digits and /._-@ only, such as "
                  "/srv/openpiton/a, and change `checkouts` in maced's configuration");
    case CheckoutProblem::not_writable:
      return fail("maced's user (" + maced_user() + ") cannot write " + f.detail,
                  "give it the checkout: chown -R " + maced_user() + " " + path);
    case CheckoutProblem::testbench_unpatched:
      return fail("not patched for Verilator 5: every diag would end at max cycles (" + f.detail +
                      " keeps its blocking assignments)",
                  "patch it: " + patch_command(path));
    case CheckoutProblem::testbench_unknown:
      return warn("the testbench (" + f.detail + ") is not the file scripts/patch_openpiton.sh knows; "
                  "with Verilator 5 its diags may end at max cycles",
                  "compare it with OpenPiton's at commit " + std::string(openpiton::kVerifiedOpenPitonCommit));
    case CheckoutProblem::tile_unpatched:
      return warn("runs of a generic core cannot build, and no tile's first request is checked (" +
                      f.detail + " is not patched)",
                  "patch it: " + patch_command(path));
    case CheckoutProblem::coverage_unpatched:
      return warn("specs with \"coverage\": true record none (" + f.detail + " is not patched)",
                  "patch it: " + patch_command(path));
    case CheckoutProblem::pal_unpatched:
      return warn("sparc .pal diags need a /usr/tmp (" + f.detail + " is not patched)",
                  "patch it: " + patch_command(path));
  }
  return fail("unknown problem", "");
}

CheckFinding pin_finding(const std::string& path, const openpiton::PinNote& note) {
  const std::string verified(openpiton::kVerifiedOpenPitonCommit);
  switch (note.difference) {
    case openpiton::PinDifference::other_commit:
      return finding(CheckTopic::checkout, path, CheckLevel::warning, "it " + note.text,
                     "git -C " + path + " checkout " + verified + ", if the design MACE was verified on matters");
    case openpiton::PinDifference::commit_unreadable:
      return finding(CheckTopic::checkout, path, CheckLevel::warning, note.text,
                     "use a git clone of OpenPiton: without git no model is ever reused and runs record "
                     "no commit for their designs");
    case openpiton::PinDifference::no_ariane:
      return finding(CheckTopic::checkout, path, CheckLevel::warning, "it " + note.text,
                     "for ariane runs: git -C " + path + " submodule update --init " +
                         std::string(openpiton::kArianeSubmodulePath));
  }
  return finding(CheckTopic::checkout, path, CheckLevel::warning, note.text);
}

std::optional<int> installed_verilator_major() {
  try {
    return openpiton::detect_verilator_version(os::inherited_environment()).major;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::vector<CheckFinding> checkouts_with(const MacedConfig& config, std::optional<int> verilator_major) {
  std::vector<CheckFinding> out;
  for (const auto& checkout : config.checkouts) {
    const auto problems = openpiton::check_checkout(checkout.path, verilator_major);
    bool blocked = false;
    for (const auto& problem : problems) {
      out.push_back(checkout_finding(checkout.path, problem));
      blocked = blocked || out.back().level == CheckLevel::failure;
    }
    if (blocked) continue;
    for (const auto& note : openpiton::checkout_pin_notes(checkout.path))
      out.push_back(pin_finding(checkout.path, note));
    {
      std::string what = "an OpenPiton checkout, patched for the installed Verilator, writable by " + maced_user();
      if (checkout.node != "local") what += ", on Slurm node " + checkout.node;
      out.push_back(finding(CheckTopic::checkout, checkout.path, CheckLevel::ok, what));
    }
  }
  return out;
}

void check_tools(std::optional<int>& verilator_major, std::vector<CheckFinding>& out) {
  // The checkouts' environment puts OpenPiton's tools/bin before maced's own PATH; the
  // programs asked for here come from maced's.
  for (const auto& tool : openpiton::find_host_tools(os::inherited_environment())) {
    const std::string name(openpiton::program_name(tool.tool));
    if (!tool.path) {
      const bool every = openpiton::needed_by_every_run(tool.tool);
      out.push_back(finding(CheckTopic::tool, name, every ? CheckLevel::failure : CheckLevel::warning,
                            std::string("not found on maced's PATH") +
                                (every ? ": no build or simulation can run"
                                 : tool.tool == openpiton::HostTool::riscv_gcc ? ": pico and generic diags cannot be compiled"
                                 : tool.tool == openpiton::HostTool::verilator_coverage ? ": coverage cannot be merged"
                                 : ": models are compiled without a compiler cache"),
                            "apt-get install " + std::string(openpiton::debian_package(tool.tool)) +
                                " (scripts/install-deps.sh run installs them all)"));
      continue;
    }
    std::string what = tool.path->string();
    if (!tool.version.empty()) what = tool.version + " (" + what + ")";
    if (tool.tool == openpiton::HostTool::verilator) {
      if (auto parsed = openpiton::parse_verilator_version(tool.version)) verilator_major = parsed->major;
    }
    out.push_back(finding(CheckTopic::tool, name, CheckLevel::ok, what));
  }
}

void check_workloads(const MacedOptions& options, std::vector<CheckFinding>& out) {
  const std::string& dir = options.workloads_dir;
  std::error_code error;
  if (!fs::is_directory(dir, error)) {
    out.push_back(finding(CheckTopic::workloads, dir, CheckLevel::failure,
                          "not a directory: MACE's own gate workloads cannot be found",
                          "start maced with --workloads DIR (or MACE_WORKLOADS_DIR) naming MACE's workloads/"));
    return;
  }
  const auto problems = openpiton::verify_workload_checksums(dir);
  if (problems.empty()) {
    out.push_back(finding(CheckTopic::workloads, dir, CheckLevel::ok, "every program matches CHECKSUMS"));
    return;
  }
  std::string what = std::to_string(problems.size()) + " problem(s) with CHECKSUMS: " + problems.front();
  out.push_back(finding(CheckTopic::workloads, dir, CheckLevel::failure, what,
                        "restore the directory from MACE's release; every run ends checksum_mismatch until then"));
}

std::string gib(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1ull << 30));
  return text;
}

// One finding per file system, naming every place of it that fills with what maced keeps.
void check_disk(const MacedConfig& config, const MacedOptions& options, std::vector<CheckFinding>& out) {
  std::vector<std::pair<std::string, fs::path>> places = {{"state directory", options.state_dir}};
  if (config.model_store.enabled)
    places.push_back({"model store", under_state_dir_unless(config.model_store.path, options, "models")});
  if (config.compiler_cache.enabled)
    places.push_back({"compiler cache", under_state_dir_unless(config.compiler_cache.path, options, "ccache")});
  places.push_back({"evidence", under_state_dir_unless(config.evidence.path, options, "runs")});
  for (const auto& checkout : config.checkouts) places.push_back({"checkout " + checkout.path, checkout.path});

  struct Group {
    os::FreeSpace space;
    std::vector<std::string> names;
  };
  std::vector<Group> groups;
  for (const auto& [name, path] : places) {
    const auto space = os::free_space(path);
    if (!space) continue;
    // The same file system: the same totals and free space at the same moment.
    auto same = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
      return g.space.total_bytes == space->total_bytes && g.space.available_bytes == space->available_bytes;
    });
    if (same == groups.end()) groups.push_back({*space, {name}});
    else same->names.push_back(name);
  }
  for (const auto& group : groups) {
    std::string subject;
    for (const auto& name : group.names) subject += (subject.empty() ? "" : ", ") + name;
    const std::uint64_t free = group.space.available_bytes;
    const std::string what = gib(free) + " free of " + gib(group.space.total_bytes) + " at " +
                             group.space.measured_at.string();
    if (free < kFailBelowBytes)
      out.push_back(finding(CheckTopic::disk, subject, CheckLevel::failure, what + ": a model's build may not fit",
                            "free space there, or lower model_store.max_mb, compiler_cache.max_mb and evidence.max_mb"));
    else if (free < kWarnBelowBytes)
      out.push_back(finding(CheckTopic::disk, subject, CheckLevel::warning, what,
                            "free space there before a sparc build (about a gigabyte each) or a long regression"));
    else
      out.push_back(finding(CheckTopic::disk, subject, CheckLevel::ok, what));
  }
}

void check_slurm_nodes(const MacedConfig& config, std::vector<CheckFinding>& out) {
  if (config.executor.kind != ExecutorConfig::Kind::slurm) return;
  std::set<std::string> nodes;
  for (const auto& checkout : config.checkouts) nodes.insert(checkout.node);
  const slurm::SlurmCommands commands(config.executor.slurm);
  for (const auto& node : nodes) {
    try {
      const auto status = commands.node(node);
      if (!status)
        out.push_back(finding(CheckTopic::slurm_node, node, CheckLevel::failure, "Slurm knows no such node",
                              "name the node as sinfo -N does in `checkouts`, or add it to slurm.conf"));
      else if (!slurm::accepts_work(*status))
        out.push_back(finding(CheckTopic::slurm_node, node, CheckLevel::failure,
                              slurm::describe_node(node, *status) + ": its checkouts get no work",
                              "bring it back once it is fixed: scontrol update nodename=" + node + " state=resume"));
      else
        out.push_back(finding(CheckTopic::slurm_node, node, CheckLevel::ok, "up (" + status->state + ")"));
    } catch (const std::exception& e) {
      out.push_back(finding(CheckTopic::slurm_node, node, CheckLevel::failure,
                            std::string("Slurm cannot be asked: ") + e.what(),
                            "check that slurmctld runs and that maced's user can run sinfo"));
    }
  }
}

void check_backends(const MacedConfig& config, std::vector<CheckFinding>& out) {
  llm::BackendOptions options;
  if (!config.llm_prices_json.empty())
    options.prices.apply_overrides_json("{\"prices\":" + config.llm_prices_json + "}");
  options.unreported_cost = config.unreported_cost;
  const auto env = llm::process_environment();
  for (const char* backend : {"vertex", "claude", "opencode", "antigravity"}) {
    const bool is_default = config.llm_backend == backend;
    const auto choice = llm::resolve_choice(std::string(backend),
                                            is_default && !config.llm_model.empty()
                                                ? std::optional<std::string>(config.llm_model)
                                                : std::nullopt,
                                            env);
    std::optional<std::string> problem;
    try {
      problem = llm::check_backend(choice, env, options);
    } catch (const std::exception& e) {
      problem = e.what();
    }
    const std::string role = is_default ? " (maced's default backend)" : "";
    if (problem)
      out.push_back(finding(CheckTopic::llm_backend, backend, CheckLevel::warning,
                            "cannot be used" + role + ": " + *problem,
                            "set it up as docs/llm-backends.md says, in maced's environment (under systemd "
                            "/etc/mace/maced.env), and restart maced; runs with \"backend\": \"direct\" need none"));
    else
      out.push_back(finding(CheckTopic::llm_backend, backend, CheckLevel::ok,
                            "credentials found" + role + (choice.model.empty() ? "" : ", model " + choice.model)));
  }
}

}  // namespace

std::vector<CheckFinding> check_checkouts(const MacedConfig& config) {
  return checkouts_with(config, installed_verilator_major());
}

std::vector<CheckFinding> check_up(const MacedConfig& config, const MacedOptions& options) {
  std::vector<CheckFinding> out;
  out.push_back(finding(CheckTopic::maced, "maced", CheckLevel::ok,
                        "maced " MACE_VERSION " runs as " + maced_user() + " (pid " + std::to_string(::getpid()) +
                            "), state in " + options.state_dir));
  std::optional<int> verilator_major;
  check_tools(verilator_major, out);
  const auto checkouts = checkouts_with(config, verilator_major);
  out.insert(out.end(), checkouts.begin(), checkouts.end());
  if (config.checkouts.empty())
    out.push_back(finding(CheckTopic::checkout, "", CheckLevel::failure, "maced has no checkout: every run stays queued",
                          "list OpenPiton checkouts under `checkouts` in maced's configuration, and restart it"));
  check_workloads(options, out);
  check_disk(config, options, out);
  check_slurm_nodes(config, out);
  check_backends(config, out);
  return out;
}

std::map<std::string, std::string> refused_checkouts(const std::vector<CheckFinding>& findings) {
  std::map<std::string, std::string> refused;
  for (const auto& f : findings) {
    if (f.topic != CheckTopic::checkout || f.level != CheckLevel::failure || f.subject.empty()) continue;
    auto& why = refused[f.subject];
    why += (why.empty() ? "" : "; ") + f.what;
  }
  return refused;
}

}  // namespace mace
