#include "maced/run_supervisor.h"

#include <iostream>
#include <stdexcept>

#include "openpiton/checkout.h"

namespace mace {
namespace {

// The run's thread found maced's event loop gone: maced is exiting.
class EventLoopGone : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace

RunSupervisor::RunSupervisor(service::RunService& service, store::Store& store,
                             std::vector<service::PooledCheckout> pool, run::RunSettings settings)
    : service_(service),
      store_(store),
      settings_(std::move(settings)),
      pool_(std::move(pool)),
      loop_(kj::getCurrentThreadExecutor()) {}

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
  if (stopping_) return;

  store::RunFilter filter;
  filter.states = {RunState::queued};
  filter.limit = 0;
  auto queued_runs = service_.list(filter);
  if (queued_runs.empty()) return;
  if (pool_.size() == 0) {
    if (!told_no_checkouts_) {
      std::cerr << "maced: runs are queued but no OpenPiton checkout is configured "
                   "(\"checkouts\" in the config file)\n";
      told_no_checkouts_ = true;
    }
    return;
  }
  std::vector<service::QueuedRun> queued;
  for (auto it = queued_runs.rbegin(); it != queued_runs.rend(); ++it)
    queued.push_back({it->id, it->submitted_by_uid, it->checkouts_wanted});
  while (auto lease = pool_.lease_next(queued)) {
    auto& run = active_[lease->run_id];
    run.cancel = std::make_unique<os::CancelToken>();
    service_.set_state(lease->run_id, RunState::running, "");
    run.thread = std::thread(&RunSupervisor::run_thread, this, lease->run_id, lease->checkouts, &run);
    std::erase_if(queued, [&](const service::QueuedRun& q) { return q.run_id == lease->run_id; });
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
  if (stopping_) {
    ended_.push_back(std::move(ending));
    if (active_.empty() && all_stopped_) all_stopped_->fulfill();
    return;
  }
  start_queued();
  ended_.push_back(std::move(ending));
}

void RunSupervisor::on_loop_thread(const std::function<void()>& work) {
  try {
    loop_.executeSync([&] { work(); });
  } catch (const kj::Exception& e) {
    throw EventLoopGone(std::string("maced is exiting: ") + e.getDescription().cStr());
  }
}

void RunSupervisor::run_thread(std::string run_id, std::vector<size_t> slots, ActiveRun* active) {
  std::vector<openpiton::Checkout> checkouts;
  run::RunEnding ending;
  try {
    for (size_t slot : slots) checkouts.emplace_back(pool_.at(slot).path);
    run::RunRecorder recorder(service_, store_, [this](const auto& work) { on_loop_thread(work); },
                              run_id);
    ending = run::execute_run(recorder, settings_, checkouts, *active->cancel);
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
    try {
      service_.finish(run_id, state, reason);
    } catch (const std::exception& e) {
      std::cerr << "maced: recording the end of run " << run_id << ": " << e.what() << "\n";
    }
    finished(run_id);
  });
}

}  // namespace mace
