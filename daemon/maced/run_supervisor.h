#pragma once
// Starts queued runs when checkouts are free and runs each one's loop on a thread of its
// own: the loop is sequential and blocks on builds and simulations, so a thread per
// active run keeps it reading like the spec. Everything the thread reports comes back to
// the event-loop thread (kj::Executor::executeSync), where the service, the store and the
// watchers live; so the store keeps one writer. The same way, a run asks the pool for more
// checkouts and gives them back (run::RunLease); what the pool grants it later, as
// checkouts come free, goes into the run's mailbox.

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <kj/async.h>

#include "os/cancel_token.h"
#include "run/run_execution.h"
#include "service/checkout_pool.h"
#include "service/run_service.h"
#include "store/store.h"

namespace mace {

class RunSupervisor {
 public:
  // `pool` lists the checkouts runs are leased; `settings` is what every run gets;
  // `unusable` says why a checkout may not be leased now (its node is down; unset: never).
  RunSupervisor(service::RunService& service, store::Store& store,
                std::vector<service::PooledCheckout> pool, run::RunSettings settings,
                service::CheckoutPool::Unusable unusable = {});
  ~RunSupervisor();

  // Event-loop thread only. Hands out free checkouts: queued runs start, running runs
  // that asked for more get them.
  void start_queued();
  // Stops a run's builds and simulations at once.
  void cancel(const std::string& run_id);
  // Stops every run (maced is shutting down); resolves when their threads ended.
  kj::Promise<void> stop_all();
  size_t active() const { return active_.size(); }
  // Event-loop thread only. Each checkout with the run holding it.
  std::vector<service::CheckoutStatus> checkouts() const;
  // Records the ends of runs the store refused (a full disk); start_queued does it too.
  // maced calls it now and then, so a run does not stay `running` once space returns.
  void retry_unrecorded();

 private:
  struct ActiveRun {
    std::unique_ptr<os::CancelToken> cancel;
    std::thread thread;
    std::shared_ptr<run::RunMailbox> mailbox;
    bool told_none_left = false;
  };
  void grant_checkouts();
  void start_run(const std::string& run_id, size_t checkout);
  // Runs holding no checkout that cannot get one (every node down) are told, once.
  void tell_runs_none_left();
  run::RunLease lease_for(const std::string& run_id, size_t checkout, ActiveRun& active);
  void run_thread(std::string run_id, run::RunLease lease, ActiveRun* active);
  void report_end(const std::string& run_id, RunState state, std::string reason);
  struct Ending {
    std::string run_id;
    RunState state;
    std::string reason;
  };
  // Event-loop thread: the run's final state into the store, or kept for later.
  void record_end(Ending ending);
  void finished(const std::string& run_id);

  // Runs `work` on the event-loop thread and waits for it; from a run's thread.
  void on_loop_thread(const std::function<void()>& work);

  service::RunService& service_;
  store::Store& store_;
  run::RunSettings settings_;
  service::CheckoutPool pool_;
  service::CheckoutPool::Unusable unusable_;
  const kj::Executor& loop_;
  std::map<std::string, ActiveRun> active_;
  std::vector<std::thread> ended_;  // joined on the next start_queued or at the end
  kj::Own<kj::PromiseFulfiller<void>> all_stopped_;
  bool stopping_ = false;
  bool told_no_checkouts_ = false;
  std::vector<Ending> unrecorded_;
};

}  // namespace mace
