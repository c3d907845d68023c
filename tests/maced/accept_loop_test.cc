// How maced's accept loop treats each failure of accept(2), and how long it waits.

#include "maced/accept_loop.h"

#include <cerrno>

#include <gtest/gtest.h>

namespace mace {
namespace {

using namespace std::chrono_literals;

TEST(AcceptLoop, RunningOutOfDescriptorsOrMemoryIsWaitedOut) {
  for (int error : {EMFILE, ENFILE, ENOBUFS, ENOMEM})
    EXPECT_EQ(classify_accept_failure(error), AcceptFailure::out_of_resources) << error;
}

TEST(AcceptLoop, AOneConnectionFailureIsRetriedAtOnce) {
  for (int error : {EINTR, ECONNABORTED, EPROTO})
    EXPECT_EQ(classify_accept_failure(error), AcceptFailure::retry_now) << error;
}

TEST(AcceptLoop, AnythingElseIsUnexpectedButStillRetried) {
  // Retrying these at once could spin for ever on a socket that can never accept.
  for (int error : {EBADF, EINVAL, ENOTSOCK, EOPNOTSUPP, EPERM, ENETDOWN})
    EXPECT_EQ(classify_accept_failure(error), AcceptFailure::unexpected) << error;
}

TEST(AcceptLoop, BacksOffFromATenthOfASecondToOneSecond) {
  EXPECT_EQ(accept_backoff(0), 100ms);
  EXPECT_EQ(accept_backoff(1), 200ms);
  EXPECT_EQ(accept_backoff(2), 400ms);
  EXPECT_EQ(accept_backoff(3), 800ms);
  EXPECT_EQ(accept_backoff(4), 1000ms);
  EXPECT_EQ(accept_backoff(1000), 1000ms);
}

}  // namespace
}  // namespace mace
