#include "run/run_mailbox.h"

namespace mace::run {

void RunMailbox::post(Message message) {
  {
    std::lock_guard lock(mutex_);
    messages_.push_back(std::move(message));
  }
  arrived_.notify_all();
}

std::optional<RunMailbox::Message> RunMailbox::next(std::chrono::milliseconds limit) {
  std::unique_lock lock(mutex_);
  if (!arrived_.wait_for(lock, limit, [&] { return !messages_.empty(); })) return std::nullopt;
  Message message = std::move(messages_.front());
  messages_.pop_front();
  return message;
}

}  // namespace mace::run
