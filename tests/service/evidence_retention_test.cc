// The evidence archive as the service keeps and serves it: the retention rule over a real
// store and archive with a clock the test moves (what is removed, in what order, what is
// never touched, how it is recorded), and `mace logs` reading a run's copy, a follower
// carried into a cut copy, a log that could not be kept, one the rule removed.

#include "service/evidence_retention.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "os/file_io.h"
#include "service/run_service.h"
#include "support/child_process.h"

namespace mace::service {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr int64_t kHour = 3600 * 1000;
constexpr Caller kOwner{1000, false};

class EvidenceServiceTest : public ::testing::Test {
 protected:
  EvidenceServiceTest()
      : store_(store::Store::open(dir_.file("mace.db"))),
        service_(*store_, {}, [this] { return now_; }),
        archive_({fs::path(dir_.path()) / "runs", {}, {1000, 24 * kHour}}),
        retention_(*store_, service_, archive_, log_, [this] { return now_; }) {}

  // A finished run of `uid` with one kept build log of `bytes` bytes, ended at `finished`.
  std::string finished_run(int64_t finished, std::size_t bytes, RunState state = RunState::passed) {
    auto submitted = service_.submit_json(R"({"workloads": ["add.S"], "objective": "o", "core": "pico",
                                             "backend": "direct"})", kOwner);
    const std::string id = submitted.run_id;
    service_.set_state(id, RunState::running, "");
    keep(id, "t1", "", std::string(bytes, 'x'));
    if (!is_final(state)) return id;
    now_ = finished;
    service_.finish(id, state, "");
    return id;
  }
  int64_t keep(const std::string& run, const std::string& task, const std::string& workload,
               const std::string& content) {
    const std::string live = dir_.file(run + task + workload + ".log");
    os::write_file(live, content);
    store::LogFileRecord f;
    f.run_id = run;
    f.iteration = 1;
    f.task_id = task;
    f.workload = workload;
    f.path = live;
    f.kind = workload.empty() ? "build_log" : "sim_log";
    const int64_t id = store_->record_log_file(f);
    const auto kept = archive_.keep({run, 1, task, "", workload,
                                     workload.empty() ? evidence::EvidenceKind::build_log : evidence::EvidenceKind::sim_log},
                                    live);
    store_->keep_log_file(id, {kept.path.string(), now_, static_cast<int64_t>(kept.original_bytes),
                               static_cast<int64_t>(kept.stored_bytes), static_cast<int64_t>(kept.head_bytes),
                               static_cast<int64_t>(kept.tail_bytes), kept.compressed});
    return id;
  }

  mace::testing::TempDir dir_;
  int64_t now_ = 100 * kHour;
  std::unique_ptr<store::Store> store_;
  RunService service_;
  evidence::EvidenceArchive archive_;
  std::ostringstream log_;
  EvidenceRetention retention_;
};

TEST_F(EvidenceServiceTest, TheRunsThatFinishedFirstLoseTheirLogsUntilTheArchiveFits) {
  const std::string oldest = finished_run(100 * kHour, 400);
  const std::string older = finished_run(101 * kHour, 400);
  const std::string newer = finished_run(102 * kHour, 400);
  now_ = 200 * kHour;
  const auto report = retention_.apply();
  EXPECT_THAT(report.removed, ElementsAre(oldest)) << "one run went, and the rest fit";
  EXPECT_EQ(report.total_bytes, 1200u);
  EXPECT_EQ(report.freed_bytes, 400u);
  EXPECT_FALSE(report.still_over);
  EXPECT_FALSE(fs::exists(archive_.run_path(oldest)));
  EXPECT_TRUE(fs::exists(archive_.run_path(older)));
  EXPECT_TRUE(fs::exists(archive_.run_path(newer)));
  // Recorded: the rows, the run's own log, maced's log.
  const auto row = store_->find_log_file(oldest, 0, "", "");
  EXPECT_EQ(row->removed_at_ms, 200 * kHour);
  EXPECT_THAT(row->removed_reason, HasSubstr("above evidence.max_mb"));
  bool said = false;
  for (const auto& e : store_->events_after(oldest, 0))
    said = said || e.message.find("the retention rule removed this run's 1 kept log file") != std::string::npos;
  EXPECT_TRUE(said);
  EXPECT_THAT(log_.str(), HasSubstr("removed the 1 kept log file(s) of run " + oldest));
  // And reading one says so, not "not found".
  LogQuery query;
  const LogChunk chunk = service_.read_log(oldest, query, kOwner);
  EXPECT_FALSE(chunk.found);
  EXPECT_THAT(chunk.note, HasSubstr("the build log (iteration 1, task t1) was removed by the retention rule on 1970-01-09 08:00:00 UTC"));
  EXPECT_TRUE(retention_.apply().removed.empty()) << "once is enough";
}

TEST_F(EvidenceServiceTest, ARunningOrRecentRunIsNeverTouchedAndAnArchiveLeftOverIsSaidOnce) {
  const std::string running = finished_run(0, 900, RunState::running);
  const std::string recent = finished_run(150 * kHour, 900);
  now_ = 160 * kHour;  // the finished one ended 10 hours ago, within keep_recent_hours
  auto report = retention_.apply();
  EXPECT_TRUE(report.removed.empty());
  EXPECT_TRUE(report.still_over);
  EXPECT_THAT(log_.str(), HasSubstr("every run left is running or finished less than evidence.keep_recent_hours ago"));
  const std::size_t said = log_.str().size();
  retention_.apply();
  EXPECT_EQ(log_.str().size(), said) << "said once, not at every run's end";
  now_ = 175 * kHour;
  report = retention_.apply();
  EXPECT_THAT(report.removed, ElementsAre(recent));
  EXPECT_TRUE(fs::exists(archive_.run_path(running)));
}

TEST_F(EvidenceServiceTest, AKeptLogIsReadFromTheRunsCopyAndAFollowerGoesOnInACutOne) {
  evidence::EvidenceArchive small({fs::path(dir_.path()) / "small", {1 << 20, 256 << 10}, {}});
  std::string text;
  for (int i = 0; text.size() < (3u << 20); ++i) text += "line " + std::to_string(i) + "\n";
  const std::string id = finished_run(100 * kHour, 10);
  const std::string live = dir_.file("sim.log");
  os::write_file(live, text);
  store::LogFileRecord f;
  f.run_id = id;
  f.iteration = 1;
  f.task_id = "t1";
  f.workload = "add.S";
  f.path = live;
  f.kind = "sim_log";
  const int64_t row = store_->record_log_file(f);
  LogQuery query;
  query.workload = "add.S";
  query.offset = 2u << 20;
  LogChunk chunk = service_.read_log(id, query, kOwner);
  EXPECT_TRUE(chunk.found);
  EXPECT_FALSE(chunk.kept);
  EXPECT_THAT(chunk.note, HasSubstr("is not kept with the run (the run ended before it was copied)"));
  const auto kept = small.keep({id, 1, "t1", "", "add.S", evidence::EvidenceKind::sim_log}, live);
  store_->keep_log_file(row, {kept.path.string(), now_, static_cast<int64_t>(kept.original_bytes),
                              static_cast<int64_t>(kept.stored_bytes), static_cast<int64_t>(kept.head_bytes),
                              static_cast<int64_t>(kept.tail_bytes), kept.compressed});
  fs::remove(live);  // the model's removal: nothing of the run's is lost
  query.offset = static_cast<int64_t>(text.size()) - 100;
  query.offset_of_live = true;
  chunk = service_.read_log(id, query, kOwner);
  EXPECT_TRUE(chunk.kept);
  EXPECT_EQ(chunk.note, "");
  EXPECT_EQ(chunk.data, text.substr(text.size() - 100)) << "on from where it was in the live log";
  query.offset = -1;
  query.tail_lines = 1;
  EXPECT_EQ(service_.read_log(id, query, kOwner).data, text.substr(text.rfind('\n', text.size() - 2) + 1));
}

}  // namespace
}  // namespace mace::service
