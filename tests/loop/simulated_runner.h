#pragma once
// A TaskRunner on a clock of its own, for the loop's tests: a pool of `pool` checkouts
// (slots 0, 1, ...) granted as the loop asks for them, each started task taking
// duration(job) and ending then — the earliest end first, ties in start order — with
// outcome(job). A checkout in `down` is never granted; a task started on one is lost to
// the infrastructure (node_failure). Everything it did is kept for the test to look at.

#include <algorithm>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "loop/task_runner.h"

namespace mace::loop::testing {

class SimulatedRunner : public TaskRunner {
 public:
  explicit SimulatedRunner(std::size_t pool = 1) : pool(pool) {}

  std::size_t pool;
  std::set<Slot> down;
  std::function<TaskOutcome(int iteration, const TaskJob& job)> outcome;  // default: passes
  std::function<double(const TaskJob& job)> duration;                    // default: 1
  std::function<void(const TaskJob& job)> on_start;

  struct Ran {
    TaskJob job;
    double start = 0;
    double end = 0;
    TaskOutcome outcome;
  };
  std::vector<Ran> ran;             // in start order
  std::vector<std::string> starts;  // "task@slot", narrowing rebuilds "task/what@slot"
  std::vector<std::size_t> wants;   // every want_checkouts(count)
  std::vector<Slot> given_back;
  double now = 0;

  double makespan() const {
    double end = 0;
    for (const auto& r : ran) end = std::max(end, r.end);
    return end;
  }

  std::vector<Slot> checkouts() const override { return held_; }

  void want_checkouts(std::size_t count) override {
    wants.push_back(count);
    wanted_ = count;
    grant();
  }

  void give_back(Slot slot) override {
    std::erase(held_, slot);
    given_back.push_back(slot);
    grant();
  }

  void start(int iteration, const TaskJob& job) override {
    if (on_start) on_start(job);
    Ran r{job, now, now + (duration ? duration(job) : 1.0), {}};
    if (down.count(job.slot)) {
      r.end = now;
      r.outcome.task_id = job.task.id;
      r.outcome.failure_reason = FailureReason::node_failure;
      r.outcome.lost_detail = "Slurm job 17 on node n" + std::to_string(job.slot) +
                              " ended NODE_FAIL: the node failed";
    } else if (outcome) {
      r.outcome = outcome(iteration, job);
    } else {
      r.outcome = {job.task.id, true, true, FailureReason::none, {{"hello", Verdict::pass}}, {}};
    }
    starts.push_back(job.task.id + (job.narrowing.empty() ? "" : "/" + job.narrowing) + "@" +
                     std::to_string(job.slot));
    running_.push_back(ran.size());
    ran.push_back(std::move(r));
  }

  RunnerEvent wait() override {
    if (running_.empty()) {
      if (held_.empty()) return {.kind = RunnerEvent::Kind::no_checkout_left, .why = "every node is down"};
      return {.kind = RunnerEvent::Kind::interrupted};
    }
    auto next = std::min_element(running_.begin(), running_.end(), [&](std::size_t a, std::size_t b) {
      return ran[a].end < ran[b].end;
    });
    const std::size_t index = *next;
    running_.erase(next);
    now = std::max(now, ran[index].end);
    return {.kind = RunnerEvent::Kind::task_finished,
            .finished = FinishedTask{ran[index].job, ran[index].outcome}};
  }

 private:
  void grant() {
    for (Slot slot = 0; slot < pool && held_.size() < wanted_; ++slot)
      if (!down.count(slot) && std::find(held_.begin(), held_.end(), slot) == held_.end())
        held_.push_back(slot);
  }

  std::vector<Slot> held_;
  std::vector<std::size_t> running_;  // indexes into `ran`
  std::size_t wanted_ = 1;
};

}  // namespace mace::loop::testing
