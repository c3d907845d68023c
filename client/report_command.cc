// mace report RUN -o FILE.html: the run as one self-contained page (report_page.h), made
// from what maced already answers: the run's detail, its events (the watch history) and
// its LLM calls.

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "answer_pages.h"
#include "commands.h"
#include "core/pareto.h"
#include "core/run_outcome.h"
#include "exit_codes.h"
#include "core/run_environment_record.h"
#include "junit_report.h"
#include "maced_connection.h"
#include "maced_refusal.h"
#include "os/utc_text.h"
#include "render.h"
#include "report_page.h"
#include "run_designs.h"

namespace mace::client {
namespace {

// The run's events as JSON objects, collected from a watch: the history comes at once,
// then the listener is done when the run is final, or the report is made from the
// history when the run is still going (nothing more arrives for a moment).
class CollectingListener final : public api::RunListener::Server {
 public:
  explicit CollectingListener(JsonWriter& events) : events_(events) {}
  bool final_seen() const { return final_; }
  int64_t count() const { return count_; }

 protected:
  kj::Promise<void> event(EventContext context) override {
    write_json(events_, context.getParams().getEvent());
    ++count_;
    return kj::READY_NOW;
  }
  kj::Promise<void> done(DoneContext) override {
    final_ = true;
    return kj::READY_NOW;
  }

 private:
  JsonWriter& events_;
  bool final_ = false;
  int64_t count_ = 0;
};

// A name of a run's log as one file name: letters, digits and `._+-` kept, anything else
// `_`, never hidden, `.` or `..`.
std::string file_name_part(const std::string& text) {
  std::string name;
  for (char c : text.substr(0, 96)) {
    const bool kept = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '_' || c == '+' || c == '-';
    name += kept ? c : '_';
  }
  if (name.empty() || name.front() == '.') name.insert(name.begin(), '_');
  return name;
}

// Where a log goes beside the page, relative to the logs directory, as the run's evidence
// lays it out: iter<N>/<task>/build.log, .../sims/<workload>/sim.log, .../coverage/...
std::string log_place(api::LogFile::Reader f) {
  std::string dir = "iter" + std::to_string(f.getIteration()) + "/" + file_name_part(f.getTaskId().cStr());
  if (f.getNarrowing().size()) dir += "/narrowing/" + file_name_part(f.getNarrowing().cStr());
  const std::string kind = f.getKind().cStr();
  const std::string workload = file_name_part(f.getWorkload().cStr());
  if (kind == "sim_log") return dir + "/sims/" + workload + "/sim.log";
  if (kind == "coverage_data") return dir + "/coverage/coverage.dat";
  if (kind == "coverage_source") return dir + "/coverage/annotated/" + workload;
  if (kind == "waveform") return dir + "/sims/" + workload + "/wave.vcd";
  return dir + "/build.log";
}

// Copies one log through maced (readLog by its ID, a MiB at a time) to `target`. False,
// with `error`, when maced serves none or the file cannot be written.
bool copy_log(api::Maced::Client& maced, kj::AsyncIoContext& io, const std::string& run_id,
              uint64_t id, const std::filesystem::path& target, std::string& error) {
  std::filesystem::create_directories(target.parent_path());
  std::ofstream out(target, std::ios::binary | std::ios::trunc);
  int64_t offset = 0;
  for (;;) {
    auto request = maced.readLogRequest();
    request.setRunId(run_id);
    auto query = request.initQuery();
    query.setFileId(id);
    query.setOffset(offset);
    auto response = answered(request.send().wait(io.waitScope));
    auto chunk = response.getChunk();
    if (!chunk.getFound()) {
      error = chunk.getNote().size() ? chunk.getNote().cStr() : "maced serves no such log";
      return false;
    }
    const auto data = chunk.getData();
    out.write(reinterpret_cast<const char*>(data.begin()), static_cast<std::streamsize>(data.size()));
    offset = chunk.getOffset() + static_cast<int64_t>(data.size());
    if (data.size() == 0 || offset >= chunk.getSize()) break;
  }
  out.close();
  if (!out) error = "cannot write " + target.string();
  return static_cast<bool>(out);
}

// The run's logs for the page: each with the command that reads it and, with --with-logs,
// the relative link to its copy beside the page.
void write_logs(JsonWriter& data, api::Maced::Client& maced, kj::AsyncIoContext& io,
                const std::string& run_id, const std::optional<std::filesystem::path>& logs_dir,
                const std::string& logs_link) {
  auto request = maced.logFilesRequest();
  request.setRunId(run_id);
  auto response = answered(request.send().wait(io.waitScope));
  std::set<std::string> taken;
  data.key("logs").begin_array();
  for (auto f : response.getFiles()) {
    data.begin_object().field("id", f.getId()).field("iteration", f.getIteration());
    data.field("task_id", f.getTaskId().cStr()).field("narrowing", f.getNarrowing().cStr());
    data.field("workload", f.getWorkload().cStr()).field("kind", f.getKind().cStr());
    data.field("note", f.getNote().cStr());
    std::string href;
    if (logs_dir) {
      std::string place = log_place(f);
      // A second log of one place (a model simulated again) gets its number, as kept.
      for (int n = 2; !taken.insert(place).second; ++n) place = log_place(f) + "." + std::to_string(n);
      std::string error;
      if (copy_log(maced, io, run_id, f.getId(), *logs_dir / place, error))
        href = logs_link + "/" + place;
      else
        std::cerr << "mace report: log " << f.getId() << " not copied: " << error << "\n";
    }
    data.field("href", href).end_object();
  }
  data.end_array();
}

// The run's designs' cycles against their cache area, one chart per gate workload: each
// design that passed it with its cycles (core/pareto.h, as the evaluation report draws them).
std::string design_charts(api::RunDetail::Reader detail) {
  const auto designs = run_designs_comparison(detail);
  if (!designs) return "";
  std::string html;
  std::size_t index = 0;
  for (const auto& workload : designs->workloads) {
    std::vector<ParetoPoint> points;
    for (const auto& d : designs->designs) {
      const ComparedResult* r = result_of(d, workload);
      if (!r || r->verdict != "pass" || !r->cycles || !d.area) continue;
      points.push_back({d.task_id, configuration_text(*d.configuration), *d.area, *r->cycles});
    }
    if (!points.empty()) html += pareto_chart_html(index++, workload, std::move(points));
  }
  return html;
}

// Where each simulation's sim.log is on maced's host, by (iteration, task, workload): the
// task's own simulations, not a narrowing rebuild's.
using SimLogPaths = std::map<std::tuple<uint32_t, std::string, std::string>, std::string>;

SimLogPaths sim_log_paths(api::Maced::Client& maced, kj::AsyncIoContext& io, const std::string& run_id) {
  auto request = maced.logFilesRequest();
  request.setRunId(run_id);
  auto response = answered(request.send().wait(io.waitScope));
  SimLogPaths paths;
  for (auto f : response.getFiles())
    if (f.getKind() == "sim_log" && f.getNarrowing().size() == 0)
      paths[{f.getIteration(), f.getTaskId().cStr(), f.getWorkload().cStr()}] = f.getPath().cStr();
  return paths;
}

// The run's provenance, from its environment: MACE's version and commit, the host, the LLM,
// and each checkout's commit, source fingerprint and Verilator.
void add_environment(JunitRun& run, std::string_view json) {
  const RunEnvironment env = read_run_environment(json);
  for (const auto& [key, value] : {std::pair{"mace_version", env.mace_version}, {"mace_commit", env.mace_commit},
                                   {"host", env.host}, {"backend", env.backend}, {"model", env.model}})
    if (!value.empty()) run.properties.emplace_back(key, value);
  run.hostname = env.host;
  for (const auto& c : env.checkouts) {
    run.properties.emplace_back("checkout " + c.path + " commit", c.commit);
    run.properties.emplace_back("checkout " + c.path + " source_fingerprint", c.source_fingerprint);
    run.properties.emplace_back("checkout " + c.path + " verilator", c.verilator);
  }
}

// The failure of one workload that did not pass: its verdict, error line and transcript
// excerpt, and where its sim.log is.
JunitCase failed_case(const std::string& run_id, api::TaskState::Reader t, api::WorkloadResult::Reader r,
                      const SimLogPaths& logs) {
  JunitCase c;
  c.name = r.getWorkload().cStr();
  c.time_s = r.getWallS();
  c.outcome = JunitCase::Outcome::failed;
  c.type = verdict_name(r.getVerdict());
  c.message = r.getErrorLine().size() ? r.getErrorLine().cStr() : "verdict " + c.type;
  c.details = "verdict: " + c.type + "\n";
  if (r.getCycles() >= 0) c.details += "cycles: " + std::to_string(r.getCycles()) + "\n";
  if (r.getExcerpt().size()) c.details += "\n" + std::string(r.getExcerpt().cStr()) + "\n";
  const auto log = logs.find({t.getIteration(), t.getTaskId().cStr(), c.name});
  if (log != logs.end() && !log->second.empty()) c.details += "\nsim.log: " + log->second + "\n";
  const std::string where = " --iteration " + std::to_string(t.getIteration()) + " --task " + t.getTaskId().cStr();
  c.details += "read it: mace logs " + run_id + where + " --sim " + c.name + "\n";
  c.details += "reproduce it by hand: mace repro " + run_id + where + " --workload " + c.name + " -o repro.sh\n";
  return c;
}

// The run as JUnit's suites: one per task, one case per workload it simulated; a task that
// simulated nothing is one case "build", an error when its build failed, else skipped.
JunitRun junit_run(api::RunDetail::Reader detail, const SimLogPaths& logs) {
  const auto summary = detail.getSummary();
  JunitRun run;
  run.run_id = summary.getRunId().cStr();
  const int64_t started = summary.getStartedAtMs() ? summary.getStartedAtMs() : summary.getSubmittedAtMs();
  run.timestamp = started > 0 ? os::utc_iso8601(started) : "";
  run.properties = {{"state", state_name(summary.getState())},
                    {"reason", summary.getReason().cStr()},
                    {"core", summary.getCore().cStr()},
                    {"mesh", std::to_string(summary.getMeshX()) + "x" + std::to_string(summary.getMeshY())},
                    {"objective", summary.getObjective().cStr()}};
  add_environment(run, detail.getEnvironmentJson().cStr());
  for (auto t : detail.getTasks()) {
    JunitSuite suite;
    const std::string task = t.getTaskId().cStr();
    suite.name = "iteration " + std::to_string(t.getIteration()) + " task " + task;
    suite.classname = "mace." + run.run_id + ".iter" + std::to_string(t.getIteration()) + "." + task;
    if (has_configuration(t)) suite.properties.emplace_back("configuration", configuration_text(design_configuration(t)));
    for (const auto& [name, value] : std::initializer_list<std::pair<const char*, std::string>>{
             {"kind", t.getKind().cStr()}, {"checkout", t.getCheckout().cStr()}, {"build_id", t.getBuildId().cStr()},
             {"build_outcome", t.getBuildOutcome().cStr()}, {"build_source", t.getBuildSource().cStr()},
             {"failure_reason", t.getFailureReason().cStr()}})
      if (!value.empty()) suite.properties.emplace_back(name, value);
    for (auto r : t.getResults()) {
      if (r.getVerdict() == api::Verdict::PASS) {
        JunitCase c;
        c.name = r.getWorkload().cStr();
        c.time_s = r.getWallS();
        suite.cases.push_back(std::move(c));
      } else {
        suite.cases.push_back(failed_case(run.run_id, t, r, logs));
      }
    }
    if (t.getResults().size() == 0) {
      JunitCase c;
      c.name = "build";
      c.time_s = t.getBuildWallS() > 0 ? t.getBuildWallS() : 0;
      const std::string reason = t.getFailureReason().size() ? t.getFailureReason().cStr() : stage_name(t.getStage());
      c.outcome = t.getBuildOutcome() == "failed" ? JunitCase::Outcome::error : JunitCase::Outcome::skipped;
      c.type = reason;
      c.message = c.outcome == JunitCase::Outcome::error ? "the build failed: " + reason
                                                          : "nothing simulated: task " + reason;
      c.details = "read the build log: mace logs " + run.run_id + " --iteration " + std::to_string(t.getIteration()) +
                  " --task " + task + " --build\n";
      suite.cases.push_back(std::move(c));
    }
    run.suites.push_back(std::move(suite));
  }
  return run;
}

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) std::cerr << "mace report: cannot write " << path << "\n";
  return static_cast<bool>(out);
}

}  // namespace

int cmd_report(const GlobalOptions& global, const Arguments& args) {
  const auto output = args.value("-o");
  const auto junit = args.value("--junit");
  if (args.positional.size() != 1 || (!output && !junit) || (output && output->empty()) ||
      (junit && junit->empty())) {
    std::cerr << "usage: mace report RUN -o FILE.html [--with-logs] | RUN --junit FILE.xml\n";
    return kExitBadInput;
  }
  // --with-logs: the logs go to FILE-logs/ beside the page, which links to them there.
  std::optional<std::filesystem::path> logs_dir;
  std::string logs_link;
  if (args.has("--with-logs")) {
    if (!output) {
      std::cerr << "mace report: --with-logs copies the logs beside the page of -o FILE.html\n";
      return kExitBadInput;
    }
    const std::filesystem::path page(*output);
    logs_link = page.stem().string() + "-logs";
    logs_dir = page.parent_path() / logs_link;
  }
  const std::string& run_id = args.positional[0];
  return with_maced(global.socket_path, [&](api::Maced::Client& maced, kj::AsyncIoContext& io) {
    JsonWriter data;
    data.begin_object();

    auto whole = whole_run_detail(maced, io.waitScope, run_id);
    const auto detail = whole->getRoot<api::RunDetail>().asReader();
    if (junit) {
      if (!write_file(*junit, junit_xml(junit_run(detail, sim_log_paths(maced, io, run_id))))) return kExitBadInput;
      std::cout << *junit << "\n";
      if (!output) return kExitOk;
    }
    write_run_detail_fields(data, detail);
    const auto planner = planner_kind_from_string(detail.getSummary().getPlanner().cStr());
    data.field("planner_description", planner ? std::string(describe(*planner)) : std::string());

    data.key("calls").begin_array();
    for (const auto& page : call_pages(maced, io.waitScope, run_id))
      for (auto c : page.getCalls()) write_json(data, c);
    data.end_array();

    write_logs(data, maced, io, run_id, logs_dir, logs_link);

    data.key("events").begin_array();
    auto listener = kj::heap<CollectingListener>(data);
    CollectingListener& collected = *listener;
    auto watch = maced.watchRequest();
    watch.setRunId(run_id);
    watch.setListener(kj::mv(listener));
    watch.setAfterSeq(0);
    auto subscription = answered(watch.send().wait(io.waitScope)).getSubscription();
    auto& timer = io.provider->getTimer();
    int64_t seen = -1;
    while (!collected.final_seen() && collected.count() != seen) {
      seen = collected.count();
      timer.afterDelay(300 * kj::MILLISECONDS).wait(io.waitScope);
    }
    data.end_array();
    data.end_object();

    if (!write_file(*output, report_html(data.str(), design_charts(detail)))) return kExitBadInput;
    std::cout << *output << "\n";
    return kExitOk;
  });
}

}  // namespace mace::client
