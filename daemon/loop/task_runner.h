#pragma once
// What runs a run's tasks, as the loop sees it: the checkouts leased to the run, and tasks
// started on them. The loop decides which task goes on which checkout and when
// (loop/dispatcher.h); everything that takes time — a build, a simulation, a checkout
// another run still holds — happens behind this interface and is waited for with wait(),
// so the loop stays sequential and knows no thread. The executor (local or Slurm) and
// maced's checkout pool implement it (run/leased_runner.h).

#include <optional>
#include <string>
#include <vector>

#include "loop/task_job.h"

namespace mace::loop {

// A task that ended, as it was started.
struct FinishedTask {
  TaskJob job;
  TaskOutcome outcome;
};

// What ended a wait.
struct RunnerEvent {
  enum class Kind {
    task_finished,     // `finished` ended: passed, failed, or lost to the infrastructure
    checkouts_changed, // a checkout was granted: checkouts() has it
    no_checkout_left,  // the run holds none and none can be had (every node down): `why`
    interrupted,       // nothing ended; the run was cancelled, look again
  };
  Kind kind = Kind::interrupted;
  std::optional<FinishedTask> finished = {};
  std::string why = {};
};

class TaskRunner {
 public:
  virtual ~TaskRunner() = default;
  // The checkouts the run holds now, in the order it was given them.
  virtual std::vector<Slot> checkouts() const = 0;
  // How many checkouts the run could use now, in all. When that is more than it holds,
  // maced grants more as they come free (some may be granted before this returns, the
  // rest arrive as checkouts_changed events), fairly between users; never more than
  // `count`. Less than it holds takes nothing back: give_back does.
  virtual void want_checkouts(std::size_t count) = 0;
  // Returns a checkout that runs nothing of this run's to maced's pool.
  virtual void give_back(Slot slot) = 0;
  // Starts `job` on job.slot, a checkout the run holds that runs nothing now (REQ-EXEC-2).
  // Returns at once; the task's end is a task_finished event.
  virtual void start(int iteration, const TaskJob& job) = 0;
  // Blocks until something happens: a task ends, a checkout is granted, the run is
  // cancelled. Called only while a task runs or a checkout is wanted.
  virtual RunnerEvent wait() = 0;
};

}  // namespace mace::loop
