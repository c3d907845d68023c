// maced with more in its store than one Cap'n Proto message can carry: a queue of large
// runs, a run with large tasks, a long log and many large LLM calls. `mace list`, `mace status`,
// `mace logs` and `mace calls` page through maced's answers and show all of it; none fails
// with Cap'n Proto's own error ("message larger than our single-message size limit").

#include <unistd.h>

#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/run_spec_limits.h"
#include "store/sqlite.h"
#include "store/store.h"
#include "support/maced_instance.h"
#include "support/count_of.h"

namespace mace::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr int kQueued = 250;
constexpr int kEvents = 6000;
constexpr int kCalls = 12;
constexpr int kTasks = 12;

class LargeQueueTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir_.file("state"));
    {
      // Written as maced would have, before it starts: each queued run with the longest
      // objective and the most workloads a spec may have (about 42 KiB of summary, so the
      // queue is about 10 MiB), and a finished run with a long log and large calls.
      auto store = store::Store::open(dir_.file("state/mace.db"));
      store::Transaction txn(store->database());
      for (int i = 0; i < kQueued; ++i) store->insert_run(run(i, RunState::queued));
      store->insert_run(run(kQueued, RunState::passed));
      for (int i = 0; i < kEvents; ++i) {
        store::EventRecord e;
        e.run_id = id(kQueued);
        e.kind = EventKind::message;
        e.message = "event " + std::to_string(i) + " " + std::string(2048, 'e');
        store->append_event(e);
      }
      for (int i = 0; i < kTasks; ++i) {
        store::TaskRecord task;
        task.run_id = id(kQueued);
        task.iteration = 1;
        task.task_id = "t" + std::to_string(i);
        task.instruction = "task " + std::to_string(i);
        task.rtl_edits = std::string(900 << 10, 'd');
        store->upsert_task(task);
      }
      for (int i = 0; i < kCalls; ++i) {
        store::LlmCallRecord call;
        call.run_id = id(kQueued);
        call.phase = LlmPhase::planning;
        call.backend = "vertex";
        call.success = true;
        call.prompt_text = std::string(1 << 20, 'p');
        call.reply_text = "reply " + std::to_string(i);
        store->record_llm_call(call);
      }
      txn.commit();
    }
    maced_ = std::make_unique<MacedInstance>(dir_);
  }

  static std::string id(int i) {
    char text[40];
    std::snprintf(text, sizeof text, "20260101-000000-000-%06d", i);
    return text;
  }

  static store::RunRecord run(int i, RunState state) {
    store::RunRecord r;
    r.id = id(i);
    r.state = state;
    r.core = "pico";
    r.objective = std::string(kMaxObjectiveBytes, 'o');
    for (std::size_t w = 0; w < kMaxWorkloads; ++w)
      r.workloads.push_back(std::string(100, 'w') + std::to_string(w));
    r.spec_json = R"({"core":"pico"})";
    r.backend = "direct";
    r.submitted_by_uid = ::getuid();
    r.submitted_at_ms = 1'767'225'600'000 + i;
    return r;
  }

  TempDir dir_;
  std::unique_ptr<MacedInstance> maced_;
};

TEST_F(LargeQueueTest, ListAndStatusShowEveryRunOfAQueueLargerThanAMessage) {
  auto all = maced_->mace({"list", "--limit", "0", "--json"});
  ASSERT_EQ(all.exit_code, 0) << all.err.substr(0, 2000);
  EXPECT_EQ(all.err, "");
  EXPECT_EQ(count_of(all.out, "\"run_id\":"), static_cast<std::size_t>(kQueued + 1));
  // Newest first, across the pages.
  EXPECT_LT(all.out.find(id(kQueued)), all.out.find(id(kQueued - 1)));
  EXPECT_LT(all.out.find(id(1)), all.out.find(id(0)));

  auto some = maced_->mace({"list", "--limit", "130"});
  ASSERT_EQ(some.exit_code, 0) << some.err.substr(0, 2000);
  EXPECT_EQ(count_of(some.out, "\n"), 131u);  // the header and 130 runs

  auto status = maced_->mace({"status", "--json"});
  ASSERT_EQ(status.exit_code, 0) << status.err.substr(0, 2000);
  EXPECT_EQ(count_of(status.out, "\"run_id\":"), static_cast<std::size_t>(kQueued));
  auto human = maced_->mace({"status"});
  ASSERT_EQ(human.exit_code, 0) << human.err.substr(0, 2000);
  EXPECT_THAT(human.out, HasSubstr(std::to_string(kQueued) + " active run(s)"));

  // Where a queued run stands comes counted, not listed.
  auto newest = maced_->mace({"status", id(kQueued - 1), "--json"});
  ASSERT_EQ(newest.exit_code, 0) << newest.err.substr(0, 2000);
  EXPECT_THAT(newest.out, HasSubstr("\"queued_ahead\":" + std::to_string(kQueued - 1)));
  auto oldest = maced_->mace({"status", id(0), "--json"});
  EXPECT_THAT(oldest.out, HasSubstr("\"queued_ahead\":0"));
}

TEST_F(LargeQueueTest, ARunsDetailLargerThanAMessageComesWhole) {
  auto status = maced_->mace({"status", id(kQueued), "--json"});
  ASSERT_EQ(status.exit_code, 0) << status.err.substr(0, 2000);
  EXPECT_EQ(count_of(status.out, "\"task_id\":"), static_cast<std::size_t>(kTasks));
  EXPECT_THAT(status.out, HasSubstr("\"instruction\":\"task " + std::to_string(kTasks - 1) + "\""));
  auto human = maced_->mace({"status", id(kQueued)});
  ASSERT_EQ(human.exit_code, 0) << human.err.substr(0, 2000);
}

TEST_F(LargeQueueTest, LogsAndCallsLargerThanAMessageComeWhole) {
  auto logs = maced_->mace({"logs", id(kQueued)});
  ASSERT_EQ(logs.exit_code, 0) << logs.err.substr(0, 2000);
  EXPECT_EQ(count_of(logs.out, "\n"), static_cast<std::size_t>(kEvents));
  EXPECT_THAT(logs.out, HasSubstr("event " + std::to_string(kEvents - 1) + " "));

  auto calls = maced_->mace({"calls", id(kQueued), "--json"});
  ASSERT_EQ(calls.exit_code, 0) << calls.err.substr(0, 2000);
  EXPECT_EQ(count_of(calls.out, "\"phase\":"), static_cast<std::size_t>(kCalls));
  EXPECT_THAT(calls.out, HasSubstr("reply " + std::to_string(kCalls - 1)));
  EXPECT_THAT(calls.err, Not(HasSubstr("capnp")));
}

}  // namespace
}  // namespace mace::testing
