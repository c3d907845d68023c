#include "rpc/conversions.h"

#include <algorithm>
#include <string>
#include <stdexcept>
#include <string_view>

#include <simdjson.h>

#include "core/json_writer.h"
#include "os/text.h"
#include "store/task_configuration.h"
#include "capnp_text.h"

namespace mace::rpc {

kj::Exception failure(const std::string& message) {
  return kj::Exception(kj::Exception::Type::FAILED, __FILE__, __LINE__, kj::heapString(message));
}

namespace {

// The wire's enums and ours, enumerator by enumerator. Switches without a default, so a
// word added on either side without its counterpart does not compile (-Werror=switch).

api::EventKind to_wire(EventKind kind) {
  switch (kind) {
    case EventKind::submitted: return api::EventKind::SUBMITTED;
    case EventKind::state_changed: return api::EventKind::STATE_CHANGED;
    case EventKind::iteration_started: return api::EventKind::ITERATION_STARTED;
    case EventKind::level_started: return api::EventKind::LEVEL_STARTED;
    case EventKind::task_stage: return api::EventKind::TASK_STAGE;
    case EventKind::verdict: return api::EventKind::VERDICT;
    case EventKind::iteration_finished: return api::EventKind::ITERATION_FINISHED;
    case EventKind::message: return api::EventKind::MESSAGE;
    case EventKind::build_progress: return api::EventKind::BUILD_PROGRESS;
    case EventKind::workload_started: return api::EventKind::WORKLOAD_STARTED;
  }
  throw std::logic_error("an event kind without a wire name");
}

api::TaskStage to_wire(TaskStage stage) {
  switch (stage) {
    case TaskStage::pending: return api::TaskStage::PENDING;
    case TaskStage::waiting: return api::TaskStage::WAITING;
    case TaskStage::prompting: return api::TaskStage::PROMPTING;
    case TaskStage::building: return api::TaskStage::BUILDING;
    case TaskStage::running: return api::TaskStage::RUNNING;
    case TaskStage::passed: return api::TaskStage::PASSED;
    case TaskStage::failed: return api::TaskStage::FAILED;
    case TaskStage::skipped: return api::TaskStage::SKIPPED;
  }
  throw std::logic_error("a task stage without a wire name");
}

api::Verdict to_wire(Verdict verdict) {
  switch (verdict) {
    case Verdict::none: return api::Verdict::NONE;
    case Verdict::pass: return api::Verdict::PASS;
    case Verdict::fail: return api::Verdict::FAIL;
    case Verdict::timeout: return api::Verdict::TIMEOUT;
    case Verdict::maxcycles: return api::Verdict::MAXCYCLES;
  }
  throw std::logic_error("a verdict without a wire name");
}

}  // namespace

api::RunState to_wire(RunState s) {
  switch (s) {
    case RunState::queued: return api::RunState::QUEUED;
    case RunState::running: return api::RunState::RUNNING;
    case RunState::passed: return api::RunState::PASSED;
    case RunState::failed: return api::RunState::FAILED;
    case RunState::planning_failed: return api::RunState::PLANNING_FAILED;
    case RunState::budget_exceeded: return api::RunState::BUDGET_EXCEEDED;
    case RunState::checksum_mismatch: return api::RunState::CHECKSUM_MISMATCH;
    case RunState::unsupported_core: return api::RunState::UNSUPPORTED_CORE;
    case RunState::error: return api::RunState::ERROR;
    case RunState::cancelled: return api::RunState::CANCELLED;
  }
  throw std::logic_error("a run state without a wire name");
}

RunState from_wire(api::RunState s) {
  switch (s) {
    case api::RunState::QUEUED: return RunState::queued;
    case api::RunState::RUNNING: return RunState::running;
    case api::RunState::PASSED: return RunState::passed;
    case api::RunState::FAILED: return RunState::failed;
    case api::RunState::PLANNING_FAILED: return RunState::planning_failed;
    case api::RunState::BUDGET_EXCEEDED: return RunState::budget_exceeded;
    case api::RunState::CHECKSUM_MISMATCH: return RunState::checksum_mismatch;
    case api::RunState::UNSUPPORTED_CORE: return RunState::unsupported_core;
    case api::RunState::ERROR: return RunState::error;
    case api::RunState::CANCELLED: return RunState::cancelled;
  }
  // A client built against a newer schema, or a hand-made message.
  throw UnknownWireValue("unknown run state " + std::to_string(static_cast<uint16_t>(s)));
}

void fill(api::RunSummary::Builder out, const store::RunRecord& run) {
  out.setRunId(run.id);
  out.setState(to_wire(run.state));
  out.setReason(run.reason);
  out.setCore(run.core);
  out.setMeshX(run.mesh_x);
  out.setMeshY(run.mesh_y);
  out.setObjective(run.objective);
  auto workloads = out.initWorkloads(run.workloads.size());
  for (size_t i = 0; i < run.workloads.size(); ++i) workloads.set(i, run.workloads[i]);
  out.setSubmittedByUid(run.submitted_by_uid);
  out.setSubmittedAtMs(run.submitted_at_ms);
  out.setStartedAtMs(run.started_at_ms);
  out.setFinishedAtMs(run.finished_at_ms);
  out.setIterations(static_cast<uint32_t>(run.iterations));
  out.setCostUsd(run.cost_usd);
  out.setBackend(run.backend);
  out.setModel(run.model);
  out.setReplayOf(run.replay_of);
  out.setReplayUntil(static_cast<uint32_t>(run.replay_until));
  if (run.planner) out.setPlanner(std::string(to_string(*run.planner)));
  out.setOutcome(std::string(to_string(run.outcome)));
}

void fill(api::Event::Builder out, const store::EventRecord& event) {
  out.setSeq(static_cast<uint64_t>(event.seq));
  out.setAtMs(event.at_ms);
  out.setKind(to_wire(event.kind));
  if (event.state) out.setState(to_wire(*event.state));
  out.setIteration(static_cast<uint32_t>(event.iteration));
  out.setTaskId(event.task_id);
  // The wire has no "no stage" and "no verdict": their first enumerants stand for them.
  out.setStage(to_wire(event.stage.value_or(TaskStage::pending)));
  out.setWorkload(event.workload);
  out.setVerdict(to_wire(event.verdict.value_or(Verdict::none)));
  out.setMessage(event.message);
  out.setObjectsDone(static_cast<uint32_t>(event.objects_done));
  out.setObjectsTotal(static_cast<uint32_t>(event.objects_total));
  out.setElapsedMs(event.elapsed_ms);
  out.setEstimateLeftMs(event.estimate_left_ms);
  out.setVerdictTime(event.verdict_time.value_or(-1));
  out.setCycles(event.cycles.value_or(-1));
}

namespace {

// The caches in the order an architect reads them (kCacheNames: l1i, l1d, l15, l2), then
// any other name the map holds.
std::vector<std::pair<std::string, CacheOverride>> in_reading_order(const CacheGeometry& caches) {
  std::vector<std::pair<std::string, CacheOverride>> out;
  for (std::string_view name : kCacheNames)
    if (auto it = caches.find(std::string(name)); it != caches.end()) out.emplace_back(*it);
  for (const auto& entry : caches)
    if (std::find(std::begin(kCacheNames), std::end(kCacheNames), entry.first) == std::end(kCacheNames))
      out.emplace_back(entry);
  return out;
}

}  // namespace

void fill(capnp::List<api::CacheSetting>::Builder out, const CacheGeometry& caches,
          const CacheGeometry& defaults) {
  unsigned i = 0;
  for (const auto& [name, cache] : in_reading_order(caches)) {
    out[i].setName(name);
    out[i].setSizeBytes(static_cast<uint64_t>(std::max<int64_t>(cache.size, 0)));
    out[i].setAssociativity(static_cast<uint32_t>(std::max<int64_t>(cache.associativity, 0)));
    const auto found = defaults.find(name);
    out[i].setIsDefault(found != defaults.end() && found->second == cache);
    ++i;
  }
}

void fill(api::TaskState::Builder out, const store::TaskRecord& t, const CacheGeometry& default_caches) {
  out.setIteration(static_cast<uint32_t>(t.iteration));
  out.setTaskId(t.task_id);
  out.setKind(std::string(to_string(t.kind)));
  out.setInstruction(t.instruction);
  auto deps = out.initDeps(t.deps.size());
  for (size_t i = 0; i < t.deps.size(); ++i) deps.set(i, t.deps[i]);
  out.setStage(to_wire(t.stage));
  out.setBuildId(t.build_id);
  out.setBuildOutcome(std::string(to_string(t.build_outcome)));
  out.setBuildSource(t.build_source);
  out.setBuildOrigin(t.build_origin);
  out.setNetwork(t.network);
  out.setFailureReason(std::string(to_string(t.failure_reason)));
  auto results = out.initResults(t.results.size());
  for (size_t i = 0; i < t.results.size(); ++i) {
    results[i].setWorkload(t.results[i].workload);
    results[i].setVerdict(to_wire(t.results[i].verdict));
    results[i].setWallS(t.results[i].wall_s);
    results[i].setVerdictTime(t.results[i].verdict_time.value_or(-1));
    results[i].setCycles(t.results[i].cycles.value_or(-1));
    results[i].setErrorLine(t.results[i].error_line);
    results[i].setExcerpt(t.results[i].excerpt);
    const auto& tiles = t.results[i].tiles;
    auto out_tiles = results[i].initTiles(static_cast<unsigned>(tiles.size()));
    for (unsigned k = 0; k < tiles.size(); ++k) fill(out_tiles[k], tiles[k]);
  }
  out.setCheckout(t.checkout);
  out.setRtlEdits(t.rtl_edits);
  out.setWaitingFor(t.waiting_for);
  out.setBuildWallS(t.build_wall_s.value_or(-1));
  out.setBuildCpuS(t.build_cpu_s.value_or(-1));
  out.setBuildPeakRssBytes(t.build_peak_rss_bytes.value_or(-1));
  const DesignConfiguration config = store::task_configuration(t, default_caches);
  out.setCore(config.core);
  out.setMeshX(static_cast<uint32_t>(std::max<int64_t>(config.mesh_x, 0)));
  out.setMeshY(static_cast<uint32_t>(std::max<int64_t>(config.mesh_y, 0)));
  auto caches = out.initCaches(static_cast<unsigned>(config.caches.size()));
  for (unsigned i = 0; i < config.caches.size(); ++i) {
    caches[i].setName(config.caches[i].name);
    caches[i].setSizeBytes(static_cast<uint64_t>(std::max<int64_t>(config.caches[i].size_bytes, 0)));
    caches[i].setAssociativity(static_cast<uint32_t>(std::max<int64_t>(config.caches[i].associativity, 0)));
    caches[i].setIsDefault(config.caches[i].is_default);
  }
  auto defines = out.initRtlDefines(static_cast<unsigned>(t.rtl_defines.size()));
  for (size_t i = 0; i < t.rtl_defines.size(); ++i) defines.set(static_cast<unsigned>(i), t.rtl_defines[i]);
  auto edited = out.initEditedFiles(static_cast<unsigned>(config.edited_files.size()));
  for (size_t i = 0; i < config.edited_files.size(); ++i)
    edited.set(static_cast<unsigned>(i), config.edited_files[i]);
}

void fill(api::FailureGroup::Builder out, const FailureGroup& g) {
  out.setSignature(g.signature);
  out.setVerdict(to_wire(g.verdict));
  out.setErrorLine(g.error_line);
  auto members = out.initMembers(static_cast<unsigned>(g.members.size()));
  for (size_t i = 0; i < g.members.size(); ++i) {
    auto m = members[static_cast<unsigned>(i)];
    m.setIteration(static_cast<uint32_t>(g.members[i].iteration));
    m.setTaskId(g.members[i].task_id);
    m.setWorkload(g.members[i].workload);
  }
}

namespace {

template <typename List>
void fill_texts(List out, const std::vector<std::string>& texts) {
  for (unsigned i = 0; i < texts.size(); ++i) out.set(i, texts[i]);
}

uint32_t count(int64_t n) { return static_cast<uint32_t>(std::clamp<int64_t>(n, 0, UINT32_MAX)); }

}  // namespace

void fill(api::ReproFacts::Builder out, const ReproFacts& f) {
  out.setRunId(f.run_id);
  out.setIteration(static_cast<uint32_t>(f.iteration));
  out.setTaskId(f.task_id);
  out.setWorkload(f.workload);
  out.setCheckout(f.checkout);
  out.setCheckoutCommit(f.checkout_commit);
  out.setSourceFingerprint(f.source_fingerprint);
  out.setVerilator(f.verilator);
  out.setMaceVersion(f.mace_version);
  out.setMaceCommit(f.mace_commit);
  out.setHost(f.host);
  out.setBuildId(f.build_id);
  fill_texts(out.initBuildArgv(static_cast<unsigned>(f.build_argv.size())), f.build_argv);
  fill_texts(out.initBuildEnvironment(static_cast<unsigned>(f.build_environment.size())), f.build_environment);
  out.setRtlEdits(f.rtl_edits);
  fill_texts(out.initSimArgv(static_cast<unsigned>(f.sim_argv.size())), f.sim_argv);
  fill_texts(out.initSimEnvironment(static_cast<unsigned>(f.sim_environment.size())), f.sim_environment);
  out.setRunDir(f.run_dir);
  auto inputs = out.initInputs(static_cast<unsigned>(f.inputs.size()));
  for (unsigned i = 0; i < f.inputs.size(); ++i) {
    inputs[i].setPath(f.inputs[i].path);
    inputs[i].setContent(capnp::Data::Reader(reinterpret_cast<const capnp::byte*>(f.inputs[i].content.data()),
                                             f.inputs[i].content.size()));
  }
  out.setInputsNote(f.inputs_note);
  out.setVerdict(to_wire(f.verdict));
  out.setErrorLine(f.error_line);
  out.setVerdictTime(f.verdict_time.value_or(-1));
  out.setCycles(f.cycles.value_or(-1));
}

void fill(api::FailureHistory::Builder out, const service::FailureHistory& history) {
  out.setSignaturesTotal(count(history.signatures_total));
  out.setRunsRead(count(history.runs_read));
  out.setMoreRuns(history.more_runs);
  auto signatures = out.initSignatures(static_cast<unsigned>(history.entries.size()));
  for (unsigned i = 0; i < history.entries.size(); ++i) {
    const FailureHistoryEntry& e = history.entries[i];
    auto o = signatures[i];
    o.setSignature(e.signature);
    o.setVerdict(to_wire(e.verdict));
    o.setErrorLine(e.error_line);
    o.setOccurrences(count(e.occurrences));
    o.setRuns(count(e.runs));
    o.setFirstRunId(e.first_run_id);
    o.setFirstAtMs(e.first_at_ms);
    o.setLastRunId(e.last_run_id);
    o.setLastAtMs(e.last_at_ms);
    fill_texts(o.initConfigurations(static_cast<unsigned>(e.configurations.size())), e.configurations);
    o.setConfigurationsTotal(count(e.configurations_total));
    fill_texts(o.initWorkloads(static_cast<unsigned>(e.workloads.size())), e.workloads);
    o.setWorkloadsTotal(count(e.workloads_total));
    o.setPassedLater(count(e.passed_later));
    o.setStillFailing(count(e.still_failing));
  }
}

namespace {

void fill(api::ModuleCoverage::Builder out, const store::CoverageCountsRecord& m) {
  out.setModule(m.module);
  out.setLinesCovered(static_cast<uint64_t>(m.lines_covered));
  out.setLinesTotal(static_cast<uint64_t>(m.lines_total));
  out.setPointsCovered(static_cast<uint64_t>(m.points_covered));
  out.setPointsTotal(static_cast<uint64_t>(m.points_total));
}

}  // namespace

void fill(api::TaskCoverage::Builder out, const store::TaskCoverageRecord& c) {
  out.setIteration(static_cast<uint32_t>(c.iteration));
  out.setTaskId(c.task_id);
  out.setWorkloads(static_cast<uint32_t>(c.workloads));
  out.setError(c.error);
  fill(out.initTotal(), c.total);
  auto modules = out.initModules(static_cast<unsigned>(c.modules.size()));
  for (size_t i = 0; i < c.modules.size(); ++i) fill(modules[static_cast<unsigned>(i)], c.modules[i]);
  out.setDataPath(c.data_path);
  out.setAnnotatedDir(c.annotated_dir);
  out.setDataFileId(static_cast<uint64_t>(c.data_file_id));
}

void fill(api::Waveform::Builder out, const store::WaveformRecord& w) {
  out.setIteration(static_cast<uint32_t>(w.iteration));
  out.setTaskId(w.task_id);
  out.setWorkload(w.workload);
  out.setFileId(static_cast<uint64_t>(w.file_id));
  out.setFromTime(w.from_time);
  out.setToTime(w.to_time);
  out.setLastTime(w.last_time);
  out.setEndReason(w.end);
  out.setBytes(static_cast<uint64_t>(w.bytes));
  out.setBuildId(w.build_id);
  out.setModelReused(w.model_reused);
  out.setBuildSeconds(w.build_seconds);
  out.setSimSeconds(w.sim_seconds);
  out.setProblem(w.problem);
  out.setNote(w.note);
  fill_texts(out.initChangedLast(static_cast<unsigned>(w.changed_last.size())), w.changed_last);
}

void fill(api::Diagnosis::Builder out, const store::DiagnosisRecord& d) {
  out.setIteration(static_cast<uint32_t>(d.iteration));
  out.setTaskId(d.task_id);
  out.setLabel(d.label);
  out.setFix(d.fix);
  out.setSource(std::string(to_string(d.source)));
  out.setRecovered(d.recovered);
}

void fill(api::NarrowingBuild::Builder out, const store::NarrowingBuildRecord& b) {
  out.setIteration(static_cast<uint32_t>(b.iteration));
  out.setTaskId(b.task_id);
  out.setUndone(b.undone);
  out.setBuildId(b.build_id);
  out.setPassed(b.passed);
  out.setFailureReason(std::string(to_string(b.failure_reason)));
}

void fill(api::PostMortem::Builder out, const store::PostMortemRecord& pm) {
  out.setAssessment(pm.assessment);
  out.setExplanation(pm.explanation);
  out.setNextSteps(pm.next_steps);
}

void fill(api::LlmCall::Builder out, const store::LlmCallRecord& c) {
  out.setIteration(static_cast<uint32_t>(c.iteration));
  out.setPhase(std::string(to_string(c.phase)));
  out.setTaskId(c.task_id);
  out.setBackend(c.backend);
  out.setModel(c.model);
  out.setInputTokens(c.input_tokens);
  out.setOutputTokens(c.output_tokens);
  out.setThinkingTokens(c.thinking_tokens);
  out.setCostUsd(c.cost_usd);
  out.setWallS(c.wall_s);
  out.setSuccess(c.success);
  out.setErrorClass(c.error_class == LlmErrorClass::none ? "" : std::string(to_string(c.error_class)));
  out.setPrompt(c.prompt_text);
  out.setReply(c.reply_text);
  out.setAtMs(c.created_at_ms);
  out.setCacheReadTokens(c.cache_read_tokens);
  out.setCacheWriteTokens(c.cache_write_tokens);
  out.setCostSource(c.cost_source ? std::string(to_string(*c.cost_source)) : "");
}

void fill(api::Metrics::Builder out, const store::RunMetrics& m) {
  out.setSuccessfulTasks(static_cast<uint32_t>(m.successful_tasks));
  out.setIterations(static_cast<uint32_t>(m.iterations));
  out.setFailuresRecovered(static_cast<uint32_t>(m.failures_recovered));
  out.setExecutionTimeS(m.execution_time_s);
  out.setComputeCostUsd(m.compute_cost_usd);
}

void fill(api::LogFile::Builder out, const store::LogFileRecord& file, const std::string& note) {
  out.setId(static_cast<uint64_t>(file.id));
  out.setIteration(static_cast<uint32_t>(file.iteration));
  out.setTaskId(file.task_id);
  out.setNarrowing(file.narrowing);
  out.setWorkload(file.workload);
  out.setKind(file.kind);
  out.setKept(file.kept_at_ms > 0 && file.removed_at_ms == 0);
  out.setOriginalBytes(static_cast<uint64_t>(file.original_bytes));
  out.setStoredBytes(static_cast<uint64_t>(file.stored_bytes));
  const int64_t kept_of_it = file.cut_head_bytes + file.cut_tail_bytes;
  out.setCutBytes(kept_of_it > 0 ? static_cast<uint64_t>(file.original_bytes - kept_of_it) : 0);
  out.setCompressed(file.compressed);
  out.setNote(note);
  if (file.removed_at_ms == 0) out.setPath(file.path);
}

void fill(api::LogEntry::Builder out, const service::RunLogLine& line) {
  out.setSeq(static_cast<uint64_t>(line.seq));
  out.setAtMs(line.at_ms);
  out.setSource(line.source);
  out.setText(line.text);
}

void fill(api::LogChunk::Builder out, const service::LogChunk& chunk) {
  out.setFound(chunk.found);
  out.setPath(chunk.path);
  out.setData(kj::arrayPtr(reinterpret_cast<const kj::byte*>(chunk.data.data()), chunk.data.size()));
  out.setOffset(chunk.offset);
  out.setSize(chunk.size);
  out.setRunFinal(chunk.run_final);
  out.setKept(chunk.kept);
  out.setNote(chunk.note);
}

void fill(api::CheckoutStatus::Builder out, const service::CheckoutStatus& checkout) {
  out.setPath(checkout.path);
  out.setNode(checkout.node);
  out.setHeldBy(checkout.held_by);
  out.setNodeDown(checkout.node_down);
  out.setJobId(checkout.job_id);
  out.setJobName(checkout.job_name);
  out.setJobPurpose(checkout.job_purpose);
  out.setRefused(checkout.refused);
}

namespace {

api::CheckTopic to_wire(CheckTopic topic) {
  switch (topic) {
    case CheckTopic::maced: return api::CheckTopic::MACED;
    case CheckTopic::checkout: return api::CheckTopic::CHECKOUT;
    case CheckTopic::tool: return api::CheckTopic::TOOL;
    case CheckTopic::workloads: return api::CheckTopic::WORKLOADS;
    case CheckTopic::disk: return api::CheckTopic::DISK;
    case CheckTopic::slurm_node: return api::CheckTopic::SLURM_NODE;
    case CheckTopic::llm_backend: return api::CheckTopic::LLM_BACKEND;
  }
  throw std::logic_error("a check topic without a wire name");
}

api::CheckLevel to_wire(CheckLevel level) {
  switch (level) {
    case CheckLevel::ok: return api::CheckLevel::OK;
    case CheckLevel::warning: return api::CheckLevel::WARNING;
    case CheckLevel::failure: return api::CheckLevel::FAILURE;
  }
  throw std::logic_error("a check level without a wire name");
}

}  // namespace

void fill(api::TileFigures::Builder out, const TileFigures& figures) {
  out.setTile(static_cast<uint32_t>(figures.tile));
  for (std::size_t i = 0; i < kTileCounterCount; ++i) {
    const auto counter = static_cast<TileCounter>(i);
    const auto value = static_cast<uint64_t>(figures[counter]);
    switch (counter) {
      case TileCounter::core_requests: out.setCoreRequests(value); break;
      case TileCounter::l15_requests_to_l2: out.setL15RequestsToL2(value); break;
      case TileCounter::l2_lookup_hits: out.setL2LookupHits(value); break;
      case TileCounter::l2_lookup_misses: out.setL2LookupMisses(value); break;
      case TileCounter::noc1_flits: out.setNoc1Flits(value); break;
      case TileCounter::noc2_flits: out.setNoc2Flits(value); break;
      case TileCounter::noc3_flits: out.setNoc3Flits(value); break;
    }
  }
}

void fill(api::CheckFinding::Builder out, const CheckFinding& finding) {
  out.setTopic(to_wire(finding.topic));
  out.setSubject(finding.subject);
  out.setLevel(to_wire(finding.level));
  out.setWhat(finding.what);
  out.setFix(finding.fix);
}

namespace {

// Wire Text is only bytes. What is not UTF-8 is refused here, naming its field, because
// the JSON the structured form becomes below could carry it only as U+FFFD, which would
// make a spec valid that the JSON form refuses. Everything else is validate_run_spec's.
class WireText {
 public:
  std::string operator()(capnp::Text::Reader t, std::string path) {
    std::string s = text(t);
    for (size_t i = 0; i < s.size();) {
      size_t n = os::utf8_sequence_length(s, i);
      if (n == 0) {
        errors_.push_back({std::move(path), "must be UTF-8 text, got bytes that are not UTF-8 "
                                            "at byte " + std::to_string(i)});
        break;
      }
      i += n;
    }
    return s;
  }
  FieldErrors take_errors() { return std::move(errors_); }

 private:
  FieldErrors errors_;
};

std::string at(const std::string& list, size_t i) { return list + "[" + std::to_string(i) + "]"; }

}  // namespace

namespace {

// The designs of the structured form as the JSON form spells them: a parameter of 0 keeps
// the checkout's default (null), a cache named twice is a repeated key the reader refuses.
void write_designs(JsonWriter& w, WireText& texts, api::RunSpec::Reader in) {
  w.key("designs").begin_array();
  size_t index = 0;
  for (auto design : in.getDesigns()) {
    const std::string path = at("designs", index++);
    w.begin_object().field("name", texts(design.getName(), path + ".name")).key("caches").begin_object();
    for (auto cache : design.getCaches()) {
      w.key(texts(cache.getName(), path + ".caches")).begin_object().key("size");
      cache.getSizeBytes() ? w.value(cache.getSizeBytes()) : w.null();
      w.key("associativity");
      cache.getAssociativity() ? w.value(cache.getAssociativity()) : w.null();
      w.end_object();
    }
    w.end_object().key("config_rtl").begin_array();
    size_t define = 0;
    for (auto name : design.getConfigRtl()) w.value(texts(name, at(path + ".config_rtl", define++)));
    w.end_array().end_object();
  }
  w.end_array();
  w.key("sweep").begin_object();
  for (auto sweep : in.getSweep()) {
    w.key(texts(sweep.getCache(), "sweep")).begin_object();
    if (sweep.getSizes().size() > 0) {
      w.key("size").begin_array();
      for (auto size : sweep.getSizes()) w.value(size);
      w.end_array();
    }
    if (sweep.getAssociativities().size() > 0) {
      w.key("associativity").begin_array();
      for (auto ways : sweep.getAssociativities()) w.value(ways);
      w.end_array();
    }
    w.end_object();
  }
  w.end_object();
  w.field("baseline", !in.getNoBaseline());
}

}  // namespace

SpecParseResult from_wire(api::RunSpec::Reader in) {
  WireText texts;
  JsonWriter w;
  w.begin_object();
  w.field("core", texts(in.getCore(), "core"));
  w.key("mesh").begin_array().value(in.getMeshX()).value(in.getMeshY()).end_array();
  w.key("workloads").begin_array();
  size_t index = 0;
  for (auto workload : in.getWorkloads()) w.value(texts(workload, at("workloads", index++)));
  w.end_array();
  w.field("objective", texts(in.getObjective(), "objective"));
  auto budget = in.getBudget();
  w.key("budget").begin_object();
  w.field("max_iterations", budget.getMaxIterations());
  w.field("max_usd", budget.getMaxUsd());
  w.field("max_wall_s", budget.getMaxWallS());
  w.end_object();
  w.field("coverage", in.getCoverage());
  w.field("monitors", in.getMonitors());
  w.field("run_every_workload", in.getRunEveryWorkload());
  w.field("waveform", !in.getNoWaveform());
  if (in.getWaveformCycles() != 0) w.field("waveform_cycles", in.getWaveformCycles());
  if (in.getParallelWorkloads() != 0) w.field("parallel_workloads", in.getParallelWorkloads());
  // Zero means "not set" on the wire; leaving the field out gives the JSON form's default.
  if (in.getRtlTimeout() != 0) w.field("rtl_timeout", in.getRtlTimeout());
  if (in.getMaxCycle() != 0) w.field("max_cycle", in.getMaxCycle());
  if (in.getWorkloadArgs().size() > 0) {
    w.key("workload_args").begin_object();
    for (auto args : in.getWorkloadArgs()) {
      std::string program = texts(args.getProgram(), "workload_args");
      std::string path = "workload_args." + program;
      w.key(program).begin_object();
      if (args.getFinishMask().size() > 0)
        w.field("finish_mask", texts(args.getFinishMask(), path + ".finish_mask"));
      // Zero means "not set", as for the spec's own.
      if (args.getRtlTimeout() != 0) w.field("rtl_timeout", args.getRtlTimeout());
      if (args.getMaxCycle() != 0) w.field("max_cycle", args.getMaxCycle());
      w.key("options").begin_array();
      index = 0;
      for (auto option : args.getOptions()) w.value(texts(option, at(path + ".options", index++)));
      w.end_array().end_object();
    }
    w.end_object();
  }
  if (in.getCoreDescriptorJson().size() > 0) {
    std::string descriptor = texts(in.getCoreDescriptorJson(), "coreDescriptorJson");
    if (FieldErrors errors = texts.take_errors(); !errors.empty()) return {std::nullopt, errors};
    simdjson::dom::parser parser;
    simdjson::dom::element element;
    if (auto error = parser.parse(descriptor).get(element)) {
      return {std::nullopt,
              {{"coreDescriptorJson", std::string("is not valid JSON: ") +
                                          simdjson::error_message(error)}}};
    }
    w.key("core_descriptor").raw(descriptor);
  }
  auto options = in.getOptions();
  w.key("options").begin_object();
  w.field("rtl_edits", options.getRtlEdits());
  w.field("fast_path", options.getFastPath());
  w.field("task_prompts", options.getTaskPrompts());
  w.end_object();
  if (in.getBackend().size() > 0) w.field("backend", texts(in.getBackend(), "backend"));
  if (in.getModel().size() > 0) w.field("model", texts(in.getModel(), "model"));
  if (in.getCheckouts() != 0) w.field("checkouts", in.getCheckouts());
  if (in.getDispatch().size() > 0) w.field("dispatch", texts(in.getDispatch(), "dispatch"));
  if (in.getTools().size() > 0) {
    w.key("tools").begin_array();
    index = 0;
    for (auto name : in.getTools()) w.value(texts(name, at("tools", index++)));
    w.end_array();
  }
  if (in.hasReplay()) {
    auto replay = in.getReplay();
    w.key("replay").begin_object();
    if (replay.hasCache()) {
      w.key("cache").begin_array();
      index = 0;
      for (auto f : replay.getCache()) w.value(texts(f, at("replay.cache", index++)));
      w.end_array();
    }
    w.key("bypass").begin_array();
    index = 0;
    for (auto f : replay.getBypass()) w.value(texts(f, at("replay.bypass", index++)));
    w.end_array();
    if (replay.getFrom().size() > 0) w.field("from", texts(replay.getFrom(), "replay.from"));
    w.end_object();
  }
  write_designs(w, texts, in);
  w.end_object();
  if (FieldErrors errors = texts.take_errors(); !errors.empty()) return {std::nullopt, errors};
  return parse_run_spec_json(w.str());
}

}  // namespace mace::rpc
