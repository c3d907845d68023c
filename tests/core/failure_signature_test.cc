#include "core/failure_signature.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace mace {
namespace {

using ::testing::ElementsAre;

TEST(FailureSignatureTest, NumbersBecomeNAndTheVerdictLeads) {
  EXPECT_EQ(failure_signature(Verdict::fail, "4498250 : Simulation -> FAIL(HIT BAD TRAP)"),
            "fail: N : Simulation -> FAIL(HIT BAD TRAP)");
  EXPECT_EQ(failure_signature(Verdict::maxcycles,
                              "2000250 : Simulation -> (terminated by reaching max cycles = 4000)"),
            "maxcycles: N : Simulation -> (terminated by reaching max cycles = N)");
}

TEST(FailureSignatureTest, HexAddressesAndValuesBecomeHash) {
  EXPECT_EQ(normalise_error_line("27669250 : Simulation -> FAIL(TILE0 L2 pipe2 receive illegal address 0x1f40a0)"),
            "N : Simulation -> FAIL(TILEN LN pipeN receive illegal address 0x#)");
  EXPECT_EQ(normalise_error_line("trig_pc_d(1,64'h0000000040000000) at 400005a0"),
            "trig_pc_d(N,N'#) at #");
  EXPECT_EQ(normalise_error_line("*ERROR*: 4031 : tlu_mon: C0T3: PC fffff00000082010 a0b1"),
            "*ERROR*: N : tlu_mon: CNTN: PC # #");
}

TEST(FailureSignatureTest, WordsThatLookHexButAreNamesStay) {
  // "dead" and "face" are words; "added" is not all hex; "cafe1234" is an address.
  EXPECT_EQ(normalise_error_line("Error: dead face added cafe1234"), "Error: dead face added #");
}

TEST(FailureSignatureTest, BlanksCollapseAndTheLineIsBounded) {
  EXPECT_EQ(normalise_error_line("  Error @12 :\t sparc   0  "), "Error @N : sparc N");
  EXPECT_LE(normalise_error_line(std::string(5000, 'x')).size(), kMaxSignatureBytes);
  EXPECT_EQ(failure_signature(Verdict::none, ""), "none");
}

TEST(FailureSignatureTest, GroupsFailuresAlikeBiggestFirst) {
  std::vector<FailedWorkload> failures = {
      {1, "build", "lw.S", Verdict::maxcycles, "2000250 : Simulation -> (terminated by reaching max cycles = 4000)"},
      {1, "build", "sw.S", Verdict::fail, "4498250 : Simulation -> FAIL(HIT BAD TRAP)"},
      {1, "build", "add.S", Verdict::fail, "4321 : Simulation -> FAIL(HIT BAD TRAP)"},
      {2, "build", "add.S", Verdict::timeout, "27669250 : Simulation -> FAIL(TIMEOUT)"},
  };
  const auto groups = group_failures(failures);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].signature, "fail: N : Simulation -> FAIL(HIT BAD TRAP)");
  EXPECT_EQ(groups[0].error_line, "4498250 : Simulation -> FAIL(HIT BAD TRAP)");
  ASSERT_EQ(groups[0].members.size(), 2u);
  EXPECT_EQ(groups[0].members[0].workload, "sw.S");
  EXPECT_EQ(groups[0].members[1].workload, "add.S");
  // Ties keep the order their first member came in.
  EXPECT_EQ(groups[1].verdict, Verdict::maxcycles);
  EXPECT_EQ(groups[2].verdict, Verdict::timeout);
  EXPECT_EQ(groups[2].members[0].iteration, 2);
}

TEST(FailureSignatureTest, TheSameLineWithAnotherVerdictIsAnotherSignature) {
  const auto groups = group_failures({{1, "t", "a", Verdict::fail, "x 1"},
                                      {1, "t", "b", Verdict::timeout, "x 2"}});
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_THAT(groups[0].members.size(), 1u);
}

}  // namespace
}  // namespace mace
