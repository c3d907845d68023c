// std::cout and std::cerr while mace runs: what is written leaves escaped, in order with
// mace's own control sequences, unless standard output was left raw.

#include "client/escaped_output.h"

#include <iostream>
#include <sstream>

#include <gtest/gtest.h>

namespace mace::client {
namespace {

// Points std::cout and std::cerr at strings for the test's life.
class CapturedStreams {
 public:
  CapturedStreams() : out_(std::cout.rdbuf(out_text_.rdbuf())), err_(std::cerr.rdbuf(err_text_.rdbuf())) {}
  ~CapturedStreams() {
    std::cout.rdbuf(out_);
    std::cerr.rdbuf(err_);
  }
  std::string out() const { return out_text_.str(); }
  std::string err() const { return err_text_.str(); }

 private:
  std::ostringstream out_text_, err_text_;
  std::streambuf* out_;
  std::streambuf* err_;
};

TEST(EscapedOutput, WhatCommandsPrintLeavesEscaped) {
  CapturedStreams captured;
  {
    EscapedStandardStreams escaped;
    std::cout << "diagnosis: \x1b]0;owned\x07" << "\n";
    std::cerr << "mace: no run named '\x1b[2J'\n";
    // A character cut between two writes is completed by the second.
    std::cout << "caf\xc3";
    std::cout << "\xa9\n";
  }
  EXPECT_EQ(captured.out(), "diagnosis: \\x1b]0;owned\\x07\ncaf\xc3\xa9\n");
  EXPECT_EQ(captured.err(), "mace: no run named '\\x1b[2J'\n");
}

TEST(EscapedOutput, MacesOwnControlSequencesPassInOrder) {
  CapturedStreams captured;
  {
    EscapedStandardStreams escaped;
    std::cout << "line \x1b";
    write_terminal_control("\x1b[7m");
    std::cout << "view";
    write_terminal_control("\x1b[0m");
  }
  EXPECT_EQ(captured.out(), "line \\x1b\x1b[7mview\x1b[0m");
}

TEST(EscapedOutput, RawStandardOutputPassesAsItIsButErrorsStayEscaped) {
  CapturedStreams captured;
  {
    EscapedStandardStreams escaped;
    std::cout << "before \x1b[1m ";
    leave_standard_output_raw();
    std::cout << "after \x1b[1m \xff\n";
    std::cerr << "error \x1b[1m\n";
  }
  EXPECT_EQ(captured.out(), "before \\x1b[1m after \x1b[1m \xff\n");
  EXPECT_EQ(captured.err(), "error \\x1b[1m\n");
}

TEST(EscapedOutput, TheStreamsGetTheirOwnBuffersBack) {
  CapturedStreams captured;
  std::streambuf* before = std::cout.rdbuf();
  { EscapedStandardStreams escaped; }
  EXPECT_EQ(std::cout.rdbuf(), before);
  std::cout << "\x1b";
  EXPECT_EQ(captured.out(), "\x1b");
}

}  // namespace
}  // namespace mace::client
