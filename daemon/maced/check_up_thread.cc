#include "maced/check_up_thread.h"

#include <string>

#include "maced/check_up.h"
#include "os/thread_ordering.h"

namespace mace {

CheckUpThread::CheckUpThread(MacedConfig config, MacedOptions options)
    : config_(std::move(config)), options_(std::move(options)), thread_([this] { run(); }) {}

CheckUpThread::~CheckUpThread() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

kj::Promise<std::vector<CheckFinding>> CheckUpThread::check_up() {
  auto paf = kj::newPromiseAndCrossThreadFulfiller<std::vector<CheckFinding>>();
  {
    std::lock_guard lock(mutex_);
    waiting_.push_back(kj::mv(paf.fulfiller));
  }
  wake_.notify_one();
  // Handed over through kj's cross-thread fulfiller, whose ordering ThreadSanitizer cannot
  // see in Debian's kj (os/thread_ordering.h).
  return paf.promise.then([this](std::vector<CheckFinding> findings) {
    os::received(this);
    return findings;
  });
}

void CheckUpThread::run() {
  for (;;) {
    std::vector<Answer> answers;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !waiting_.empty(); });
      if (stopping_) return;  // those waiting see their calls fail
      answers.swap(waiting_);
    }
    std::vector<CheckFinding> findings;
    std::string error;
    try {
      findings = mace::check_up(config_, options_);
    } catch (const std::exception& e) {
      error = e.what();
    }
    os::published(this);
    for (auto& answer : answers) {
      if (!answer->isWaiting()) continue;
      if (error.empty())
        answer->fulfill(std::vector<CheckFinding>(findings));
      else
        answer->reject(kj::Exception(kj::Exception::Type::FAILED, __FILE__, __LINE__,
                                     kj::heapString("maced internal error: the check-up failed: " + error)));
    }
  }
}

}  // namespace mace
