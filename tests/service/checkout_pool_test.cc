// Leasing checkouts to runs: one run per checkout, the spec's limit, fair between users.

#include "service/checkout_pool.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace mace::service {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

CheckoutPool pool_of(size_t n) {
  std::vector<PooledCheckout> checkouts;
  for (size_t i = 0; i < n; ++i) checkouts.push_back({"/srv/piton/" + std::to_string(i), "local"});
  return CheckoutPool(std::move(checkouts));
}

TEST(CheckoutPool, ARunGetsAtMostTheCheckoutsItAsksFor) {  // REQ-EXEC-2
  auto pool = pool_of(3);
  auto lease = pool.lease_next({{"r1", 1000, 2}});
  ASSERT_TRUE(lease);
  EXPECT_EQ(lease->run_id, "r1");
  EXPECT_THAT(lease->checkouts, ElementsAre(0, 1));
  EXPECT_EQ(pool.free_count(), 1u);
}

TEST(CheckoutPool, ARunAskingForNoneGetsEveryFreeCheckout) {
  auto pool = pool_of(2);
  auto lease = pool.lease_next({{"r1", 1000, 0}});
  ASSERT_TRUE(lease);
  EXPECT_THAT(lease->checkouts, ElementsAre(0, 1));
}

// REQ-PLAT-3, REQ-PLAT-4, as maced has them: one slot per configured checkout (the
// `openpiton` resource of the Ray version), each held by one run at a time.
TEST(CheckoutPool, TwoRunsShareAPoolOfTwoCheckouts) {
  auto pool = pool_of(2);
  std::vector<QueuedRun> queued = {{"r1", 1000, 1}, {"r2", 1000, 1}, {"r3", 1000, 1}};
  auto first = pool.lease_next(queued);
  auto second = pool.lease_next(queued);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->run_id, "r1");
  EXPECT_EQ(second->run_id, "r2");
  EXPECT_THAT(second->checkouts, ElementsAre(1));
  EXPECT_FALSE(pool.lease_next(queued)) << "no checkout is free for r3";
  pool.release("r1");  // r1 ended: it is no longer queued
  queued.erase(queued.begin());
  auto third = pool.lease_next(queued);
  ASSERT_TRUE(third);
  EXPECT_EQ(third->run_id, "r3");
  EXPECT_THAT(third->checkouts, ElementsAre(0));
}

TEST(CheckoutPool, AUserWithALongQueueDoesNotStarveAnother) {
  auto pool = pool_of(3);
  // uid 1000 submitted three runs before uid 2000 submitted one.
  std::vector<QueuedRun> queued = {
      {"a1", 1000, 1}, {"a2", 1000, 1}, {"a3", 1000, 1}, {"b1", 2000, 1}};
  EXPECT_EQ(pool.lease_next(queued)->run_id, "a1");
  EXPECT_EQ(pool.lease_next(queued)->run_id, "b1");
  EXPECT_EQ(pool.lease_next(queued)->run_id, "a2");
}

TEST(CheckoutPool, ReleasingFreesExactlyThatRunsCheckouts) {
  auto pool = pool_of(3);
  pool.lease_next({{"r1", 1, 1}});
  pool.lease_next({{"r2", 2, 2}});
  EXPECT_THAT(pool.held_by("r2"), ElementsAre(1, 2));
  pool.release("r2");
  EXPECT_THAT(pool.held_by("r2"), IsEmpty());
  EXPECT_THAT(pool.held_by("r1"), ElementsAre(0));
  EXPECT_EQ(pool.free_count(), 2u);
}

TEST(CheckoutPool, AnEmptyPoolOrQueueLeasesNothing) {
  auto empty = pool_of(0);
  EXPECT_FALSE(empty.lease_next({{"r1", 1, 1}}));
  auto pool = pool_of(1);
  EXPECT_FALSE(pool.lease_next({}));
}

}  // namespace
}  // namespace mace::service

namespace mace::service {
namespace {

TEST(CheckoutPool, ACheckoutOnANodeThatIsDownIsNotLeased) {  // REQ-EXEC-4
  CheckoutPool pool({{"/scratch/a", "n1"}, {"/scratch/b", "n2"}});
  auto up = [](const PooledCheckout& c) { return c.node != "n1"; };
  auto lease = pool.lease_next({{"r1", 1000, 0}}, up);
  ASSERT_TRUE(lease);
  EXPECT_THAT(lease->checkouts, ElementsAre(1));
  EXPECT_FALSE(pool.lease_next({{"r2", 1000, 1}}, up)) << "the only free checkout is on n1";
  EXPECT_EQ(pool.holder(1), "r1");
  EXPECT_EQ(pool.holder(0), std::nullopt);
  // Back up: leased again.
  auto later = pool.lease_next({{"r2", 1000, 1}}, [](const PooledCheckout&) { return true; });
  ASSERT_TRUE(later);
  EXPECT_THAT(later->checkouts, ElementsAre(0));
}

}  // namespace
}  // namespace mace::service
