// What keeps a client connection from being closed as idle: calls in flight,
// subscriptions, and the open tool session of a `mace mcp` forwarder.

#include "rpc/connection_activity.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <thread>

namespace mace::rpc {
namespace {

TEST(ConnectionActivity, IsBusyWhileAnyHoldLives) {
  llm::ToolSessions sessions;
  auto activity = std::make_shared<ConnectionActivity>(sessions);
  EXPECT_FALSE(activity->busy());
  {
    auto call = activity->hold();
    auto subscription = activity->hold();
    EXPECT_TRUE(activity->busy());
    { auto moved = std::move(call); }  // a moved-from hold lets go only once
    EXPECT_TRUE(activity->busy());
  }
  EXPECT_FALSE(activity->busy());
}

TEST(ConnectionActivity, IdleTimeCountsFromTheLastHoldLetGo) {
  llm::ToolSessions sessions;
  auto activity = std::make_shared<ConnectionActivity>(sessions);
  auto accepted = activity->last_change();
  std::optional<ConnectionActivity::Hold> call(activity->hold());
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  call.reset();
  EXPECT_GT(activity->last_change(), accepted);
}

TEST(ConnectionActivity, IsBusyWhileTheToolSessionItServesIsOpen) {
  llm::ToolSessions sessions;
  auto activity = std::make_shared<ConnectionActivity>(sessions);
  std::string token = sessions.open({});
  activity->serves_session(token);
  EXPECT_TRUE(activity->busy());
  sessions.close(token);
  EXPECT_FALSE(activity->busy());
}

TEST(ConnectionActivity, AHoldMayOutliveItsConnection) {
  llm::ToolSessions sessions;
  auto activity = std::make_shared<ConnectionActivity>(sessions);
  std::weak_ptr<ConnectionActivity> seen = activity;
  std::optional<ConnectionActivity::Hold> hold(activity->hold());
  activity.reset();  // the connection is gone
  ASSERT_FALSE(seen.expired()) << "the hold keeps what it lets go of";
  EXPECT_TRUE(seen.lock()->busy());
  hold.reset();  // lets go safely, and the activity goes with it
  EXPECT_TRUE(seen.expired());
}

}  // namespace
}  // namespace mace::rpc
