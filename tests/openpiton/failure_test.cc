// The adapter's one vocabulary of failures (openpiton/failure.h): each word reads back as
// the failure it names, and a host's stop is the failure of the same name.

#include "openpiton/failure.h"

#include <sstream>

#include <gtest/gtest.h>

namespace mace::openpiton {
namespace {

TEST(FailureTest, EveryFailureReadsBackFromItsWord) {
  for (int i = 1; i <= static_cast<int>(Failure::killed_by_scheduler); ++i) {
    const auto failure = static_cast<Failure>(i);
    ASSERT_FALSE(to_string(failure).empty()) << i;
    EXPECT_EQ(failure_from_string(to_string(failure)), failure);
  }
  EXPECT_EQ(failure_from_string(""), Failure::none);
  EXPECT_EQ(failure_from_string("Build_Failed"), std::nullopt) << "words are exact";
  EXPECT_EQ(failure_from_string("cache_miss"), std::nullopt) << "replay's, not the adapter's";
}

TEST(FailureTest, AHostsStopIsTheFailureOfTheSameName) {
  for (os::HostStop stop : {os::HostStop::node_failure, os::HostStop::out_of_memory,
                            os::HostStop::never_started, os::HostStop::killed_by_scheduler})
    EXPECT_EQ(to_string(failure_of(stop)), os::to_string(stop));
  EXPECT_EQ(failure_of(os::HostStop::none), Failure::none);
}

TEST(FailureTest, NoFailureIsWrittenAsNoneForPeople) {
  std::ostringstream out;
  out << Failure::none << " " << Failure::way_rule;
  EXPECT_EQ(out.str(), "none way_rule");
}

}  // namespace
}  // namespace mace::openpiton
