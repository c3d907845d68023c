#include "service/run_service.h"

#include <algorithm>
#include <cerrno>
#include <stdexcept>

#include "core/joined.h"
#include "core/run_id.h"
#include "os/file_io.h"
#include "service/answer_pages.h"
#include "service/run_listing.h"
#include "service/service_error.h"
#include "store/sqlite.h"

namespace mace::service {
namespace {

// REQ-PLAT-8: gemini-2.5-flash when vertex is chosen and no model is named.
std::string default_model_for(const std::string& backend, const ServiceSettings& defaults) {
  if (!defaults.model.empty() && backend == defaults.backend) return defaults.model;
  if (backend == "vertex") return "gemini-2.5-flash";
  return "";
}

// A spec names tools by name only; the ones maced has are checked here, where they are
// known, so a run never starts with a tool its LLM calls would lack.
FieldErrors unknown_tools(const RunSpec& spec, const std::vector<std::string>& configured) {
  FieldErrors errors;
  for (size_t i = 0; i < spec.tools.size(); ++i) {
    if (std::find(configured.begin(), configured.end(), spec.tools[i]) != configured.end())
      continue;
    errors.push_back({"tools[" + std::to_string(i) + "]",
                      "no tool \"" + spec.tools[i] + "\" in maced's configuration; " +
                          (configured.empty() ? std::string("it declares none")
                                              : "it has " + joined(configured))});
  }
  return errors;
}

}  // namespace

RunService::RunService(store::Store& store, ServiceSettings settings, Clock clock)
    : store_(store), settings_(std::move(settings)), clock_(std::move(clock)) {}

SubmitOutcome RunService::submit_json(std::string_view spec_json, const Caller& caller) {
  SpecParseResult parsed = parse_run_spec_json(spec_json);
  if (!parsed.spec) return {"", std::move(parsed.errors)};
  return accept(*parsed.spec, caller.uid, &caller);
}

SubmitOutcome RunService::submit(const RunSpec& spec, const Caller& caller) {
  FieldErrors errors = validate_run_spec(spec);
  if (!errors.empty()) return {"", std::move(errors)};
  return accept(spec, caller.uid, &caller);
}

SubmitOutcome RunService::submit_tied(const RunSpec& spec, uint32_t uid, const Tie& tie) {
  FieldErrors errors = validate_run_spec(spec);
  if (!errors.empty()) return {"", std::move(errors)};
  return accept(spec, uid, nullptr, tie);
}

FieldErrors RunService::check(const RunSpec& spec, const Caller& caller) const {
  FieldErrors errors = validate_run_spec(spec);
  if (!errors.empty()) return errors;
  store::RunRecord run;
  return refusals(spec, &caller, run);
}

FieldErrors RunService::check_named_runs(const RunSpec& spec, const Caller& caller) const {
  if (!spec.replay.from) return {};
  auto named = store_.find_run(*spec.replay.from);
  if (!named) return {{"replay.from", "no run named '" + id_for_message(*spec.replay.from) + "'"}};
  if (auto why = unreadable(*named, caller)) return {{"replay.from", *why}};
  return {};
}

FieldErrors RunService::refusals(const RunSpec& spec, const Caller* reader,
                                 store::RunRecord& run) const {
  if (!settings_.no_checkout_can_run.empty()) return {{"", settings_.no_checkout_can_run}};
  if (FieldErrors errors = unknown_tools(spec, settings_.tool_names); !errors.empty()) return errors;
  // REQ-REPLAY-3: bypassed calls are served from this run's entries, so it must exist, and
  // be the submitter's to read.
  if (reader) {
    if (FieldErrors errors = check_named_runs(spec, *reader); !errors.empty()) return errors;
  } else if (spec.replay.from && !store_.find_run(*spec.replay.from)) {
    return {{"replay.from", "no run named '" + id_for_message(*spec.replay.from) + "'"}};
  }
  // A misspelt workload fails every iteration alike: refused now, naming where it was looked for.
  if (settings_.check_workloads)
    if (FieldErrors errors = settings_.check_workloads(spec); !errors.empty()) return errors;
  run.backend = spec.backend.value_or(settings_.backend);
  run.model = spec.model.value_or(default_model_for(run.backend, settings_));
  if (settings_.check_backend && !is_direct_backend(run.backend)) {
    if (auto problem = settings_.check_backend(run.backend, run.model)) {
      // Name the field the user can change: the spec's, or maced's default when the spec
      // left it out.
      return {{spec.backend ? "backend" : "backend (maced's default)", *problem}};
    }
  }
  return {};
}

SubmitOutcome RunService::accept(const RunSpec& spec, uint32_t uid, const Caller* reader,
                                 const Tie& tie) {
  store::RunRecord run;
  if (FieldErrors errors = refusals(spec, reader, run); !errors.empty()) return {"", std::move(errors)};
  // A run tied to an evaluation job was counted with its batch, by the job limit: refusing
  // it here would give the job up.
  if (!tie)
    if (FieldErrors errors = queue_full(uid); !errors.empty()) return {"", std::move(errors)};
  int64_t now = clock_();
  run.id = ids_.next(now);
  run.state = RunState::queued;
  run.spec_json = run_spec_to_json(spec);
  run.core = std::string(to_string(spec.core));
  run.mesh_x = spec.mesh_x;
  run.mesh_y = spec.mesh_y;
  run.objective = spec.objective;
  run.workloads = spec.workloads;
  run.max_iterations = spec.budget.max_iterations;
  run.max_usd = spec.budget.max_usd;
  run.max_wall_s = spec.budget.max_wall_s;
  run.checkouts_wanted = spec.checkouts.value_or(0);
  run.submitted_by_uid = uid;
  run.submitted_at_ms = now;
  return queue(run, "submitted by uid " + std::to_string(uid) + ": " + run.core + " " +
                        std::to_string(run.mesh_x) + "x" + std::to_string(run.mesh_y), tie);
}

SubmitOutcome RunService::queue(const store::RunRecord& run, std::string message, const Tie& tie) {
  store::EventRecord submitted;
  submitted.run_id = run.id;
  submitted.kind = EventKind::submitted;
  submitted.state = RunState::queued;
  submitted.message = std::move(message);
  submitted.at_ms = clock_();
  {
    // REQ-VER-13: a run without its first event would be queued by a submit whose answer
    // was an error (a full disk refusing the event's write), and run later all the same.
    store::Transaction txn(store_.database());
    store_.insert_run(run);
    if (tie) tie(run.id);
    submitted.seq = store_.append_event(submitted);
    txn.commit();
  }
  tell_watchers(submitted);
  if (held_queued_) held_queued_->push_back(run.id);
  else if (settings_.on_queued) settings_.on_queued(run.id);
  return {run.id, {}};
}

FieldErrors RunService::queue_full(uint32_t uid) const {
  const int64_t limit = settings_.queue.max_runs_per_user;
  const int64_t queued = store_.count_queued_runs(uid);
  if (queued < limit) return {};
  return {{"queue.max_runs_per_user",
           "uid " + std::to_string(uid) + " already has " + std::to_string(queued) +
               " runs queued, and maced queues at most " + std::to_string(limit) +
               " per user (queue.max_runs_per_user in its configuration); nothing was "
               "queued: wait for some to start, or cancel some"}};
}

SubmitOutcome RunService::replay(const std::string& run_id, int64_t until_iteration,
                                 const Caller& caller) {
  store::RunRecord original = controllable_run(run_id, caller, "replay");
  const uint32_t uid = caller.uid;
  // A replay records no cache entries of its own: its original's serve it too.
  while (!original.replay_of.empty()) {
    auto earlier = store_.find_run(original.replay_of);
    if (!earlier) break;
    original = *earlier;
  }
  // The replay is served what the original recorded (its spec's replay.from plays no part:
  // run/run_replay.cc), so the original must be the caller's to read now: an administrator's
  // replay of someone's run is no way into that run once they are no longer one.
  if (auto why = unreadable(original, caller))
    throw RequestError(RequestErrorKind::invalid, {"runId", "run " + run_id + " replays run " + original.id + ": " + *why});
  if (!is_final(original.state))
    return {"", {{"runId", "run " + original.id + " is still " +
                               std::string(to_string(original.state)) +
                               "; only a finished run can be replayed"}}};
  if (until_iteration < 0 || until_iteration > original.iterations)
    return {"", {{"untilIteration", "run " + original.id + " has " +
                                        std::to_string(original.iterations) +
                                        " iterations, got " + std::to_string(until_iteration)}}};
  if (FieldErrors errors = queue_full(uid); !errors.empty()) return {"", std::move(errors)};
  int64_t now = clock_();
  store::RunRecord replay = original;
  replay.id = ids_.next(now);
  replay.state = RunState::queued;
  replay.reason.clear();
  replay.backend = "replay";
  replay.submitted_by_uid = uid;
  replay.submitted_at_ms = now;
  replay.started_at_ms = 0;
  replay.finished_at_ms = 0;
  replay.replay_of = original.id;
  replay.replay_until = until_iteration;
  return queue(replay, "replay of " + original.id + " submitted by uid " + std::to_string(uid) +
                           (until_iteration > 0
                                ? ", until iteration " + std::to_string(until_iteration)
                                : std::string()));
}

store::RunRecord RunService::run(const std::string& run_id) const {
  auto found = store_.find_run(run_id);
  if (!found) throw RequestError(RequestErrorKind::not_found, {"runId", "no run named '" + id_for_message(run_id) + "'"});
  return *found;
}

std::optional<std::string> RunService::unreadable(const store::RunRecord& run,
                                                  const Caller& caller) const {
  if (caller.admin || caller.uid == run.submitted_by_uid ||
      settings_.others_see == OthersSee::everything)
    return std::nullopt;
  return "run " + run.id + " belongs to uid " + std::to_string(run.submitted_by_uid) +
         "; only its submitter and maced's administrators may read it (see access in maced's "
         "configuration)";
}

store::RunRecord RunService::readable_run(const std::string& run_id, const Caller& caller) const {
  store::RunRecord found = run(run_id);
  if (auto why = unreadable(found, caller)) throw RequestError(RequestErrorKind::not_permitted, {"runId", *why});
  return found;
}

store::RunRecord RunService::controllable_run(const std::string& run_id, const Caller& caller,
                                              std::string_view action) const {
  store::RunRecord found = run(run_id);
  if (caller.admin || caller.uid == found.submitted_by_uid) return found;
  throw RequestError(RequestErrorKind::not_permitted, {"runId", "run " + run_id + " was submitted by uid " +
                                   std::to_string(found.submitted_by_uid) + "; only that user " +
                                   "and maced's administrators may " + std::string(action) + " it"});
}

RunDetail RunService::detail(const std::string& run_id, const Caller& caller) const {
  RunDetail d;
  d.run = readable_run(run_id, caller);
  d.tasks = store_.tasks(run_id);
  d.diagnoses = store_.diagnoses(run_id);
  d.narrowing_builds = store_.narrowing_builds(run_id);
  d.post_mortem = store_.post_mortem(run_id);
  if (d.run.state == RunState::queued) d.queued_ahead = store_.count_queued_before(run_id);
  std::vector<FailedWorkload> failed;
  for (const auto& task : d.tasks)
    for (const auto& r : task.results)
      if (r.verdict != Verdict::pass)
        failed.push_back({task.iteration, task.task_id, r.workload, r.verdict, r.error_line});
  d.failure_groups = group_failures(failed);
  d.coverage = store_.task_coverage(run_id);
  d.waveforms = store_.waveforms(run_id);
  d.environment_json = store_.run_environment(run_id);
  return d;
}

store::RunMetrics RunService::metrics(const std::string& run_id, const Caller& caller) const {
  readable_run(run_id, caller);
  return store_.metrics(run_id, clock_());
}

std::vector<store::LlmCallRecord> RunService::llm_calls(const std::string& run_id,
                                                       const Caller& caller) const {
  readable_run(run_id, caller);
  return store_.llm_calls(run_id);
}

std::vector<store::EventRecord> RunService::events_after(const std::string& run_id,
                                                         int64_t after_seq, int64_t limit,
                                                         const Caller& caller) const {
  readable_run(run_id, caller);
  return store_.events_after(run_id, after_seq, limit);
}

std::vector<store::RunRecord> RunService::list(const store::RunFilter& filter) const {
  return store_.list_runs(filter);
}

std::vector<store::RunRecord> RunService::list(const store::RunFilter& filter,
                                               const Caller& caller) const {
  std::vector<store::RunRecord> runs = list(filter);
  for (auto& r : runs) show_only_what_caller_may_see(r, settings_.others_see, caller);
  return runs;
}

namespace {

// How many of `items` (already at most `page` of them, read with one more to tell whether
// more follow) fit in one answer; false in `more` when none follows.
template <typename Item>
std::size_t fitting(std::vector<Item>& items, std::size_t page, bool& more) {
  more = items.size() > page;
  if (more) items.resize(page);
  AnswerBudget budget;
  std::size_t fit = 0;
  while (fit < items.size() && budget.take(answer_bytes(items[fit]))) ++fit;
  if (fit < items.size()) more = true;
  items.resize(fit);
  return fit;
}

}  // namespace

namespace {

// Drops the first `from` items.
template <typename Item>
void skip(std::vector<Item>& items, int64_t from) {
  const auto n = static_cast<std::size_t>(std::clamp<int64_t>(from, 0, static_cast<int64_t>(items.size())));
  items.erase(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(n));
}

// Keeps of `items` what `budget` still takes; false when it took not all of them.
template <typename Item>
bool keep_what_fits(std::vector<Item>& items, AnswerBudget& budget) {
  std::size_t fit = 0;
  while (fit < items.size() && budget.take(answer_bytes(items[fit]))) ++fit;
  const bool all = fit == items.size();
  items.resize(fit);
  return all;
}

}  // namespace

RunDetail RunService::detail_page(const std::string& run_id, const DetailFrom& from,
                                  const Caller& caller) const {
  RunDetail d = detail(run_id, caller);
  d.run.reason = cut_for_answer(d.run.reason);
  if (d.post_mortem) {
    d.post_mortem->explanation = cut_for_answer(d.post_mortem->explanation);
    d.post_mortem->next_steps = cut_for_answer(d.post_mortem->next_steps);
  }
  skip(d.tasks, from.tasks);
  skip(d.narrowing_builds, from.narrowing_builds);
  skip(d.diagnoses, from.diagnoses);
  for (auto& task : d.tasks) task.rtl_edits = cut_for_answer(task.rtl_edits);
  for (auto& diagnosis : d.diagnoses) diagnosis.fix = cut_for_answer(diagnosis.fix);
  // The run-wide lists (its failures by signature, its coverage, its waveforms) come with
  // the first page only: each grows with the run's tasks, and the client keeps the first
  // page's.
  if (from.tasks > 0 || from.diagnoses > 0 || from.narrowing_builds > 0) {
    d.failure_groups.clear();
    d.coverage.clear();
    d.waveforms.clear();
  }
  AnswerBudget budget;
  budget.take(answer_bytes(d.run) + d.run.spec_json.size() + d.environment_json.size() +
              (d.post_mortem ? d.post_mortem->explanation.size() + d.post_mortem->next_steps.size() : 0));
  for (const auto& group : d.failure_groups) budget.take(answer_bytes(group));
  for (const auto& coverage : d.coverage) budget.take(answer_bytes(coverage));
  for (auto& waveform : d.waveforms) {
    waveform.problem = cut_for_answer(waveform.problem);
    waveform.note = cut_for_answer(waveform.note);
    budget.take(answer_bytes(waveform));
  }
  // Once one list is cut, the ones after it wait for the next page, so each list's next
  // index is where it stopped.
  const RunDetail all = d;
  bool whole = keep_what_fits(d.tasks, budget);
  if (!whole) d.narrowing_builds.clear();
  whole = whole && keep_what_fits(d.narrowing_builds, budget);
  if (!whole) d.diagnoses.clear();
  whole = whole && keep_what_fits(d.diagnoses, budget);
  // A page carries at least one item of what is left, however long the run's own texts
  // were, so that asking again always moves on (each is bounded, far under the limit).
  if (!whole && d.tasks.empty() && d.narrowing_builds.empty() && d.diagnoses.empty()) {
    if (!all.tasks.empty()) d.tasks.push_back(all.tasks.front());
    else if (!all.narrowing_builds.empty()) d.narrowing_builds.push_back(all.narrowing_builds.front());
    else d.diagnoses.push_back(all.diagnoses.front());
  }
  d.more = d.tasks.size() < all.tasks.size() || d.narrowing_builds.size() < all.narrowing_builds.size() ||
           d.diagnoses.size() < all.diagnoses.size();
  return d;
}

RunPage RunService::list_page(const store::RunFilter& filter, const Caller& caller) const {
  return list_runs_page(store_, settings_.others_see, filter, caller);
}

ReproFacts RunService::repro(const std::string& run_id, const ReproQuery& query, const Caller& caller) const {
  return repro_facts(store_, readable_run(run_id, caller), query);
}

FailureHistory RunService::failures(const FailureQuery& query, const Caller& caller) const {
  return failures_across_runs(store_, settings_.others_see, query, caller);
}

LogPage RunService::log_page(const std::string& run_id, int64_t after_seq, int64_t limit,
                             const Caller& caller) const {
  readable_run(run_id, caller);
  const int64_t page = limit > 0 ? std::min(limit, kMaxEventsPerAnswer) : kMaxEventsPerAnswer;
  auto events = store_.events_after(run_id, after_seq, page + 1);
  bool more = false;
  const auto fit = static_cast<int64_t>(fitting(events, static_cast<std::size_t>(page), more));
  LogPage out;
  if (more && fit > 0 && (limit == 0 || fit < limit)) out.next_after_seq = events.back().seq;
  out.lines = run_log(events);
  return out;
}

CallPage RunService::llm_call_page(const std::string& run_id, int64_t from,
                                   const Caller& caller) const {
  readable_run(run_id, caller);
  CallPage out;
  out.calls = store_.llm_calls(run_id, from, kMaxCallsPerAnswer + 1);
  for (auto& call : out.calls) {
    call.prompt_text = cut_for_answer(call.prompt_text);
    call.reply_text = cut_for_answer(call.reply_text);
  }
  bool more = false;
  const auto fit = fitting(out.calls, static_cast<std::size_t>(kMaxCallsPerAnswer), more);
  if (more) out.next = from + static_cast<int64_t>(fit);
  return out;
}

RunService::WatchToken RunService::watch(const std::string& run_id, int64_t after_seq,
                                         RunWatcher& watcher, const Caller& caller) {
  store::RunRecord current = readable_run(run_id, caller);
  // History and registration happen in one turn of the caller's thread, so no event can
  // fall between the two.
  for (const auto& event : store_.events_after(run_id, after_seq)) watcher.on_event(event);
  WatchToken token = next_token_++;
  if (is_final(current.state)) {
    watcher.on_done(current);
    return token;
  }
  watches_.emplace(token, Watch{run_id, &watcher});
  return token;
}

void RunService::unwatch(WatchToken token) { watches_.erase(token); }

CancelOutcome RunService::cancel(const std::string& run_id, const Caller& caller) {
  store::RunRecord current = controllable_run(run_id, caller, "cancel");
  if (is_final(current.state)) return {current.state, false};
  set_state(run_id, RunState::cancelled, "cancelled by uid " + std::to_string(caller.uid));
  if (settings_.on_cancelled) settings_.on_cancelled(run_id);
  return {RunState::cancelled, true};
}

void RunService::record_event(store::EventRecord event) {
  if (event.at_ms == 0) event.at_ms = clock_();
  event.seq = store_.append_event(event);
  tell_watchers(event);
}

void RunService::tell_watchers(const store::EventRecord& event) {
  // A watcher may unwatch itself (or others) while being told; walk a snapshot.
  std::vector<WatchToken> tokens;
  for (auto& [token, w] : watches_)
    if (w.run_id == event.run_id) tokens.push_back(token);
  for (WatchToken token : tokens) {
    auto it = watches_.find(token);
    if (it != watches_.end()) it->second.watcher->on_event(event);
  }
}

void RunService::set_state(const std::string& run_id, RunState state,
                           const std::string& reason) {
  if (!store_.set_run_state(run_id, state, reason, clock_()))
    throw RequestError(RequestErrorKind::not_found, {"runId", "no run named '" + id_for_message(run_id) + "'"});
  store::EventRecord changed;
  changed.run_id = run_id;
  changed.kind = EventKind::state_changed;
  changed.state = state;
  std::string name(to_string(state));
  // "cancelled by uid 0" already says which state it is.
  changed.message = reason.empty()                ? name
                    : reason.rfind(name, 0) == 0  ? reason
                                                  : name + ": " + reason;
  record_event(std::move(changed));
  if (is_final(state)) {
    finish_watchers(run_id);
    if (on_final_) on_final_(run_id);
  }
}

bool RunService::finish(const std::string& run_id, RunState state, const std::string& reason) {
  if (is_final(run(run_id).state)) return false;
  set_state(run_id, state, reason);
  return true;
}

RunService::SchedulerHold::SchedulerHold(RunService& service) : service_(service) {
  if (service_.held_queued_) throw std::logic_error("the scheduler is already held");
  service_.held_queued_.emplace();
}

RunService::SchedulerHold::~SchedulerHold() {
  if (held_) service_.held_queued_.reset();
}

void RunService::SchedulerHold::release() {
  if (!held_) return;
  held_ = false;
  std::vector<std::string> queued = std::move(*service_.held_queued_);
  service_.held_queued_.reset();
  if (service_.settings_.on_queued)
    for (const auto& run_id : queued) service_.settings_.on_queued(run_id);
}

void RunService::set_hooks(std::function<void(const std::string&)> on_queued,
                           std::function<void(const std::string&)> on_cancelled) {
  settings_.on_queued = std::move(on_queued);
  settings_.on_cancelled = std::move(on_cancelled);
}

void RunService::set_checkouts_source(std::string executor, CheckoutsSource source) {
  executor_ = std::move(executor);
  checkouts_source_ = std::move(source);
}

std::vector<CheckoutStatus> RunService::checkouts() const {
  return checkouts_source_ ? checkouts_source_() : std::vector<CheckoutStatus>{};
}

void RunService::finish_watchers(const std::string& run_id) {
  store::RunRecord final_run = run(run_id);
  std::vector<RunWatcher*> done;
  for (auto it = watches_.begin(); it != watches_.end();) {
    if (it->second.run_id == run_id) {
      done.push_back(it->second.watcher);
      it = watches_.erase(it);
    } else {
      ++it;
    }
  }
  for (RunWatcher* w : done) w->on_done(final_run);
}

std::map<RunState, int64_t> RunService::counts_by_state() const {
  return store_.count_runs_by_state();
}

std::vector<store::Store::QueuedRun> RunService::queued_runs() const {
  return store_.queued_runs();
}

}  // namespace mace::service
