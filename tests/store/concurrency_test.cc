// maced writes a run's progress while `mace watch`, `mace list` and other runs read the
// same file through their own connections. These tests hold the store to what WAL and
// the busy timeout promise: readers never see SQLITE_BUSY or a half-written step, and
// writers queue rather than fail.

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "store/store.h"
#include "temp_dir.h"

namespace mace::store {
namespace {

using testing::TempDir;

RunRecord make_run(const std::string& id) {
  RunRecord r;
  r.id = id;
  r.core = "pico";
  r.workloads = {"add"};
  return r;
}

EventRecord make_event(const std::string& run_id, int i) {
  EventRecord e;
  e.run_id = run_id;
  e.at_ms = i;
  e.kind = EventKind::message;
  e.message = "event " + std::to_string(i);
  return e;
}

// Collects failures from threads, where gtest assertions would not stop the thread.
class Problems {
 public:
  void add(std::string what) {
    std::lock_guard lock(mu_);
    list_.push_back(std::move(what));
  }
  std::vector<std::string> list() {
    std::lock_guard lock(mu_);
    return list_;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> list_;
};

// One reader's view: every read must see seqs 1..n without gaps, with n never shrinking,
// and never fewer runs than before.
void read_until(const std::filesystem::path& db, const std::string& run_id,
                const std::function<bool()>& writer_done, Problems& problems,
                std::atomic<int64_t>& reads) {
  try {
    auto store = Store::open(db);
    size_t last_events = 0;
    size_t last_runs = 0;
    RunFilter all;
    all.limit = 0;
    // One more pass after the writer finished, so the final state is read as well.
    for (bool last_pass = false; !last_pass;) {
      last_pass = writer_done();
      auto events = store->events_after(run_id, 0);
      for (size_t i = 0; i < events.size(); ++i)
        if (events[i].seq != static_cast<int64_t>(i + 1)) {
          problems.add("gap: position " + std::to_string(i) + " has seq " +
                       std::to_string(events[i].seq));
          return;
        }
      if (events.size() < last_events)
        problems.add("events went from " + std::to_string(last_events) + " to " +
                     std::to_string(events.size()));
      last_events = events.size();

      // Paging from where this reader got to sees only newer events.
      auto newer = store->events_after(run_id, static_cast<int64_t>(last_events));
      for (auto& e : newer)
        if (e.seq <= static_cast<int64_t>(last_events)) problems.add("events_after went back");

      size_t runs = store->list_runs(all).size();
      if (runs < last_runs)
        problems.add("runs went from " + std::to_string(last_runs) + " to " +
                     std::to_string(runs));
      last_runs = runs;
      ++reads;
    }
  } catch (const std::exception& e) {
    problems.add(std::string("reader: ") + e.what());
  }
}

TEST(Concurrency, ReadersInOtherThreadsNeverSeeBusyOrGoingBackwards) {
  TempDir dir;
  Store::open(dir.db())->insert_run(make_run("run-000"));

  constexpr int kEvents = 500;
  constexpr int kRunEvery = 50;
  Problems problems;
  std::atomic<bool> done{false};
  std::atomic<int64_t> reads{0};

  std::vector<std::thread> readers;
  for (int i = 0; i < 2; ++i)
    readers.emplace_back(read_until, dir.db(), "run-000", [&] { return done.load(); },
                         std::ref(problems), std::ref(reads));

  std::thread writer([&] {
    try {
      auto store = Store::open(dir.db());
      for (int i = 0; i < kEvents; ++i) {
        int64_t seq = store->append_event(make_event("run-000", i));
        if (seq != i + 1) problems.add("writer got seq " + std::to_string(seq));
        if (i % kRunEvery == 0) store->insert_run(make_run("run-" + std::to_string(i + 1000)));
      }
    } catch (const std::exception& e) {
      problems.add(std::string("writer: ") + e.what());
    }
    done = true;
  });

  writer.join();
  for (auto& r : readers) r.join();
  EXPECT_EQ(problems.list(), std::vector<std::string>{});
  EXPECT_GE(reads.load(), 2);

  auto store = Store::open(dir.db());
  EXPECT_EQ(store->events_after("run-000", 0).size(), static_cast<size_t>(kEvents));
  RunFilter all;
  all.limit = 0;
  EXPECT_EQ(store->list_runs(all).size(), static_cast<size_t>(1 + kEvents / kRunEvery));
}

TEST(Concurrency, WritersOnOneRunQueueWithoutDuplicateOrMissingSeq) {
  TempDir dir;
  Store::open(dir.db())->insert_run(make_run("r"));

  constexpr int kWriters = 3;
  constexpr int kEach = 150;
  Problems problems;
  std::vector<std::vector<int64_t>> got(kWriters);
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w)
    writers.emplace_back([&, w] {
      try {
        auto store = Store::open(dir.db());
        for (int i = 0; i < kEach; ++i) got[w].push_back(store->append_event(make_event("r", i)));
      } catch (const std::exception& e) {
        problems.add(std::string("writer: ") + e.what());
      }
    });
  for (auto& t : writers) t.join();
  EXPECT_EQ(problems.list(), std::vector<std::string>{});

  std::vector<bool> seen(kWriters * kEach + 1, false);
  for (auto& seqs : got) {
    for (size_t i = 1; i < seqs.size(); ++i) EXPECT_LT(seqs[i - 1], seqs[i]);
    for (int64_t s : seqs) {
      ASSERT_GE(s, 1);
      ASSERT_LE(s, kWriters * kEach);
      EXPECT_FALSE(seen[s]) << "seq " << s << " given twice";
      seen[s] = true;
    }
  }
  auto events = Store::open(dir.db())->events_after("r", 0);
  ASSERT_EQ(events.size(), static_cast<size_t>(kWriters * kEach));
  EXPECT_EQ(events.back().seq, kWriters * kEach);
}

// Another process (a second maced by mistake, or sqlite3 on the command line) must get
// the same guarantees as another thread: file locks, not in-process ones, do the work.
TEST(Concurrency, ParentReadsWhileAChildProcessWrites) {
  TempDir dir;
  Store::open(dir.db())->insert_run(make_run("r"));
  constexpr int kEvents = 300;

  pid_t child = fork();
  ASSERT_NE(child, -1);
  if (child == 0) {
    // No gtest and no destructors in the child: its exit status is its whole report.
    int status = 0;
    try {
      auto store = Store::open(dir.db());
      for (int i = 0; i < kEvents; ++i)
        if (store->append_event(make_event("r", i)) != i + 1) status = 2;
    } catch (...) {
      status = 1;
    }
    _exit(status);
  }

  Problems problems;
  std::atomic<int64_t> reads{0};
  int wait_status = 0;
  bool exited = false;
  read_until(
      dir.db(), "r",
      [&] {
        if (!exited && waitpid(child, &wait_status, WNOHANG) == child) exited = true;
        return exited;
      },
      problems, reads);
  if (!exited) waitpid(child, &wait_status, 0);

  EXPECT_EQ(problems.list(), std::vector<std::string>{});
  ASSERT_TRUE(WIFEXITED(wait_status));
  EXPECT_EQ(WEXITSTATUS(wait_status), 0) << "1: the child threw; 2: it got a wrong seq";
  EXPECT_EQ(Store::open(dir.db())->events_after("r", 0).size(), static_cast<size_t>(kEvents));
}

}  // namespace
}  // namespace mace::store
