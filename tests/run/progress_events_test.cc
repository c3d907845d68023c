// Progress as it happens, on the fixture checkout with a real store: each
// workload's verdict recorded before the next simulation starts, a build's objects
// compiled reported while it runs, its estimate taken from the store's earlier builds.

#include "run/progress_events.h"

#include <filesystem>
#include <mutex>

#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "run/run_execution.h"
#include "service/run_service.h"
#include "store/sqlite.h"
#include "store/store.h"
#include "support/child_process.h"
#include "support/fixture_checkout.h"

namespace mace::run {
namespace {

using ::testing::IsEmpty;

constexpr const char* kDiagDir = "piton/verif/diag/assembly/riscv/pico/";

class ProgressEventsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = store::Store::open(dir_.file("mace.db"));
    service_ = std::make_unique<service::RunService>(*store_);
    settings_.workloads_dir = mace::testing::source_root() + "/workloads";
  }

  std::string submit(const std::vector<std::string>& workloads, const std::string& extra = "") {
    std::string list;
    for (const auto& w : workloads) list += (list.empty() ? "\"" : ", \"") + w + "\"";
    auto outcome = service_->submit_json(
        R"({"core": "pico", "mesh": [1, 1], "backend": "direct", "objective": "run them",
            "workloads": [)" + list + "]" + extra + "}",
        service::Caller{1000});
    EXPECT_THAT(outcome.errors, IsEmpty());
    return outcome.run_id;
  }

  // Six copies of add.S, step0.S .. step5.S.
  std::vector<std::string> six_diags() {
    std::vector<std::string> workloads;
    for (int i = 0; i < 6; ++i) {
      workloads.push_back("step" + std::to_string(i) + ".S");
      checkout_.write(kDiagDir + workloads.back(), checkout_.read(std::string(kDiagDir) + "add.S"));
    }
    return workloads;
  }
  // Executes the run; for each verdict event, how many simulations had been started when it
  // was recorded.
  RunEnding execute_counting_starts(const std::string& id, std::vector<int>& runs_started_at_verdict) {
    std::size_t seen = 0;
    return execute(id, [&] {
      auto verdicts = events(id, EventKind::verdict);
      for (; seen < verdicts.size(); ++seen) runs_started_at_verdict.push_back(checkout_.invocations("run"));
    });
  }

  // Executes the run; `after_each_record` sees the store after every record the run makes.
  RunEnding execute(const std::string& run_id,
                    const std::function<void()>& after_each_record = [] {}) {
    std::mutex one_at_a_time;
    RunRecorder recorder(*service_, *store_,
                         [&](const std::function<void()>& work) {
                           std::lock_guard lock(one_at_a_time);
                           work();
                           after_each_record();
                         },
                         run_id);
    return execute_run(recorder, settings_, own_checkouts({{checkout_.root(), "local"}}),
                       cancel_);
  }

  std::vector<store::EventRecord> events(const std::string& run_id, EventKind kind) {
    std::vector<store::EventRecord> out;
    for (auto& e : store_->events_after(run_id, 0, 0))
      if (e.kind == kind) out.push_back(e);
    return out;
  }

  mace::testing::TempDir dir_;
  mace::testing::FixtureCheckout checkout_;
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<service::RunService> service_;
  RunSettings settings_;
  os::CancelToken cancel_;
};

TEST_F(ProgressEventsTest, OneAtATimeEachVerdictIsRecordedBeforeTheNextSimulationStarts) {
  const std::vector<std::string> workloads = six_diags();
  const std::string id = submit(workloads, R"(, "parallel_workloads": 1)");
  std::vector<int> runs_started_at_verdict;
  const RunEnding ending = execute_counting_starts(id, runs_started_at_verdict);
  ASSERT_EQ(ending.state, RunState::passed) << ending.reason;
  EXPECT_THAT(runs_started_at_verdict, ::testing::ElementsAre(1, 2, 3, 4, 5, 6));
  const auto verdicts = events(id, EventKind::verdict);
  ASSERT_EQ(verdicts.size(), workloads.size());
  for (std::size_t i = 0; i < verdicts.size(); ++i) {
    EXPECT_EQ(verdicts[i].workload, workloads[i]);
    EXPECT_EQ(verdicts[i].verdict, Verdict::pass);
  }
}

// Side by side, the verdicts are still recorded in the spec's order, each once it and every
// one before it have been judged.
TEST_F(ProgressEventsTest, SideBySideTheVerdictsAreRecordedInTheSpecsOrder) {
  const std::vector<std::string> workloads = six_diags();
  checkout_.set_control("run_sleep", "0.2");
  const std::string id = submit(workloads, R"(, "parallel_workloads": 3)");
  std::vector<int> runs_started_at_verdict;
  const RunEnding ending = execute_counting_starts(id, runs_started_at_verdict);
  ASSERT_EQ(ending.state, RunState::passed) << ending.reason;
  ASSERT_EQ(runs_started_at_verdict.size(), workloads.size());
  // At most three at once, and no more than the machine's CPUs (the task's share, alone).
  const int at_once = std::min<int>(3, static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN))));
  EXPECT_GE(runs_started_at_verdict.front(), at_once) << "started side by side before the first verdict";
  const auto verdicts = events(id, EventKind::verdict);
  for (std::size_t i = 0; i < verdicts.size(); ++i) EXPECT_EQ(verdicts[i].workload, workloads[i]);
}

TEST_F(ProgressEventsTest, ABuildReportsEachObjectThenTheNextBuildGetsAnEstimate) {
  checkout_.set_control("compile_sleep", "0.05");
  const std::string first = submit({"add.S"});
  ASSERT_EQ(execute(first).state, RunState::passed);
  const auto progress = events(first, EventKind::build_progress);
  ASSERT_GE(progress.size(), 3u);
  EXPECT_EQ(progress.front().message, "verilating");
  EXPECT_EQ(progress.back().message, "linking 11/11 objects");
  int64_t done = 0, elapsed = 0;
  for (const auto& e : progress) {
    EXPECT_EQ(e.task_id, "build");  // the direct planner's one task
    EXPECT_GE(e.objects_done, done);
    EXPECT_GE(e.elapsed_ms, elapsed);
    if (e.objects_done < 2) {
      EXPECT_EQ(e.estimate_left_ms, -1) << "no build of a pico 1x1 was recorded before, and "
                                           "less than a tenth of the objects is no pace";
    } else if (e.message.starts_with("compiling")) {
      EXPECT_GE(e.estimate_left_ms, 0) << "a tenth of the objects gives the pace of the rest";
    }
    done = e.objects_done;
    elapsed = e.elapsed_ms;
  }
  EXPECT_GE(elapsed, 500) << "eleven objects, 50 ms each";
  // Progress comes before the simulation it precedes.
  const auto all = store_->events_after(first, 0, 0);
  auto first_verdict = std::find_if(all.begin(), all.end(),
                                    [](const auto& e) { return e.kind == EventKind::verdict; });
  auto last_progress = std::find_if(all.rbegin(), all.rend(), [](const auto& e) {
    return e.kind == EventKind::build_progress;
  });
  EXPECT_LT(last_progress->seq, first_verdict->seq);

  const auto typical = store_->typical_build_seconds("pico", 1, 1);
  ASSERT_TRUE(typical);
  EXPECT_GT(*typical, 0.5);

  // The model is gone, so the next run builds again, now with history to go by.
  std::filesystem::remove_all(checkout_.root() + "/build");
  const std::string second = submit({"add.S"});
  ASSERT_EQ(execute(second).state, RunState::passed);
  const auto again = events(second, EventKind::build_progress);
  ASSERT_FALSE(again.empty());
  EXPECT_GE(again.front().estimate_left_ms, 0);
  EXPECT_LE(again.front().estimate_left_ms, static_cast<int64_t>(*typical * 1000));
  EXPECT_EQ(store_->typical_build_seconds("pico", 2, 1), std::nullopt);
}

TEST_F(ProgressEventsTest, AReusedModelReportsNoProgressAndRecordsNoBuildTime) {
  ASSERT_EQ(execute(submit({"add.S"})).state, RunState::passed);
  const std::string second = submit({"add.S"});
  ASSERT_EQ(execute(second).state, RunState::passed);
  EXPECT_THAT(events(second, EventKind::build_progress), IsEmpty());
  int builds = 0;
  auto stmt = store_->database().prepare("SELECT count(*) FROM build_times");
  if (stmt.step()) builds = static_cast<int>(stmt.int64(0));
  EXPECT_EQ(builds, 1);
}

}  // namespace
}  // namespace mace::run
