// scripts/patch_openpiton.sh (REQ-PLAT-6) on the fixture's copy of the testbench.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/child_process.h"
#include "support/fixture_checkout.h"

namespace mace::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kTestbench = "piton/verif/env/manycore/ciop_iob.v.pyv";

ProcessResult patch(const std::string& checkout) {
  return run_process({source_root() + "/scripts/patch_openpiton.sh", checkout});
}

TEST(PatchOpenpiton, MakesTheIobBufferAssignmentsNonBlockingAndSaysSo) {  // REQ-PLAT-6
  FixtureCheckout checkout(FixtureState::as_in_openpiton);
  std::string before = checkout.read(kTestbench);
  ASSERT_THAT(before, HasSubstr("out_buffer_val[out_read_index] = 1'b0;"));

  auto r = patch(checkout.root());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string after = checkout.read(kTestbench);
  EXPECT_THAT(after, HasSubstr("out_buffer_val[out_read_index] <= 1'b0;"));
  EXPECT_THAT(after, HasSubstr("out_buffer[out_write_index] <= iob_buffer_data[127:64];"));
  EXPECT_THAT(after, Not(HasSubstr("out_buffer_val[out_read_index] = 1'b0;")));
  EXPECT_THAT(r.out, HasSubstr("->"));
}

TEST(PatchOpenpiton, SecondRunChangesNothing) {  // REQ-PLAT-6
  FixtureCheckout checkout(FixtureState::as_in_openpiton);
  ASSERT_EQ(patch(checkout.root()).exit_code, 0);
  std::string once = checkout.read(kTestbench);
  auto again = patch(checkout.root());
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_THAT(again.out, HasSubstr("already patched"));
  EXPECT_EQ(checkout.read(kTestbench), once);
}

TEST(PatchOpenpiton, AModelBuiltWithCoverageWritesItsCountsWhenTheSimulationEnds) {  // REQ-EXEC-6
  FixtureCheckout checkout(FixtureState::as_in_openpiton);
  constexpr const char* kMain = "piton/tools/verilator/my_top.cpp";
  auto r = patch(checkout.root());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("my_top.cpp: a model built with coverage writes coverage.dat"));
  const std::string after = checkout.read(kMain);
  EXPECT_THAT(after, HasSubstr("\n#if VM_COVERAGE\n#include \"verilated_cov.h\"\n#endif\n"));
  EXPECT_THAT(after, HasSubstr("\n\n#if VM_COVERAGE\n// MACE"));
  EXPECT_THAT(after, HasSubstr("Verilated::threadContextp()->coveragep()->write(\"coverage.dat\");\n#endif\n"
                               "delete top;"));
  auto again = patch(checkout.root());
  EXPECT_THAT(again.out, HasSubstr("my_top.cpp: already patched"));
  EXPECT_EQ(checkout.read(kMain), after);

  // A main of another shape is left alone.
  FixtureCheckout other(FixtureState::as_in_openpiton);
  other.write(kMain, "int main() { for (;;) {} }\n");
  EXPECT_EQ(patch(other.root()).exit_code, 3);
  EXPECT_EQ(other.read(kMain), "int main() { for (;;) {} }\n");
}

// The waveform around a failure (docs/failures.md): a model built with --trace traces only
// the window its environment names, and says how tracing ended.
TEST(PatchOpenpiton, AModelBuiltWithTraceWritesTheWindowItsEnvironmentNames) {
  FixtureCheckout checkout(FixtureState::as_in_openpiton);
  constexpr const char* kMain = "piton/tools/verilator/my_top.cpp";
  auto r = run_process({source_root() + "/scripts/patch_openpiton.sh", "--only", "wave", checkout.root()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("my_top.cpp: a model built with --trace writes the window of the waveform"));
  const std::string after = checkout.read(kMain);
  EXPECT_THAT(after, HasSubstr("#include \"verilated.h\"\n#if VM_TRACE\n#include \"verilated_vcd_c.h\"\n"));
  EXPECT_THAT(after, HasSubstr("#if VM_TRACE\nVerilated::traceEverOn(true);\n#endif\ntop = new Vcmp_top;\n"
                               "#if VM_TRACE\nmace_wave_prepare();\n#endif\n"));
  // After each of the clock's two edges, and once when the simulation ends.
  std::size_t dumps = 0;
  for (auto at = after.find("    mace_wave_dump();\n"); at != std::string::npos; at = after.find("    mace_wave_dump();\n", at + 1))
    ++dumps;
  EXPECT_EQ(dumps, 2u);
  EXPECT_THAT(after, HasSubstr("while (!Verilated::gotFinish()) { tick(); }\n#if VM_TRACE\nmace_wave_end(\"finish\");\n"));
  EXPECT_THAT(after, HasSubstr("getenv(\"MACE_WAVE_FILE\")"));
  auto again = run_process({source_root() + "/scripts/patch_openpiton.sh", "--only", "wave", checkout.root()});
  EXPECT_THAT(again.out, HasSubstr("my_top.cpp: already patched"));
  EXPECT_EQ(checkout.read(kMain), after);

  // A main whose tick does not dump twice is not the one the step knows.
  FixtureCheckout other(FixtureState::as_in_openpiton);
  std::string once = other.read(kMain);
  once.erase(once.find("#ifdef VERILATOR_VCD\n    tfp->dump(main_time);\n#endif\n"),
             std::string("#ifdef VERILATOR_VCD\n    tfp->dump(main_time);\n#endif\n").size());
  other.write(kMain, once);
  EXPECT_EQ(run_process({source_root() + "/scripts/patch_openpiton.sh", "--only", "wave", other.root()}).exit_code, 3);
  EXPECT_EQ(other.read(kMain), once);
}

// `--only STEP` applies that step and leaves the others' files as they were.
TEST(PatchOpenpiton, OnlyOneStepTouchesOnlyItsFile) {  // REQ-PLAT-6
  FixtureCheckout checkout(FixtureState::as_in_openpiton);
  constexpr const char* kTile = "piton/design/chip/tile/rtl/tile.v.pyv";
  const std::string tile = checkout.read(kTile);
  auto r = run_process({source_root() + "/scripts/patch_openpiton.sh", "--only", "testbench", checkout.root()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(checkout.read(kTestbench), HasSubstr("out_buffer_val[out_read_index] <= 1'b0;"));
  EXPECT_EQ(checkout.read(kTile), tile);
  EXPECT_THAT(r.out, Not(HasSubstr("tile.v.pyv")));

  auto bad = run_process({source_root() + "/scripts/patch_openpiton.sh", "--only", "everything", checkout.root()});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.err, HasSubstr("--only takes testbench, tile, coverage, wave or pal"));
}

TEST(PatchOpenpiton, RefusesADirectoryThatIsNotACheckout) {
  TempDir dir;
  auto r = patch(dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("is not an OpenPiton checkout"));
}

TEST(PatchOpenpiton, RefusesATestbenchItDoesNotRecogniseAndLeavesItAlone) {
  FixtureCheckout checkout(FixtureState::as_in_openpiton);
  std::string text = checkout.read(kTestbench);
  // Half patched by hand: not a state the script made.
  auto at = text.find("out_buffer_val[out_read_index] = 1'b0;");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::string("out_buffer_val[out_read_index] = 1'b0;").size(),
               "out_buffer_val[out_read_index] <= 1'b0;");
  checkout.write(kTestbench, text);
  auto r = patch(checkout.root());
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(checkout.read(kTestbench), text);
}

}  // namespace
}  // namespace mace::testing
