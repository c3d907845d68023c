#include "rpc/frame_budget.h"

namespace mace::rpc {

FrameBudget::Share& FrameBudget::Share::operator=(Share&& other) noexcept {
  if (this != &other) {
    give_back();
    budget_ = std::move(other.budget_);
    bytes_ = other.bytes_;
    other.bytes_ = 0;
  }
  return *this;
}

void FrameBudget::Share::give_back() {
  if (budget_ && bytes_ > 0) budget_->release(bytes_);
  bytes_ = 0;
  budget_.reset();
}

kj::Promise<FrameBudget::Share> FrameBudget::acquire(std::size_t bytes) {
  admit_waiters();
  if (waiters_.empty() && fits(bytes)) {
    held_ += bytes;
    return Share(shared_from_this(), bytes);
  }
  auto paf = kj::newPromiseAndFulfiller<Share>();
  waiters_.push_back({bytes, kj::mv(paf.fulfiller)});
  return kj::mv(paf.promise);
}

void FrameBudget::release(std::size_t bytes) {
  held_ -= bytes < held_ ? bytes : held_;
  admit_waiters();
}

void FrameBudget::admit_waiters() {
  while (!waiters_.empty()) {
    Waiter& first = waiters_.front();
    if (!first.fulfiller->isWaiting()) {  // its connection closed while it waited
      waiters_.pop_front();
      continue;
    }
    if (!fits(first.bytes)) return;
    held_ += first.bytes;
    // The share lives in the promise now: dropped unused, it gives its bytes back.
    auto fulfiller = kj::mv(first.fulfiller);
    const std::size_t bytes = first.bytes;
    waiters_.pop_front();
    fulfiller->fulfill(Share(shared_from_this(), bytes));
  }
}

}  // namespace mace::rpc
