#pragma once
// Listings of runs and failures across runs read on a thread of maced's own, through a store connection of its own
// (WAL lets it read while the event loop writes), at a lower scheduling priority than
// maced's other threads: a user who lists a queue of a thousand large runs over and over
// costs the event loop, and so everyone else's calls, only the filling of each answer, and
// the machine's other work goes first. One listing at a time, in the order asked.

#include <condition_variable>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "rpc/run_lister.h"
#include "service/caller.h"

namespace mace {

class ListingThread final : public rpc::RunLister {
 public:
  // `db`: the store maced has opened (and migrated) already.
  ListingThread(std::filesystem::path db, service::OthersSee others_see);
  // Answers nothing more: listings not yet read fail as the loop ends.
  ~ListingThread() override;

  kj::Promise<service::RunPage> list_page(store::RunFilter filter, service::Caller caller) override;
  kj::Promise<service::FailureHistory> failures(service::FailureQuery query, service::Caller caller) override;

 private:
  // One read: whether its caller still waits, the read that answers it (it throws when
  // the store cannot be read), and how it fails.
  struct Job {
    std::function<bool()> waiting;
    std::function<void(const store::Store&)> answer;
    std::function<void(kj::Exception)> fail;
  };
  // Queues `read` and resolves, on the calling thread's loop, with what it returned.
  template <typename Answer>
  kj::Promise<Answer> queue(std::function<Answer(const store::Store&)> read);
  void run();

  const std::filesystem::path db_;
  const service::OthersSee others_see_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> jobs_;
  bool stopping_ = false;
  std::thread thread_;  // last: it uses everything above
};

}  // namespace mace
