// A workload's verdict becomes the store's row for it, every figure carried.

#include "run/workload_result.h"

#include <gtest/gtest.h>

namespace mace::run {
namespace {

TEST(WorkloadResult, CarriesEveryFigureOfTheVerdictAtItsOrdinal) {
  loop::WorkloadVerdict v{.workload = "add.S", .verdict = Verdict::fail, .run_dir = "/runs/1",
                          .wall_s = 2.5, .returncode = 1, .verdict_time = 123400,
                          .cycles = 1234, .error_line = "ERROR: bad trap", .excerpt = "a\nb"};
  const store::WorkloadResultRecord r = workload_result(3, v);
  EXPECT_EQ(r.ordinal, 3);
  EXPECT_EQ(r.workload, "add.S");
  EXPECT_EQ(r.verdict, Verdict::fail);
  EXPECT_EQ(r.returncode, 1);
  EXPECT_EQ(r.run_dir, "/runs/1");
  EXPECT_DOUBLE_EQ(r.wall_s, 2.5);
  EXPECT_EQ(r.verdict_time, 123400);
  EXPECT_EQ(r.cycles, 1234);
  EXPECT_EQ(r.error_line, "ERROR: bad trap");
  EXPECT_EQ(r.excerpt, "a\nb");
}

TEST(WorkloadResult, AVerdictWithoutFiguresKeepsThemUnset) {
  const store::WorkloadResultRecord r =
      workload_result(0, loop::WorkloadVerdict{.workload = "hello", .verdict = Verdict::pass});
  EXPECT_EQ(r.verdict, Verdict::pass);
  EXPECT_FALSE(r.verdict_time);
  EXPECT_FALSE(r.cycles);
  EXPECT_EQ(r.returncode, 0);
}

}  // namespace
}  // namespace mace::run
