#include "os/text.h"

#include <string_view>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace mace::os {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(TextTest, SplitKeepingNewlinesJoinsBackToTheText) {
  EXPECT_THAT(split_lines_keeping_newlines("a\nb\n"), ElementsAre("a\n", "b\n"));
  EXPECT_THAT(split_lines_keeping_newlines("a\nb"), ElementsAre("a\n", "b"));
  EXPECT_THAT(split_lines_keeping_newlines("\n"), ElementsAre("\n"));
  EXPECT_THAT(split_lines_keeping_newlines(""), IsEmpty());
}

TEST(TextTest, SplitDroppingNewlinesCountsNoLineAfterTheLastNewline) {
  EXPECT_THAT(split_lines_dropping_newlines("a\nb"), ElementsAre("a", "b"));
  EXPECT_THAT(split_lines_dropping_newlines("a\nb\n"), ElementsAre("a", "b"));
  EXPECT_THAT(split_lines_dropping_newlines("a\n\nb"), ElementsAre("a", "", "b"));
  EXPECT_THAT(split_lines_dropping_newlines("x\r\n"), ElementsAre("x\r"));
  EXPECT_THAT(split_lines_dropping_newlines(""), IsEmpty());
}

TEST(TextTest, SplitAtGivesOneMorePieceThanSeparatorsEmptyOnesIncluded) {
  EXPECT_THAT(split_at("a,,b", ','), ElementsAre("a", "", "b"));
  EXPECT_THAT(split_at("a,", ','), ElementsAre("a", ""));
  EXPECT_THAT(split_at(",", ','), ElementsAre("", ""));
  EXPECT_THAT(split_at("", ','), ElementsAre(""));
  EXPECT_THAT(split_at("piton/design/chip", '/'), ElementsAre("piton", "design", "chip"));
}

TEST(TextTest, SplitAtNewlinesYieldsEveryPiece) {
  EXPECT_THAT(split_at_newlines("a\nb"), ElementsAre("a", "b"));
  EXPECT_THAT(split_at_newlines("a\n"), ElementsAre("a", ""));
  EXPECT_THAT(split_at_newlines(""), ElementsAre(""));
}

TEST(TextTest, LastBytes) {
  EXPECT_EQ(last_bytes("abcdef", 3), "def");
  EXPECT_EQ(last_bytes("ab", 3), "ab");
  EXPECT_EQ(last_bytes("", 0), "");
}

TEST(TextTest, ClipUtf8NeverSplitsACharacter) {
  EXPECT_EQ(clip_utf8("abc", 5), "abc");
  EXPECT_EQ(clip_utf8("abc", 2), "ab");
  // "é" is two bytes: a cut inside it backs up before it.
  EXPECT_EQ(clip_utf8("a\xc3\xa9z", 2), "a");
  EXPECT_EQ(clip_utf8("a\xc3\xa9z", 3), "a\xc3\xa9");
  EXPECT_EQ(clip_utf8("\xe2\x82\xac", 2), "");
}

TEST(TextTest, AnUnfinishedUtf8TailIsOnlyAWellFormedStartCutShort) {
  EXPECT_EQ(unfinished_utf8_tail(""), 0u);
  EXPECT_EQ(unfinished_utf8_tail("abc"), 0u);
  EXPECT_EQ(unfinished_utf8_tail("a\xc3\xa9"), 0u);          // complete
  EXPECT_EQ(unfinished_utf8_tail("a\xc3"), 1u);
  EXPECT_EQ(unfinished_utf8_tail("a\xe2\x82"), 2u);
  EXPECT_EQ(unfinished_utf8_tail("a\xf0\x9f\x94"), 3u);
  EXPECT_EQ(unfinished_utf8_tail("a\xf0"), 1u);
  EXPECT_EQ(unfinished_utf8_tail("a\xff"), 0u);               // starts nothing
  EXPECT_EQ(unfinished_utf8_tail("a\xc0"), 0u);               // only overlong forms
  EXPECT_EQ(unfinished_utf8_tail("a\xe0\x80"), 0u);           // overlong
  EXPECT_EQ(unfinished_utf8_tail("a\xed\xa0"), 0u);           // a surrogate
  EXPECT_EQ(unfinished_utf8_tail("a\x82"), 0u);               // a stray continuation
  EXPECT_EQ(utf8_code_point("\xe2\x82\xac", 0, 3), U'\u20ac');
}

TEST(TextTest, TrimRemovesAsciiWhitespaceAtBothEnds) {
  EXPECT_EQ(trim(" \t\r\n\v\fx y \n"), "x y");
  EXPECT_EQ(trim("   "), "");
  EXPECT_EQ(trim(""), "");
}

}  // namespace
}  // namespace mace::os
