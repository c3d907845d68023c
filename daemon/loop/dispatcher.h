#pragma once
// How a set of tasks — one level of a plan, a failed task's narrowing rebuilds, designs to
// simulate again — goes onto the run's checkouts, whatever keeps them in order:
//
//   queue    (the default) a task starts as soon as a checkout is free. The longest
//            expected task starts first (expected from the model store and the build
//            history), and a task that needs a model another running task is building
//            waits for it instead of building it a second time on another checkout; without
//            a shared model store it then runs on the checkout that built it.
//   batches  the seeds' literal form (REQ-EXEC-2): the tasks in plan order, in batches of
//            one task per checkout the run holds, each batch waiting for its slowest task.
//
// Either way one checkout runs one task at a time (REQ-EXEC-2), and the run holds only what
// it can use: it asks maced for as many checkouts as it has tasks ready to start (at most
// the spec's `checkouts`) and gives back those it has nothing left for, keeping one.
//
// A task lost to the infrastructure (lost_to_infrastructure: its node went down or was
// drained, the job never got its node, the scheduler ended it) is not an outcome: it goes
// back to the front of the queue and runs again on another checkout, up to
// `infrastructure_retries` times; the checkout of a failed node is given back, and maced
// does not lease it again until the node is back. Sequential logic over the TaskRunner: no
// thread here.

#include <optional>
#include <string>
#include <vector>

#include "core/dispatch.h"
#include "loop/task_runner.h"

namespace mace::loop {

// What a task is expected to take before it starts, and the model it needs.
struct ExpectedTime {
  double seconds = 0;
  // The build ID of the model it builds or takes; "" when it is not known before the task
  // runs (an rtl task's agent decides its edits).
  std::string model = {};
  // The model is already built where every checkout finds it (the model store): nobody
  // needs to wait for it.
  bool model_ready = false;
  // Where the figure comes from, for the run's log ("the model store", "its last build").
  std::string basis = {};
};

struct DispatchSettings {
  Dispatch mode = Dispatch::queue;
  // The spec's `checkouts`: the most the run may hold; 0: as many as it has tasks ready.
  std::size_t max_checkouts = 0;
  // How often one task may be lost to the infrastructure and run again before the run
  // ends, naming what was lost.
  int infrastructure_retries = 3;
  // Whether a model one checkout built is found by every other (a model store is
  // configured). Without, a task that waited for another's model runs where it was built.
  bool models_shared = true;
  // Narrowing: once one job passes, start no other (the first that passes in order is the
  // smallest change explained, and every one before it has run).
  bool stop_after_a_pass = false;
};

// What the dispatcher asks of the loop and tells it, on the loop's own thread.
class DispatchCalls {
 public:
  virtual ~DispatchCalls() = default;
  virtual bool cancelled() = 0;
  // Fills in what depends on the moment the job starts (its time limits, from the budget
  // left). False: it cannot start (no time left), nor can anything after it.
  virtual bool prepare(TaskJob& job) = 0;
  // The job is ready but held back, and why; told again only when the reason changes.
  virtual void waiting(const TaskJob& /*job*/, const std::string& /*why*/) {}
  virtual void started(const TaskJob& /*job*/) {}
  virtual void finished(const TaskJob& /*job*/, const TaskOutcome& /*outcome*/) {}
  // The job's work was lost to the infrastructure; `next` says what happens now.
  virtual void lost(const TaskJob& /*job*/, const TaskOutcome& /*outcome*/,
                    const std::string& /*next*/) {}
};

struct DispatchResult {
  enum class End {
    done,              // every job ran to an outcome (or, narrowing, one passed)
    cancelled,
    out_of_time,       // prepare() refused a job: no time left to start it
    no_checkout_left,  // the run holds no checkout and none can be had
    infrastructure,    // a job was lost more often than infrastructure_retries allows
  };
  End end = End::done;
  // For no_checkout_left and infrastructure: what the infrastructure did, to end the run.
  std::string why = {};
  // One entry per job given, in that order: the job as it last ran and its outcome;
  // unset for a job that never ended (not started, or the dispatch was stopped).
  std::vector<std::optional<FinishedTask>> finished = {};
};

// Runs `jobs` (their `slot` is chosen here) on `runner`'s checkouts until each has an
// outcome or something stops the dispatch. `expected` has one entry per job, or none
// (every job alike: plan order).
DispatchResult dispatch(TaskRunner& runner, int iteration, const std::vector<TaskJob>& jobs,
                        const std::vector<ExpectedTime>& expected,
                        const DispatchSettings& settings, DispatchCalls& calls);

// Gives back every checkout the run holds beyond `count` (at least one is kept). Only
// between dispatches, when none runs a task.
void keep_checkouts(TaskRunner& runner, std::size_t count);

// "t3 (about 7 min, its last build), t1 (about 50 s, pico 1x1 builds), t2 (about 1 s, the
// model store)": a level's tasks in the order they go, for the run's log.
std::string describe_order(const std::vector<TaskJob>& jobs,
                           const std::vector<ExpectedTime>& expected);

// The order the queue starts `expected`'s tasks in: the longest first, plan order between
// equals.
std::vector<std::size_t> longest_first(const std::vector<ExpectedTime>& expected);

}  // namespace mace::loop
