#include "run/leased_runner.h"

#include <algorithm>

namespace mace::run {
namespace {

// How often a wait looks at the cancel token when nothing arrives.
constexpr std::chrono::milliseconds kCancelLook{200};
constexpr const char* kOwnRun = "run";

}  // namespace

RunLease own_checkouts(const std::vector<service::PooledCheckout>& checkouts) {
  RunLease lease;
  auto pool = std::make_shared<service::CheckoutPool>(checkouts);
  if (auto first = pool->grant_next({{kOwnRun, 0}}))
    lease.held.push_back({first->checkout, pool->at(first->checkout)});
  lease.want = [pool, mailbox = lease.mailbox](std::size_t count) {
    pool->want(kOwnRun, count);
    while (auto grant = pool->grant_next({}))
      mailbox->post(RunMailbox::Granted{grant->checkout, pool->at(grant->checkout)});
    if (count > 0 && pool->held_by(kOwnRun).empty())
      mailbox->post(RunMailbox::NoneLeft{"the run has no checkout"});
  };
  lease.give_back = [pool](std::size_t index) { pool->release(kOwnRun, index); };
  return lease;
}

LeasedRunner::LeasedRunner(executor::LocalExecutor& executor, RunLease lease, Place place,
                           Taken taken, const os::CancelToken& cancel)
    : executor_(executor),
      lease_(std::move(lease)),
      place_(std::move(place)),
      taken_(std::move(taken)),
      cancel_(cancel) {
  for (const auto& granted : lease_.held) take(granted);
}

void LeasedRunner::take(const RunMailbox::Granted& granted) {
  openpiton::Checkout checkout = place_(granted.checkout);
  held_.emplace_back(granted.index, checkout);
  if (taken_) taken_(checkout);
}

std::vector<loop::Slot> LeasedRunner::checkouts() const {
  std::vector<loop::Slot> out;
  for (const auto& [slot, checkout] : held_) out.push_back(slot);
  return out;
}

std::vector<openpiton::Checkout> LeasedRunner::held() const {
  std::vector<openpiton::Checkout> out;
  for (const auto& [slot, checkout] : held_) out.push_back(checkout);
  return out;
}

void LeasedRunner::want_checkouts(std::size_t count) {
  if (!lease_.want) return;
  lease_.want(count);
  // What was free is in the mailbox now: taken before the loop looks at checkouts().
  while (auto message = lease_.mailbox->next(std::chrono::milliseconds(0))) {
    loop::RunnerEvent event = receive(std::move(*message));
    if (event.kind != loop::RunnerEvent::Kind::checkouts_changed) early_.push_back(std::move(event));
  }
}

void LeasedRunner::give_back(loop::Slot slot) {
  auto it = std::find_if(held_.begin(), held_.end(), [&](const auto& h) { return h.first == slot; });
  if (it == held_.end()) return;
  held_.erase(it);
  if (lease_.give_back) lease_.give_back(slot);
}

void LeasedRunner::start(int iteration, const loop::TaskJob& job) {
  auto it = std::find_if(held_.begin(), held_.end(), [&](const auto& h) { return h.first == job.slot; });
  auto mailbox = lease_.mailbox;
  if (it == held_.end()) {
    loop::TaskOutcome outcome;
    outcome.task_id = job.task.id;
    outcome.failure_reason = FailureReason::no_checkout;
    outcome.evidence = {"the run holds no checkout " + std::to_string(job.slot)};
    mailbox->post(loop::FinishedTask{job, std::move(outcome)});
    return;
  }
  executor_.start(iteration, job, it->second,
                  [mailbox](const loop::TaskJob& done, loop::TaskOutcome outcome) {
                    mailbox->post(loop::FinishedTask{done, std::move(outcome)});
                  });
}

loop::RunnerEvent LeasedRunner::wait() {
  if (!early_.empty()) {
    loop::RunnerEvent event = std::move(early_.front());
    early_.pop_front();
    return event;
  }
  while (true) {
    if (auto message = lease_.mailbox->next(kCancelLook)) return receive(std::move(*message));
    if (cancel_.cancelled()) return {.kind = loop::RunnerEvent::Kind::interrupted};
  }
}

loop::RunnerEvent LeasedRunner::receive(RunMailbox::Message message) {
  if (auto* granted = std::get_if<RunMailbox::Granted>(&message)) {
    take(*granted);
    return {.kind = loop::RunnerEvent::Kind::checkouts_changed};
  }
  if (auto* none = std::get_if<RunMailbox::NoneLeft>(&message))
    return {.kind = loop::RunnerEvent::Kind::no_checkout_left, .why = none->why};
  return {.kind = loop::RunnerEvent::Kind::task_finished,
          .finished = std::get<loop::FinishedTask>(std::move(message))};
}

}  // namespace mace::run
