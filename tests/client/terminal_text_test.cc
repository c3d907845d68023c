// What mace shows of text it did not write itself: control characters, bytes that are not
// UTF-8 and characters that draw something else become visible escapes; layout stays.

#include "client/terminal_text.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace mace::client
