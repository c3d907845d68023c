#include "maced/listing_thread.h"

#include <sys/resource.h>
#include <unistd.h>

#include <string>

#include "os/thread_ordering.h"
#include "service/service_error.h"

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

template <typename Answer>
kj::Promise<Answer> ListingThread::queue(std::function<Answer(const store::Store&)> read) {
  auto paf = kj::newPromiseAndCrossThreadFulfiller<Answer>();
  // Shared by the job's three functions; only the listing thread uses it.
  auto fulfiller = std::make_shared<kj::Own<kj::CrossThreadPromiseFulfiller<Answer>>>(kj::mv(paf.fulfiller));
  {
    std::lock_guard lock(mutex_);
    jobs_.push_back({[fulfiller] { return (*fulfiller)->isWaiting(); },
                     [this, fulfiller, read = std::move(read)](const store::Store& store) {
                       Answer answer = read(store);
                       os::published(this);
                       (*fulfiller)->fulfill(kj::mv(answer));
                     },
                     [this, fulfiller](kj::Exception e) {
                       os::published(this);
                       (*fulfiller)->reject(kj::mv(e));
                     }});
  }
  wake_.notify_one();
  // The answer is handed over through kj's cross-thread fulfiller, whose ordering
  // ThreadSanitizer cannot see in Debian's kj (os/thread_ordering.h).
  return paf.promise.then(
      [this](Answer answer) {
        os::received(this);
        return answer;
      },
      [this](kj::Exception&& e) -> Answer {
        os::received(this);
        kj::throwFatalException(kj::mv(e));
      });
}

kj::Promise<service::RunPage> ListingThread::list_page(store::RunFilter filter, service::Caller caller) {
  return queue<service::RunPage>([this, filter = std::move(filter), caller](const store::Store& store) {
    return service::list_runs_page(store, others_see_, filter, caller);
  });
}

kj::Promise<service::FailureHistory> ListingThread::failures(service::FailureQuery query, service::Caller caller) {
  return queue<service::FailureHistory>([this, query = std::move(query), caller](const store::Store& store) {
    return service::failures_across_runs(store, others_see_, query, caller);
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
    if (!job.waiting()) continue;
    try {
      if (!store) store = store::Store::open(db_);
      job.answer(*store);
    } catch (const service::RequestError& e) {
      job.fail(kj::Exception(kj::Exception::Type::FAILED, __FILE__, __LINE__, kj::heapString(e.what())));
    } catch (const std::exception& e) {
      // Opened again for the next listing: the file may have been replaced meanwhile.
      store.reset();
      job.fail(internal_error(e.what()));
    }
  }
}

}  // namespace mace
