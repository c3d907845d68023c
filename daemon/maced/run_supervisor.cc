#include "maced/run_supervisor.h"

#include <iostream>
#include <stdexcept>

#include "openpiton/checkout.h"
#include "os/thread_ordering.h"

namespace mace {
namespace {

// The run's thread found maced's event loop gone: maced is exiting.
class EventLoopGone : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace

RunSupervisor::RunSupervisor(service::RunService& service, store::Store& store,
                             std::vector<service::PooledCheckout> pool, run::RunSettings settings,
                             service::CheckoutPool::Unusable unusable)
    : service_(service),
      store_(store),
      settings_(std::move(settings)),
      pool_(std::move(pool)),
      unusable_(std::move(unusable)),
      loop_(kj::getCurrentThreadExecutor()) {}

std::vector<service::CheckoutStatus> RunSupervisor::checkouts() const {
  std::vector<service::CheckoutStatus> out;
  for (size_t i = 0; i < pool_.size(); ++i) {
    service::CheckoutStatus status;
    status.path = pool_.at(i).path;
    status.node = pool_.at(i).node;
    status.held_by = pool_.holder(i).value_or("");
    out.push_back(std::move(status));
  }
  return out;
}

RunSupervisor::~RunSupervisor() {
  for (auto& [id, run] : active_) run.cancel->cancel();
  for (auto& [id, run] : active_)
    if (run.thread.joinable()) run.thread.detach();  // the process is ending
  for (auto& t : ended_)
    if (t.joinable()) t.join();
}

void RunSupervisor::start_queued() {
  for (auto& t : ended_)
    if (t.joinable()) t.join();
  ended_.clear();
  if (!unrecorded_.empty()) retry_unrecorded();
  if (stopping_) return;
  try {
    grant_checkouts();
  } catch (const std::exception& e) {
    // The store cannot be read or written now (a full disk); queued runs wait for the next
    // turn, which comes with the next submit, run end or status refresh.
    std::cerr << "maced: cannot start queued runs now: " << e.what() << "\n";
  }
}

void RunSupervisor::grant_checkouts() {
  auto queued_runs = service_.queued_runs();
  if (pool_.size() == 0) {
    if (!queued_runs.empty() && !told_no_checkouts_) {
      std::cerr << "maced: runs are queued but no OpenPiton checkout can take them (none in the "
                   "\"checkouts\" of the config file, or every one refused at start: `mace doctor` says why)\n";
      told_no_checkouts_ = true;
    }
    return;
  }
  std::vector<service::QueuedRun> queued;
  for (const auto& run : queued_runs) queued.push_back({run.id, run.submitted_by_uid});
  while (auto grant = pool_.grant_next(queued, unusable_)) {
    if (grant->starts_run) {
      start_run(grant->run_id, grant->checkout);
      std::erase_if(queued, [&](const service::QueuedRun& q) { return q.run_id == grant->run_id; });
      continue;
    }
    auto& run = active_.at(grant->run_id);
    run.told_none_left = false;
    run.mailbox->post(run::RunMailbox::Granted{grant->checkout, pool_.at(grant->checkout)});
  }
  tell_runs_none_left();
}

void RunSupervisor::start_run(const std::string& run_id, size_t checkout) {
  try {
    service_.set_state(run_id, RunState::running, "");
  } catch (...) {
    pool_.release(run_id);
    throw;
  }
  auto& run = active_[run_id];
  run.cancel = std::make_unique<os::CancelToken>();
  run.mailbox = std::make_shared<run::RunMailbox>();
  run.thread = std::thread(&RunSupervisor::run_thread, this, run_id, lease_for(run_id, checkout, run), &run);
}

run::RunLease RunSupervisor::lease_for(const std::string& run_id, size_t checkout, ActiveRun& active) {
  run::RunLease lease;
  lease.held = {{checkout, pool_.at(checkout)}};
  lease.mailbox = active.mailbox;
  // From the run's thread: each a turn of the event loop, which grants what is free at once.
  lease.want = [this, run_id](size_t count) {
    on_loop_thread([&] {
      pool_.want(run_id, count);
      start_queued();
    });
  };
  lease.give_back = [this, run_id](size_t index) {
    on_loop_thread([&] {
      pool_.release(run_id, index);
      start_queued();
    });
  };
  return lease;
}

void RunSupervisor::tell_runs_none_left() {
  for (auto& [run_id, run] : active_) {
    if (run.told_none_left || !pool_.held_by(run_id).empty() || pool_.wanted_by(run_id) == 0) continue;
    if (auto why = pool_.none_usable(unusable_)) {
      run.told_none_left = true;
      run.mailbox->post(run::RunMailbox::NoneLeft{"no checkout of maced's can take work: " + *why});
    }
  }
}

void RunSupervisor::record_end(Ending ending) {
  try {
    service_.finish(ending.run_id, ending.state, ending.reason);
  } catch (const std::exception& e) {
    // The store refused (a full disk): the run is over all the same, and its checkouts go
    // back to the pool; its end is recorded as soon as the store takes it again, so it
    // does not stay `running`.
    std::cerr << "maced: cannot record the end of run " << ending.run_id << " yet: " << e.what()
              << "\n";
    unrecorded_.push_back(std::move(ending));
  }
}

void RunSupervisor::retry_unrecorded() {
  std::vector<Ending> pending = std::move(unrecorded_);
  unrecorded_.clear();
  for (auto& ending : pending) {
    // Its record is incomplete (what the store refused is lost), so it cannot stand as a
    // pass or a fail: it is an error that says what it was.
    if (ending.reason.find("(recorded late") == std::string::npos) {
      std::string was = ending.state == RunState::error
                            ? ending.reason
                            : "ended " + std::string(to_string(ending.state)) +
                                  (ending.reason.empty() ? "" : ": " + ending.reason);
      ending.reason = was + " (recorded late: the store refused it at the time)";
      ending.state = RunState::error;
    }
    record_end(std::move(ending));
  }
}

void RunSupervisor::cancel(const std::string& run_id) {
  if (auto it = active_.find(run_id); it != active_.end()) it->second.cancel->cancel();
}

kj::Promise<void> RunSupervisor::stop_all() {
  stopping_ = true;
  for (auto& [id, run] : active_) run.cancel->cancel();
  if (active_.empty()) return kj::READY_NOW;
  auto paf = kj::newPromiseAndFulfiller<void>();
  all_stopped_ = kj::mv(paf.fulfiller);
  return kj::mv(paf.promise);
}

void RunSupervisor::finished(const std::string& run_id) {
  auto it = active_.find(run_id);
  if (it == active_.end()) return;
  // This runs inside that very thread's executeSync: it cannot be joined yet, only on a
  // later turn once it has returned.
  std::thread ending = std::move(it->second.thread);
  active_.erase(it);
  pool_.release(run_id);
  // Into ended_ only after start_queued, which joins ended_; but however this is left.
  struct KeepForJoin {
    std::vector<std::thread>& ended;
    std::thread& thread;
    ~KeepForJoin() { ended.push_back(std::move(thread)); }
  } keep{ended_, ending};
  if (stopping_) {
    if (active_.empty() && all_stopped_) all_stopped_->fulfill();
    return;
  }
  start_queued();
}

void RunSupervisor::on_loop_thread(const std::function<void()>& work) {
  // The work's own exception (a full disk, say) comes back as itself: through KJ it would
  // arrive as a kj::Exception whose text carries a stack of addresses.
  std::exception_ptr failure;
  // What this thread wrote is seen by the work, and what the work wrote is seen here once
  // executeSync returns: kj orders both, and `ordering` says so to ThreadSanitizer.
  int ordering = 0;
  os::published(&ordering);
  try {
    loop_.executeSync([&] {
      os::received(&ordering);
      try {
        work();
      } catch (...) {
        failure = std::current_exception();
      }
      os::published(&ordering);
    });
  } catch (const kj::Exception& e) {
    throw EventLoopGone(std::string("maced is exiting: ") + e.getDescription().cStr());
  }
  os::received(&ordering);
  if (failure) std::rethrow_exception(failure);
}

void RunSupervisor::run_thread(std::string run_id, run::RunLease lease, ActiveRun* active) {
  run::RunEnding ending;
  try {
    run::RunRecorder recorder(service_, store_, [this](const auto& work) { on_loop_thread(work); },
                              run_id);
    ending = run::execute_run(recorder, settings_, std::move(lease), *active->cancel);
  } catch (const std::exception& e) {
    ending = {RunState::error, e.what()};  // REQ-BUD-10: this run ends; maced goes on
  }
  try {
    report_end(run_id, ending.state, ending.reason);
  } catch (const std::exception&) {
    // maced is exiting and its event loop is gone; the restart records the run.
  }
}

void RunSupervisor::report_end(const std::string& run_id, RunState state, std::string reason) {
  on_loop_thread([&] {
    if (stopping_ && state == RunState::cancelled) {
      state = RunState::error;
      reason = "maced stopped during the run";
    }
    record_end({run_id, state, reason});
    finished(run_id);
  });
}

}  // namespace mace
