// The questions asked of a failure's waveform, each bounded: the signals under a scope, the
// last changes of named signals in a window, and what changed last near the top.
#include "waveform/wave_query.h"

#include <gtest/gtest.h>

#include <fstream>

#include "support/child_process.h"

namespace mace::waveform {
namespace {

using namespace std::chrono_literals;

// A design's trace: a clock toggling every 250, a counter ticking every cycle, a request
// that rises at cycle 10 and a state that settles at cycle 15, then 20 more cycles.
std::string design_trace() {
  std::string t =
      "$timescale 1ps $end\n"
      " $scope module TOP $end\n"
      "  $var wire  1 ! clk $end\n"
      "  $scope module cmp_top $end\n"
      "   $var wire  1 ! clk $end\n"
      "   $var wire 16 \" cycle [15:0] $end\n"
      "   $var wire  1 # req $end\n"
      "   $scope module system $end\n"
      "    $var wire  4 $ state [3:0] $end\n"
      "    $scope module deep $end\n"
      "     $var wire  1 % inner $end\n"
      "    $upscope $end\n"
      "   $upscope $end\n"
      "  $upscope $end\n"
      " $upscope $end\n"
      "$enddefinitions $end\n";
  auto bits = [](int v, int width) {
    std::string b;
    for (int i = width - 1; i >= 0; --i) b += ((v >> i) & 1) ? '1' : '0';
    return b;
  };
  for (int cycle = 0; cycle < 36; ++cycle) {
    t += "#" + std::to_string(cycle * 500) + "\n1!\n";
    t += "b" + bits(cycle, 16) + " \"\n";
    if (cycle == 0) t += "0#\nb0000 $\n0%\n";
    if (cycle == 10) t += "1#\n";
    if (cycle == 12) t += "1%\n";
    if (cycle == 15) t += "b1010 $\n";
    t += "#" + std::to_string(cycle * 500 + 250) + "\n0!\n";
  }
  return t;
}

class WaveQueryTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_.write("wave.vcd", design_trace()); }
  std::filesystem::path file() const { return dir_.file("wave.vcd"); }
  mace::testing::TempDir dir_;
};

TEST_F(WaveQueryTest, ListsTheSignalsAndScopesDirectlyBelowAScope) {
  std::ifstream in(file());
  VcdReader reader(in, "wave.vcd");
  const SignalListing all = list_signals(reader.header(), "", "", kDefaultListed);
  EXPECT_EQ(all.total_signals, 6u);
  EXPECT_EQ(all.matched, 6u);
  EXPECT_EQ(all.child_scopes, std::vector<std::string>{"TOP"});

  const SignalListing top = list_signals(reader.header(), "TOP.cmp_top", "", kDefaultListed);
  EXPECT_EQ(top.matched, 5u);  // its own three and system's two
  EXPECT_EQ(top.child_scopes, std::vector<std::string>{"TOP.cmp_top.system"});

  const SignalListing filtered = list_signals(reader.header(), "TOP", "state", kDefaultListed);
  ASSERT_EQ(filtered.shown.size(), 1u);
  EXPECT_EQ(filtered.shown[0].path, "TOP.cmp_top.system.state");

  // A scope is whole words: TOP.cmp names nothing.
  EXPECT_EQ(list_signals(reader.header(), "TOP.cmp", "", kDefaultListed).matched, 0u);
  // At most max_listed are shown; all are counted.
  const SignalListing two = list_signals(reader.header(), "", "", 2);
  EXPECT_EQ(two.shown.size(), 2u);
  EXPECT_EQ(two.matched, 6u);
}

TEST_F(WaveQueryTest, GivesTheLastChangesInTheWindowAndTheValueBeforeThem) {
  const ValuesAnswer a = signal_values(
      file(), {.paths = {"TOP.cmp_top.req", "TOP.cmp_top.cycle", "TOP.nothing"}, .from = 4000, .to = 6000, .max_changes = 3},
      10s);
  ASSERT_EQ(a.signals.size(), 2u);
  EXPECT_EQ(a.unknown, std::vector<std::string>{"TOP.nothing"});
  const SignalValues& req = a.signals[0];
  EXPECT_EQ(req.value_before, "0");
  ASSERT_EQ(req.changes.size(), 1u);
  EXPECT_EQ(req.changes[0].time, 5000u);
  EXPECT_EQ(req.changes[0].value, "1");
  const SignalValues& cycle = a.signals[1];
  // Cycles 8..12 change in [4000, 6000]; the last three are kept, the two before left out.
  ASSERT_EQ(cycle.changes.size(), 3u);
  EXPECT_EQ(cycle.changes_left_out, 2u);
  EXPECT_EQ(cycle.changes[0].time, 5000u);
  EXPECT_EQ(cycle.changes[2].value, "16'hc");
  EXPECT_EQ(cycle.value_before, "16'h9");
  EXPECT_EQ(a.file.first_time, 0u);
  EXPECT_FALSE(a.timed_out);
}

TEST_F(WaveQueryTest, WithoutAWindowTheLastChangesOfTheWholeFileAreGiven) {
  const ValuesAnswer a = signal_values(file(), {.paths = {"TOP.cmp_top.system.state"}}, 10s);
  ASSERT_EQ(a.signals.size(), 1u);
  ASSERT_EQ(a.signals[0].changes.size(), 2u);  // the initial value and the change at 15
  EXPECT_EQ(a.signals[0].changes[1].time, 7500u);
  EXPECT_EQ(a.signals[0].changes[1].value, "4'ha");
  EXPECT_EQ(a.file.last_time, 35u * 500 + 250);
}

TEST_F(WaveQueryTest, AQueryOverItsBoundsIsRefused) {
  EXPECT_THROW(signal_values(file(), {.paths = {}}, 10s), std::invalid_argument);
  EXPECT_THROW(signal_values(file(), {.paths = std::vector<std::string>(kMaxQueriedSignals + 1, "TOP.clk")}, 10s),
               std::invalid_argument);
  EXPECT_THROW(signal_values(file(), {.paths = {"TOP.clk"}, .max_changes = kMaxChanges + 1}, 10s),
               std::invalid_argument);
  EXPECT_THROW(signal_values(file(), {.paths = {"TOP.clk"}, .from = 10, .to = 5}, 10s), std::invalid_argument);
  EXPECT_THROW(signal_values(dir_.file("absent.vcd"), {.paths = {"TOP.clk"}}, 10s), WaveError);
}

TEST_F(WaveQueryTest, WhatChangedLastLeavesOutClocksCountersAndTheDeep) {
  const auto recent = changed_last(file(), 4, 10, 10s);
  ASSERT_EQ(recent.size(), 2u);
  EXPECT_EQ(recent[0].path, "TOP.cmp_top.system.state");
  EXPECT_EQ(recent[0].time, 7500u);
  EXPECT_EQ(recent[0].value, "4'ha");
  EXPECT_EQ(recent[1].path, "TOP.cmp_top.req");
  // Depth 5 brings in the inner signal, which changed between the two.
  const auto deeper = changed_last(file(), 5, 10, 10s);
  ASSERT_EQ(deeper.size(), 3u);
  EXPECT_EQ(deeper[1].path, "TOP.cmp_top.system.deep.inner");
  EXPECT_EQ(changed_last(file(), 5, 1, 10s).size(), 1u);
}

TEST_F(WaveQueryTest, SummarisesTheFile) {
  const WaveSummary s = summarise(file(), 10s);
  EXPECT_EQ(s.signals, 6u);
  EXPECT_EQ(s.timescale, "1ps");
  EXPECT_EQ(s.first_time, 0u);
  EXPECT_EQ(s.last_time, 17750u);
}

}  // namespace
}  // namespace mace::waveform
