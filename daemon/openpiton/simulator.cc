#include "openpiton/simulator.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <exception>
#include <string_view>
#include <system_error>
#include <utility>

#include "openpiton/transcript_excerpt.h"
#include "openpiton/workload.h"
#include "os/environment.h"
#include "os/file_io.h"
#include "os/program_search.h"
#include "os/text.h"

namespace mace::openpiton {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

constexpr std::size_t kMaxDieLines = 5;

bool is_hex(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  });
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// Everything wrong with the request, as one sentence; empty when it can run.
std::string request_problem(const SimulationRequest& r) {
  if (r.build_id.empty() || r.build_id == "." || r.build_id == ".." ||
      r.build_id.find('/') != std::string::npos)
    return "build_id '" + r.build_id + "' is not a build ID";
  if (r.x_tiles < 1 || r.y_tiles < 1)
    return "mesh " + std::to_string(r.x_tiles) + "x" + std::to_string(r.y_tiles) +
           " has no tiles";
  if (r.rtl_timeout <= 0) return "rtl_timeout must be positive";
  if (r.max_cycle && *r.max_cycle <= 0) return "max_cycle must be positive";
  for (const auto& w : r.workloads)
    if (w.empty()) return "a workload name is empty";
  for (const auto& [name, o] : r.per_workload) {
    if (!is_hex(o.finish_mask))
      return name + ": finish mask '" + o.finish_mask + "' is not hex digits (no 0x)";
    if (o.rtl_timeout && *o.rtl_timeout <= 0) return name + ": rtl_timeout must be positive";
    if (o.max_cycle && *o.max_cycle <= 0) return name + ": max_cycle must be positive";
    for (const auto& opt : o.options)
      if (!starts_with(opt, "-"))
        return name + ": option '" + opt + "' does not start with '-'";
  }
  return {};
}

bool on_path(const std::map<std::string, std::string>& env, std::string_view program) {
  auto it = env.find("PATH");
  return it != env.end() && os::find_program(program, it->second).has_value();
}

// Run directories are named after the workload; keep the name a single harmless path
// component whatever the workload is called.
std::string directory_name_for(const std::string& workload) {
  std::string out;
  for (char c : workload) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-' || c == '+';
    out += ok ? c : '_';
  }
  if (out.front() == '.') out.front() = '_';
  return out;
}

// Claims <runs>/<name>-<n> with mkdir, which fails if another simulation (thread or
// process) got there first; n starts above every n already there so numbers only grow.
fs::path claim_run_dir(const fs::path& runs, const std::string& name) {
  fs::create_directories(runs);
  long next = 1;
  const std::string prefix = name + "-";
  for (const auto& entry : fs::directory_iterator(runs)) {
    std::string file = entry.path().filename().string();
    if (!starts_with(file, prefix)) continue;
    std::string_view digits = std::string_view(file).substr(prefix.size());
    long n = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec == std::errc() && end == digits.data() + digits.size() && n >= next) next = n + 1;
  }
  for (;; ++next) {
    fs::path dir = runs / (prefix + std::to_string(next));
    if (::mkdir(dir.c_str(), 0777) == 0) return dir;
    if (errno != EEXIST)
      throw fs::filesystem_error("cannot create run directory", dir,
                                 std::error_code(errno, std::generic_category()));
  }
}

std::string last_nonempty_line(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  auto nl = text.rfind('\n');
  return std::string(nl == std::string_view::npos ? text : text.substr(nl + 1));
}

std::string join(const std::vector<std::string>& lines, std::string_view sep) {
  std::string out;
  for (const auto& l : lines) {
    if (!out.empty()) out += sep;
    out += l;
  }
  return out;
}

void append_error(std::string& error, const std::string& more) {
  if (more.empty()) return;
  if (!error.empty()) error += "; ";
  error += more;
}

std::string seconds_text(milliseconds ms) {
  if (ms.count() % 1000 == 0) return std::to_string(ms.count() / 1000) + " s";
  return std::to_string(ms.count()) + " ms";
}

// How long the next simulation may run: the per-simulation limit, cut to what is left
// before the deadline (rounded up, so a deadline a few microseconds away is not zero).
milliseconds limit_for_next_run(const SimulationRequest& r) {
  milliseconds limit = r.time_limit;
  if (r.deadline) {
    auto left = std::chrono::ceil<milliseconds>(*r.deadline - std::chrono::steady_clock::now());
    limit = std::min(limit, left);
  }
  return limit;
}

// What sims' DIE lines say of a workload that cannot run on any model (sims,2.0's own
// messages); none for anything else (a missing model, a simulator crash).
Failure cannot_run_from_die_lines(std::string_view die_lines) {
  if (die_lines.find("no diag with name") != std::string_view::npos ||
      die_lines.find("multiple diags with name") != std::string_view::npos)
    return Failure::workload_not_found;
  if (die_lines.find("Unprocessed argument") != std::string_view::npos) return Failure::sims_option_rejected;
  if (die_lines.find("rv32_as compilation error") != std::string_view::npos ||
      die_lines.find("rv64_cc compilation error") != std::string_view::npos ||
      die_lines.find("midas compilation error") != std::string_view::npos)
    return Failure::workload_not_built;
  return Failure::none;
}

// The file of the run that reached the output limit (a write past it failed), if one did;
// sims' transcripts are the files that grow with the simulation, so only the run
// directory's own files are looked at, a bounded number of them.
std::optional<fs::path> file_at_output_limit(const fs::path& run_dir, std::uint64_t limit) {
  constexpr std::size_t kMaxFilesLooked = 1000;
  std::error_code ec;
  std::size_t looked = 0;
  for (fs::directory_iterator it(run_dir, ec), end; !ec && it != end && looked < kMaxFilesLooked;
       it.increment(ec), ++looked) {
    std::error_code size_error;
    if (!it->is_regular_file(size_error)) continue;
    const auto size = it->file_size(size_error);
    if (!size_error && size >= limit) return it->path();
  }
  return std::nullopt;
}

// The process's end: its wall time, how it stopped and the spec's returncode.
void take_process_end(WorkloadRunResult& run, const os::ProcessResult& pr) {
  run.wall_seconds = pr.wall_seconds;
  if (pr.usage) run.peak_rss_bytes = pr.usage->peak_rss_bytes;
  run.timed_out = pr.timed_out;
  run.cancelled = pr.cancelled;
  run.launch_failed = pr.launch_failed;
  if (pr.launch_failed || pr.timed_out || pr.cancelled || pr.host_stop != os::HostStop::none)
    run.returncode = -1;
  else if (pr.exit_code >= 0)
    run.returncode = pr.exit_code;
  else
    run.returncode = 128 + pr.term_signal;
}

// The verdict and what goes with it, from sim.log and status.log; false without a sim.log.
bool read_transcript(WorkloadRunResult& run, const os::ProcessResult& pr, const SimulationRequest& request) {
  const fs::path sim_log = run.run_dir / "sim.log";
  std::error_code ec;
  const bool have_transcript = fs::is_regular_file(sim_log, ec);
  Verdict transcript = Verdict::none;
  if (have_transcript) {
    VerdictResult vr = read_verdict(sim_log);
    transcript = vr.verdict;
    run.marker_line = std::move(vr.marker_line);
    const SimulationFigures figures = figures_from_verdict_line(run.marker_line);
    run.verdict_time = figures.verdict_time;
    run.cycles = figures.cycles;
    if (request.monitors) run.tiles = tile_figures_of(sim_log);
    append_error(run.error, vr.error);
    run.sim_log_tail = os::read_file_tail(sim_log, kSimLogTailLines, kSimLogTailBytes);
  }
  run.status_line = os::read_first_line(run.run_dir / "status.log");
  run.verdict = pr.timed_out ? verdict_after_wall_clock_limit(transcript) : transcript;
  return have_transcript;
}

// A file of the run that reached the output limit: whatever the transcript says, the run
// did not end as it would have, so it does not pass. True when one did.
bool stopped_at_output_limit(WorkloadRunResult& run, const os::ProcessResult& pr, const SimulationRequest& request) {
  if (request.max_output_bytes == 0 || pr.cancelled || pr.host_stop != os::HostStop::none) return false;
  auto file = file_at_output_limit(run.run_dir, request.max_output_bytes);
  if (!file) return false;
  run.output_limit_reached = true;
  run.returncode = -1;
  append_error(run.error, file->filename().string() + " reached the limit on a simulation's output (" +
                              os::mib_text(request.max_output_bytes) +
                              ", evidence.max_sim_output_mb in maced's configuration) and the "
                              "simulation was stopped there");
  return true;
}

// The machine, a cancel or the wall-clock limit ended it: says which. True when one did.
bool stopped_from_outside(WorkloadRunResult& run, const os::ProcessResult& pr) {
  if (pr.host_stop != os::HostStop::none) {
    run.host_stop = pr.host_stop;
    append_error(run.error, pr.host_stop_detail);
    return true;
  }
  if (pr.cancelled) {
    append_error(run.error, "cancelled");
    return true;
  }
  if (pr.timed_out) {
    append_error(run.error, "sims exceeded its wall-clock limit of " + seconds_text(run.time_limit) +
                                " and was stopped");
    return true;
  }
  return false;
}

// sims reports what stopped it with a perl die(): "sims: Caught a SIGDIE. Could not find
// model ..." (sims,2.0's __DIE__ handler). With no verdict that line is the explanation;
// it may come before any sim.log exists or after the simulator itself failed. "" for none.
std::string die_lines_of(const os::ProcessResult& pr, const std::string& before_die) {
  if (pr.error_lines.empty()) return "";
  std::vector<std::string> die(
      pr.error_lines.begin(),
      pr.error_lines.begin() + static_cast<std::ptrdiff_t>(std::min(pr.error_lines.size(), kMaxDieLines)));
  std::string die_lines = join(die, " | ");
  // The DIE line often only says what sims was doing ("could not copy flist to <run
  // dir>"); the line before it says why ("cp: cannot stat '.../mace_x/flist': No such
  // file or directory", i.e. the model was never built).
  if (!before_die.empty()) die_lines = before_die + " | " + die_lines;
  return die_lines;
}

// What sims or the program's build said when it went wrong, and whether any model would
// fail the same way.
void explain_what_sims_said(WorkloadRunResult& run, const os::ProcessResult& pr, const SimulationRequest& request,
                            bool have_transcript, const std::string& die_lines) {
  if (!have_transcript) {
    std::string why = die_lines.empty() ? last_nonempty_line(pr.tail) : die_lines;
    std::string msg = "sims stopped before simulating (exit status " + std::to_string(run.returncode) +
                      ", no sim.log)";
    if (!why.empty()) msg += ": " + why;
    append_error(run.error, msg);
    run.cannot_run = cannot_run_from_die_lines(die_lines);
    return;
  }
  std::error_code ec;
  if (!die_lines.empty()) {
    append_error(run.error, "sims died: " + die_lines);
    run.cannot_run = cannot_run_from_die_lines(die_lines);
  } else if ((request.core == Core::pico || request.core == Core::generic) &&
             !fs::exists(run.run_dir / "diag.exe", ec)) {
    run.cannot_run = Failure::workload_not_built;
    // rv32_as's failures are not caught by sims, which then simulates an empty image
    // until it times out; say what the assembler said instead of leaving a bare timeout.
    std::string as_log = last_nonempty_line(os::read_file_tail(run.run_dir / "rv32_as.log", 5, 4096));
    append_error(run.error, "the program was not assembled (no diag.exe)" +
                                (as_log.empty() ? std::string() : ": " + as_log));
  }
  if (run.verdict == Verdict::none && run.error.empty())
    run.error = "sim.log has no verdict (sims exit status " + std::to_string(run.returncode) + ")";
}

// Judges a run whose sims process group is gone: verdict from the transcript (REQ-VER-2,
// REQ-VER-3), returncode as the spec's decide() wants it, and a reason when there is no
// usable verdict.
void judge(WorkloadRunResult& run, const os::ProcessResult& pr, const SimulationRequest& request,
           const std::string& before_die) {
  take_process_end(run, pr);
  if (pr.launch_failed) {
    run.error = "cannot launch sims: " + pr.error;
    return;
  }
  const bool have_transcript = read_transcript(run, pr, request);
  if (stopped_at_output_limit(run, pr, request) || stopped_from_outside(run, pr)) return;
  explain_what_sims_said(run, pr, request, have_transcript, die_lines_of(pr, before_die));
}

std::string describe_failure(const WorkloadRunResult& run) {
  std::string s = run.workload + ": verdict " + std::string(to_string(run.verdict));
  if (!run.marker_line.empty()) s += " (" + run.marker_line + ")";
  if (run.verdict == Verdict::pass && run.returncode == -1) s += ", but returncode -1";
  if (!run.error.empty()) s += "; " + run.error;
  return s;
}

}  // namespace

std::vector<std::string> simulation_argv(const SimulationRequest& request,
                                         const std::string& workload,
                                         const std::string& diag_name,
                                         const std::vector<std::string>& prepared_sims_args,
                                         const std::string& sims_path,
                                         const std::map<std::string, std::string>& environment) {
  const WorkloadOverrides* own = nullptr;
  if (auto it = request.per_workload.find(workload); it != request.per_workload.end())
    own = &it->second;

  std::vector<std::string> argv = {
      sims_path,
      "-sys=manycore",
      "-x_tiles=" + std::to_string(request.x_tiles),
      "-y_tiles=" + std::to_string(request.y_tiles),
      "-vlt_run",
      "-build_id=" + request.build_id,
  };
  // As the build does (sims_command.h): generic runs on the PicoRV32 (RV32) tile path.
  const bool rv32 = request.core == Core::pico || request.core == Core::generic;
  if (rv32) argv.push_back("-pico");
  if (request.core == Core::ariane) argv.push_back("-ariane");
  const int64_t rtl_timeout = own && own->rtl_timeout ? *own->rtl_timeout : request.rtl_timeout;
  const std::optional<int64_t> max_cycle =
      own && own->max_cycle ? own->max_cycle : request.max_cycle;
  argv.push_back("-rtl_timeout=" + std::to_string(rtl_timeout));
  if (max_cycle) argv.push_back("-max_cycle=" + std::to_string(*max_cycle));
  const std::string mask = own && !own->finish_mask.empty()
                               ? own->finish_mask
                               : default_finish_mask(request.x_tiles, request.y_tiles);
  argv.push_back("-finish_mask=" + mask);

  auto sets_triple = [](const std::vector<std::string>& args) {
    return std::any_of(args.begin(), args.end(), [](const std::string& a) {
      return starts_with(a, "-rv32_target_triple=");
    });
  };
  if (rv32 && !sets_triple(prepared_sims_args) &&
      !(own && sets_triple(own->options)) &&
      !on_path(environment, "riscv32-unknown-elf-gcc") &&
      on_path(environment, "riscv64-unknown-elf-gcc"))
    argv.push_back("-rv32_target_triple=riscv64-unknown-elf");

  argv.insert(argv.end(), prepared_sims_args.begin(), prepared_sims_args.end());
  if (own) argv.insert(argv.end(), own->options.begin(), own->options.end());
  argv.push_back(diag_name);
  return argv;
}

namespace {

// What every run of one request shares, fixed before the first.
struct RunSetting {
  std::map<std::string, std::string> environment;  // the checkout's, for sims and the compiler
  fs::path runs;                                   // where run directories are claimed
  std::string sims;
  fs::path workloads_dir;
};

RunSetting setting_for(const SimulationRequest& request) {
  RunSetting setting;
  setting.environment = request.checkout.environment(
      request.base_environment ? *request.base_environment : os::inherited_environment());
  for (const auto& [name, value] : request.extra_environment) setting.environment[name] = value;
  // Absolute, because sims runs in the run directory and the daemon's may be anything.
  setting.runs = fs::absolute(request.checkout.model_dir(request.build_id)) / "runs";
  setting.sims = fs::absolute(request.checkout.dv_root() / "tools" / "bin" / "sims").string();
  setting.workloads_dir =
      request.workloads_dir.empty() ? fs::path() : fs::absolute(request.workloads_dir);
  return setting;
}

// prepare_workload in the run's directory; what it throws becomes the run's error, and the
// run's host stop when the machine ended one of its commands.
PreparedWorkload prepare_in_run_dir(const SimulationRequest& request, const RunSetting& setting,
                                    WorkloadRunResult& run) {
  WorkloadContext ctx;
  ctx.workloads_dir = setting.workloads_dir;
  ctx.run_dir = run.run_dir;
  ctx.core = request.core;
  ctx.x_tiles = request.x_tiles;
  ctx.y_tiles = request.y_tiles;
  ctx.environment = setting.environment;
  ctx.runner = &request.checkout.runner();
  ctx.generic = request.generic;
  PreparedWorkload prepared;
  try {
    prepared = prepare_workload(run.workload, ctx);
  } catch (const os::HostStopped& stopped) {
    run.host_stop = stopped.stop();
    prepared.error = std::string("cannot prepare ") + run.workload + ": " + stopped.what();
  } catch (const std::exception& e) {
    prepared.error = std::string("cannot prepare ") + run.workload + ": " + e.what();
  }
  return prepared;
}

bool is_die_line(std::string_view line) { return line.find("DIE.") != std::string_view::npos; }

// Keeps the line sims printed just before its first DIE line, which often says why it
// died (judge()).
class LineBeforeDie {
 public:
  void see(std::string_view line) {
    if (!died_ && is_die_line(line)) {
      died_ = true;
      before_die_ = previous_;
    }
    if (!died_ && !line.empty()) previous_.assign(line.substr(0, 1024));
  }
  const std::string& line() const { return before_die_; }

 private:
  std::string previous_, before_die_;
  bool died_ = false;
};

// Runs sims for a prepared workload and judges what it left.
void run_sims(WorkloadRunResult& run, const SimulationRequest& request,
              const RunSetting& setting, const PreparedWorkload& prepared) {
  run.argv = simulation_argv(request, run.workload, prepared.diag_name, prepared.sims_args,
                             setting.sims, setting.environment);
  run.environment = setting.environment;
  os::ProcessSpec spec;
  spec.argv = run.argv;
  spec.env = setting.environment;
  spec.working_dir = run.run_dir.string();
  spec.timeout = run.time_limit;
  spec.kill_grace = request.kill_grace;
  // No transcript file of our own: sims tees everything it and the simulator print into
  // sims.log (and sim.log) already; a third copy would triple a long run's disk use.
  spec.tail_bytes = 16 * 1024;
  spec.is_error_line = is_die_line;
  spec.max_error_lines = 20;
  LineBeforeDie before_die;
  spec.on_line = [&before_die](std::string_view line) { before_die.see(line); };
  spec.purpose = os::CommandPurpose::simulate;
  spec.max_file_bytes = request.max_output_bytes;
  run.sims_invoked = true;
  os::ProcessResult pr = request.checkout.run(spec, request.cancel);
  judge(run, pr, request, before_die.line());
}

// What a person (and the failure signature) reads of a run that did not pass.
void explain_failure(WorkloadRunResult& run) {
  if (run.sims_invoked) {
    TranscriptExcerpt excerpt = read_transcript_excerpt(run.run_dir / "sim.log", run.marker_line);
    run.error_line = std::move(excerpt.error_line);
    run.excerpt = std::move(excerpt.text);
  }
  if (run.error_line.empty()) {
    run.error_line = run.error.substr(0, run.error.find('\n'));
    if (run.error_line.size() > kMaxExcerptLineBytes) run.error_line.resize(kMaxExcerptLineBytes);
  }
}

// What a run that did not pass fails its request with.
Failure run_failure(const WorkloadRunResult& run) {
  return run.cannot_run == Failure::none ? Failure::workload_failed : run.cannot_run;
}

// One workload in a run directory of its own, given `limit` to run.
WorkloadRunResult run_workload(const SimulationRequest& request, const RunSetting& setting,
                               const std::string& workload, milliseconds limit) {
  WorkloadRunResult run;
  run.workload = workload;
  run.time_limit = limit;
  run.run_dir = claim_run_dir(setting.runs, directory_name_for(workload));
  if (request.on_run_dir) request.on_run_dir(workload, run.run_dir);
  if (request.on_workload_started) request.on_workload_started(workload);

  const PreparedWorkload prepared = prepare_in_run_dir(request, setting, run);
  RunInputs inputs;
  if (!prepared.error.empty()) {
    run.error = prepared.error;
    run.cannot_run = prepared.problem;
  } else {
    inputs = read_run_inputs(run.run_dir);
    run_sims(run, request, setting, prepared);
  }
  run.passed = !run.cancelled && run_passed(run.returncode, run.verdict);
  if (!run.passed) {
    explain_failure(run);
    run.inputs = std::move(inputs);
  }
  return run;
}

}  // namespace

SimulationResult simulate_workloads(const SimulationRequest& request) {
  SimulationResult result;
  auto fail = [&](Failure reason, std::string detail) {
    result.passed = false;
    result.failure_reason = reason;
    result.failure_detail = std::move(detail);
    return std::move(result);
  };

  if (std::string problem = request_problem(request); !problem.empty())
    return fail(Failure::invalid_request, problem);
  if (request.workloads.empty())
    return fail(Failure::no_workloads, "the request names no gate workload");

  const RunSetting setting = setting_for(request);
  for (const std::string& workload : request.workloads) {
    if (request.cancel && request.cancel->cancelled())
      return fail(Failure::cancelled, "cancelled before " + workload);
    const milliseconds limit = limit_for_next_run(request);
    if (limit <= milliseconds::zero())  // REQ-BUD-11: never start past the budget
      return fail(Failure::budget_exhausted, "budget exhausted before " + workload);

    result.runs.push_back(run_workload(request, setting, workload, limit));
    const WorkloadRunResult& done = result.runs.back();
    if (request.on_workload_finished) request.on_workload_finished(done);
    if (done.cancelled) return fail(Failure::cancelled, "cancelled while running " + workload);
    if (done.host_stop != os::HostStop::none) return fail(failure_of(done.host_stop), describe_failure(done));
    if (!done.passed && !request.run_every_workload)  // REQ-VER-1
      return fail(run_failure(done), describe_failure(done));
  }
  if (const WorkloadRunResult* failed = deciding_failure(result))
    return fail(run_failure(*failed),
                describe_failure(*failed));
  result.passed = true;  // REQ-VER-5: every workload ran and passed
  return result;
}

const WorkloadRunResult* deciding_failure(const SimulationResult& result) {
  const WorkloadRunResult* first = nullptr;
  for (const auto& run : result.runs) {
    if (run.passed) continue;
    if (run.cannot_run != Failure::none) return &run;
    if (!first) first = &run;
  }
  return first;
}

}  // namespace mace::openpiton
