#pragma once
// The loop's TaskRunner for a run under maced: the executor runs each task on a checkout
// the run holds; checkouts are asked of maced's pool and given back to it through the
// run's lease; task ends and grants come back through the run's mailbox, in order.

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "executor/local_executor.h"
#include "loop/task_runner.h"
#include "openpiton/checkout.h"
#include "os/cancel_token.h"
#include "run/run_mailbox.h"
#include "service/checkout_pool.h"

namespace mace::run {

// A run's line to the checkout pool. maced's supervisor makes one for each run it starts:
// `want` and `give_back` reach the pool on maced's thread, and what the pool grants the
// run arrives in `mailbox`.
struct RunLease {
  std::vector<RunMailbox::Granted> held;  // what the run starts with
  std::shared_ptr<RunMailbox> mailbox = std::make_shared<RunMailbox>();
  // Asks for `count` checkouts in all; returns once what is free now is granted (in the
  // mailbox); the rest comes later, or a NoneLeft.
  std::function<void(std::size_t count)> want;
  std::function<void(std::size_t index)> give_back;
};

// A lease over `checkouts` for one run alone (no other run shares them): it starts with
// the first and is granted the others as it asks.
RunLease own_checkouts(const std::vector<service::PooledCheckout>& checkouts);

class LeasedRunner final : public loop::TaskRunner {
 public:
  // The checkout the executor uses for one of the pool: its commands here, or as Slurm
  // jobs on its node.
  using Place = std::function<openpiton::Checkout(const service::PooledCheckout&)>;
  // Told of each checkout the run is given, before anything runs on it (an evaluation job
  // makes it ready). May throw, which ends the run.
  using Taken = std::function<void(const openpiton::Checkout&)>;

  LeasedRunner(executor::LocalExecutor& executor, RunLease lease, Place place, Taken taken,
               const os::CancelToken& cancel);

  std::vector<loop::Slot> checkouts() const override;
  void want_checkouts(std::size_t count) override;
  void give_back(loop::Slot slot) override;
  void start(int iteration, const loop::TaskJob& job) override;
  loop::RunnerEvent wait() override;

  // The checkouts held now, as the executor uses them.
  std::vector<openpiton::Checkout> held() const;

 private:
  void take(const RunMailbox::Granted& granted);
  // A grant is taken (and is a checkouts_changed event); the rest become their events.
  loop::RunnerEvent receive(RunMailbox::Message message);

  executor::LocalExecutor& executor_;
  RunLease lease_;
  Place place_;
  Taken taken_;
  const os::CancelToken& cancel_;
  std::vector<std::pair<loop::Slot, openpiton::Checkout>> held_;  // in the order given
  std::deque<loop::RunnerEvent> early_;  // met while taking grants, not waited for yet
};

}  // namespace mace::run
