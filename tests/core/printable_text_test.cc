// What counts as printable text (printable_text.h), and how other text is shown.

#include "core/printable_text.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace mace {
namespace {

using testing::HasSubstr;

// spec-hardening finding 3: the characters the probe put into objectives and models.
TEST(PrintableText, ControlsAndBidirectionalAndInvisibleCharactersAreNot) {
  const std::pair<std::string, std::string> cases[] = {
      {std::string("a\0b", 3), "U+0000 (a control character) at byte 1"},
      {"a\x1b[2Jb", "U+001B (a control character) at byte 1"},
      {"a\rb", "U+000D (a control character) at byte 1"},
      {"a\x7f", "U+007F (a control character) at byte 1"},
      {"a\xc2\x9b", "U+009B (a control character) at byte 1"},
      {"ok \xe2\x80\xae", "U+202E (a bidirectional formatting character) at byte 3"},
      {"\xe2\x80\xaa", "U+202A (a bidirectional formatting character) at byte 0"},
      {"\xe2\x81\xa6", "U+2066 (a bidirectional formatting character) at byte 0"},
      {"\xe2\x81\xa9", "U+2069 (a bidirectional formatting character) at byte 0"},
      {"\xe2\x80\x8e", "U+200E (a bidirectional formatting character) at byte 0"},
      {"\xe2\x80\x8f", "U+200F (a bidirectional formatting character) at byte 0"},
      {"\xd8\x9c", "U+061C (a bidirectional formatting character) at byte 0"},
      {"\xe2\x80\x8b", "U+200B (an invisible formatting character) at byte 0"},
      {"\xef\xbb\xbf", "U+FEFF (an invisible formatting character) at byte 0"},
      {"\xc2\xad", "U+00AD (an invisible formatting character) at byte 0"},
      {"\xf3\xa0\x80\x81", "U+E0001 (an invisible formatting character) at byte 0"},
      {"\xe2\x80\xa8", "U+2028 (a line or paragraph separator) at byte 0"},
      {"\xe3\x85\xa4", "U+3164 (an invisible filler character) at byte 0"},
      {"\xef\xbf\xbf", "U+FFFF (a noncharacter) at byte 0"},
  };
  for (const auto& [text, what] : cases) {
    auto problem = unprintable_text_problem(text, TextKind::line);
    ASSERT_TRUE(problem.has_value()) << what;
    EXPECT_THAT(*problem, HasSubstr(what));
    EXPECT_TRUE(unprintable_text_problem(text, TextKind::prose).has_value()) << what;
  }
}

TEST(PrintableText, ProseMayHaveNewlinesAndTabsLinesMayNot) {
  // spec-hardening finding 3
  EXPECT_EQ(unprintable_text_problem("two\nlines\tand a tab", TextKind::prose), std::nullopt);
  EXPECT_EQ(*unprintable_text_problem("a\nb", TextKind::line),
            "must be printable text, got U+000A (a control character) at byte 1");
  EXPECT_EQ(*unprintable_text_problem("a\r\nb", TextKind::prose),
            "must be printable text (newline and tab allowed), got U+000D (a control character) "
            "at byte 1");
}

TEST(PrintableText, EveryOtherCharacterIs) {
  // spec-hardening finding 3
  for (const char* text : {"", "plain ASCII ~!@#$%^&*()", "caf\xc3\xa9", "\xe4\xb8\xad\xe6\x96\x87",
                           "\xf0\x9f\x99\x82", "\xd7\xa2\xd7\x91\xd7\xa8\xd7\x99\xd7\xaa",
                           "\xef\xbf\xbd", "\xc2\xa0"})
    EXPECT_EQ(unprintable_text_problem(text, TextKind::line), std::nullopt) << text;
}

TEST(PrintableText, BytesThatAreNotUtf8AreNot) {
  // spec-hardening finding 3
  EXPECT_EQ(*unprintable_text_problem("ab\xff", TextKind::prose),
            "must be UTF-8 text; the bytes at byte 2 are not UTF-8");
  EXPECT_TRUE(unprintable_text_problem("\xc0\x80", TextKind::line));          // overlong NUL
  EXPECT_TRUE(unprintable_text_problem("\xed\xa0\x80", TextKind::line));      // a surrogate
  EXPECT_TRUE(unprintable_text_problem("\xe2\x80", TextKind::line));          // cut short
}

TEST(PrintableText, DisplayEscapesWhatIsNotPrintable) {
  // spec-hardening finding 3: a message quoting the value must not carry the character to a
  // terminal.
  EXPECT_EQ(quoted_for_display("a\xe2\x80\xae" "b\x1b", 60), R"("a\u202eb\u001b")");
  EXPECT_EQ(quoted_for_display("\xf3\xa0\x80\x81", 60), R"("\udb40\udc01")");
  EXPECT_EQ(quoted_for_display("caf\xc3\xa9 \"q\"", 60), R"("café \"q\"")");
  EXPECT_EQ(quoted_for_display("a\xff", 60), R"("a\ufffd")");
  EXPECT_EQ(quoted_for_display(std::string(100, 'x'), 5), R"("xxxxx"...)");
  EXPECT_EQ(json_for_display(R"({"a":")" "\xe2\x80\xae" R"("})"), R"({"a":"\u202e"})");
}

}  // namespace
}  // namespace mace
