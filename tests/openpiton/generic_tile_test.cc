// The Generic Tile in a checkout (REQ-EXEC-20, REQ-VER-17): the files MACE writes, the
// build's flags, the patch that makes the tile host the wrapper and print its first
// request, and the first-request check on transcripts.

#include "openpiton/generic_tile.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "openpiton/applied_edits.h"
#include "openpiton/sims_command.h"
#include "support/child_process.h"
#include "support/fixture_checkout.h"

namespace mace::openpiton {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

GenericCore pico_as_generic() {
  GenericCore core;
  core.name = "picorv32";
  core.isa = "RV32IMA";
  core.top_module = "picorv32";
  core.files = {"piton/design/chip/tile/pico/rtl/picorv32.v", "piton/design/chip/tile/extra/glue.v"};
  core.reset_vector = 0x40000000;
  core.march = "rv32ima";
  core.protocol = "picorv32_native";
  return core;
}

TEST(GenericTile, WritesTheSkeletonTheLinkScriptAndAFileListWithoutWhatPicoCompiles) {  // REQ-EXEC-20
  mace::testing::FixtureCheckout checkout;
  auto files = generic_tile_files(pico_as_generic(), checkout.root());
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[0].path, kGeneratedWrapper);
  EXPECT_THAT(files[0].content, HasSubstr("module mace_generic_wrapper ("));
  EXPECT_THAT(files[0].content, HasSubstr("wire [31:0] reg_pc;"));
  EXPECT_EQ(files[0].content, wrapper_skeleton(pico_as_generic()));
  EXPECT_EQ(files[1].path, kGeneratedLinkScript);
  EXPECT_THAT(files[1].content, HasSubstr(". = 0x40000000;"));
  EXPECT_EQ(files[2].path, kGeneratedFlist);
  // picorv32.v is in Flist.pico already: Verilator refuses a module declared twice.
  EXPECT_EQ(files[2].content.find("picorv32.v"), std::string::npos);
  EXPECT_THAT(files[2].content, HasSubstr("$DV_ROOT/design/chip/tile/extra/glue.v\n"));
  EXPECT_THAT(files[2].content, HasSubstr("\nmace_generic_wrapper.v\n"));
}

TEST(GenericTile, ADescriptorsLinkScriptIsWrittenAsItIs) {
  mace::testing::FixtureCheckout checkout;
  GenericCore core = pico_as_generic();
  core.link_script = "SECTIONS { . = 0x80000000; }\n";
  EXPECT_EQ(generic_tile_files(core, checkout.root())[1].content, core.link_script);
}

// REQ-EXEC-20: written as RTL edits, the files come out again after the task and after a
// crash (the journal a killed maced leaves is restored before the next build).
TEST(GenericTile, TheFilesComeOutAfterTheTaskAndAfterACrash) {
  mace::testing::FixtureCheckout checkout;
  EditSet set;
  for (const auto& f : generic_tile_files(pico_as_generic(), checkout.root()))
    set.edits.push_back(FullContent{f.path, f.content});
  {
    AppliedEdits applied = apply_edits(checkout.root(), set);
    EXPECT_TRUE(std::filesystem::exists(checkout.root() + "/" + std::string(kGeneratedFlist)));
    ASSERT_TRUE(applied.restore().ok());
  }
  EXPECT_FALSE(std::filesystem::exists(checkout.root() + "/" + std::string(kGeneratedFlist)));
  EXPECT_FALSE(std::filesystem::exists(checkout.root() + "/" + std::string(kGeneratedWrapper)));

  AppliedEdits killed = apply_edits(checkout.root(), set);
  killed.release_without_restore();  // maced killed with -9 mid-task
  EXPECT_TRUE(std::filesystem::exists(checkout.root() + "/" + std::string(kGeneratedWrapper)));
  RestoreReport report = restore_leftover_edits(checkout.root());
  EXPECT_TRUE(report.ok());
  EXPECT_THAT(report.removed, Contains(std::string(kGeneratedWrapper)));
  EXPECT_FALSE(std::filesystem::exists(checkout.root() + "/" + std::string(kGeneratedWrapper)));
  EXPECT_FALSE(std::filesystem::exists(checkout.root() + "/" + std::string(kGeneratedLinkScript)));
}

TEST(GenericTile, AGenericBuildIsAPicoBuildWithTheWrapperDefineAndTheFileList) {
  BuildConfig config;
  config.core = Core::generic;
  config.rtl_defines = normalise_defines({});
  config.caches = {{16384, 4}, {8192, 4}, {8192, 4}, {65536, 4}};
  auto argv = sims_build_argv(config, VerilatorVersion{5, 6});
  EXPECT_THAT(argv, Contains("-pico"));
  EXPECT_THAT(argv, Contains("-config_rtl=MACE_GENERIC_CORE"));
  EXPECT_THAT(argv, Contains("-flist=$DV_ROOT/design/chip/tile/pico/rtl/Flist.mace_generic"));
  config.core = Core::pico;
  EXPECT_THAT(sims_build_argv(config, VerilatorVersion{5, 6}), Not(Contains("-config_rtl=MACE_GENERIC_CORE")));
}

TEST(GenericTile, TheBriefGivesTheInterfaceAndTheCoresPorts) {  // REQ-PLAN-15
  mace::testing::FixtureCheckout checkout;
  std::string brief = wrapper_brief(pico_as_generic(), checkout.root());
  EXPECT_THAT(brief, HasSubstr(std::string(kGeneratedWrapper)));
  EXPECT_THAT(brief, HasSubstr("output wire        mem_valid"));
  EXPECT_THAT(brief, HasSubstr("module picorv32"));
  EXPECT_THAT(brief, HasSubstr("mem_rdata"));
  EXPECT_THAT(brief, HasSubstr("0x40000000"));
}

// REQ-VER-17 on transcripts as the patched tile prints them.
TEST(FirstRequest, EveryTileAtTheResetVectorPasses) {
  auto requests = parse_first_requests(
      "noise\nMACE first request: tile 0 address 0x40000000\nmore\n"
      "MACE first request: tile 1 address 0x40000000\nMACE first request: tile 1 address 0x12345678\n");
  ASSERT_EQ(requests.by_tile.size(), 2u);
  EXPECT_EQ(requests.by_tile.at(1), 0x40000000u) << "a tile's first line wins";
  EXPECT_FALSE(first_request_problem(requests, 0x40000000));
}

TEST(FirstRequest, ATileElsewhereFailsNamingTileAndAddress) {  // REQ-VER-17
  auto requests = parse_first_requests("MACE first request: tile 0 address 0x40000000\n"
                                       "MACE first request: tile 1 address 0x00000010\n");
  auto problem = first_request_problem(requests, 0x40000000);
  ASSERT_TRUE(problem);
  EXPECT_THAT(*problem, HasSubstr("tile 1 at 0x00000010"));
  EXPECT_THAT(*problem, Not(HasSubstr("tile 0")));
  EXPECT_THAT(*problem, HasSubstr("0x40000000"));
}

TEST(FirstRequest, NoFirstRequestAtAllFails) {  // REQ-VER-17
  auto problem = first_request_problem(parse_first_requests("Simulation -> PASS (HIT GOOD TRAP)\n"), 0x40000000);
  ASSERT_TRUE(problem);
  EXPECT_THAT(*problem, HasSubstr("patch_openpiton.sh"));
  EXPECT_TRUE(first_request_problem(read_first_requests("/nonexistent/sim.log"), 0));
  EXPECT_TRUE(parse_first_requests("MACE first request: tile x address 0x40000000\n"
                                   "MACE first request: tile 2 address 0x4000\n").by_tile.empty());
}

// scripts/patch_openpiton.sh's Generic Tile step, on the fixture's stand-in of tile.v.pyv.
TEST(GenericTilePatch, TheTileHostsTheWrapperUnderTheDefineAndPrintsItsFirstRequest) {
  mace::testing::FixtureCheckout checkout;
  const std::string tile = "piton/design/chip/tile/rtl/tile.v.pyv";
  auto r = mace::testing::run_process({mace::testing::source_root() + "/scripts/patch_openpiton.sh", checkout.root()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string text = checkout.read(tile);
  EXPECT_THAT(text, HasSubstr("`ifdef MACE_GENERIC_CORE\n"));
  EXPECT_THAT(text, HasSubstr("    mace_generic_wrapper core(\n`else\n    picorv32 core(\n`endif\n"));
  EXPECT_THAT(text, HasSubstr("$display(\"MACE first request: tile %0d address 0x%08h\", flat_tileid, pico_transducer_mem_addr);"));
  auto again = mace::testing::run_process({mace::testing::source_root() + "/scripts/patch_openpiton.sh", checkout.root()});
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_EQ(checkout.read(tile), text);
}

}  // namespace
}  // namespace mace::openpiton
