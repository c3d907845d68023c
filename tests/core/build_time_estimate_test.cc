// The time a build should still take: nothing until history or pace can tell, the smaller
// of the two, a steady count-down between reports, and, on the progress a real Verilator
// build reported, an estimate close to the time that was really left, without swings.

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include <gtest/gtest.h>

#include "core/build_time_estimate.h"

namespace mace {
namespace {

TEST(BuildTimeEstimateTest, NothingIsSaidUntilHistoryOrPaceCanTell) {
  BuildTimeEstimate estimate(std::nullopt);
  EXPECT_EQ(estimate.update(1000, 0, -1), -1);         // Verilator runs
  EXPECT_EQ(estimate.update(30000, 1000, 0.05), -1);   // a twentieth done is no pace yet
  EXPECT_EQ(estimate.update(31000, 2000, 0.2), 8000);  // 2 s for a fifth: 8 s for the rest
}

TEST(BuildTimeEstimateTest, HistoryTellsFromTheStartAndCountsDown) {
  BuildTimeEstimate estimate(200000);
  EXPECT_EQ(estimate.update(0, 0, -1), 200000);
  EXPECT_EQ(estimate.update(50000, 0, -1), 150000);
}

TEST(BuildTimeEstimateTest, ABuildSlowerThanItsHistoryIsNotSaidToBeDone) {
  BuildTimeEstimate estimate(100000);
  EXPECT_EQ(estimate.update(0, 0, -1), 100000);
  // Half compiled in 100 s, 150 s in: the history's 100 s are past; the pace says 100 s more.
  EXPECT_GT(estimate.update(150000, 100000, 0.5), 60000);
}

TEST(BuildTimeEstimateTest, ARawJumpWithinSecondsMovesTheEstimateOnlyALittle) {
  BuildTimeEstimate estimate(std::nullopt);
  EXPECT_EQ(estimate.update(30000, 6000, 0.1), 54000);  // a tenth in 6 s
  // Five seconds on, nothing more done: the raw figure says 99 s left, 45 s more.
  const int64_t left = estimate.update(35000, 11000, 0.1);
  EXPECT_GT(left, 54000 - 5000) << "it moves towards the news";
  EXPECT_LT(left, 54000 + 15000) << "but not all the way within five seconds";
}

// One progress report of a recorded build: milliseconds since sims started and since make
// started compiling, and the part of the compiling done.
struct Report {
  int64_t elapsed_ms, compiling_ms;
  double fraction_done;
};

std::vector<Report> recorded_build(const std::string& name, int64_t& end_ms) {
  const char* root = std::getenv("MACE_SOURCE_ROOT");
  std::ifstream in(std::string(root ? root : ".") + "/tests/core/fixtures/" + name);
  std::vector<Report> reports;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string what;
    fields >> what;
    if (what == "end") {
      fields >> end_ms;
      continue;
    }
    Report r{};
    fields >> r.elapsed_ms >> r.compiling_ms >> r.fraction_done;
    reports.push_back(r);
  }
  return reports;
}

// How the estimate did on a recorded build: the median error relative to the time really
// left (over the reports with more than 20 s left), the largest move of the predicted end
// between two reports, and the first report with an estimate.
struct Judged {
  double median_error = 0;
  int64_t largest_jump_ms = 0;
  int64_t first_estimate_ms = -1;
};

Judged judge(const std::vector<Report>& reports, int64_t end_ms, std::optional<int64_t> typical) {
  BuildTimeEstimate estimate(typical);
  Judged judged;
  std::vector<double> errors;
  std::optional<int64_t> previous_end;
  for (const Report& r : reports) {
    const int64_t left = estimate.update(r.elapsed_ms, r.compiling_ms, r.fraction_done);
    if (left < 0) continue;
    if (judged.first_estimate_ms < 0) judged.first_estimate_ms = r.elapsed_ms;
    const int64_t really_left = end_ms - r.elapsed_ms;
    if (really_left > 20000)
      errors.push_back(std::abs(static_cast<double>(left - really_left)) / really_left);
    if (previous_end)
      judged.largest_jump_ms =
          std::max(judged.largest_jump_ms, std::abs(r.elapsed_ms + left - *previous_end));
    previous_end = r.elapsed_ms + left;
  }
  std::sort(errors.begin(), errors.end());
  if (!errors.empty()) judged.median_error = errors[errors.size() / 2];
  return judged;
}

// A pico 1x1 build that took 6 min 8 s here, objects from 0.5 KB to 1.8 MB of source. The
// object-count pace this estimate replaced was off by 56% at the median and moved its
// predicted end by up to 105 s between two reports a few seconds apart.
TEST(BuildTimeEstimateTest, OnARecordedRealBuildTheEstimateIsCloseToTheTimeReallyLeftAndSteady) {
  int64_t end_ms = 0;
  const auto reports = recorded_build("pico_1x1_build_progress.tsv", end_ms);
  ASSERT_GT(reports.size(), 40u);
  ASSERT_EQ(end_ms, 368002);

  const Judged alone = judge(reports, end_ms, std::nullopt);
  EXPECT_LT(alone.median_error, 0.25);  // 0.17 measured
  EXPECT_LT(alone.largest_jump_ms, 30000);  // 22 s measured
  EXPECT_GT(alone.first_estimate_ms, 60000) << "nothing said from the first tiny objects";

  // With a history of builds like it, from the start, and closer still.
  const Judged with_history = judge(reports, end_ms, end_ms);
  EXPECT_EQ(with_history.first_estimate_ms, 0);
  EXPECT_LT(with_history.median_error, 0.1);  // 0.04 measured
  EXPECT_LT(with_history.largest_jump_ms, 20000);  // 14 s measured
}

}  // namespace
}  // namespace mace
