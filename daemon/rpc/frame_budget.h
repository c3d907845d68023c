#pragma once
// What one user's connections may have announced of messages still arriving
// (connections.max_pending_mb_per_user, docs/operating-maced.md "Limits"). A Cap'n Proto
// message starts with its size, and the reader reserves that much before the rest
// arrives; so a client that starts many large messages and never finishes them makes maced
// hold all of it. Each of the user's connections asks this budget before a message's size
// reaches the reader (rpc/frame_budget_stream.h) and gives it back once the message is in.
//
// Used on the event loop's thread only, like the connections.

#include <cstddef>
#include <deque>
#include <memory>

#include <kj/async.h>

namespace mace::rpc {

class FrameBudget : public std::enable_shared_from_this<FrameBudget> {
 public:
  // A share of the budget: given back when destroyed, also when the connection that asked
  // is gone before it could use it.
  class Share {
   public:
    Share() = default;
    Share(std::shared_ptr<FrameBudget> budget, std::size_t bytes) : budget_(std::move(budget)), bytes_(bytes) {}
    Share(Share&& other) noexcept : budget_(std::move(other.budget_)), bytes_(other.bytes_) { other.bytes_ = 0; }
    Share& operator=(Share&& other) noexcept;
    ~Share() { give_back(); }

   private:
    void give_back();
    std::shared_ptr<FrameBudget> budget_;
    std::size_t bytes_ = 0;
  };

  // Create with std::make_shared: shares point back at the budget.
  explicit FrameBudget(std::size_t limit_bytes) : limit_(limit_bytes) {}

  // Resolves to `bytes` of the budget once they fit in what is left, in the order asked. A
  // message larger than the whole budget waits until nothing else is held, then has it
  // alone.
  kj::Promise<Share> acquire(std::size_t bytes);

  std::size_t held() const { return held_; }
  std::size_t waiting() const { return waiters_.size(); }

 private:
  bool fits(std::size_t bytes) const { return held_ == 0 || held_ + bytes <= limit_; }
  void release(std::size_t bytes);
  // Hands out what fits to the oldest waiters; drops those whose connection is gone.
  void admit_waiters();

  struct Waiter {
    std::size_t bytes;
    kj::Own<kj::PromiseFulfiller<Share>> fulfiller;
  };
  const std::size_t limit_;
  std::size_t held_ = 0;
  std::deque<Waiter> waiters_;
};

}  // namespace mace::rpc
