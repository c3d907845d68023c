#pragma once
// The daemon's run bookkeeping, apart from RPC: accepting run specs, the record of each
// run's progress events, watchers that see a run's history then its live events, and
// cancellation. Every method is called from one thread (maced's event loop); the service
// itself knows nothing of sockets, threads or the loop.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/failure_signature.h"
#include "core/field_error.h"
#include "core/run_id.h"
#include "core/run_spec.h"
#include "service/caller.h"
#include "service/checkout_status.h"
#include "service/clock.h"
#include "service/queue_limits.h"
#include "service/run_event_log.h"
#include "service/failures_across_runs.h"
#include "service/run_listing.h"
#include "service/run_repro.h"
#include "store/store.h"

namespace mace::service {

struct SubmitOutcome {
  std::string run_id;  // empty when the spec was rejected
  FieldErrors errors;
};

// Which log of a run `mace logs --build | --sim` reads; see RunService::read_log.
struct LogQuery {
  int64_t iteration = 0;  // 0: the newest that has one
  std::string task_id;    // "": the newest task that has one
  std::string workload;   // "": the build's transcript; else that workload's sim.log
  // From where: offset >= 0, that byte; offset < 0, the start of the last `tail_lines`
  // lines (at most kMaxLogChunkBytes back from the end).
  int64_t offset = 0;
  int64_t tail_lines = 0;
  int64_t max_bytes = 0;  // capped at kMaxLogChunkBytes; 0: that cap
  // The offset was reached in the log while it was being written (a chunk not `kept`):
  // when the run's copy of it was cut, it is carried to the same place in the copy.
  bool offset_of_live = false;
  int64_t file_id = 0;  // one of the run's log files by its id (log_files); 0: as above
};

// A piece of a log: the caller asks again from offset + data.size() for more.
struct LogChunk {
  bool found = false;      // the log is recorded (a task not yet started has none)
  std::string path;
  std::string data;
  int64_t offset = 0;      // of data's first byte
  int64_t size = 0;        // of the whole file when it was read
  bool run_final = false;  // taken before the read: a final run's log grows no more
  bool kept = false;       // read from the run's own copy (else from where it is written)
  // For people: why a recorded log is not served (removed by the retention rule), or what
  // to know about what is (read from where it was written, not from the run's copy).
  std::string note;
};

// For people: when and why the retention rule removed a log file, or why it was never
// kept with its run; "" for one that is kept, or is still being written.
std::string log_file_note(const store::LogFileRecord& file, bool run_final);

// The most of a log one answer carries, so that a gigabyte sim.log costs maced and mace
// one MiB at a time.
inline constexpr int64_t kMaxLogChunkBytes = 1 << 20;

// Everything `mace status RUN` shows of one run.
struct RunDetail {
  store::RunRecord run;
  std::vector<store::TaskRecord> tasks;
  std::vector<store::DiagnosisRecord> diagnoses;
  std::vector<store::NarrowingBuildRecord> narrowing_builds;
  std::optional<store::PostMortemRecord> post_mortem;
  int64_t queued_ahead = 0;  // a queued run: the queued runs submitted before it
  // Every simulated workload of the run that did not pass, by failure signature.
  std::vector<FailureGroup> failure_groups;
  // Each task's coverage merged over its workloads (a spec with coverage).
  std::vector<store::TaskCoverageRecord> coverage;
  // Each failed task's waveform, or why it has none.
  std::vector<store::WaveformRecord> waveforms;
  std::string environment_json;  // what it ran in (run/run_environment.h); "" before it started
  // detail_page: one of the lists goes on beyond this page.
  bool more = false;
};

// Where a page of a run's detail starts in each of its lists.
struct DetailFrom {
  int64_t tasks = 0;
  int64_t diagnoses = 0;
  int64_t narrowing_builds = 0;
};

// One page of a run's log, of its LLM calls (answer_pages.h; a listing's: run_listing.h):
// what fits in one answer, and where the next page starts.
struct LogPage {
  std::vector<RunLogLine> lines;
  int64_t next_after_seq = 0;  // after_seq of the next page; 0: none follows
};
struct CallPage {
  std::vector<store::LlmCallRecord> calls;  // a prompt or reply over kMaxCallTextBytes cut
  int64_t next = 0;                         // the index of the next page's first call; 0: none
};

struct CancelOutcome {
  RunState state;
  bool changed;
};

// Receives one run's events in seq order, then `on_done` once when the run is final.
class RunWatcher {
 public:
  virtual ~RunWatcher() = default;
  virtual void on_event(const store::EventRecord& event) = 0;
  virtual void on_done(const store::RunRecord& run) = 0;
};

// From maced's configuration.
struct ServiceSettings {
  // What a run gets when its spec leaves backend or model out.
  std::string backend = "vertex";  // REQ-PLAT-7
  std::string model;               // empty: the backend's own default
  // What a caller sees of runs others submitted (caller.h).
  OthersSee others_see = OthersSee::queue;
  // Whether a run's LLM backend can be used at all (known, its credentials or CLI
  // present), so a submit fails at once instead of the run an hour later. Returns the
  // problem. Unset: every backend is accepted. Never asked about `direct`, which calls no
  // LLM.
  std::function<std::optional<std::string>(const std::string& backend, const std::string& model)>
      check_backend;
  // The tools maced's configuration declares (MacedConfig::tools), by name. A spec naming
  // any other is refused at submit (REQ-EXEC-7); with none, a spec may name no tool.
  std::vector<std::string> tool_names;
  // Whether every gate workload of a spec can be found where sims will look (maced's
  // workloads directory, each checkout's diags): the problems, each naming its
  // `workloads[i]`. Unset: workloads are not checked before the run.
  std::function<FieldErrors(const RunSpec& spec)> check_workloads;
  // How many runs and evaluation jobs one user may have queued (queue_limits.h).
  QueueLimits queue;
  // Why no run can start on this maced, when none can (every configured checkout was refused
  // at start): a submit is then refused with it, instead of a run queued for ever. Empty:
  // runs can start (or no checkout is configured at all, and the queue waits for one).
  std::string no_checkout_can_run;
  // Told after a run is queued, and after one is cancelled: the scheduler starts queued
  // runs and stops a cancelled one's builds and simulations.
  std::function<void(const std::string& run_id)> on_queued;
  std::function<void(const std::string& run_id)> on_cancelled;
};

class RunService {
 public:
  RunService(store::Store& store, ServiceSettings settings = {}, Clock clock = system_now_ms);

  // The caller submits: it owns the run, and every run the spec names (replay.from) must
  // be one it may read.
  SubmitOutcome submit_json(std::string_view spec_json, const Caller& caller);
  // What submit would refuse of `spec`, without queueing anything (`mace spec check`).
  FieldErrors check(const RunSpec& spec, const Caller& caller) const;
  // Its gate workloads alone (ServiceSettings::check_workloads): an evaluation suite's
  // tasks are checked so before a batch is queued.
  FieldErrors check_workloads(const RunSpec& spec) const {
    return settings_.check_workloads ? settings_.check_workloads(spec) : FieldErrors{};
  }
  SubmitOutcome submit(const RunSpec& spec, const Caller& caller);
  // As submit, with `tie(run_id)` run in the same store transaction as the run's insert:
  // the evaluation harness records the job a run belongs to, so a crash between the two
  // cannot leave a run no job knows (REQ-EVAL-3). The run is uid's; the runs its spec
  // names must exist, but whether uid may read them was checked when the batch was
  // submitted (EvalService::submit, with check_named_runs), by a caller maced knew then.
  using Tie = std::function<void(const std::string& run_id)>;
  SubmitOutcome submit_tied(const RunSpec& spec, uint32_t uid, const Tie& tie);
  // The runs a spec names (replay.from), each refused at its field when no run has that
  // id or when the caller may not read it: a replay is served from what the run it names
  // recorded (its builds, verdicts, LLM replies), so naming a run is reading it.
  FieldErrors check_named_runs(const RunSpec& spec, const Caller& caller) const;

  // Queues a replay of a finished run (`mace replay RUN [--until N]`): a new run of the
  // caller with the original's spec, backend "replay" and replay_of pointing at the
  // original, or at the original's own original when it is itself a replay. Refused in
  // `errors`: a run still queued or running, and an until_iteration beyond the original's
  // iterations. Throws RequestError when no run has that id, or when the caller may not
  // control it (only its submitter and administrators may: a replay reads all of it).
  SubmitOutcome replay(const std::string& run_id, int64_t until_iteration, const Caller& caller);

  // maced's own reads, unchecked: the scheduler's and a run's. Throws RequestError when no
  // run has that id.
  store::RunRecord run(const std::string& run_id) const;
  std::vector<store::RunRecord> list(const store::RunFilter& filter) const;

  // What a caller asks to see. Each throws RequestError when no run has that id, or when
  // the run's contents are not the caller's to read (caller.h).
  RunDetail detail(const std::string& run_id, const Caller& caller) const;
  store::RunMetrics metrics(const std::string& run_id, const Caller& caller) const;
  // The run's LLM call attempts, oldest first.
  std::vector<store::LlmCallRecord> llm_calls(const std::string& run_id, const Caller& caller) const;
  std::vector<store::EventRecord> events_after(const std::string& run_id, int64_t after_seq,
                                               int64_t limit, const Caller& caller) const;
  // A piece of a build log or a sim.log of the run (service/run_logs.cc): its copy in the
  // run's evidence once kept, where it is written until then. Throws RequestError naming
  // the field at fault when the file cannot be read.
  LogChunk read_log(const std::string& run_id, const LogQuery& query, const Caller& caller) const;
  // Every log file of the run, its narrowing rebuilds' included, oldest first.
  std::vector<store::LogFileRecord> log_files(const std::string& run_id, const Caller& caller) const;
  // The runs `filter` selects, each with what the caller may see of it: others' runs
  // show no contents (objective, workloads, reason) unless others see everything.
  std::vector<store::RunRecord> list(const store::RunFilter& filter, const Caller& caller) const;

  // What the API answers, a page at a time. list_page: the runs of list(filter, caller)
  // from filter.before on, up to its limit. log_page: the run's log (run_event_log.h) from
  // after_seq on, up to `limit` events (0: all). llm_call_page: its calls from the one at
  // index `from`. Each throws as detail() does.
  RunPage list_page(const store::RunFilter& filter, const Caller& caller) const;
  // One recorded simulation of a run `caller` may read, for `mace repro` (run_repro.h).
  ReproFacts repro(const std::string& run_id, const ReproQuery& query, const Caller& caller) const;
  // Failure signatures across the runs `caller` may read (failures_across_runs.h).
  FailureHistory failures(const FailureQuery& query, const Caller& caller) const;
  // detail(run_id, caller) from `from` on in each list, as much as fits one answer (the
  // tasks first, then the narrowing builds, then the diagnoses), with `more` set when any
  // list goes on; its long texts cut (answer_pages.h).
  RunDetail detail_page(const std::string& run_id, const DetailFrom& from,
                        const Caller& caller) const;
  LogPage log_page(const std::string& run_id, int64_t after_seq, int64_t limit,
                   const Caller& caller) const;
  CallPage llm_call_page(const std::string& run_id, int64_t from, const Caller& caller) const;

  // Delivers every recorded event after `after_seq` to `watcher` at once, then live ones;
  // `on_done` follows at once when the run is already final. The watcher must stay alive
  // until `unwatch(token)` or until `on_done` returned. Throws as detail() does.
  using WatchToken = uint64_t;
  WatchToken watch(const std::string& run_id, int64_t after_seq, RunWatcher& watcher,
                   const Caller& caller);
  void unwatch(WatchToken token);

  // Only the run's submitter and administrators may cancel it.
  CancelOutcome cancel(const std::string& run_id, const Caller& caller);
  // Throws the RequestError cancel would, changing nothing: a request that cancels several
  // runs checks them all before it cancels any.
  void check_may_cancel(const std::string& run_id, const Caller& caller) const {
    controllable_run(run_id, caller, "cancel");
  }

  // For the run loop: record a progress event, or a change of state, and tell watchers.
  void record_event(store::EventRecord event);
  void set_state(const std::string& run_id, RunState state, const std::string& reason);
  // As set_state, but leaves a run that is already final alone (a run cancelled while
  // its loop was finishing stays cancelled). Returns whether the state changed.
  bool finish(const std::string& run_id, RunState state, const std::string& reason);

  // While one is alive, the scheduler hears of no queued run until it is released: a caller
  // that queues a run inside a store transaction of its own (an evaluation batch with its
  // first job's run) tells the scheduler once that transaction committed, and never when
  // it did not, since the run then does not exist.
  class SchedulerHold {
   public:
    explicit SchedulerHold(RunService& service);
    ~SchedulerHold();  // not released: the held runs are forgotten
    SchedulerHold(const SchedulerHold&) = delete;
    SchedulerHold& operator=(const SchedulerHold&) = delete;
    // Tells the scheduler of every run queued while held.
    void release();

   private:
    RunService& service_;
    bool held_ = true;
  };

  void set_hooks(std::function<void(const std::string&)> on_queued,
                 std::function<void(const std::string&)> on_cancelled);
  // Told after a run reached a final state (the evaluation harness starts its next job).
  void set_on_final(std::function<void(const std::string& run_id)> on_final) {
    on_final_ = std::move(on_final);
  }

  // The executor ("local" or "slurm") and each checkout as it is now, from whoever owns
  // the checkouts (maced's supervisor). Who holds a checkout is queue information, which
  // every caller sees (caller.h). Empty until a source is set.
  using CheckoutsSource = std::function<std::vector<CheckoutStatus>()>;
  void set_checkouts_source(std::string executor, CheckoutsSource source);
  std::string executor() const { return executor_; }
  OthersSee others_see() const { return settings_.others_see; }
  const QueueLimits& queue_limits() const { return settings_.queue; }
  std::vector<CheckoutStatus> checkouts() const;

  // Counts of runs by state, for maced's status line.
  std::map<RunState, int64_t> counts_by_state() const;
  // The queued runs, oldest first, as the scheduler needs them.
  std::vector<store::Store::QueuedRun> queued_runs() const;

 private:
  // `reader`: who must be able to read the runs the spec names; null when that was
  // checked before (submit_tied).
  SubmitOutcome accept(const RunSpec& spec, uint32_t uid, const Caller* reader, const Tie& tie = {});
  // What maced refuses of a valid spec before it is queued: tools, replay.from, gate
  // workloads, the backend. Fills the run's backend and model.
  FieldErrors refusals(const RunSpec& spec, const Caller* reader, store::RunRecord& run) const;
  // Records `run` as queued with its `submitted` event, in one transaction with `tie`: a
  // submit either is recorded whole or leaves nothing. Then tells watchers and the scheduler.
  SubmitOutcome queue(const store::RunRecord& run, std::string message, const Tie& tie = {});
  // The refusal of one more run of `uid` when it already has queue.max_runs_per_user
  // queued; empty otherwise.
  FieldErrors queue_full(uint32_t uid) const;
  // Tells the run's watchers of an event already in the store.
  void tell_watchers(const store::EventRecord& event);
  // Why the caller may not read the run's contents; nullopt when it may.
  std::optional<std::string> unreadable(const store::RunRecord& run, const Caller& caller) const;
  void finish_watchers(const std::string& run_id);
  // The run, when the caller may read its contents; else RequestError saying why.
  store::RunRecord readable_run(const std::string& run_id, const Caller& caller) const;
  // The run, when the caller may cancel or replay it; else RequestError saying why.
  store::RunRecord controllable_run(const std::string& run_id, const Caller& caller,
                                    std::string_view action) const;

  store::Store& store_;
  ServiceSettings settings_;
  Clock clock_;
  RunIdGenerator ids_;
  struct Watch {
    std::string run_id;
    RunWatcher* watcher;
  };
  std::map<WatchToken, Watch> watches_;
  std::string executor_ = "local";
  CheckoutsSource checkouts_source_;
  WatchToken next_token_ = 1;
  // Set while a SchedulerHold is alive: the runs queued meanwhile.
  std::optional<std::vector<std::string>> held_queued_;
  std::function<void(const std::string&)> on_final_;
};

}  // namespace mace::service
