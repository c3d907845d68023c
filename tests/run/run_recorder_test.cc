// A run's one door to the store: every record and read passes through the service thread
// maced names (its event loop), whatever thread the run's loop or tasks call from.

#include "run/run_recorder.h"

#include <mutex>
#include <map>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "run/recorded_run.h"

namespace mace::run {
namespace {

class RunRecorderTest : public testing::RecordedRunTest {
 protected:
  // The service thread: one thread of its own, as maced's event loop is.
  class ServiceThread {
   public:
    void run(const std::function<void()>& work) {
      std::lock_guard lock(mutex_);
      std::thread worker(work);
      worker.join();
      ++calls_;
    }
    int calls() const { return calls_; }

   private:
    std::mutex mutex_;
    int calls_ = 0;
  };

  RunRecorder recorder_on(ServiceThread& service_thread) {
    return RunRecorder(*service_, *store_,
                       [&service_thread](const std::function<void()>& work) { service_thread.run(work); },
                       run_id_);
  }
};

TEST_F(RunRecorderTest, EveryRecordAndReadGoesThroughTheServiceThread) {
  ServiceThread service_thread;
  RunRecorder recorder = recorder_on(service_thread);
  const std::thread::id caller = std::this_thread::get_id();
  recorder.event(EventKind::task_stage, 1, "build", TaskStage::running, "running add.S", "add.S",
                 Verdict::pass);
  recorder.message(1, "build", "a word for people");
  EXPECT_EQ(recorder.run_record().id, run_id_);
  const bool elsewhere =
      recorder.with_store([&](store::Store&) { return std::this_thread::get_id() != caller; });
  EXPECT_TRUE(elsewhere);
  EXPECT_EQ(service_thread.calls(), 4);
}

TEST_F(RunRecorderTest, EventsCarryTheRunAndComeBackInTheOrderRecorded) {
  ServiceThread service_thread;
  RunRecorder recorder = recorder_on(service_thread);
  const auto before = store_->events_after(run_id_, 0, 1000).size();
  std::vector<std::thread> tasks;
  for (int t = 0; t < 4; ++t)
    tasks.emplace_back([&recorder, t] {
      for (int i = 0; i < 5; ++i) recorder.message(1, "t" + std::to_string(t), std::to_string(i));
    });
  for (auto& task : tasks) task.join();
  recorder.event(EventKind::task_stage, 2, "t9", TaskStage::passed, "done", "add.S", Verdict::pass);
  const auto events = store_->events_after(run_id_, 0, 1000);
  ASSERT_EQ(events.size(), before + 21);
  for (std::size_t i = 1; i < events.size(); ++i) EXPECT_EQ(events[i].seq, events[i - 1].seq + 1);
  std::map<std::string, std::string> by_task;  // each task's messages in the order it sent them
  for (std::size_t i = before; i + 1 < events.size(); ++i) by_task[events[i].task_id] += events[i].message;
  for (const auto& [task, order] : by_task) EXPECT_EQ(order, "01234") << task;
  const store::EventRecord& last = events.back();
  EXPECT_EQ(last.run_id, run_id_);
  EXPECT_EQ(last.kind, EventKind::task_stage);
  EXPECT_EQ(last.iteration, 2);
  EXPECT_EQ(last.stage, TaskStage::passed);
  EXPECT_EQ(last.workload, "add.S");
  EXPECT_EQ(last.verdict, Verdict::pass);
}

}  // namespace
}  // namespace mace::run
