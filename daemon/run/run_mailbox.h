#pragma once
// What reaches a run's thread while its loop waits: the ends of its tasks (from the
// executor's threads), the checkouts maced grants it and word that none is left (from
// maced's event-loop thread). One queue, so the loop waits on one thing and takes them in
// the order they happened.

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <variant>

#include "loop/task_runner.h"
#include "service/checkout_pool.h"

namespace mace::run {

class RunMailbox {
 public:
  // Checkout `index` of maced's pool is now the run's.
  struct Granted {
    std::size_t index = 0;
    service::PooledCheckout checkout;
  };
  // The run holds no checkout and none can be had; why (the nodes down and their reasons).
  struct NoneLeft {
    std::string why;
  };
  using Message = std::variant<loop::FinishedTask, Granted, NoneLeft>;

  // Any thread.
  void post(Message message);
  // The oldest message, waiting up to `limit` for one; nullopt when none came.
  std::optional<Message> next(std::chrono::milliseconds limit);

 private:
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::deque<Message> messages_;
};

}  // namespace mace::run
