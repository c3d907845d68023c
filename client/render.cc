#include "render.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <sstream>

#include <capnp/schema.h>
#include <simdjson.h>

#include "core/design_configuration.h"
#include "core/run_outcome.h"
#include "os/duration_text.h"
#include "capnp_text.h"
#include "core/run_environment_record.h"
#include "run_designs.h"
#include "tile_figures_text.h"
#include "waveform_text.h"

namespace mace::client {
namespace {

// Enumerant names come from the schema itself, so a new state needs no change here.
template <typename Enum>
std::string camel_to_snake(Enum value) {
  auto enumerants = capnp::Schema::from<Enum>().getEnumerants();
  auto index = static_cast<uint16_t>(value);
  if (index >= enumerants.size()) return std::to_string(index);
  std::string name = enumerants[index].getProto().getName();
  std::string out;
  for (char c : name) {
    if (c >= 'A' && c <= 'Z') {
      out += '_';
      out += static_cast<char>(c - 'A' + 'a');
    } else {
      out += c;
    }
  }
  return out;
}

// For people: what the planner of a run did and did not try (core/run_outcome.h).
std::string planner_description(const std::string& word) {
  const auto kind = planner_kind_from_string(word);
  return kind ? std::string(describe(*kind)) : word;
}

// `key`: a list of each item as write_json writes it.
template <typename List>
void write_list(JsonWriter& w, std::string_view key, List items) {
  w.key(key).begin_array();
  for (auto item : items) write_json(w, item);
  w.end_array();
}

// `key`: a list of texts.
void write_texts(JsonWriter& w, std::string_view key, capnp::List<capnp::Text>::Reader texts) {
  w.key(key).begin_array();
  for (auto t : texts) w.value(text(t));
  w.end_array();
}

// A JSON text the daemon kept (a spec, an environment) as it is; null for none.
void write_kept_json(JsonWriter& w, std::string_view key, capnp::Text::Reader json) {
  w.key(key).raw(json.size() ? json.cStr() : "null");
}

}  // namespace

std::string state_name(api::RunState s) { return camel_to_snake(s); }
std::string event_kind_name(api::EventKind k) { return camel_to_snake(k); }
std::string check_topic_name(api::CheckTopic t) { return camel_to_snake(t); }
std::string check_level_name(api::CheckLevel l) { return camel_to_snake(l); }
std::string stage_name(api::TaskStage s) { return camel_to_snake(s); }
std::string verdict_name(api::Verdict v) { return camel_to_snake(v); }

void write_json(JsonWriter& w, api::RunSummary::Reader run) {
  w.begin_object();
  w.field("run_id", text(run.getRunId()));
  w.field("state", state_name(run.getState()));
  w.field("reason", text(run.getReason()));
  w.field("core", text(run.getCore()));
  w.key("mesh").begin_array().value(run.getMeshX()).value(run.getMeshY()).end_array();
  w.field("objective", text(run.getObjective()));
  write_texts(w, "workloads", run.getWorkloads());
  w.field("backend", text(run.getBackend()));
  w.field("model", text(run.getModel()));
  w.field("submitted_by_uid", run.getSubmittedByUid());
  w.field("submitted_at_ms", run.getSubmittedAtMs());
  w.key("started_at_ms");
  run.getStartedAtMs() ? w.value(run.getStartedAtMs()) : w.null();
  w.key("finished_at_ms");
  run.getFinishedAtMs() ? w.value(run.getFinishedAtMs()) : w.null();
  w.field("iterations", run.getIterations());
  w.field("cost_usd", run.getCostUsd());
  w.key("replay_of");
  run.getReplayOf().size() ? w.value(text(run.getReplayOf())) : w.null();
  w.key("replay_until");
  run.getReplayUntil() ? w.value(run.getReplayUntil()) : w.null();
  w.key("planner");
  run.getPlanner().size() ? w.value(text(run.getPlanner())) : w.null();
  w.key("outcome");
  run.getOutcome().size() ? w.value(text(run.getOutcome())) : w.null();
  w.end_object();
}

std::string outcome_word(api::RunSummary::Reader run) {
  // A fault check's conclusion is its outcome; a direct run's state says nothing of its
  // objective, so it says who planned it.
  if (run.getOutcome().size()) return text(run.getOutcome());
  if (run.getPlanner() == "direct") return state_name(run.getState()) + " (direct)";
  return state_name(run.getState());
}

void write_json(JsonWriter& w, api::Event::Reader e) {
  w.begin_object();
  w.field("seq", e.getSeq());
  w.field("at_ms", e.getAtMs());
  w.field("kind", event_kind_name(e.getKind()));
  if (e.getKind() == api::EventKind::STATE_CHANGED || e.getKind() == api::EventKind::SUBMITTED)
    w.field("state", state_name(e.getState()));
  if (e.getIteration()) w.field("iteration", e.getIteration());
  if (e.getTaskId().size()) w.field("task_id", text(e.getTaskId()));
  if (e.getKind() == api::EventKind::TASK_STAGE) w.field("stage", stage_name(e.getStage()));
  if (e.getWorkload().size()) w.field("workload", text(e.getWorkload()));
  if (e.getKind() == api::EventKind::VERDICT) {
    w.field("verdict", verdict_name(e.getVerdict()));
    w.key("verdict_time");
    e.getVerdictTime() >= 0 ? w.value(e.getVerdictTime()) : w.null();
    w.key("cycles");
    e.getCycles() >= 0 ? w.value(e.getCycles()) : w.null();
  }
  if (e.getKind() == api::EventKind::BUILD_PROGRESS) {
    w.field("objects_done", e.getObjectsDone());
    w.key("objects_total");
    e.getObjectsTotal() ? w.value(e.getObjectsTotal()) : w.null();
    w.field("elapsed_ms", e.getElapsedMs());
    w.key("estimate_left_ms");
    e.getEstimateLeftMs() >= 0 ? w.value(e.getEstimateLeftMs()) : w.null();
  }
  w.field("message", text(e.getMessage()));
  w.end_object();
}

void write_json(JsonWriter& w, api::Metrics::Reader m) {
  w.begin_object();
  w.field("successful_tasks", m.getSuccessfulTasks());
  w.field("iterations", m.getIterations());
  w.field("failures_recovered", m.getFailuresRecovered());
  w.field("execution_time_s", m.getExecutionTimeS());
  w.field("compute_cost_usd", m.getComputeCostUsd());
  w.end_object();
}

void write_json(JsonWriter& w, api::LogEntry::Reader entry) {
  w.begin_object();
  w.field("seq", entry.getSeq());
  w.field("at_ms", entry.getAtMs());
  w.field("source", text(entry.getSource()));
  w.field("text", text(entry.getText()));
  w.end_object();
}

void write_run_detail_fields(JsonWriter& w, api::RunDetail::Reader run) {
  w.key("run");
  write_json(w, run.getSummary());
  write_kept_json(w, "spec", run.getSpecJson());
  write_list(w, "tasks", run.getTasks());
  write_list(w, "default_caches", run.getDefaultCaches());
  write_list(w, "diagnoses", run.getDiagnoses());
  write_list(w, "narrowing_builds", run.getNarrowingBuilds());
  write_list(w, "failure_groups", run.getFailureGroups());
  write_list(w, "coverage", run.getCoverage());
  write_list(w, "waveforms", run.getWaveforms());
  write_kept_json(w, "environment", run.getEnvironmentJson());
  // The run's own designs side by side, baseline first, when it built several.
  w.key("designs");
  if (auto designs = run_designs_comparison(run))
    w.raw(comparison_json(*designs));
  else
    w.null();
  w.key("post_mortem");
  if (run.getPostMortem().getAssessment().size())
    write_json(w, run.getPostMortem());
  else
    w.null();
}

void write_json(JsonWriter& w, api::TaskState::Reader t) {
  w.begin_object();
  w.field("iteration", t.getIteration());
  w.field("task_id", text(t.getTaskId()));
  w.field("kind", text(t.getKind()));
  w.field("instruction", text(t.getInstruction()));
  write_texts(w, "deps", t.getDeps());
  w.field("stage", stage_name(t.getStage()));
  w.field("build_id", text(t.getBuildId()));
  w.field("build_outcome", text(t.getBuildOutcome()));
  w.field("build_source", text(t.getBuildSource()));
  w.field("build_origin", text(t.getBuildOrigin()));
  w.field("network", text(t.getNetwork()));
  w.field("failure_reason", text(t.getFailureReason()));
  w.field("checkout", text(t.getCheckout()));
  w.field("rtl_edits", text(t.getRtlEdits()));
  w.key("results").begin_array();
  for (auto r : t.getResults()) {
    w.begin_object().field("workload", text(r.getWorkload()));
    w.field("verdict", verdict_name(r.getVerdict())).field("wall_s", r.getWallS());
    w.key("verdict_time");
    r.getVerdictTime() >= 0 ? w.value(r.getVerdictTime()) : w.null();
    w.key("cycles");
    r.getCycles() >= 0 ? w.value(r.getCycles()) : w.null();
    w.field("error_line", text(r.getErrorLine())).field("excerpt", text(r.getExcerpt()));
    w.key("tiles");
    write_tile_figures(w, tile_figures_of(r.getTiles()));
    w.end_object();
  }
  w.end_array();
  w.field("waiting_for", text(t.getWaitingFor()));
  w.key("build_wall_s");
  t.getBuildWallS() >= 0 ? w.value(t.getBuildWallS()) : w.null();
  w.key("build_cpu_s");
  t.getBuildCpuS() >= 0 ? w.value(t.getBuildCpuS()) : w.null();
  w.key("build_peak_rss_bytes");
  t.getBuildPeakRssBytes() >= 0 ? w.value(t.getBuildPeakRssBytes()) : w.null();
  w.field("core", text(t.getCore()));
  w.key("mesh").begin_array().value(t.getMeshX()).value(t.getMeshY()).end_array();
  write_list(w, "caches", t.getCaches());
  write_texts(w, "rtl_defines", t.getRtlDefines());
  write_texts(w, "edited_files", t.getEditedFiles());
  // The same in words (core/design_configuration.h), for pages and people; tasks that
  // build nothing (unit tests) have no configuration.
  if (has_configuration(t)) {
    const DesignConfiguration config = design_configuration(t);
    w.key("configuration").begin_array();
    for (const auto& item : configuration_items(config)) {
      w.begin_object().field("name", item.name).field("value", item.value);
      w.field("default", item.is_default).end_object();
    }
    w.end_array();
    w.field("default_configuration", is_default_configuration(config));
  } else {
    w.key("configuration").null();
    w.field("default_configuration", false);
  }
  w.end_object();
}

bool has_configuration(api::TaskState::Reader t) {
  return t.getKind() != "unit_test" && t.getCore().size() > 0 && t.getCaches().size() > 0;
}

DesignConfiguration design_configuration(api::TaskState::Reader t) {
  DesignConfiguration c;
  c.core = text(t.getCore());
  c.mesh_x = t.getMeshX();
  c.mesh_y = t.getMeshY();
  for (auto cache : t.getCaches())
    c.caches.push_back({text(cache.getName()), static_cast<int64_t>(cache.getSizeBytes()),
                        static_cast<int64_t>(cache.getAssociativity()), cache.getIsDefault()});
  c.network = text(t.getNetwork());
  for (auto d : t.getRtlDefines()) c.rtl_defines.push_back(text(d));
  for (auto f : t.getEditedFiles()) c.edited_files.push_back(text(f));
  return c;
}

std::string cycles_text(int64_t cycles) {
  std::string digits = std::to_string(cycles);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string build_figures_text(api::TaskState::Reader t) {
  if (t.getBuildWallS() < 0) return "";
  std::string source = text(t.getBuildSource());
  std::string out = source == "built" ? "built" : source == "checkout" ? "reused in place"
                    : source == "store" ? "taken from the model store" : text(t.getBuildOutcome());
  out += " in " + format_duration(t.getBuildWallS());
  if (t.getBuildCpuS() >= 0) out += ", CPU " + format_duration(t.getBuildCpuS());
  if (t.getBuildPeakRssBytes() >= 0)
    out += ", peak " + std::to_string((t.getBuildPeakRssBytes() + (1 << 19)) >> 20) + " MiB";
  return out;
}

void write_json(JsonWriter& w, api::CacheSetting::Reader c) {
  w.begin_object();
  w.field("name", text(c.getName()));
  w.field("size_bytes", c.getSizeBytes());
  w.field("associativity", c.getAssociativity());
  w.field("default", c.getIsDefault());
  w.end_object();
}

void write_json(JsonWriter& w, api::FailureGroup::Reader g) {
  w.begin_object();
  w.field("signature", text(g.getSignature()));
  w.field("verdict", verdict_name(g.getVerdict()));
  w.field("error_line", text(g.getErrorLine()));
  w.key("workloads").begin_array();
  for (auto m : g.getMembers()) {
    w.begin_object().field("iteration", m.getIteration()).field("task_id", text(m.getTaskId()));
    w.field("workload", text(m.getWorkload())).end_object();
  }
  w.end_array();
  w.end_object();
}

std::string human_environment(std::string_view json) {
  const RunEnvironment env = read_run_environment(json);
  if (env.mace_version.empty() && env.host.empty() && env.checkouts.empty()) return "";
  std::ostringstream out;
  out << "environment MACE " << env.mace_version;
  if (!env.mace_commit.empty()) out << " (" << env.mace_commit.substr(0, 12) << ")";
  if (!env.host.empty()) out << " on " << env.host;
  out << "\n";
  for (const auto& c : env.checkouts) {
    out << "  " << c.path << ": OpenPiton " << c.commit.substr(0, c.commit.rfind("unknown", 0) == 0 ? c.commit.size() : 12)
        << ", fingerprint "
        << c.source_fingerprint.substr(0, c.source_fingerprint.rfind("unknown", 0) == 0 ? c.source_fingerprint.size() : 16)
        << ", " << c.verilator << "\n";
  }
  return out.str();
}


void write_json(JsonWriter& w, api::Diagnosis::Reader d) {
  w.begin_object();
  w.field("iteration", d.getIteration());
  w.field("task_id", text(d.getTaskId()));
  w.field("label", text(d.getLabel()));
  w.field("fix", text(d.getFix()));
  w.field("source", text(d.getSource()));
  w.field("recovered", d.getRecovered());
  w.end_object();
}

void write_json(JsonWriter& w, api::NarrowingBuild::Reader b) {
  w.begin_object();
  w.field("iteration", b.getIteration());
  w.field("task_id", text(b.getTaskId()));
  w.field("undone", text(b.getUndone()));
  w.field("build_id", text(b.getBuildId()));
  w.field("passed", b.getPassed());
  w.field("failure_reason", text(b.getFailureReason()));
  w.end_object();
}

void write_json(JsonWriter& w, api::PostMortem::Reader pm) {
  w.begin_object();
  w.field("assessment", text(pm.getAssessment()));
  w.field("explanation", text(pm.getExplanation()));
  w.field("next_steps", text(pm.getNextSteps()));
  w.end_object();
}

void write_json(JsonWriter& w, api::CheckoutStatus::Reader c) {
  w.begin_object();
  w.field("path", text(c.getPath()));
  w.field("node", text(c.getNode()));
  w.field("held_by", text(c.getHeldBy()));
  w.field("node_down", text(c.getNodeDown()));
  w.field("refused", text(c.getRefused()));
  w.key("job");
  if (c.getJobId().size()) {
    w.begin_object();
    w.field("id", text(c.getJobId()));
    w.field("name", text(c.getJobName()));
    w.field("purpose", text(c.getJobPurpose()));
    w.end_object();
  } else {
    w.null();
  }
  w.end_object();
}

void write_json(JsonWriter& w, api::LlmCall::Reader c) {
  w.begin_object();
  w.field("iteration", c.getIteration());
  w.field("phase", text(c.getPhase()));
  w.field("task_id", text(c.getTaskId()));
  w.field("backend", text(c.getBackend()));
  w.field("model", text(c.getModel()));
  w.field("input_tokens", static_cast<int64_t>(c.getInputTokens()));
  w.field("output_tokens", static_cast<int64_t>(c.getOutputTokens()));
  w.field("thinking_tokens", static_cast<int64_t>(c.getThinkingTokens()));
  w.field("cache_read_tokens", static_cast<int64_t>(c.getCacheReadTokens()));
  w.field("cache_write_tokens", static_cast<int64_t>(c.getCacheWriteTokens()));
  // An unknown cost is not a cost of 0 (what the budget counted for it is in the log).
  if (text(c.getCostSource()) == "unknown") w.key("cost_usd").null();
  else w.field("cost_usd", c.getCostUsd());
  w.field("cost_source", text(c.getCostSource()));
  w.field("wall_s", c.getWallS());
  w.field("success", c.getSuccess());
  w.field("error_class", text(c.getErrorClass()));
  w.field("at_ms", static_cast<int64_t>(c.getAtMs()));
  w.field("prompt", text(c.getPrompt()));
  w.field("reply", text(c.getReply()));
  w.end_object();
}

std::string human_call(api::LlmCall::Reader c, bool full) {
  std::ostringstream out;
  char numbers[200];
  const std::string source = text(c.getCostSource());
  char cost[64];
  if (source == "unknown")
    std::snprintf(cost, sizeof cost, "cost unknown");
  else if (source == "estimated")
    std::snprintf(cost, sizeof cost, "~$%.4f (estimate)", c.getCostUsd());
  else
    std::snprintf(cost, sizeof cost, "$%.4f", c.getCostUsd());
  std::snprintf(numbers, sizeof numbers,
                "in %lld (cache read %lld, write %lld) out %lld think %lld  %s  %.1f s",
                static_cast<long long>(c.getInputTokens()),
                static_cast<long long>(c.getCacheReadTokens()),
                static_cast<long long>(c.getCacheWriteTokens()),
                static_cast<long long>(c.getOutputTokens()),
                static_cast<long long>(c.getThinkingTokens()), cost, c.getWallS());
  out << format_time(c.getAtMs()) << "  iter" << c.getIteration() << " " << text(c.getPhase());
  if (c.getTaskId().size()) out << " " << text(c.getTaskId());
  out << "  " << text(c.getBackend()) << "/" << text(c.getModel()) << "  " << numbers << "  "
      << (c.getSuccess() ? std::string("ok") : text(c.getErrorClass())) << "\n";
  if (full) {
    auto indented = [&](const std::string& title, const std::string& body) {
      out << "  " << title << ":\n";
      std::istringstream lines(body);
      for (std::string line; std::getline(lines, line);) out << "    " << line << "\n";
    };
    indented("prompt", text(c.getPrompt()));
    indented("reply", text(c.getReply()));
  }
  return out.str();
}

std::string format_time(int64_t ms) {
  if (ms == 0) return "-";
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  localtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

std::string format_duration(double seconds) { return os::duration_text(seconds); }

std::string human_summary_header() {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%-26s %-24s %-7s %-7s %5s %8s  %-19s  %s", "RUN", "STATE",
                "CORE", "MESH", "ITER", "COST", "SUBMITTED", "OBJECTIVE");
  return buf;
}

std::string human_summary_row(api::RunSummary::Reader run) {
  std::string mesh = std::to_string(run.getMeshX()) + "x" + std::to_string(run.getMeshY());
  std::string objective = text(run.getObjective());
  for (char& c : objective)
    if (c == '\n' || c == '\t') c = ' ';
  if (objective.size() > 60) objective = objective.substr(0, 57) + "...";
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-26s %-24s %-7s %-7s %5u %8.4f  %-19s  %s",
                text(run.getRunId()).c_str(), outcome_word(run).c_str(),
                text(run.getCore()).c_str(), mesh.c_str(), run.getIterations(), run.getCostUsd(),
                format_time(run.getSubmittedAtMs()).c_str(), objective.c_str());
  return buf;
}

std::string human_checkouts(const std::string& executor,
                            capnp::List<api::CheckoutStatus>::Reader checkouts) {
  std::ostringstream out;
  out << checkouts.size() << " checkout(s), " << executor << " executor\n";
  for (auto c : checkouts) {
    out << "  " << text(c.getPath()) << "  node " << text(c.getNode()) << "  ";
    out << (c.getHeldBy().size() ? "held by " + text(c.getHeldBy()) : std::string("free"));
    if (c.getJobId().size())
      out << "  Slurm job " << text(c.getJobId()) << " (" << text(c.getJobPurpose()) << ", "
          << text(c.getJobName()) << ")";
    if (c.getNodeDown().size()) out << "  NODE UNAVAILABLE: " << text(c.getNodeDown());
    if (c.getRefused().size()) out << "  REFUSED: " << text(c.getRefused()) << " (`mace doctor` says what to do)";
    out << "\n";
  }
  return out.str();
}

namespace {

// Each task: its stage, where it ran, its model, its configuration and each verdict.
void human_tasks(api::RunDetail::Reader detail, std::ostringstream& out) {
  if (detail.getTasks().size()) {
    out << "tasks\n";
    for (auto t : detail.getTasks()) {
      out << "  iter" << t.getIteration() << " " << text(t.getTaskId()) << " [" << text(t.getKind())
          << "] " << stage_name(t.getStage());
      if (t.getFailureReason().size()) out << " (" << text(t.getFailureReason()) << ")";
      if (t.getWaitingFor().size()) out << ": " << text(t.getWaitingFor());
      if (t.getCheckout().size() && !t.getWaitingFor().size()) out << " on " << text(t.getCheckout());
      if (t.getBuildSource() == "built") out << " built";
      if (t.getBuildSource() == "checkout") out << " reused in place";
      if (t.getBuildSource() == "store") out << " model from store";
      if (t.getNetwork().size()) out << " network " << text(t.getNetwork());
      for (auto r : t.getResults())
        out << " " << text(r.getWorkload()) << "=" << verdict_name(r.getVerdict());
      out << "\n";
      if (has_configuration(t)) out << "    config: " << configuration_text(design_configuration(t)) << "\n";
      if (const std::string build = build_figures_text(t); !build.empty())
        out << "    build:  " << text(t.getBuildId()) << " " << build << "\n";
      if (t.getBuildOrigin().size()) out << "    model: " << text(t.getBuildOrigin()) << "\n";
      for (auto r : t.getResults()) {
        out << "    " << text(r.getWorkload()) << ": " << verdict_name(r.getVerdict());
        if (r.getCycles() >= 0) out << " at " << cycles_text(r.getCycles()) << " cycles";
        out << ", " << format_duration(r.getWallS()) << "\n";
        for (const auto& tile : tile_figures_of(r.getTiles())) out << "      " << tile_line(tile) << "\n";
      }
    }
  }
}

// The run's failures grouped by signature, each group's workloads under their tasks.
void human_failure_groups(api::RunDetail::Reader detail, std::ostringstream& out) {
  if (auto groups = detail.getFailureGroups(); groups.size()) {
    size_t failed = 0;
    for (auto g : groups) failed += g.getMembers().size();
    out << "failures   " << failed << " workload" << (failed == 1 ? "" : "s") << " did not pass, "
        << groups.size() << " signature" << (groups.size() == 1 ? "" : "s") << "\n";
    for (auto g : groups) {
      out << "  " << g.getMembers().size() << " x " << text(g.getSignature()) << "\n";
      // A task's workloads are listed once; the task is named when there is more than one.
      std::string last_task;
      std::string line = "   ";
      for (auto m : g.getMembers()) {
        const std::string task = "iter" + std::to_string(m.getIteration()) + " " + text(m.getTaskId());
        if (task != last_task) line += " " + task + ":";
        last_task = task;
        line += " " + text(m.getWorkload());
      }
      out << line << "\n";
      // How to rerun the group's first by hand (core/repro.h).
      if (g.getMembers().size() == 0) continue;
      const auto first = g.getMembers()[0];
      out << "    reproduce: mace repro " << text(detail.getSummary().getRunId()) << " --iteration "
          << first.getIteration() << " --task " << text(first.getTaskId()) << " --workload "
          << text(first.getWorkload()) << " -o repro.sh\n";
    }
  }
}

}  // namespace

std::string human_run_detail(api::RunDetail::Reader detail) {
  auto run = detail.getSummary();
  std::ostringstream out;
  out << "run        " << text(run.getRunId()) << "\n";
  out << "state      " << state_name(run.getState());
  if (run.getReason().size()) out << " (" << text(run.getReason()) << ")";
  out << "\n";
  if (run.getOutcome().size()) out << "outcome    " << text(run.getOutcome()) << "\n";
  if (run.getPlanner().size()) out << "planner    " << planner_description(text(run.getPlanner())) << "\n";
  out << "core       " << text(run.getCore()) << " " << run.getMeshX() << "x" << run.getMeshY()
      << "\n";
  out << "objective  " << text(run.getObjective()) << "\n";
  out << "workloads ";
  for (auto w : run.getWorkloads()) out << " " << text(w);
  out << "\n";
  out << "llm        " << text(run.getBackend());
  if (run.getModel().size()) out << " / " << text(run.getModel());
  out << "\n";
  if (run.getReplayOf().size()) {
    out << "replay of  " << text(run.getReplayOf());
    if (run.getReplayUntil()) out << " until iteration " << run.getReplayUntil();
    out << "\n";
  }
  out << "submitted  " << format_time(run.getSubmittedAtMs()) << " by uid "
      << run.getSubmittedByUid() << "\n";
  if (run.getStartedAtMs()) out << "started    " << format_time(run.getStartedAtMs()) << "\n";
  if (run.getFinishedAtMs()) out << "finished   " << format_time(run.getFinishedAtMs()) << "\n";
  char cost[32];
  std::snprintf(cost, sizeof cost, "$%.4f", run.getCostUsd());
  out << "iterations " << run.getIterations() << ", cost " << cost << "\n";
  out << human_environment(text(detail.getEnvironmentJson()));
  human_tasks(detail, out);
  human_failure_groups(detail, out);
  if (detail.getWaveforms().size()) {
    out << "waveforms  (GTKWave or Surfer opens them)\n";
    for (auto v : detail.getWaveforms()) out << human_waveform(text(run.getRunId()), v);
  }
  if (detail.getCoverage().size()) {
    out << "coverage   (mace logs " << text(run.getRunId()) << " --coverage)\n";
    for (auto c : detail.getCoverage()) out << human_coverage(c);
  }
  if (detail.getNarrowingBuilds().size()) {
    out << "narrowing\n";
    for (auto b : detail.getNarrowingBuilds())
      out << "  iter" << b.getIteration() << " " << text(b.getTaskId()) << ": " << text(b.getUndone())
          << " -> " << (b.getPassed() ? "passed" : "failed (" + text(b.getFailureReason()) + ")")
          << "\n";
  }
  if (detail.getDiagnoses().size()) {
    out << "diagnoses\n";
    for (auto d : detail.getDiagnoses()) {
      out << "  iter" << d.getIteration() << " " << text(d.getTaskId()) << ": " << text(d.getLabel())
          << " [" << text(d.getSource()) << (d.getRecovered() ? ", recovered" : "") << "]\n";
      if (d.getFix().size()) out << "    fix: " << text(d.getFix()) << "\n";
    }
  }
  if (auto pm = detail.getPostMortem(); pm.getAssessment().size()) {
    out << "post-mortem " << text(pm.getAssessment()) << "\n";
    if (pm.getExplanation().size()) out << "  " << text(pm.getExplanation()) << "\n";
    if (pm.getNextSteps().size()) out << "  next: " << text(pm.getNextSteps()) << "\n";
  }
  return out.str();
}

std::string human_event(api::Event::Reader e) {
  std::string when = format_time(e.getAtMs());
  if (when.size() > 11) when = when.substr(11);  // the time of day is enough in a stream
  std::string line = when + "  ";
  switch (e.getKind()) {
    case api::EventKind::TASK_STAGE: {
      // The stage, then the message only when it says more ("failed: build_failed").
      const std::string stage = stage_name(e.getStage());
      line += "iter" + std::to_string(e.getIteration()) + " " + text(e.getTaskId()) + ": ";
      const std::string message = text(e.getMessage());
      if (message.empty()) return line + stage;
      return line + (message.rfind(stage, 0) == 0 ? message : stage + "  " + message);
    }
    case api::EventKind::WORKLOAD_STARTED:
      return line + "iter" + std::to_string(e.getIteration()) + " " + text(e.getTaskId()) + ": started " +
             text(e.getWorkload());
    case api::EventKind::VERDICT:
      line += "iter" + std::to_string(e.getIteration()) + " " + text(e.getTaskId()) + ": " +
              text(e.getWorkload()) + " " + verdict_name(e.getVerdict());
      // The message says the wall time, and the cycles where the transcript gave them.
      break;
    case api::EventKind::BUILD_PROGRESS: {
      line += "iter" + std::to_string(e.getIteration()) + " " + text(e.getTaskId()) + ": build " +
              text(e.getMessage()) + ", " +
              format_duration(static_cast<double>(e.getElapsedMs()) / 1000) + " elapsed";
      // Under a second left is the build's end, not an estimate worth a word.
      if (e.getEstimateLeftMs() >= 1000)
        line += ", about " + format_duration(static_cast<double>(e.getEstimateLeftMs()) / 1000) +
                " left";
      return line;
    }
    default:
      line += event_kind_name(e.getKind());
      break;
  }
  if (e.getMessage().size()) line += "  " + text(e.getMessage());
  return line;
}

std::string human_metrics(api::Metrics::Reader m) {
  std::ostringstream out;
  out << "successful tasks    " << m.getSuccessfulTasks() << "\n";
  out << "iterations          " << m.getIterations() << "\n";
  out << "failures recovered  " << m.getFailuresRecovered() << "\n";
  out << "execution time      " << format_duration(m.getExecutionTimeS()) << "\n";
  char cost[32];
  std::snprintf(cost, sizeof cost, "$%.4f", m.getComputeCostUsd());
  out << "compute cost        " << cost << "\n";
  return out.str();
}

}  // namespace mace::client
