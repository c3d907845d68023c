// The simulation time and clock cycles at a verdict, read from the verdict line as
// OpenPiton's testbench prints it (openpiton/sim_figures.h).

#include "openpiton/sim_figures.h"

#include <gtest/gtest.h>

namespace mace::openpiton {
namespace {

// REQ-VER-3: the lines of real transcripts (pinned OpenPiton, Verilator 5.006, pico 1x1).
TEST(SimFigures, APassLineGivesItsTimeAndCycles) {
  // hello and add.S on pico 1x1.
  SimulationFigures hello = figures_from_verdict_line("6943250: Simulation -> PASS (HIT GOOD TRAP)");
  ASSERT_TRUE(hello.verdict_time.has_value());
  EXPECT_EQ(*hello.verdict_time, 6943250);
  EXPECT_EQ(hello.cycles, 13886);
  EXPECT_EQ(figures_from_verdict_line("7110750: Simulation -> PASS (HIT GOOD TRAP)").cycles, 14221);
}

TEST(SimFigures, FailLinesOfTheMonitorWithPaddingAndASpaceBeforeTheColon) {
  // monitor.v prints "%d : ", which Verilog pads to the integer's width.
  SimulationFigures fail = figures_from_verdict_line("    4498250 : Simulation -> FAIL(HIT BAD TRAP)");
  EXPECT_EQ(fail.verdict_time, 4498250);
  EXPECT_EQ(fail.cycles, 8996);
  EXPECT_EQ(figures_from_verdict_line("27669250 : Simulation -> FAIL(TIMEOUT)").cycles, 55338);
  EXPECT_EQ(figures_from_verdict_line("\t12\t:\tSimulation -> FAIL(x)").verdict_time, 12);
}

// The divisor checked against the testbench's own cycle counter: a max-cycles verdict
// reads exactly its limit (1,000 measured with -max_cycle=1000; 1,500,000 the default).
TEST(SimFigures, AMaxCyclesLineReadsItsLimit) {
  EXPECT_EQ(figures_from_verdict_line("500250 : Simulation -> (terminated by reaching max cycles = 1000)").cycles,
            1000);
  EXPECT_EQ(figures_from_verdict_line(
                "750000250 : Simulation -> (terminated by reaching max cycles = 1500000)")
                .cycles,
            1500000);
}

// Missing when the transcript gives none, never guessed.
TEST(SimFigures, LinesWithoutATimeStampGiveNone) {
  for (const char* line : {"", "Info: spc(0) thread(1) -> timeout happen",
                           "Simulation -> PASS (HIT GOOD TRAP)", ": Simulation -> PASS",
                           "6943250 Simulation -> PASS", "6943250: Info - > Hit Bad trap",
                           "6943250x: Simulation -> PASS", "-5: Simulation -> PASS",
                           "... Simulation -> PASS (HIT GOOD TRAP)"}) {
    SimulationFigures f = figures_from_verdict_line(line);
    EXPECT_FALSE(f.verdict_time.has_value()) << line;
    EXPECT_FALSE(f.cycles.has_value()) << line;
  }
}

TEST(SimFigures, MoreDigitsThanATimeCanHoldGiveNone) {
  EXPECT_FALSE(figures_from_verdict_line("1234567890123456789: Simulation -> PASS").verdict_time);
  EXPECT_EQ(figures_from_verdict_line("123456789012345678: Simulation -> PASS").verdict_time,
            123456789012345678);
}

}  // namespace
}  // namespace mace::openpiton
