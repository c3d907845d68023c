// A task's merged coverage goes into the run's record: the summary in the store, the data
// and annotated sources kept with its evidence, and one line in its log.

#include "run/coverage_record.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "evidence/evidence_archive.h"
#include "os/file_io.h"
#include "run/recorded_run.h"

namespace mace::run {
namespace {

using ::testing::HasSubstr;

openpiton::CoverageResult merged(const std::filesystem::path& directory) {
  openpiton::CoverageResult c;
  c.merged = true;
  c.directory = directory;
  c.data = directory / "coverage.dat";
  c.annotated = directory / "annotated";
  c.annotated_files = {"chip.v"};
  c.runs_merged = 2;
  c.runs_without_data = {"/runs/memstress"};
  c.summary.total = {"", 812, 1040, 900, 1200};
  c.summary.modules = {{"chip", 800, 1000, 880, 1150}, {"chipset", 12, 40, 20, 50}};
  return c;
}

TEST(CoverageLine, SaysLinesCoveredOfTotalOverTheWorkloads) {
  openpiton::CoverageResult c = merged("/m/coverage/1");
  EXPECT_EQ(coverage_line(c), "lines 812 of 1040 (78.1%) over 2 workloads");
  c.runs_merged = 1;
  c.summary.total.lines_total = 0;
  EXPECT_EQ(coverage_line(c), "lines 812 of 0 (-) over 1 workload") << "no division by nothing";
  openpiton::CoverageResult none;
  none.error = "no simulation wrote coverage.dat";
  EXPECT_EQ(coverage_line(none), "no coverage: no simulation wrote coverage.dat");
}

class CoverageRecordTest : public testing::RecordedRunTest {};

TEST_F(CoverageRecordTest, MergedCoverageIsStoredKeptAndLogged) {  // REQ-EXEC-6
  const std::filesystem::path made = dir_.file("model/coverage/1");
  std::filesystem::create_directories(made / "annotated");
  os::write_file(made / "coverage.dat", "# SystemC::Coverage-3\n");
  os::write_file(made / "annotated" / "chip.v", "%000001 module chip;\n");
  LogKeeper logs(*recorder_, std::make_shared<const evidence::EvidenceArchive>(
                                 evidence::EvidenceSettings{.root = dir_.file("runs")}));
  record_coverage(*recorder_, logs, {1, "cov"}, merged(made), 1234);

  const auto stored = store_->task_coverage(run_id_);
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].task_id, "cov");
  EXPECT_EQ(stored[0].workloads, 2);
  EXPECT_EQ(stored[0].error, "");
  EXPECT_EQ(stored[0].total.lines_covered, 812);
  ASSERT_EQ(stored[0].modules.size(), 2u);
  EXPECT_EQ(stored[0].modules[1].module, "chipset");
  EXPECT_EQ(stored[0].created_at_ms, 1234);
  EXPECT_NE(stored[0].data_path, (made / "coverage.dat").string()) << "the run keeps its own copy";
  EXPECT_TRUE(std::filesystem::exists(stored[0].data_path));
  EXPECT_GT(stored[0].data_file_id, 0);
  EXPECT_THAT(messages(), HasSubstr("coverage lines 812 of 1040 (78.1%) over 2 workloads; 1 "
                                    "simulation(s) wrote no coverage.dat"));
}

TEST_F(CoverageRecordTest, NoCoverageIsStoredWithItsReasonAndNoCounts) {
  LogKeeper logs(*recorder_, nullptr);
  openpiton::CoverageResult none;
  none.error = "verilator_coverage is not on the PATH";
  record_coverage(*recorder_, logs, {2, "cov"}, none, 99);
  const auto stored = store_->task_coverage(run_id_);
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].error, "verilator_coverage is not on the PATH");
  EXPECT_TRUE(stored[0].modules.empty());
  EXPECT_EQ(stored[0].total.lines_total, 0);
  EXPECT_THAT(messages(), HasSubstr("coverage no coverage: verilator_coverage is not on the PATH"));
}

}  // namespace
}  // namespace mace::run
