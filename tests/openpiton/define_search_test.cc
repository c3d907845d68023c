// REQ-PLAN-15: which RTL defines a checkout mentions.

#include "openpiton/define_search.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/fixture_checkout.h"

namespace mace::openpiton {
namespace {

using ::testing::HasSubstr;

TEST(DefineSearch, FindsDefinesTheCheckoutMentionsAndOnlyThose) {  // REQ-PLAN-15
  mace::testing::FixtureCheckout fixture;
  Checkout checkout(fixture.root());
  EXPECT_TRUE(search_checkout_for_define(checkout, "PITON_FAKE_KNOWN_DEFINE").mentioned);
  EXPECT_TRUE(search_checkout_for_define(checkout, "MINIMAL_MONITORING").mentioned);
  EXPECT_FALSE(search_checkout_for_define(checkout, "NO_FILE_SAYS_THIS_DEFINE").mentioned);
  // A whole word only: a prefix of a real define is not that define.
  EXPECT_FALSE(search_checkout_for_define(checkout, "PITON_FAKE_KNOWN").mentioned);
}

TEST(DefineSearch, ANameThatCannotBeADefineIsNotMentioned) {
  mace::testing::FixtureCheckout fixture;
  Checkout checkout(fixture.root());
  EXPECT_FALSE(search_checkout_for_define(checkout, "-e").mentioned);
  EXPECT_FALSE(search_checkout_for_define(checkout, "lower_case").mentioned);
  EXPECT_FALSE(search_checkout_for_define(checkout, "").mentioned);
}

TEST(DefineSearch, ACheckoutGitCannotSearchKeepsTheDefineAndNamesGitsError) {
  mace::testing::FixtureCheckout fixture;
  // An index git cannot read: every search fails, the same way twice.
  fixture.write(".git/index", "not an index");
  Checkout checkout(fixture.root());
  DefineSearch found = search_checkout_for_define(checkout, "NO_FILE_SAYS_THIS_DEFINE");
  EXPECT_TRUE(found.mentioned);
  EXPECT_THAT(found.error, HasSubstr("git grep failed (exit 128)"));
  EXPECT_THAT(found.error, HasSubstr("index"));
}

}  // namespace
}  // namespace mace::openpiton
