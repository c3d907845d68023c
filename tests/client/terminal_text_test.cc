// What mace shows of text it did not write itself: control characters, bytes that are not
// UTF-8 and characters that draw something else become visible escapes; layout stays.

#include "client/terminal_text.h"

#include <random>

#include <gtest/gtest.h>

#include "core/printable_text.h"
#include "os/text.h"

namespace mace::client {
namespace {

TEST(TerminalText, AnEscapeSequenceIsShownNotObeyed) {
  // A model's reply that would retitle the terminal and clear the screen.
  EXPECT_EQ(terminal_text("fix: \x1b]0;owned\x07\x1b[2J done"),
            "fix: \\x1b]0;owned\\x07\\x1b[2J done");
  EXPECT_EQ(terminal_text(std::string("nul \0 del \x7f bell \x07", 18)),
            "nul \\x00 del \\x7f bell \\x07");
}

TEST(TerminalText, NewlinesTabsAndLineEndingCarriageReturnsAreLayout) {
  EXPECT_EQ(terminal_text("a\tb\nc\r\nd"), "a\tb\nc\r\nd");
  // A carriage return inside a line would draw over what the line said.
  EXPECT_EQ(terminal_text("all passed\rFAILED"), "all passed\\x0dFAILED");
  EXPECT_EQ(terminal_text("ends\r"), "ends\\x0d");
}

TEST(TerminalText, PrintableUnicodeIsShownAsItIs) {
  const std::string text = "caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x94\xa5 \xe2\x86\x92 \\n";
  EXPECT_EQ(terminal_text(text), text);
}

TEST(TerminalText, BytesThatAreNotUtf8AreShownAsBytes) {
  EXPECT_EQ(terminal_text("a\xff" "b"), "a\\xffb");
  EXPECT_EQ(terminal_text("\xc0\xaf"), "\\xc0\\xaf");          // an overlong '/'
  EXPECT_EQ(terminal_text("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(terminal_text("cut \xe2\x82"), "cut \\xe2\\x82");
  // A lone C1 byte is CSI to a terminal in an 8-bit mode.
  EXPECT_EQ(terminal_text("\x9b" "2J"), "\\x9b2J");
}

TEST(TerminalText, CharactersThatAreNotPrintableAreShownAsCodePoints) {
  EXPECT_EQ(terminal_text("\xc2\x9b" "2J"), "\\u009b2J");  // U+009B, the C1 CSI
  // "Trojan Source": a right-to-left override makes the text read backwards.
  EXPECT_EQ(terminal_text("ok \xe2\x80\xae" "deliaf"), "ok \\u202edeliaf");
  EXPECT_EQ(terminal_text("\xe2\x80\xa8"), "\\u2028");
  EXPECT_EQ(terminal_text("tag \xf3\xa0\x80\x81"), "tag \\U000e0001");
}

TEST(TerminalTextPieces, ACharacterCutBetweenPiecesIsShownWhole) {
  TerminalTextPieces pieces;
  std::string shown = pieces.append("caf\xc3");
  shown += pieces.append("\xa9 \xf0\x9f");
  shown += pieces.append("\x94\xa5 \x1b[1m");
  shown += pieces.finish();
  EXPECT_EQ(shown, "caf\xc3\xa9 \xf0\x9f\x94\xa5 \\x1b[1m");
}

TEST(TerminalTextPieces, ACarriageReturnBeforeTheNextPiecesNewlineEndsALine) {
  TerminalTextPieces pieces;
  std::string shown = pieces.append("line\r");
  shown += pieces.append("\nnext\r");
  shown += pieces.append("over");
  EXPECT_EQ(shown + pieces.finish(), "line\r\nnext\\x0dover");
}

TEST(TerminalTextPieces, WhatIsLeftCutAtTheEndIsShownAsItsBytes) {
  TerminalTextPieces pieces;
  EXPECT_EQ(pieces.append("end \xe2\x82"), "end ");
  EXPECT_EQ(pieces.finish(), "\\xe2\\x82");
  // A byte that can start no character is not held back.
  EXPECT_EQ(pieces.append("x\xff"), "x\\xff");
}

// Whatever the bytes: what is shown holds no control character but newline, tab and the
// carriage return of a line end, and is printable UTF-8 throughout; cut into pieces
// anywhere, the same text is shown.
TEST(TerminalTextProperty, AnyBytesAreShownSafelyAndPiecesChangeNothing) {
  std::mt19937 random(20261202);
  // Bytes a terminal or a UTF-8 reader treats specially are drawn more often than others.
  const std::string special = "\x1b\x07\r\n\t\x7f\x9b\xc2\xe2\x80\xae\xed\xf0\xf4\xff[]0;";
  for (int round = 0; round < 5000; ++round) {
    std::string text(random() % 40, '\0');
    for (char& c : text)
      c = random() % 2 ? special[random() % special.size()] : static_cast<char>(random() % 256);
    const std::string shown = terminal_text(text);
    for (std::size_t i = 0; i < shown.size();) {
      const std::size_t n = os::utf8_sequence_length(shown, i);
      ASSERT_GT(n, 0u) << "not UTF-8 at " << i << " of " << shown;
      const char32_t c = os::utf8_code_point(shown, i, n);
      const bool layout = c == '\n' || c == '\t' || (c == '\r' && i + 1 < shown.size() && shown[i + 1] == '\n');
      ASSERT_TRUE(layout || is_printable_character(c)) << "U+" << std::hex << static_cast<unsigned>(c);
      i += n;
    }
    TerminalTextPieces pieces;
    std::string in_pieces;
    for (std::size_t at = 0; at < text.size();) {
      const std::size_t length = std::min<std::size_t>(text.size() - at, random() % 5);
      in_pieces += pieces.append(std::string_view(text).substr(at, length));
      at += length;
    }
    in_pieces += pieces.finish();
    ASSERT_EQ(in_pieces, shown);
  }
}

}  // namespace
}  // namespace mace::client
