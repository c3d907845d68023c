#include "openpiton/transcript_excerpt.h"

#include <filesystem>
#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/child_process.h"

namespace mace::openpiton {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

class TranscriptExcerptTest : public ::testing::Test {
 protected:
  mace::testing::TempDir dir;
  fs::path log = fs::path(dir.path()) / "sim.log";
  void write(const std::string& text) { std::ofstream(log, std::ios::binary) << text; }
  static std::string lines(int from, int to) {
    std::string s;
    for (int i = from; i <= to; ++i) s += "L15_MON line " + std::to_string(i) + "\n";
    return s;
  }
};

TEST_F(TranscriptExcerptTest, TheFirstErrorLineAndTheLinesAroundItAndTheVerdict) {
  write(lines(1, 20) + "*ERROR*: 4031 : tlu_mon: C0T3: has hit bug7148\n" + lines(22, 40) +
        "Error @5000 : sparc 0 l2_ld_return_error\n" + lines(42, 60) +
        "4498250 : Simulation -> FAIL(HIT BAD TRAP)\n- monitor.tmp.v:91: Verilog $finish\n" +
        lines(63, 100));
  const auto excerpt = read_transcript_excerpt(log, "4498250 : Simulation -> FAIL(HIT BAD TRAP)");
  EXPECT_EQ(excerpt.error_line, "*ERROR*: 4031 : tlu_mon: C0T3: has hit bug7148");
  EXPECT_EQ(excerpt.text,
            "17: L15_MON line 17\n18: L15_MON line 18\n19: L15_MON line 19\n20: L15_MON line 20\n"
            "21: *ERROR*: 4031 : tlu_mon: C0T3: has hit bug7148\n"
            "22: L15_MON line 22\n23: L15_MON line 23\n"
            "...\n"
            "57: L15_MON line 57\n58: L15_MON line 58\n59: L15_MON line 59\n60: L15_MON line 60\n"
            "61: 4498250 : Simulation -> FAIL(HIT BAD TRAP)\n"
            "62: - monitor.tmp.v:91: Verilog $finish\n63: L15_MON line 63\n");
}

TEST_F(TranscriptExcerptTest, WithoutAnErrorLineTheVerdictLineIsIt) {
  write(lines(1, 10) + "750000250 : Simulation -> (terminated by reaching max cycles = 1500000)\n" +
        "- monitor.tmp.v:66: Verilog $finish\n");
  const auto excerpt = read_transcript_excerpt(
      log, "750000250 : Simulation -> (terminated by reaching max cycles = 1500000)");
  EXPECT_EQ(excerpt.error_line, "750000250 : Simulation -> (terminated by reaching max cycles = 1500000)");
  EXPECT_THAT(excerpt.text, HasSubstr("7: L15_MON line 7\n"));
  EXPECT_THAT(excerpt.text, Not(HasSubstr("6: L15_MON")));
  EXPECT_THAT(excerpt.text, Not(HasSubstr("...")));
  EXPECT_THAT(excerpt.text, HasSubstr("12: - monitor.tmp.v:66: Verilog $finish\n"));
}

TEST_F(TranscriptExcerptTest, WhatReadsAsAnError) {
  EXPECT_TRUE(reads_as_error("4498000: Info - > Hit Bad trap. spc(0) thread(0)"));
  EXPECT_TRUE(reads_as_error("Playback FAILED with 3 mismatches!"));
  EXPECT_TRUE(reads_as_error("%Fatal: something"));
  EXPECT_TRUE(reads_as_error("@800 Bug 7117: Error: C0 STB3 valid bits not contiguous"));
  // The verdict is not an error before it; the trap addresses are not errors at all.
  EXPECT_FALSE(reads_as_error("4498250 : Simulation -> FAIL(HIT BAD TRAP)"));
  EXPECT_FALSE(reads_as_error("27669250 : Simulation\t->  FAIL(l2 error)"));
  EXPECT_FALSE(reads_as_error("                 250: bad_trap 00400005a0"));
  EXPECT_FALSE(reads_as_error("Info: spc(0) thread(1) -> timeout happen"));
}

TEST_F(TranscriptExcerptTest, LongLinesAreCutAndAMissingFileIsEmpty) {
  write(std::string(100000, 'x') + " error\n" + "5 : Simulation -> FAIL(HIT BAD TRAP)\n");
  const auto excerpt = read_transcript_excerpt(log, "5 : Simulation -> FAIL(HIT BAD TRAP)");
  // The cut line no longer holds "error": the verdict line is the error line.
  EXPECT_EQ(excerpt.error_line, "5 : Simulation -> FAIL(HIT BAD TRAP)");
  EXPECT_LE(excerpt.text.size(), kMaxExcerptBytes);
  EXPECT_THAT(excerpt.text, HasSubstr("1: " + std::string(kMaxExcerptLineBytes, 'x') + "\n"));
  EXPECT_TRUE(read_transcript_excerpt(fs::path(dir.path()) / "none.log", "x").error_line.empty());
  EXPECT_TRUE(read_transcript_excerpt(dir.path(), "x").text.empty());  // a directory
}

TEST_F(TranscriptExcerptTest, NoVerdictAndNoErrorIsNothing) {
  write(lines(1, 50));
  const auto excerpt = read_transcript_excerpt(log, "");
  EXPECT_TRUE(excerpt.error_line.empty());
  EXPECT_TRUE(excerpt.text.empty());
}

}  // namespace
}  // namespace mace::openpiton
