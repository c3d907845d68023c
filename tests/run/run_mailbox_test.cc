// What reaches a run's thread while its loop waits comes out in the order it was posted,
// from whatever thread posted it, and a wait with nothing posted ends at its limit.

#include "run/run_mailbox.h"

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

namespace mace::run {
namespace {

using namespace std::chrono_literals;

TEST(RunMailbox, MessagesFromAnotherThreadArriveInTheOrderTheyWerePosted) {
  RunMailbox mailbox;
  EXPECT_FALSE(mailbox.next(std::chrono::milliseconds(0))) << "nothing posted: nothing waited for";
  std::thread poster([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    mailbox.post(RunMailbox::Granted{2, {"/srv/c", "local"}});
    mailbox.post(RunMailbox::NoneLeft{"node n1 is down"});
  });
  auto first = mailbox.next(std::chrono::seconds(10));  // waits for the other thread
  poster.join();
  ASSERT_TRUE(first);
  ASSERT_TRUE(std::holds_alternative<RunMailbox::Granted>(*first));
  EXPECT_EQ(std::get<RunMailbox::Granted>(*first).index, 2u);
  auto second = mailbox.next(std::chrono::milliseconds(0));
  ASSERT_TRUE(second);
  EXPECT_EQ(std::get<RunMailbox::NoneLeft>(*second).why, "node n1 is down");
  EXPECT_FALSE(mailbox.next(std::chrono::milliseconds(10)));
}

TEST(RunMailbox, AWaitWithNothingPostedEndsAtItsLimit) {
  RunMailbox mailbox;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(mailbox.next(50ms));
  EXPECT_GE(std::chrono::steady_clock::now() - start, 50ms);
}

}  // namespace
}  // namespace mace::run
