// Leasing checkouts to runs: a run starts with one checkout and is granted more as it asks,
// up to what it wants; one run per checkout; fair between users; nodes that are down.

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

// Hands out checkouts until none is free or nobody wants one: "run@checkout" each, "+"
// for a run that starts with it.
std::vector<std::string> hand_out(CheckoutPool& pool, std::vector<QueuedRun> queued,
                                  const CheckoutPool::Unusable& unusable = {}) {
  std::vector<std::string> out;
  while (auto grant = pool.grant_next(queued, unusable)) {
    out.push_back((grant->starts_run ? "+" : "") + grant->run_id + "@" + std::to_string(grant->checkout));
    std::erase_if(queued, [&](const QueuedRun& q) { return q.run_id == grant->run_id; });
  }
  return out;
}

TEST(CheckoutPool, ThreeRunsSubmittedTogetherOnThreeFreeCheckoutsStartTogether) {
  auto pool = pool_of(3);
  EXPECT_THAT(hand_out(pool, {{"r1", 1000}, {"r2", 1000}, {"r3", 1000}}),
              ElementsAre("+r1@0", "+r2@1", "+r3@2"));
}

TEST(CheckoutPool, ARunIsGrantedMoreAsItAsksAndNeverMoreThanItWants) {  // REQ-EXEC-2
  auto pool = pool_of(4);
  EXPECT_THAT(hand_out(pool, {{"r1", 1000}}), ElementsAre("+r1@0")) << "a run starts with one";
  pool.want("r1", 3);
  EXPECT_THAT(hand_out(pool, {}), ElementsAre("r1@1", "r1@2"));
  EXPECT_THAT(pool.held_by("r1"), ElementsAre(0, 1, 2));
  EXPECT_EQ(pool.free_count(), 1u);
}

TEST(CheckoutPool, ACheckoutGivenBackGoesToWhoeverWaits) {
  auto pool = pool_of(2);
  hand_out(pool, {{"r1", 1000}});
  pool.want("r1", 2);
  hand_out(pool, {});
  EXPECT_THAT(hand_out(pool, {{"r2", 1000}}), IsEmpty()) << "r1 holds both";
  // r1 still wants two, but a run of the same user that holds none goes first.
  pool.release("r1", 1);
  EXPECT_THAT(hand_out(pool, {{"r2", 1000}}), ElementsAre("+r2@1"));
  pool.release("r2");
  EXPECT_THAT(hand_out(pool, {{"r3", 1000}}), ElementsAre("+r3@1"));
}

TEST(CheckoutPool, AUserWithALongQueueOrAWidePlanDoesNotStarveAnother) {
  auto pool = pool_of(4);
  // uid 1000 submitted three runs before uid 2000 submitted one.
  EXPECT_THAT(hand_out(pool, {{"a1", 1000}, {"a2", 1000}, {"a3", 1000}, {"b1", 2000}}),
              ElementsAre("+a1@0", "+b1@1", "+a2@2", "+a3@3"));
  pool.release("a2");
  pool.release("a3");
  // a1 wants three more, b1 one more. Both users have one in use: uid 2000, served longest
  // ago (before a2 and a3), first; then uid 2000 has two, so uid 1000's run.
  pool.want("a1", 4);
  pool.want("b1", 2);
  EXPECT_THAT(hand_out(pool, {}), ElementsAre("b1@2", "a1@3"));
}

// One checkout, one user with a long queue, another with one run submitted after all of it:
// when the checkout frees, the user served longest ago goes first, so the second user waits
// one task, not the whole queue; then the turns alternate.
TEST(CheckoutPool, WithOneCheckoutTheUserServedLongestAgoGoesNext) {
  auto pool = pool_of(1);
  std::vector<QueuedRun> queued = {{"a1", 1000}, {"a2", 1000}, {"a3", 1000}};
  EXPECT_THAT(hand_out(pool, queued), ElementsAre("+a1@0"));
  queued = {{"a2", 1000}, {"a3", 1000}, {"b1", 2000}};
  pool.release("a1");
  EXPECT_THAT(hand_out(pool, queued), ElementsAre("+b1@0")) << "b was never served, a just was";
  pool.release("b1");
  queued = {{"a2", 1000}, {"a3", 1000}, {"b2", 2000}};
  EXPECT_THAT(hand_out(pool, queued), ElementsAre("+a2@0")) << "now a was served longest ago";
  pool.release("a2");
  EXPECT_THAT(hand_out(pool, {{"a3", 1000}, {"b2", 2000}}), ElementsAre("+b2@0"));
}

TEST(CheckoutPool, ReleasingFreesExactlyThatRunsCheckouts) {
  auto pool = pool_of(3);
  hand_out(pool, {{"r1", 1}, {"r2", 2}});
  pool.want("r2", 2);
  hand_out(pool, {});
  EXPECT_THAT(pool.held_by("r2"), ElementsAre(1, 2));
  pool.release("r1", 1);  // not r1's: nothing
  EXPECT_THAT(pool.held_by("r2"), ElementsAre(1, 2));
  pool.release("r2");
  EXPECT_THAT(pool.held_by("r2"), IsEmpty());
  EXPECT_THAT(pool.held_by("r1"), ElementsAre(0));
  EXPECT_EQ(pool.free_count(), 2u);
  EXPECT_EQ(pool.wanted_by("r2"), 0u) << "an ended run wants nothing";
}

TEST(CheckoutPool, AnEmptyPoolOrQueueLeasesNothing) {
  auto empty = pool_of(0);
  EXPECT_FALSE(empty.grant_next({{"r1", 1}}));
  EXPECT_EQ(empty.none_usable({}), "maced has no checkout");
  auto pool = pool_of(1);
  EXPECT_FALSE(pool.grant_next({}));
}

TEST(CheckoutPool, ACheckoutOnANodeThatIsDownIsNotLeased) {  // REQ-EXEC-4
  CheckoutPool pool({{"/scratch/a", "n1"}, {"/scratch/b", "n2"}});
  auto n1_down = [](const PooledCheckout& c) -> std::optional<std::string> {
    if (c.node == "n1") return "node n1 is down (disk died)";
    return std::nullopt;
  };
  EXPECT_THAT(hand_out(pool, {{"r1", 1000}, {"r2", 1000}}, n1_down), ElementsAre("+r1@1"))
      << "the only other free checkout is on n1";
  EXPECT_EQ(pool.none_usable(n1_down), std::nullopt) << "n2 takes work";
  // Back up: leased again.
  EXPECT_THAT(hand_out(pool, {{"r2", 1000}}), ElementsAre("+r2@0"));
}

TEST(CheckoutPool, WhenEveryNodeIsDownNoneIsUsableAndEachReasonIsSaid) {
  CheckoutPool pool({{"/scratch/a", "n1"}, {"/scratch/b", "n2"}, {"/scratch/c", "n2"}});
  auto all_down = [](const PooledCheckout& c) -> std::optional<std::string> {
    return "node " + c.node + " is down";
  };
  EXPECT_EQ(pool.none_usable(all_down), "node n1 is down; node n2 is down");
}

}  // namespace
}  // namespace mace::service
