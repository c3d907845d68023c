// A run's logs go from where they are written to the run's own evidence the moment their
// build or simulation ends, and a log that cannot be kept says why without ending the run.

#include "run/log_keeper.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "evidence/evidence_archive.h"
#include "os/file_io.h"
#include "run/recorded_run.h"

namespace mace::run {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

class LogKeeperTest : public testing::RecordedRunTest {
 protected:
  std::shared_ptr<const evidence::EvidenceArchive> archive_at(const std::string& root) {
    return std::make_shared<const evidence::EvidenceArchive>(evidence::EvidenceSettings{.root = root});
  }

  std::string written(const std::string& name, const std::string& content) {
    os::write_file(dir_.file(name), content);
    return dir_.file(name);
  }

  const executor::TaskCallSite build_site_{1, "build"};
};

TEST_F(LogKeeperTest, ALogIsReadWhereWrittenUntilItEndsThenFromTheRunsOwnCopy) {
  LogKeeper keeper(*recorder_, archive_at(dir_.file("runs")), [] { return int64_t{1000}; });
  const std::string source = written("sim.log", "6943250: Simulation -> PASS (HIT GOOD TRAP)\n");
  keeper.started(build_site_, "add.S", source);
  auto row = store_->find_log_file(run_id_, 1, "build", "add.S");
  ASSERT_TRUE(row);
  EXPECT_EQ(row->path, source);  // --follow reads it as it grows
  EXPECT_EQ(row->kept_at_ms, 0);

  keeper.finished(build_site_, "add.S");
  os::write_file(source, "the next run's sim.log\n");  // the model's next run writes over it
  row = store_->find_log_file(run_id_, 1, "build", "add.S");
  ASSERT_TRUE(row);
  EXPECT_NE(row->path, source);
  EXPECT_THAT(row->path, HasSubstr(dir_.file("runs")));
  EXPECT_EQ(row->kept_at_ms, 1000);
  EXPECT_EQ(os::read_file(row->path), "6943250: Simulation -> PASS (HIT GOOD TRAP)\n");
  EXPECT_EQ(row->source_path, source);
}

TEST_F(LogKeeperTest, WhatTheRunEndsWithoutFinishingIsKeptAtItsEnd) {
  LogKeeper keeper(*recorder_, archive_at(dir_.file("runs")));
  keeper.started(build_site_, "", written("build.log", "compiling 1/50 objects\n"));
  keeper.started({1, "build", "undo-l1d"}, "", written("narrowing.log", "narrowing build\n"));
  keeper.keep_remaining();
  const auto rows = store_->log_files(run_id_);
  ASSERT_THAT(rows, SizeIs(2));
  for (const auto& row : rows) {
    EXPECT_GT(row.kept_at_ms, 0) << row.source_path;
    EXPECT_EQ(os::read_file(row.path), os::read_file(row.source_path));
  }
  EXPECT_EQ(rows[1].narrowing, "undo-l1d");  // a narrowing rebuild keeps its own
}

TEST_F(LogKeeperTest, AResultServedFromTheReplayCacheHasNothingToKeep) {
  LogKeeper keeper(*recorder_, archive_at(dir_.file("runs")));
  keeper.finished(build_site_, "add.S");
  EXPECT_THAT(store_->log_files(run_id_), IsEmpty());
}

TEST_F(LogKeeperTest, ALogThatCannotBeKeptSaysWhyAndStaysWhereItWasWritten) {
  os::write_file(dir_.file("not-a-directory"), "a file where the archive should be\n");
  LogKeeper keeper(*recorder_, archive_at(dir_.file("not-a-directory")));
  const std::string source = written("sim.log", "PASS\n");
  keeper.started(build_site_, "add.S", source);
  EXPECT_NO_THROW(keeper.finished(build_site_, "add.S"));
  const auto row = store_->find_log_file(run_id_, 1, "build", "add.S");
  ASSERT_TRUE(row);
  EXPECT_EQ(row->path, source);
  EXPECT_EQ(row->kept_at_ms, 0);
  EXPECT_FALSE(row->keep_error.empty());
  EXPECT_THAT(messages(), HasSubstr("the sim.log of add.S could not be kept with the run: "));
}

TEST_F(LogKeeperTest, WithoutAnArchiveLogsAreRecordedWhereWrittenAndNeverCopied) {
  LogKeeper keeper(*recorder_, nullptr);
  const std::string source = written("build.log", "built\n");
  keeper.started(build_site_, "", source);
  keeper.finished(build_site_, "");
  const auto row = store_->find_log_file(run_id_, 1, "build", "");
  ASSERT_TRUE(row);
  EXPECT_EQ(row->path, source);
  EXPECT_EQ(row->kind, "build_log");
  EXPECT_EQ(row->kept_at_ms, 0);
  EXPECT_TRUE(row->keep_error.empty());
}

}  // namespace
}  // namespace mace::run
