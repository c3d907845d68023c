// "Did you mean": close enough to be a typo, and nothing when nothing is.

#include <gtest/gtest.h>

#include "client/suggestion.h"

namespace mace::client {
namespace {

const std::vector<std::string> kCommands = {"submit", "status", "list",   "logs",
                                            "watch",  "cancel", "report", "spec check"};

TEST(ClosestWordTest, ATypoFindsTheWordMeant) {
  EXPECT_EQ(closest_word("sumbit", kCommands), "submit");  // two letters swapped
  EXPECT_EQ(closest_word("stauts", kCommands), "status");
  EXPECT_EQ(closest_word("lsit", kCommands), "list");
  EXPECT_EQ(closest_word("cancle", kCommands), "cancel");
  EXPECT_EQ(closest_word("spec chek", kCommands), "spec check");
  EXPECT_EQ(closest_word("--mnie", {"--mine", "--limit", "--state"}), "--mine");
}

TEST(ClosestWordTest, TheStartOfOneWordIsThatWord) {
  EXPECT_EQ(closest_word("stat", kCommands), "status");
  EXPECT_EQ(closest_word("rep", kCommands), "report");
  // The start of two words names neither.
  EXPECT_EQ(closest_word("s", kCommands), std::nullopt);
}

TEST(ClosestWordTest, NothingCloseIsNoSuggestion) {
  EXPECT_EQ(closest_word("frobnicate", kCommands), std::nullopt);
  EXPECT_EQ(closest_word("", kCommands), std::nullopt);
  EXPECT_EQ(closest_word(std::string(10000, 'x'), kCommands), std::nullopt);
}

}  // namespace
}  // namespace mace::client
