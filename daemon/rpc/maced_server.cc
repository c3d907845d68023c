#include "rpc/maced_server.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "core/printable_text.h"
#include "rpc/conversions.h"
#include "rpc/run_listener_watcher.h"
#include "eval/html_report.h"
#include "eval/results.h"
#include "service/run_event_log.h"
#include "rpc/refusal.h"
#include "service/service_error.h"
#include "capnp_text.h"

namespace mace::rpc {
namespace {

// Held by the client for as long as it watches; its connection is busy meanwhile, so a
// watch that waits long between two events is never closed as idle.
class SubscriptionServer final : public api::Subscription::Server {
 public:
  SubscriptionServer(kj::Own<RunListenerWatcher> watcher, ConnectionActivity::Hold hold)
      : watcher_(kj::mv(watcher)), hold_(std::move(hold)) {}

 private:
  kj::Own<RunListenerWatcher> watcher_;
  ConnectionActivity::Hold hold_;
};

// The problems of a spec (submit, replay, checkSpec), each at its field.
template <typename Results>
void set_errors(Results& results, const FieldErrors& errors) {
  auto out = results.initErrors(static_cast<unsigned>(errors.size()));
  for (size_t i = 0; i < errors.size(); ++i) {
    out[static_cast<unsigned>(i)].setPath(errors[i].path);
    out[static_cast<unsigned>(i)].setMessage(errors[i].message);
  }
}

// The spec a submit or a check carries, as JSON or as the schema's struct, with the caller's
// backend and model in place of the spec's where it names them.
template <typename Params>
SpecParseResult spec_of(Params params) {
  auto source = params.getSpec();
  SpecParseResult parsed = source.isJson() ? parse_run_spec_json(text(source.getJson()))
                                           : from_wire(source.getSpec());
  if (parsed.spec) {
    if (params.getBackend().size() > 0) parsed.spec->backend = text(params.getBackend());
    if (params.getModel().size() > 0) parsed.spec->model = text(params.getModel());
  }
  return parsed;
}

// The answer of submit and replay: the new run's id, or the errors that refused it.
template <typename Results>
void set_outcome(Results& results, const service::SubmitOutcome& outcome) {
  results.setRunId(outcome.run_id);
  set_errors(results, outcome.errors);
}

}  // namespace

MacedServer::DispatchCallResult MacedServer::dispatchCall(
    uint64_t interface_id, uint16_t method_id,
    capnp::CallContext<capnp::AnyPointer, capnp::AnyPointer> context) {
  auto hold = activity_->hold();
  auto result = api::Maced::Server::dispatchCall(interface_id, method_id, context);
  result.promise = result.promise.attach(std::move(hold));
  return result;
}

kj::Promise<void> MacedServer::version(VersionContext context) {
  errors_as_values_ = context.getParams().getErrorsAsValues();
  auto results = context.getResults();
  results.setApiVersion(api::API_VERSION);
  results.setDaemonVersion(MACE_VERSION);
  return kj::READY_NOW;
}

kj::Promise<void> MacedServer::submit(SubmitContext context) {
  return answer(context, [&] {
    SpecParseResult parsed = spec_of(context.getParams());
    service::SubmitOutcome outcome;
    if (parsed.spec) outcome = service_.submit(*parsed.spec, caller_);
    else outcome.errors = std::move(parsed.errors);
    auto results = context.getResults();
    set_outcome(results, outcome);
  });
}

kj::Promise<void> MacedServer::watch(WatchContext context) {
  return answer(context, [&] {
    auto params = context.getParams();
    auto watcher = kj::heap<RunListenerWatcher>(service_, params.getListener(), caller_);
    watcher->start(text(params.getRunId()), static_cast<int64_t>(params.getAfterSeq()));
    context.getResults().setSubscription(
        kj::heap<SubscriptionServer>(kj::mv(watcher), activity_->hold()));
  });
}

kj::Promise<void> MacedServer::status(StatusContext context) {
  return answer(context, [&] {
    auto params = context.getParams();
    const service::DetailFrom from{params.getTasksFrom(), params.getDiagnosesFrom(),
                                   params.getNarrowingBuildsFrom()};
    service::RunDetail run = service_.detail_page(text(params.getRunId()), from, caller_);
    context.getResults().setMore(run.more);
    auto detail = context.getResults().initRun();
    fill(detail.initSummary(), run.run);
    detail.setSpecJson(run.run.spec_json);
    auto tasks = detail.initTasks(static_cast<unsigned>(run.tasks.size()));
    for (size_t i = 0; i < run.tasks.size(); ++i)
      fill(tasks[static_cast<unsigned>(i)], run.tasks[i], run.run.default_caches);
    fill(detail.initDefaultCaches(static_cast<unsigned>(run.run.default_caches.size())),
         run.run.default_caches, run.run.default_caches);
    auto diagnoses = detail.initDiagnoses(static_cast<unsigned>(run.diagnoses.size()));
    for (size_t i = 0; i < run.diagnoses.size(); ++i)
      fill(diagnoses[static_cast<unsigned>(i)], run.diagnoses[i]);
    auto narrowing = detail.initNarrowingBuilds(static_cast<unsigned>(run.narrowing_builds.size()));
    for (size_t i = 0; i < run.narrowing_builds.size(); ++i)
      fill(narrowing[static_cast<unsigned>(i)], run.narrowing_builds[i]);
    if (run.post_mortem) fill(detail.initPostMortem(), *run.post_mortem);
    detail.setQueuedAhead(static_cast<uint32_t>(std::min<int64_t>(run.queued_ahead, UINT32_MAX)));
    auto groups = detail.initFailureGroups(static_cast<unsigned>(run.failure_groups.size()));
    for (size_t i = 0; i < run.failure_groups.size(); ++i)
      fill(groups[static_cast<unsigned>(i)], run.failure_groups[i]);
    auto coverage = detail.initCoverage(static_cast<unsigned>(run.coverage.size()));
    for (size_t i = 0; i < run.coverage.size(); ++i)
      fill(coverage[static_cast<unsigned>(i)], run.coverage[i]);
    auto waveforms = detail.initWaveforms(static_cast<unsigned>(run.waveforms.size()));
    for (size_t i = 0; i < run.waveforms.size(); ++i) fill(waveforms[static_cast<unsigned>(i)], run.waveforms[i]);
    detail.setEnvironmentJson(run.environment_json);
  });
}

namespace {

void set_page(api::Maced::ListResults::Builder results, const service::RunPage& page) {
  auto out = results.initRuns(static_cast<unsigned>(page.runs.size()));
  for (size_t i = 0; i < page.runs.size(); ++i) fill(out[static_cast<unsigned>(i)], page.runs[i]);
  results.setNext(page.next);
}

}  // namespace

kj::Promise<void> MacedServer::list(ListContext context) {
  store::RunFilter filter;
  try {
    auto filter_in = context.getParams().getFilter();
    for (auto s : filter_in.getStates()) filter.states.push_back(from_wire(s));
    if (!filter_in.getAnyUser()) filter.submitted_by_uid = filter_in.getSubmittedByUid();
    filter.limit = filter_in.getLimit();
    filter.before = text(filter_in.getBefore());
  } catch (...) {
    return refuse(context, refusal_of(std::current_exception()));
  }
  if (!lister_)
    return answer(context, [&] { set_page(context.getResults(), service_.list_page(filter, caller_)); });
  return refusing_failures(context, lister_->list_page(std::move(filter), caller_)
                                        .then([context](service::RunPage page) mutable {
                                          set_page(context.getResults(), page);
                                        }));
}

kj::Promise<void> MacedServer::repro(ReproContext context) {
  return answer(context, [&] {
    auto params = context.getParams();
    service::ReproQuery query{.iteration = params.getIteration(), .task_id = text(params.getTaskId()),
                              .workload = text(params.getWorkload())};
    fill(context.getResults().initFacts(), service_.repro(text(params.getRunId()), query, caller_));
  });
}

kj::Promise<void> MacedServer::failures(FailuresContext context) {
  service::FailureQuery query;
  try {
    auto in = context.getParams().getQuery();
    query.since_ms = in.getSinceMs();
    query.core = text(in.getCore());
    query.max_runs = in.getMaxRuns();
    service::check_failure_query(query);
  } catch (...) {
    return refuse(context, refusal_of(std::current_exception()));
  }
  if (!lister_)
    return answer(context, [&] { fill(context.getResults().initHistory(), service_.failures(query, caller_)); });
  return refusing_failures(context, lister_->failures(std::move(query), caller_)
                                        .then([context](service::FailureHistory history) mutable {
                                          fill(context.getResults().initHistory(), history);
                                        }));
}

kj::Promise<void> MacedServer::checkouts(CheckoutsContext context) {
  return answer(context, [&] {
    auto results = context.getResults();
    results.setExecutor(service_.executor());
    const auto checkouts = service_.checkouts();
    auto out = results.initCheckouts(static_cast<unsigned>(checkouts.size()));
    for (unsigned i = 0; i < checkouts.size(); ++i) fill(out[i], checkouts[i]);
  });
}

kj::Promise<void> MacedServer::checkUp(CheckUpContext context) {
  if (!check_up_) return refuse(context, {api::ErrorKind::INTERNAL, "", "this maced has no check-up"});
  return refusing_failures(context, check_up_->check_up().then([context](std::vector<CheckFinding> findings) mutable {
    auto out = context.getResults().initFindings(static_cast<unsigned>(findings.size()));
    for (unsigned i = 0; i < findings.size(); ++i) fill(out[i], findings[i]);
  }));
}

kj::Promise<void> MacedServer::logs(LogsContext context) {
  return answer(context, [&] {
    auto params = context.getParams();
    const service::LogPage page =
        service_.log_page(text(params.getRunId()),
                          static_cast<int64_t>(std::min<uint64_t>(params.getAfterSeq(), INT64_MAX)),
                          params.getLimit(), caller_);
    const auto& lines = page.lines;
    auto results = context.getResults();
    results.setNext(static_cast<uint64_t>(page.next_after_seq));
    auto out = results.initEntries(static_cast<unsigned>(lines.size()));
    for (unsigned i = 0; i < lines.size(); ++i) fill(out[i], lines[i]);
  });
}

kj::Promise<void> MacedServer::readLog(ReadLogContext context) {
  return answer(context, [&] {
    auto params = context.getParams();
    auto in = params.getQuery();
    service::LogQuery query;
    query.iteration = in.getIteration();
    query.task_id = text(in.getTaskId());
    query.workload = text(in.getWorkload());
    query.offset = in.getOffset();
    query.tail_lines = in.getTailLines();
    query.max_bytes = in.getMaxBytes();
    query.offset_of_live = in.getOffsetOfLive();
    query.file_id = static_cast<int64_t>(std::min<uint64_t>(in.getFileId(), INT64_MAX));
    const service::LogChunk chunk = service_.read_log(text(params.getRunId()), query, caller_);
    fill(context.getResults().initChunk(), chunk);
  });
}

kj::Promise<void> MacedServer::logFiles(LogFilesContext context) {
  return answer(context, [&] {
    const std::string run_id = text(context.getParams().getRunId());
    const auto files = service_.log_files(run_id, caller_);
    const bool run_final = is_final(service_.run(run_id).state);
    auto out = context.getResults().initFiles(static_cast<unsigned>(files.size()));
    for (unsigned i = 0; i < files.size(); ++i)
      fill(out[i], files[i], service::log_file_note(files[i], run_final));
  });
}

kj::Promise<void> MacedServer::checkSpec(CheckSpecContext context) {
  return answer(context, [&] {
    SpecParseResult parsed = spec_of(context.getParams());
    FieldErrors errors = parsed.spec ? service_.check(*parsed.spec, caller_) : std::move(parsed.errors);
    auto results = context.getResults();
    set_errors(results, errors);
  });
}

kj::Promise<void> MacedServer::metrics(MetricsContext context) {
  return answer(context, [&] {
    fill(context.getResults().initMetrics(),
         service_.metrics(text(context.getParams().getRunId()), caller_));
  });
}

kj::Promise<void> MacedServer::calls(CallsContext context) {
  return answer(context, [&] {
    auto params = context.getParams();
    const service::CallPage page =
        service_.llm_call_page(text(params.getRunId()), params.getFrom(), caller_);
    auto results = context.getResults();
    auto out = results.initCalls(static_cast<unsigned>(page.calls.size()));
    for (size_t i = 0; i < page.calls.size(); ++i) fill(out[static_cast<unsigned>(i)], page.calls[i]);
    results.setNext(static_cast<uint32_t>(page.next));
  });
}

kj::Promise<void> MacedServer::cancel(CancelContext context) {
  return answer(context, [&] {
    auto outcome = service_.cancel(text(context.getParams().getRunId()), caller_);
    context.getResults().setState(to_wire(outcome.state));
    context.getResults().setChanged(outcome.changed);
  });
}

kj::Promise<void> MacedServer::replay(ReplayContext context) {
  return answer(context, [&] {
    auto params = context.getParams();
    auto outcome = service_.replay(text(params.getRunId()), params.getUntilIteration(), caller_);
    auto results = context.getResults();
    set_outcome(results, outcome);
  });
}

service::EvalService& MacedServer::eval_service() {
  if (!eval_) throw service::RequestError(service::RequestErrorKind::unavailable, {"", "this maced has no evaluation harness"});
  return *eval_;
}

kj::Promise<void> MacedServer::evalSubmit(EvalSubmitContext context) {
  return answer(context, [&] {
    auto params = context.getParams();
    auto wire = params.getRequest();
    eval::BatchRequest request;
    service::EvalSubmitOutcome outcome;
    for (unsigned i = 0; i < wire.getMethods().size(); ++i) {
      auto method = eval_method_from_string(text(wire.getMethods()[i]));
      if (!method)
        outcome.errors.push_back({"methods[" + std::to_string(i) + "]",
                                  "must be one of mace, baseline, baseline_retry, fault_check, codesign, codesign_llm, seeded_fault, got " +
                                      quoted_for_display(text(wire.getMethods()[i]), 64)});
      else
        request.methods.push_back(*method);
    }
    request.repeats = wire.getRepeats();
    request.seed = wire.getSeed();
    request.keep_models = wire.getKeepModels();
    request.baseline_retries = wire.getBaselineRetries();
    request.backend = text(wire.getBackend());
    request.model = text(wire.getModel());
    if (outcome.errors.empty())
      outcome = eval_service().submit(text(params.getSuiteJson()), request, caller_);
    auto results = context.getResults();
    results.setBatchId(outcome.batch_id);
    set_errors(results, outcome.errors);
  });
}

kj::Promise<void> MacedServer::evalReport(EvalReportContext context) {
  return answer(context, [&] {
    auto params = context.getParams();
    const std::string format = text(params.getFormat());
    eval::BatchView batch = eval_service().view(text(params.getBatchId()), caller_);
    std::string out;
    if (format == "status") out = eval::render_status_text(batch);
    else if (format == "text") out = eval::render_results_text(batch);
    else if (format == "json") out = eval::render_results_json(batch);
    else if (format == "csv") out = eval::render_results_csv(batch);
    else if (format == "html") out = eval::render_html_report(batch);
    else throw service::RequestError(service::RequestErrorKind::invalid, {"format", "must be status, text, json, csv or html"});
    context.getResults().setText(out);
  });
}

kj::Promise<void> MacedServer::evalCancel(EvalCancelContext context) {
  return answer(context, [&] { eval_service().cancel(text(context.getParams().getBatchId()), caller_); });
}

}  // namespace mace::rpc
