// REQ-PLAN-15: which RTL defines a checkout mentions.

#include "openpiton/define_search.h"

#include <gtest/gtest.h>

#include "support/fixture_checkout.h"

namespace mace::openpiton {
namespace {

TEST(DefineSearch, FindsDefinesTheCheckoutMentionsAndOnlyThose) {  // REQ-PLAN-15
  mace::testing::FixtureCheckout fixture;
  Checkout checkout(fixture.root());
  EXPECT_TRUE(checkout_mentions_define(checkout, "PITON_FAKE_KNOWN_DEFINE"));
  EXPECT_TRUE(checkout_mentions_define(checkout, "MINIMAL_MONITORING"));
  EXPECT_FALSE(checkout_mentions_define(checkout, "NO_FILE_SAYS_THIS_DEFINE"));
  // A whole word only: a prefix of a real define is not that define.
  EXPECT_FALSE(checkout_mentions_define(checkout, "PITON_FAKE_KNOWN"));
}

TEST(DefineSearch, ANameThatCannotBeADefineIsNotMentioned) {
  mace::testing::FixtureCheckout fixture;
  Checkout checkout(fixture.root());
  EXPECT_FALSE(checkout_mentions_define(checkout, "-e"));
  EXPECT_FALSE(checkout_mentions_define(checkout, "lower_case"));
  EXPECT_FALSE(checkout_mentions_define(checkout, ""));
}

}  // namespace
}  // namespace mace::openpiton
