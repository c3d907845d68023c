#include "loop/dispatcher.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

namespace mace::loop {
namespace {

using End = DispatchResult::End;

std::string about(double seconds) {
  if (seconds < 1) return "under 1 s";
  if (seconds < 90) return "about " + std::to_string(static_cast<long>(std::lround(seconds))) + " s";
  return "about " + std::to_string(static_cast<long>(std::lround(seconds / 60))) + " min";
}

std::string times(int n) { return std::to_string(n) + (n == 1 ? " time" : " times"); }

// One job and where it is.
struct Entry {
  TaskJob job;
  ExpectedTime expected;
  enum class State { pending, running, done } state = State::pending;
  int losses = 0;
  std::optional<Slot> lost_on;
  std::string said;  // the waiting reason last told
};

class Dispatcher {
 public:
  Dispatcher(TaskRunner& runner, int iteration, const std::vector<TaskJob>& jobs,
             const std::vector<ExpectedTime>& expected, const DispatchSettings& settings,
             DispatchCalls& calls)
      : runner_(runner), iteration_(iteration), settings_(settings), calls_(calls) {
    for (std::size_t i = 0; i < jobs.size(); ++i)
      entries_.push_back({.job = jobs[i],
                          .expected = i < expected.size() ? expected[i] : ExpectedTime{},
                          .state = Entry::State::pending,
                          .losses = 0,
                          .lost_on = std::nullopt,
                          .said = ""});
    if (settings_.mode == Dispatch::queue && expected.size() == jobs.size()) {
      order_ = longest_first(expected);
    } else {
      order_.resize(jobs.size());
      std::iota(order_.begin(), order_.end(), std::size_t{0});
    }
    result_.finished.resize(jobs.size());
  }

  DispatchResult run() {
    while (true) {
      if (!stopping_ && calls_.cancelled()) stop(End::cancelled, "");
      if (!stopping_) {
        ask_for_checkouts();
        if (settings_.mode == Dispatch::queue) start_queue(); else start_batch();
        give_back_surplus();
        tell_waiting();
      }
      // Nothing runs and something is pending: a checkout was asked for, and either comes
      // or the runner says none is left.
      if (running_.empty() && (stopping_ || pending() == 0)) break;
      handle(runner_.wait());
    }
    return std::move(result_);
  }

 private:
  std::size_t pending() const {
    return static_cast<std::size_t>(std::count_if(entries_.begin(), entries_.end(), [](const Entry& e) {
      return e.state == Entry::State::pending;
    }));
  }

  // The running entry building the model `e` needs, when `e` should wait for it.
  const Entry* builder_of(const Entry& e) const {
    if (settings_.mode != Dispatch::queue || e.expected.model.empty() || e.expected.model_ready)
      return nullptr;
    for (const auto& [slot, index] : running_) {
      const Entry& other = entries_[index];
      if (other.expected.model == e.expected.model && !other.expected.model_ready) return &other;
    }
    return nullptr;
  }

  std::size_t startable() const {
    std::size_t n = 0;
    for (const Entry& e : entries_) n += e.state == Entry::State::pending && !builder_of(e);
    return n;
  }

  std::size_t capped(std::size_t count) const {
    if (settings_.max_checkouts > 0) count = std::min(count, settings_.max_checkouts);
    return std::max<std::size_t>(count, 1);
  }

  // What the run could use now: a checkout for each task running or ready to start.
  std::size_t wanted() const {
    const std::size_t ready = settings_.mode == Dispatch::queue ? startable() : pending();
    return capped(running_.size() + ready);
  }

  // Told whenever it changes, also downwards, so maced grants nothing the run cannot use.
  void ask_for_checkouts() {
    const std::size_t want = pending() == 0 ? std::max<std::size_t>(running_.size(), 1) : wanted();
    if (want == wanted_) return;
    wanted_ = want;
    runner_.want_checkouts(want);
  }

  std::vector<Slot> free_slots() const {
    std::vector<Slot> out;
    for (Slot slot : runner_.checkouts())
      if (!running_.count(slot)) out.push_back(slot);
    return out;
  }

  // The next task for `slot`: one whose model this checkout built (when models are not
  // shared), else the first in order that is not waiting on a model, preferring one that
  // was not just lost on this very checkout when another is free for it.
  std::optional<std::size_t> choose(Slot slot, std::size_t free_count) const {
    std::optional<std::size_t> first, elsewhere_lost;
    for (std::size_t index : order_) {
      const Entry& e = entries_[index];
      if (e.state != Entry::State::pending || builder_of(e)) continue;
      if (!settings_.models_shared && !e.expected.model.empty()) {
        auto it = built_on_.find(e.expected.model);
        if (it != built_on_.end() && it->second == slot) return index;
      }
      if (e.lost_on == slot && free_count > 1) {
        if (!elsewhere_lost) elsewhere_lost = index;
        continue;
      }
      if (!first) first = index;
    }
    return first ? first : elsewhere_lost;
  }

  void start_queue() {
    std::vector<Slot> free = free_slots();
    for (std::size_t i = 0; i < free.size() && !stopping_; ++i) {
      auto index = choose(free[i], free.size() - i);
      if (index) start(*index, free[i]);
    }
  }

  // REQ-EXEC-2 as the seeds have it: only when the batch before has ended, the next tasks
  // in plan order, the i-th on the i-th checkout.
  void start_batch() {
    if (!running_.empty()) return;
    std::vector<Slot> free = free_slots();
    std::size_t next = 0;
    for (std::size_t index : order_) {
      if (next >= free.size() || stopping_) break;
      if (entries_[index].state == Entry::State::pending) start(index, free[next++]);
    }
  }

  void start(std::size_t index, Slot slot) {
    Entry& e = entries_[index];
    TaskJob job = e.job;
    job.slot = slot;
    if (!calls_.prepare(job)) {
      stop(End::out_of_time, "");
      return;
    }
    e.job = job;
    e.state = Entry::State::running;
    e.said.clear();
    running_[slot] = index;
    runner_.start(iteration_, job);
    calls_.started(job);
  }

  // Checkouts the run holds and has nothing left for go back to the pool, the most
  // recently granted first; one is always kept.
  void give_back_surplus() {
    if (pending() > 0 && settings_.mode == Dispatch::batches) return;  // the next batch's
    const std::size_t keep = pending() == 0 ? std::max<std::size_t>(running_.size(), 1) : wanted();
    std::vector<Slot> held = runner_.checkouts();
    std::size_t count = held.size();
    for (auto it = held.rbegin(); it != held.rend() && count > keep; ++it) {
      if (running_.count(*it)) continue;
      runner_.give_back(*it);
      --count;
    }
  }

  std::string no_free_checkout() const {
    const std::size_t held = runner_.checkouts().size();
    if (held == 0) return "waiting for a checkout (the run holds none; asked of maced)";
    std::string why = held == 1 ? "waiting for a free checkout (the run's only checkout is busy"
                                : "waiting for a free checkout (all " + std::to_string(held) +
                                      " of the run's checkouts are busy";
    if (settings_.max_checkouts > 0 && held >= settings_.max_checkouts)
      why += "; its spec allows " + std::to_string(settings_.max_checkouts);
    else
      why += "; more asked of maced";
    return why + ")";
  }

  std::string waiting_reason(const Entry& e) const {
    std::string why;
    if (const Entry* builder = builder_of(e)) {
      why = "waiting for the model task " + builder->job.task.id + " is building (" + e.expected.model + ")";
    } else if (settings_.mode == Dispatch::batches && !running_.empty()) {
      why = "waiting for the batch under way to end";
    } else {
      why = no_free_checkout();
    }
    if (e.losses > 0) why = "lost to the infrastructure, " + why;
    return why;
  }

  void tell_waiting() {
    for (std::size_t index : order_) {
      Entry& e = entries_[index];
      if (e.state != Entry::State::pending) continue;
      std::string why = waiting_reason(e);
      if (why == e.said) continue;
      e.said = why;
      calls_.waiting(e.job, why);
    }
  }

  void handle(const RunnerEvent& event) {
    switch (event.kind) {
      case RunnerEvent::Kind::task_finished:
        if (event.finished) finished(*event.finished);
        break;
      case RunnerEvent::Kind::no_checkout_left:
        stop(End::no_checkout_left, event.why);
        break;
      case RunnerEvent::Kind::checkouts_changed:
      case RunnerEvent::Kind::interrupted:
        break;
    }
  }

  void finished(const FinishedTask& done) {
    auto it = running_.find(done.job.slot);
    if (it == running_.end()) return;  // not one of ours: nothing to do with it
    const std::size_t index = it->second;
    running_.erase(it);
    Entry& e = entries_[index];
    if (lost_to_infrastructure(done.outcome.failure_reason) && !stopping_ && lost_again(e, done))
      return;
    e.state = Entry::State::done;
    result_.finished[index] = done;
    if (done.outcome.built && !done.outcome.build_id.empty())
      built_on_[done.outcome.build_id] = done.job.slot;
    calls_.finished(done.job, done.outcome);
    if (settings_.stop_after_a_pass && done.outcome.passed) stop(End::done, "");
  }

  // A job lost to the infrastructure: queued again, unless it was lost too often. True
  // when it is queued again.
  bool lost_again(Entry& e, const FinishedTask& done) {
    ++e.losses;
    const std::string what = !done.outcome.lost_detail.empty() ? done.outcome.lost_detail
                             : !done.outcome.evidence.empty()   ? done.outcome.evidence.front()
                                                                : std::string(to_string(done.outcome.failure_reason));
    if (e.losses > settings_.infrastructure_retries) {
      calls_.lost(done.job, done.outcome, "not run again: lost " + times(e.losses));
      stop(End::infrastructure, "task " + done.job.task.id + " was lost to the infrastructure " +
                                    times(e.losses) +
                                    " (the limit is " + std::to_string(settings_.infrastructure_retries) +
                                    " retries); the last time: " + what);
      return false;
    }
    e.state = Entry::State::pending;
    e.lost_on = done.job.slot;
    // Its place in the queue comes first: it was the first to start.
    std::erase(order_, static_cast<std::size_t>(&e - entries_.data()));
    order_.insert(order_.begin(), static_cast<std::size_t>(&e - entries_.data()));
    std::string next = "run again on another checkout (retry " + std::to_string(e.losses) + " of " +
                       std::to_string(settings_.infrastructure_retries) + ")";
    // A failed node takes no work: its checkout goes back, and maced leases it again only
    // once the node is back.
    if (done.outcome.failure_reason == FailureReason::node_failure) {
      runner_.give_back(done.job.slot);
      next += "; its checkout is given back until its node is back";
      wanted_ = 0;  // ask again for what the run needs now
    }
    calls_.lost(done.job, done.outcome, next);
    return true;
  }

  void stop(End end, std::string why) {
    if (stopping_) return;
    stopping_ = true;
    result_.end = end;
    result_.why = std::move(why);
  }

  TaskRunner& runner_;
  const int iteration_;
  const DispatchSettings& settings_;
  DispatchCalls& calls_;
  std::vector<Entry> entries_;
  std::vector<std::size_t> order_;       // entries in the order they go
  std::map<Slot, std::size_t> running_;  // checkout -> the entry running on it
  std::map<std::string, Slot> built_on_; // model -> the checkout that last built it
  std::size_t wanted_ = 0;               // what the runner was last asked for
  bool stopping_ = false;
  DispatchResult result_;
};

}  // namespace

DispatchResult dispatch(TaskRunner& runner, int iteration, const std::vector<TaskJob>& jobs,
                        const std::vector<ExpectedTime>& expected,
                        const DispatchSettings& settings, DispatchCalls& calls) {
  return Dispatcher(runner, iteration, jobs, expected, settings, calls).run();
}

void keep_checkouts(TaskRunner& runner, std::size_t count) {
  count = std::max<std::size_t>(count, 1);
  std::vector<Slot> held = runner.checkouts();
  runner.want_checkouts(std::min(count, std::max<std::size_t>(held.size(), 1)));
  for (std::size_t i = held.size(); i > count; --i) runner.give_back(held[i - 1]);
}

std::vector<std::size_t> longest_first(const std::vector<ExpectedTime>& expected) {
  std::vector<std::size_t> order(expected.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return expected[a].seconds > expected[b].seconds;
  });
  return order;
}

std::string describe_order(const std::vector<TaskJob>& jobs,
                           const std::vector<ExpectedTime>& expected) {
  std::string out;
  for (std::size_t index : longest_first(expected)) {
    if (index >= jobs.size()) continue;
    if (!out.empty()) out += ", ";
    out += jobs[index].task.id + " (" + about(expected[index].seconds);
    if (!expected[index].basis.empty()) out += ", " + expected[index].basis;
    out += ")";
  }
  return out;
}

}  // namespace mace::loop
