#include "replay/values.h"

#include <map>
#include <optional>

#include <simdjson.h>

#include "core/environment_entries.h"
#include "core/json_writer.h"
#include "openpiton/failure.h"
#include "openpiton/sim_figures.h"
#include "os/text.h"

namespace mace::replay {
namespace {

using simdjson::dom::element;
using simdjson::dom::object;

// Reads one document; every accessor names the field it could not read.
class Reader {
 public:
  Reader(std::string_view json, std::string what) : what_(std::move(what)) {
    if (parser_.parse(json.data(), json.size()).get(root_) != simdjson::SUCCESS)
      throw ValueError("the cached " + what_ + " value is not a JSON object");
  }
  object root() const { return root_; }

  element at(object o, std::string_view key) const {
    element e;
    if (o[key].get(e) != simdjson::SUCCESS)
      throw ValueError("the cached " + what_ + " value has no \"" + std::string(key) + "\"");
    return e;
  }
  std::string text(object o, std::string_view key) const {
    std::string_view s;
    if (at(o, key).get_string().get(s) != simdjson::SUCCESS) throw bad(key, "a string");
    return std::string(s);
  }
  // A failure as the OpenPiton adapter words it ("" for none).
  openpiton::Failure failure(object o, std::string_view key) const {
    if (auto known = openpiton::failure_from_string(text(o, key))) return *known;
    throw bad(key, "a failure reason this MACE knows");
  }

  std::optional<std::string> optional_text(object o, std::string_view key) const {
    element e;
    if (o[key].get(e) != simdjson::SUCCESS) return std::nullopt;
    std::string_view s;
    if (e.get_string().get(s) != simdjson::SUCCESS) throw bad(key, "a string");
    return std::string(s);
  }
  bool has(object o, std::string_view key) const {
    element e;
    return o[key].get(e) == simdjson::SUCCESS;
  }
  bool flag(object o, std::string_view key) const {
    bool b = false;
    if (at(o, key).get_bool().get(b) != simdjson::SUCCESS) throw bad(key, "true or false");
    return b;
  }
  int64_t integer(object o, std::string_view key) const {
    int64_t n = 0;
    if (at(o, key).get_int64().get(n) != simdjson::SUCCESS) throw bad(key, "an integer");
    return n;
  }
  double number(object o, std::string_view key) const {
    double d = 0;
    if (at(o, key).get_double().get(d) != simdjson::SUCCESS) throw bad(key, "a number");
    return d;
  }
  std::vector<std::string> texts(object o, std::string_view key) const {
    simdjson::dom::array array;
    if (at(o, key).get_array().get(array) != simdjson::SUCCESS) throw bad(key, "a list");
    std::vector<std::string> out;
    for (element e : array) {
      std::string_view s;
      if (e.get_string().get(s) != simdjson::SUCCESS) throw bad(key, "a list of strings");
      out.emplace_back(s);
    }
    return out;
  }
  object child(object o, std::string_view key) const {
    object c;
    if (at(o, key).get_object().get(c) != simdjson::SUCCESS) throw bad(key, "an object");
    return c;
  }
  simdjson::dom::array list(object o, std::string_view key) const {
    simdjson::dom::array a;
    if (at(o, key).get_array().get(a) != simdjson::SUCCESS) throw bad(key, "a list");
    return a;
  }
  ValueError bad(std::string_view key, std::string_view type) const {
    return ValueError("the cached " + what_ + " value's \"" + std::string(key) + "\" is not " +
                      std::string(type));
  }

 private:
  std::string what_;
  simdjson::dom::parser parser_;
  object root_;
};


// A command line and an environment, as a replay's own record of how the original ran
// (`mace repro` of a replay); values cached before they were kept have neither.
void write_command(JsonWriter& w, const std::vector<std::string>& argv,
                   const std::map<std::string, std::string>& environment) {
  w.key("argv").begin_array();
  for (const auto& a : argv) w.value(a);
  w.end_array();
  w.key("environment").begin_array();
  for (const auto& entry : environment_entries(environment)) w.value(entry);
  w.end_array();
}

std::map<std::string, std::string> environment_of(const std::vector<std::string>& entries) {
  std::map<std::string, std::string> environment;
  for (const auto& entry : entries) {
    const auto equals = entry.find('=');
    if (equals != std::string::npos) environment[entry.substr(0, equals)] = entry.substr(equals + 1);
  }
  return environment;
}

}  // namespace

std::string build_value(const openpiton::BuildResult& b) {
  JsonWriter w;
  w.begin_object();
  w.field("build_id", b.build_id);
  w.field("success", b.success);
  w.field("reused", b.reused);
  w.field("failure_reason", openpiton::to_string(b.failure_reason));
  w.field("message", b.message);
  w.field("exit_code", b.exit_code);
  w.field("wall_seconds", b.wall_seconds);
  w.key("error_lines").begin_array();
  for (const auto& line : b.error_lines) w.value(line);
  w.end_array();
  w.field("tail", os::last_bytes(b.tail, kCachedBuildTailBytes));
  w.field("log_path", b.log_path);
  w.field("model_dir", b.model_dir);
  w.key("verilator").begin_object();
  w.field("major", b.verilator.major);
  w.field("minor", b.verilator.minor);
  w.field("text", b.verilator.text);
  w.end_object();
  w.field("fingerprint", b.fingerprint.digest);
  w.field("reused_from", b.reused_from);
  w.field("origin", b.origin);
  write_command(w, b.argv, b.environment);
  if (b.usage) {
    w.key("usage").begin_object();
    w.field("cpu_seconds", b.usage->cpu_seconds);
    w.field("peak_rss_bytes", b.usage->peak_rss_bytes);
    w.end_object();
  }
  w.end_object();
  return w.take();
}

openpiton::BuildResult parse_build_value(std::string_view json) {
  Reader r(json, "build");
  object o = r.root();
  openpiton::BuildResult b;
  b.build_id = r.text(o, "build_id");
  b.success = r.flag(o, "success");
  b.reused = r.flag(o, "reused");
  b.failure_reason = r.failure(o, "failure_reason");
  b.message = r.text(o, "message");
  b.exit_code = static_cast<int>(r.integer(o, "exit_code"));
  b.wall_seconds = r.number(o, "wall_seconds");
  b.error_lines = r.texts(o, "error_lines");
  b.tail = r.text(o, "tail");
  b.log_path = r.text(o, "log_path");
  b.model_dir = r.text(o, "model_dir");
  object v = r.child(o, "verilator");
  b.verilator.major = static_cast<int>(r.integer(v, "major"));
  b.verilator.minor = static_cast<int>(r.integer(v, "minor"));
  b.verilator.text = r.text(v, "text");
  b.fingerprint.digest = r.text(o, "fingerprint");
  b.fingerprint.verilator_version = b.verilator.text;
  if (r.has(o, "argv")) b.argv = r.texts(o, "argv");
  if (r.has(o, "environment")) b.environment = environment_of(r.texts(o, "environment"));
  // Values cached before the model store existed have neither; their reuse was in place.
  if (b.reused) b.reused_from = r.optional_text(o, "reused_from").value_or("checkout");
  b.origin = r.optional_text(o, "origin").value_or("");
  // Absent where sims did not run here, and in values cached before it was measured.
  if (r.has(o, "usage")) {
    object u = r.child(o, "usage");
    b.usage = os::ResourceUsage{r.number(u, "cpu_seconds"), r.integer(u, "peak_rss_bytes")};
  }
  return b;
}

std::string run_value(const executor::WorkloadCall& call) {
  const openpiton::SimulationResult& s = call.result;
  JsonWriter w;
  w.begin_object();
  w.field("passed", s.passed);
  w.field("failure_reason", openpiton::to_string(s.failure_reason));
  w.field("failure_detail", s.failure_detail);
  w.field("status_log", call.status_log);
  w.key("runs").begin_array();
  for (const auto& run : s.runs) {
    w.begin_object();
    w.field("workload", run.workload);
    w.field("run_dir", run.run_dir.string());
    w.field("verdict", openpiton::to_string(run.verdict));
    w.field("returncode", run.returncode);
    w.field("timed_out", run.timed_out);
    w.field("cancelled", run.cancelled);
    w.field("launch_failed", run.launch_failed);
    w.field("sims_invoked", run.sims_invoked);
    w.field("error", run.error);
    w.field("cannot_run", openpiton::to_string(run.cannot_run));
    w.field("wall_seconds", run.wall_seconds);
    w.field("marker_line", run.marker_line);
    w.field("sim_log_tail", run.sim_log_tail);
    w.field("status_line", run.status_line);
    w.field("error_line", run.error_line);
    w.field("excerpt", run.excerpt);
    w.field("passed", run.passed);
    write_command(w, run.argv, run.environment);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return w.take();
}

executor::WorkloadCall parse_run_value(std::string_view json) {
  Reader r(json, "run");
  object o = r.root();
  executor::WorkloadCall call;
  openpiton::SimulationResult& s = call.result;
  s.passed = r.flag(o, "passed");
  s.failure_reason = r.failure(o, "failure_reason");
  s.failure_detail = r.text(o, "failure_detail");
  call.status_log = r.text(o, "status_log");
  for (element e : r.list(o, "runs")) {
    object ro;
    if (e.get_object().get(ro) != simdjson::SUCCESS) throw r.bad("runs", "a list of objects");
    openpiton::WorkloadRunResult run;
    run.workload = r.text(ro, "workload");
    run.run_dir = r.text(ro, "run_dir");
    auto verdict = openpiton::verdict_from_string(r.text(ro, "verdict"));
    if (!verdict) throw r.bad("verdict", "a verdict");
    run.verdict = *verdict;
    run.returncode = static_cast<int>(r.integer(ro, "returncode"));
    run.timed_out = r.flag(ro, "timed_out");
    run.cancelled = r.flag(ro, "cancelled");
    run.launch_failed = r.flag(ro, "launch_failed");
    run.sims_invoked = r.flag(ro, "sims_invoked");
    run.error = r.text(ro, "error");
    // Values cached before workloads that cannot run were told apart have none.
    run.cannot_run = r.has(ro, "cannot_run") ? r.failure(ro, "cannot_run") : openpiton::Failure::none;
    run.wall_seconds = r.number(ro, "wall_seconds");
    run.marker_line = r.text(ro, "marker_line");
    // Read again from the line, as the simulator reads them: values cached before the
    // figures were kept have them too.
    const openpiton::SimulationFigures figures = openpiton::figures_from_verdict_line(run.marker_line);
    run.verdict_time = figures.verdict_time;
    run.cycles = figures.cycles;
    run.sim_log_tail = r.text(ro, "sim_log_tail");
    run.status_line = r.text(ro, "status_line");
    if (r.has(ro, "argv")) run.argv = r.texts(ro, "argv");
    if (r.has(ro, "environment")) run.environment = environment_of(r.texts(ro, "environment"));
    // Values cached before failures were explained have neither.
    run.error_line = r.optional_text(ro, "error_line").value_or("");
    run.excerpt = r.optional_text(ro, "excerpt").value_or("");
    run.passed = r.flag(ro, "passed");
    s.runs.push_back(std::move(run));
  }
  return call;
}

std::string prompt_value(const loop::PlannerReply& reply) {
  JsonWriter w;
  w.begin_object();
  w.field("ok", reply.ok);
  w.field("text", reply.text);
  w.field("cost_usd", reply.cost_usd);
  w.field("error", reply.error);
  w.end_object();
  return w.take();
}

loop::PlannerReply parse_prompt_value(std::string_view json) {
  Reader r(json, "prompt");
  object o = r.root();
  return {r.flag(o, "ok"), r.text(o, "text"), r.number(o, "cost_usd"), r.text(o, "error")};
}

}  // namespace mace::replay
