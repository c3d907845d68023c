// Durations as people read them, rounded where the precision means nothing.

#include <cmath>

#include <gtest/gtest.h>

#include "os/duration_text.h"

namespace mace::os {
namespace {

TEST(DurationTextTest, UnderAMinuteToATenthOfASecond) {
  EXPECT_EQ(duration_text(1.8), "1.8 s");
  EXPECT_EQ(duration_text(0), "0.0 s");
  EXPECT_EQ(duration_text(59.94), "59.9 s");
}

TEST(DurationTextTest, UnderAnHourInMinutesAndWholeSeconds) {
  EXPECT_EQ(duration_text(188.885164), "3 min 9 s");
  EXPECT_EQ(duration_text(59.96), "1 min 0 s");  // rounds into the next unit, never "60.0 s"
  EXPECT_EQ(duration_text(3599.4), "59 min 59 s");
}

TEST(DurationTextTest, BeyondInHoursAndMinutes) {
  EXPECT_EQ(duration_text(3599.6), "1 h 0 min");
  EXPECT_EQ(duration_text(2 * 3600 + 5 * 60 + 59), "2 h 5 min");
  EXPECT_EQ(duration_text(30 * 86400), "720 h 0 min");
}

TEST(DurationTextTest, NonsenseReadsAsNothing) {
  EXPECT_EQ(duration_text(-3), "0.0 s");
  EXPECT_EQ(duration_text(std::nan("")), "0.0 s");
  EXPECT_EQ(duration_text(1e300), "277777777 h 46 min");  // bounded, not undefined
}

}  // namespace
}  // namespace mace::os
