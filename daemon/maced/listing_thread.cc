#include "maced/listing_thread.h"

#include <sys/resource.h>
#include <unistd.h>

#include <string>

#include "os/thread_ordering.h"

namespace mace {
namespace {

// Above maced's own niceness, which the builds and simulations it starts inherit: a
// listing waits for them and for other users' processes, not they for it.
constexpr int kListingNiceness = 10;

kj::Exception internal_error(const std::string& what) {
  return kj::Exception(kj::Exception::Type::FAILED, __FILE__, __LINE__,
                       kj::heapString("maced internal error: " + what));
}

}  // namespace

ListingThread::ListingThread(std::filesystem::path db, service::OthersSee others_see)
    : db_(std::move(db)), others_see_(others_see), thread_([this] { run(); }) {}

ListingThread::~ListingThread() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

kj::Promise<service::RunPage> ListingThread::list_page(store::RunFilter filter,
                                                       service::Caller caller) {
  auto paf = kj::newPromiseAndCrossThreadFulfiller<service::RunPage>();
  {
    std::lock_guard lock(mutex_);
    jobs_.push_back({std::move(filter), caller, kj::mv(paf.fulfiller)});
  }
  wake_.notify_one();
  // The page is handed over through kj's cross-thread fulfiller, whose ordering
  // ThreadSanitizer cannot see in Debian's kj (os/thread_ordering.h).
  return paf.promise.then(
      [this](service::RunPage page) {
        os::received(this);
        return page;
      },
      [this](kj::Exception&& e) -> service::RunPage {
        os::received(this);
        kj::throwFatalException(kj::mv(e));
      });
}

void ListingThread::run() {
  // A thread's niceness is its own on Linux; raising it needs no privilege.
  ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()),
                ::getpriority(PRIO_PROCESS, 0) + kListingNiceness);
  std::unique_ptr<store::Store> store;
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      if (stopping_) return;  // the jobs left are dropped: their callers see them fail
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    // The caller has hung up (its call was cancelled): nothing to read for it.
    if (!job.answer->isWaiting()) continue;
    try {
      if (!store) store = store::Store::open(db_);
      auto page = service::list_runs_page(*store, others_see_, job.filter, job.caller);
      os::published(this);
      job.answer->fulfill(kj::mv(page));
    } catch (const std::exception& e) {
      // Opened again for the next listing: the file may have been replaced meanwhile.
      store.reset();
      auto error = internal_error(e.what());
      os::published(this);
      job.answer->reject(kj::mv(error));
    }
  }
}

}  // namespace mace
