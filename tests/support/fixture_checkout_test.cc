// Tests of the fixture checkout and its fake `sims` (tests/fixtures/openpiton/README.md):
// the fake is driven as a program that drives the real one does, with an argument vector
// and the environment piton_settings.bash sets.

#include "support/fixture_checkout.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/child_process.h"

namespace mace::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// Builds as MACE asks for them (argument 5 is the build ID; MINIMAL_MONITORING, which every
// build of MACE's but one with monitors gets, keeps the monitors' lines out of transcripts).
const std::vector<std::string> kPico1x1 = {
    "-sys=manycore", "-x_tiles=1",        "-y_tiles=1", "-vlt_build",
    "-pico",         "-build_id=pico1x1", "-config_rtl=MINIMAL_MONITORING", "-vlt_build_args=--no-timing"};
const std::vector<std::string> kPico2x1 = {
    "-sys=manycore", "-x_tiles=2",        "-y_tiles=1", "-vlt_build",
    "-pico",         "-build_id=pico2x1", "-config_rtl=MINIMAL_MONITORING", "-vlt_build_args=--no-timing"};

std::vector<std::string> run_args(const std::string& build_id, int x_tiles,
                                  std::vector<std::string> extra) {
  std::vector<std::string> args = {
      "-sys=manycore",          "-x_tiles=" + std::to_string(x_tiles),
      "-y_tiles=1",             "-vlt_run",
      "-pico",                  "-build_id=" + build_id,
      "-rv32_target_triple=riscv64-unknown-elf"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

ProcessOptions sims_options(const FixtureCheckout& checkout, const std::string& dir) {
  ProcessOptions options;
  options.set_env = checkout.environment();
  options.in_child = [dir] {
    if (::chdir(dir.c_str()) != 0) ::_exit(126);
  };
  options.timeout = std::chrono::milliseconds(20000);
  return options;
}

// Runs `sims ARGS` in `dir`, found through the checkout's PATH.
ProcessResult sims(const FixtureCheckout& checkout, const std::vector<std::string>& args,
                   const std::string& dir) {
  std::vector<std::string> argv = {"sims"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, sims_options(checkout, dir));
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string git_status(const FixtureCheckout& checkout) {
  ProcessOptions options;
  const std::string root = checkout.root();
  options.in_child = [root] {
    if (::chdir(root.c_str()) != 0) ::_exit(126);
  };
  auto result = run_process({"git", "status", "--porcelain"}, options);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return result.out;
}

bool alive(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto paren = text.rfind(')');
  if (paren == std::string::npos || paren + 2 >= text.size()) return false;
  const char state = text[paren + 2];
  return state != 'Z' && state != 'X';
}

bool executable(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

// ---------------------------------------------------------------------------------------
// The checkout

TEST(FixtureCheckoutTest, IsACleanGitRepositoryWithAFixedCommit) {
  FixtureCheckout a;
  FixtureCheckout b;
  EXPECT_NE(a.root(), b.root());
  EXPECT_TRUE(fs::is_directory(a.root() + "/.git"));
  EXPECT_TRUE(executable(a.sims()));
  EXPECT_EQ(git_status(a), "");

  // One commit with a fixed identity and date, so the same fixture gives the same ID.
  auto last_commit = [](const FixtureCheckout& checkout) {
    ProcessOptions options;
    const std::string root = checkout.root();
    options.in_child = [root] {
      if (::chdir(root.c_str()) != 0) ::_exit(126);
    };
    return run_process({"git", "log", "--format=%H %an <%ae> %at %cn <%ce> %ct"}, options).out;
  };
  const auto log = lines(last_commit(a));
  ASSERT_EQ(log.size(), 1u);
  EXPECT_THAT(log[0], ::testing::EndsWith(" MACE fixture <fixture@mace.invalid> 1705406400"
                                          " MACE fixture <fixture@mace.invalid> 1705406400"));
  EXPECT_EQ(last_commit(a), last_commit(b));
}

TEST(FixtureCheckoutTest, DestructorRemovesTheDirectory) {
  std::string root;
  {
    FixtureCheckout checkout;
    root = checkout.root();
    ASSERT_TRUE(fs::exists(root + "/piton/piton_settings.bash"));
  }
  EXPECT_FALSE(fs::exists(root));
}

TEST(FixtureCheckoutTest, EnvironmentIsWhatPitonSettingsSets) {
  FixtureCheckout checkout;
  const auto env = checkout.environment();
  ProcessOptions options;
  options.set_env = {{"PITON_ROOT", checkout.root()}};
  auto result =
      run_process({"bash", "-c",
                   "source \"$PITON_ROOT/piton/piton_settings.bash\" && "
                   "printf '%s\\n' \"$DV_ROOT\" \"$MODEL_DIR\" \"$TRE_SEARCH\" \"$TRE_ENTRY\" "
                   "\"$PERL_MODULE_BASE\" \"$M4PATH\" \"${PATH%%:*}\" \"${LD_LIBRARY_PATH##*:}\""},
                  options);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(lines(result.out),
              ElementsAre(env.at("DV_ROOT"), env.at("MODEL_DIR"), env.at("TRE_SEARCH"),
                          env.at("TRE_ENTRY"), env.at("PERL_MODULE_BASE"), env.at("M4PATH"),
                          checkout.root() + "/piton/tools/bin", env.at("LD_LIBRARY_PATH")));
  EXPECT_THAT(env.at("PATH"), StartsWith(checkout.root() + "/piton/tools/bin:"));
}

TEST(FixtureCheckoutTest, ControlKeepsOneLinePerKeyAndClears) {
  FixtureCheckout checkout;
  checkout.set_control("run", "fail");
  checkout.set_control("build", "fail");
  checkout.set_control("run", "pass");
  EXPECT_EQ(checkout.read(".fake_sims/control"), "run=pass\nbuild=fail\n");
  checkout.clear_control();
  EXPECT_FALSE(fs::exists(checkout.root() + "/.fake_sims/control"));
  EXPECT_EQ(git_status(checkout), "");
}

TEST(FixtureCheckoutTest, ReadAndWriteAreRelativeToTheRoot) {
  FixtureCheckout checkout;
  checkout.write("piton/design/new/dir/x.v", "module x; endmodule\n");
  EXPECT_EQ(checkout.read("piton/design/new/dir/x.v"), "module x; endmodule\n");
  EXPECT_THROW(checkout.read("no/such/file"), std::runtime_error);
  EXPECT_THAT(checkout.read("piton/tools/src/sims/manycore.config"),
              HasSubstr("-config_l2_associativity=4"));
}

// ---------------------------------------------------------------------------------------
// Builds

TEST(FakeSimsBuild, CreatesTheModelDirectoryConfigAndBinary) {
  FixtureCheckout checkout;
  std::vector<std::string> args = kPico2x1;
  args.insert(args.end(), {"-config_rtl=PITON_FAKE_KNOWN_DEFINE", "-config_l1d_size=4096",
                           "-config_l1d_associativity=2"});
  // From the checkout root, as the worst case for what a build leaves behind.
  auto result = sims(checkout, args, checkout.root());
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;

  const std::string model = checkout.root() + "/build/manycore/pico2x1";
  EXPECT_EQ(checkout.read("build/manycore/pico2x1/config.v"),
            "`timescale 1ps/1ps\n"
            "`define NO_SCAN\n"
            "`define PITON_PICO\n"
            "`define MINIMAL_MONITORING\n"
            "`define PITON_FAKE_KNOWN_DEFINE\n"
            "`define USE_FAKE_PLL_AND_CLKMUX\n"
            "`define USE_FAKE_IOS\n"
            "`define RTL_TILE0\n"
            "`define RTL_PICO0\n"
            "`define RTL_TILE1\n"
            "`define RTL_PICO1\n"
            "// CONFIG_L1D_SIZE=4096\n"
            "// CONFIG_L1D_ASSOCIATIVITY=2\n");
  EXPECT_TRUE(executable(model + "/obj_dir/Vcmp_top"));
  const std::string binary = checkout.read("build/manycore/pico2x1/obj_dir/Vcmp_top");
  EXPECT_THAT(binary, HasSubstr("# CONFIG_L1D_SIZE=4096\n"));
  EXPECT_THAT(binary, HasSubstr("# CONFIG_L2_SIZE=65536\n"));  // manycore.config's default
  EXPECT_THAT(binary, HasSubstr("# vlt_build_args: -DSYNC_MUX --no-timing\n"));
  EXPECT_THAT(checkout.read("build/manycore/pico2x1/flist"),
              HasSubstr(checkout.root() + "/piton/design/chip/tile/l15/rtl/l15_pipeline.tmp.v\n"));
  EXPECT_TRUE(fs::exists(checkout.root() + "/piton/design/chip/tile/l15/rtl/l15_pipeline.tmp.v"));
  EXPECT_TRUE(fs::exists(checkout.root() + "/piton/design/include/define.tmp.h"));
  EXPECT_THAT(result.out, HasSubstr("sims: creating model directory " + model + "\n"));
  EXPECT_THAT(result.out, HasSubstr(" -f flist -DSYNC_MUX --no-timing \n"));

  EXPECT_EQ(checkout.invocations(), 1);
  EXPECT_EQ(checkout.invocations("build"), 1);
  EXPECT_EQ(checkout.invocations("run"), 0);
  EXPECT_THAT(checkout.invocation_args(), ElementsAre(args));
  // The model, *.tmp.v, sims.log, flist, history.sims are all ignored.
  EXPECT_EQ(git_status(checkout), "");
}

TEST(FakeSimsBuild, CountsInvocationsAndKeepsArgumentsVerbatim) {
  FixtureCheckout checkout;
  TempDir dir;
  ASSERT_EQ(sims(checkout, kPico1x1, dir.path()).exit_code, 0);
  std::vector<std::string> odd = kPico1x1;
  odd.back() = "-vlt_build_args=--no-timing -Wno-fatal";
  odd.push_back("-config_rtl=A\tB\\C");
  sims(checkout, odd, dir.path());
  sims(checkout, run_args("pico1x1", 1, {"add.S"}), dir.path());
  EXPECT_EQ(checkout.invocations(), 3);
  EXPECT_EQ(checkout.invocations("build"), 2);
  EXPECT_EQ(checkout.invocations("run"), 1);
  ASSERT_EQ(checkout.invocation_args().size(), 3u);
  EXPECT_EQ(checkout.invocation_args()[1], odd);
}

TEST(FakeSimsBuild, BreakDefineFailsWithAVerilatorError) {
  FixtureCheckout checkout;
  TempDir dir;
  std::vector<std::string> args = kPico1x1;
  args.push_back("-config_rtl=FAKE_BREAK_BUILD");
  auto result = sims(checkout, args, dir.path());
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.out,
              HasSubstr("%Error: " + checkout.root() +
                        "/piton/design/chip/tile/l15/rtl/l15.v:42:7: syntax error, unexpected "
                        "IDENTIFIER\n"));
  EXPECT_THAT(result.out, HasSubstr("%Error: Exiting due to 1 error(s)\n"));
  EXPECT_THAT(result.out, HasSubstr("sims: Caught a SIGDIE. failed building model at "));
  EXPECT_FALSE(fs::exists(checkout.root() + "/build/manycore/pico1x1/obj_dir/Vcmp_top"));
  EXPECT_TRUE(fs::exists(checkout.root() + "/build/manycore/pico1x1/config.v"));
  EXPECT_THAT(slurp(dir.file("sims.log")), HasSubstr("%Error: Exiting due to 1 error(s)\n"));
}

TEST(FakeSimsBuild, SyntaxMarkerInADesignFileNamesThatFileAndLine) {
  FixtureCheckout checkout;
  TempDir dir;
  std::string l15 = checkout.read("piton/design/chip/tile/l15/rtl/l15.v");
  const std::string anchor = "assign l15_transducer_ack";
  ASSERT_NE(l15.find(anchor), std::string::npos);
  l15.insert(l15.find(anchor), "   FAKE_SYNTAX_ERROR\n");
  checkout.write("piton/design/chip/tile/l15/rtl/l15.v", l15);
  int line = 1;
  for (size_t i = 0; i < l15.find("   FAKE_SYNTAX_ERROR"); ++i) line += l15[i] == '\n';

  auto result = sims(checkout, kPico1x1, dir.path());
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.out,
              HasSubstr("%Error: " + checkout.root() + "/piton/design/chip/tile/l15/rtl/l15.v:" +
                        std::to_string(line) + ":4: syntax error, unexpected IDENTIFIER\n"));
  EXPECT_THAT(result.out, HasSubstr("|    FAKE_SYNTAX_ERROR\n"));
  EXPECT_FALSE(fs::exists(checkout.root() + "/build/manycore/pico1x1/obj_dir/Vcmp_top"));
}

TEST(FakeSimsBuild, SyntaxMarkerInAPyvSourceNamesItsPyhpOutput) {
  FixtureCheckout checkout;
  TempDir dir;
  checkout.write("piton/design/include/define.h.pyv",
                 checkout.read("piton/design/include/define.h.pyv") + "FAKE_SYNTAX_ERROR\n");
  auto result = sims(checkout, kPico1x1, dir.path());
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.out,
              HasSubstr("%Error: " + checkout.root() + "/piton/design/include/define.tmp.h:"));
}

TEST(FakeSimsBuild, ControlBuildFailFails) {
  FixtureCheckout checkout;
  TempDir dir;
  checkout.set_control("build", "fail");
  auto result = sims(checkout, kPico1x1, dir.path());
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.out, HasSubstr("/piton/design/chip/tile/l15/rtl/l15.v:42:7: syntax error"));
  checkout.clear_control();
  EXPECT_EQ(sims(checkout, kPico1x1, dir.path()).exit_code, 0);
  EXPECT_TRUE(executable(checkout.root() + "/build/manycore/pico1x1/obj_dir/Vcmp_top"));
}

TEST(FakeSimsBuild, WithoutNoTimingFailsLikeVerilator5) {
  FixtureCheckout checkout;
  TempDir dir;
  std::vector<std::string> args = kPico1x1;
  args.pop_back();  // -vlt_build_args=--no-timing
  auto result = sims(checkout, args, dir.path());
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.out, HasSubstr("%Error-NEEDTIMINGOPT: " + checkout.root() +
                                    "/piton/verif/env/manycore/pc_cmp.tmp.v:661:5: Use --timing or "
                                    "--no-timing to specify how delays should be handled\n"));
  EXPECT_THAT(result.out, HasSubstr("DIE. failed building model"));
}

TEST(FakeSimsBuild, OverlappingBuildsInOneCheckoutAreRecorded) {
  FixtureCheckout checkout;
  TempDir dir;
  // The first build hangs holding the checkout's build lock.
  checkout.set_control("build", "hang");
  std::vector<std::string> first = {"sims"};
  first.insert(first.end(), kPico1x1.begin(), kPico1x1.end());
  BackgroundProcess hanging(first, sims_options(checkout, dir.path()));
  ASSERT_TRUE(eventually([&] { return checkout.recorded_pids().size() == 2; }));
  checkout.clear_control();

  ASSERT_EQ(sims(checkout, kPico2x1, dir.path()).exit_code, 0);
  const auto overlaps = lines(checkout.read(".fake_sims/overlaps"));
  ASSERT_EQ(overlaps.size(), 1u);
  EXPECT_THAT(overlaps[0], ::testing::EndsWith("\t" + std::to_string(hanging.pid()) + "\tpico2x1"));

  // A killed build's lock is taken over, not reported; build_sleep delays a build.
  hanging.signal(SIGKILL);
  ASSERT_TRUE(hanging.wait(std::chrono::seconds(10)));
  checkout.set_control("build_sleep", "0.3");
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(sims(checkout, kPico1x1, dir.path()).exit_code, 0);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(300));
  EXPECT_EQ(lines(checkout.read(".fake_sims/overlaps")).size(), 1u);
}

// ---------------------------------------------------------------------------------------
// Runs

class FakeSimsRun : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(sims(checkout_, kPico1x1, build_dir_.path()).exit_code, 0); }
  ProcessResult run(const std::vector<std::string>& extra, const TempDir& dir) {
    return sims(checkout_, run_args("pico1x1", 1, extra), dir.path());
  }

  FixtureCheckout checkout_;
  TempDir build_dir_;
};

TEST_F(FakeSimsRun, WithoutAModelDies) {
  TempDir dir;
  auto never_built = sims(checkout_, run_args("nothere", 1, {"add.S"}), dir.path());
  EXPECT_EQ(never_built.exit_code, 1);
  EXPECT_THAT(never_built.out,
              HasSubstr("sims: Caught a SIGDIE. could not copy flist to " + dir.path() + " at "));
  EXPECT_THAT(never_built.out, Not(HasSubstr("Simulation ->")));
  EXPECT_THAT(slurp(dir.file("status.log")), StartsWith("Diag: "));

  std::vector<std::string> broken = kPico1x1;
  broken[5] = "-build_id=broken";
  broken.push_back("-config_rtl=FAKE_BREAK_BUILD");
  ASSERT_EQ(sims(checkout_, broken, dir.path()).exit_code, 1);
  auto failed_build = sims(checkout_, run_args("broken", 1, {"add.S"}), dir.path());
  EXPECT_EQ(failed_build.exit_code, 1);
  EXPECT_THAT(failed_build.out, HasSubstr("DIE. obj_dir/ not found in " + checkout_.root() +
                                          "/build/manycore/broken"));
  EXPECT_FALSE(fs::exists(dir.file("sim.log")));
}

struct Outcome {
  std::string name;
  std::vector<std::string> extra;
  std::string verdict;  // empty: none
  std::string status;
  std::string finish;
};

void PrintTo(const Outcome& o, std::ostream* os) { *os << o.name; }

class FakeSimsOutcome : public FakeSimsRun, public ::testing::WithParamInterface<Outcome> {};

TEST_P(FakeSimsOutcome, WritesTheExactVerdictLineAndExitsZero) {
  const Outcome& o = GetParam();
  checkout_.set_control("run", o.name);
  TempDir dir;
  std::vector<std::string> extra = o.extra;
  extra.push_back("add.S");
  auto result = run(extra, dir);
  EXPECT_EQ(result.exit_code, 0) << result.out;

  const auto log = lines(slurp(dir.file("sim.log")));
  EXPECT_GT(log.size(), 150u);
  // The table says $DV for this checkout's $DV_ROOT.
  std::string finish = o.finish;
  finish.replace(finish.find("$DV"), 3, checkout_.root() + "/piton");
  EXPECT_THAT(log, Contains(finish));
  if (o.verdict.empty()) {
    for (const auto& line : log) EXPECT_THAT(line, Not(HasSubstr("Simulation ->")));
  } else {
    EXPECT_THAT(log, Contains(o.verdict));
    EXPECT_THAT(lines(slurp(dir.file("status.log"))), Contains("sim.log: " + o.verdict));
  }
  EXPECT_THAT(slurp(dir.file("status.log")),
              StartsWith("Diag: " + fs::path(dir.path()).filename().string()));
  EXPECT_THAT(lines(slurp(dir.file("status.log")))[0], ::testing::EndsWith("   " + o.status));
  EXPECT_THAT(result.out, HasSubstr(slurp(dir.file("sim.log"))));
  EXPECT_THAT(slurp(dir.file("sims.log")), HasSubstr(slurp(dir.file("sim.log"))));
  EXPECT_EQ(slurp(dir.file("diag.S")),
            checkout_.read("piton/verif/diag/assembly/riscv/pico/add.S"));
  for (const char* file : {"diag.exe", "symbol.tbl", "mem.image", "diag.ev", "flist"}) {
    EXPECT_TRUE(fs::exists(dir.file(file))) << file;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Outcomes, FakeSimsOutcome,
    ::testing::Values(Outcome{"pass",
                              {},
                              "7110750: Simulation -> PASS (HIT GOOD TRAP)",
                              "PASS",
                              "- $DV/verif/env/manycore/pc_cmp.tmp.v:1775: Verilog $finish"},
                      Outcome{"fail",
                              {},
                              "4498250 : Simulation -> FAIL(HIT BAD TRAP)",
                              "FAIL (HIT BAD TRAP)",
                              "- $DV/verif/env/manycore/monitor.tmp.v:91: Verilog $finish"},
                      Outcome{"timeout",
                              {},
                              "27669250 : Simulation -> FAIL(TIMEOUT)",
                              "Timeout (TIMEOUT)",
                              "- $DV/verif/env/manycore/monitor.tmp.v:91: Verilog $finish"},
                      Outcome{
                          "maxcycles",
                          {},
                          "750000250 : Simulation -> (terminated by reaching max cycles = 1500000)",
                          "MaxCycles Hit",
                          "- $DV/verif/env/manycore/monitor.tmp.v:66: Verilog $finish"},
                      Outcome{"maxcycles",
                              {"-max_cycle=2000"},
                              "1000250 : Simulation -> (terminated by reaching max cycles = 2000)",
                              "MaxCycles Hit",
                              "- $DV/verif/env/manycore/monitor.tmp.v:66: Verilog $finish"},
                      Outcome{"none",
                              {},
                              "",
                              "Unknown (No Status)",
                              "- $DV/verif/env/manycore/pc_cmp.tmp.v:1775: Verilog $finish"}),
    [](const ::testing::TestParamInfo<Outcome>& info) {
      return info.param.name + std::to_string(info.index);
    });

TEST_F(FakeSimsRun, PerDiagControlOverridesGlobal) {
  TempDir diags;
  diags.write("other.S", "# another diag\n");
  checkout_.set_control("run", "fail");
  checkout_.set_control("run.add", "pass");
  TempDir a, b;
  ASSERT_EQ(run({"add.S"}, a).exit_code, 0);
  ASSERT_EQ(run({"-asm_diag_path=" + diags.path(), "other.S"}, b).exit_code, 0);
  EXPECT_THAT(lines(slurp(a.file("sim.log"))),
              Contains("7110750: Simulation -> PASS (HIT GOOD TRAP)"));
  EXPECT_THAT(lines(slurp(b.file("sim.log"))),
              Contains("4498250 : Simulation -> FAIL(HIT BAD TRAP)"));
  EXPECT_EQ(slurp(b.file("diag.S")), "# another diag\n");
}

TEST_F(FakeSimsRun, BreakRunDefineFailsTheModelsRuns) {
  TempDir dir;
  std::vector<std::string> args = kPico1x1;
  args[5] = "-build_id=breakrun";
  args.push_back("-config_rtl=FAKE_BREAK_RUN");
  ASSERT_EQ(sims(checkout_, args, dir.path()).exit_code, 0);
  ASSERT_EQ(sims(checkout_, run_args("breakrun", 1, {"add.S"}), dir.path()).exit_code, 0);
  EXPECT_THAT(lines(slurp(dir.file("sim.log"))),
              Contains("4498250 : Simulation -> FAIL(HIT BAD TRAP)"));
}

TEST_F(FakeSimsRun, StockDiagWinsOverAnotherRootAndMissingDiagDies) {
  TempDir diags;
  diags.write("add.S", "# not the stock add.S\n");
  diags.write("mine.S", "# mine\n");
  TempDir a, b, c;
  ASSERT_EQ(run({"-asm_diag_root=" + diags.path(), "add.S"}, a).exit_code, 0);
  EXPECT_EQ(slurp(a.file("diag.S")), checkout_.read("piton/verif/diag/assembly/riscv/pico/add.S"));
  ASSERT_EQ(run({"-asm_diag_root=" + diags.path(), "mine.S"}, b).exit_code, 0);
  EXPECT_EQ(slurp(b.file("diag.S")), "# mine\n");
  auto missing = run({"nosuchdiag.S"}, c);
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.out, HasSubstr("DIE. no diag with name nosuchdiag.S found"));
}

TEST_F(FakeSimsRun, CrashEndsHalfwayWithoutVerdict) {
  checkout_.set_control("run", "crash");
  TempDir dir;
  auto result = run({"add.S"}, dir);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.out, HasSubstr("DIE. simulator exited with an error"));
  const std::string log = slurp(dir.file("sim.log"));
  EXPECT_THAT(log, HasSubstr("L15_MON_END"));
  EXPECT_THAT(log, Not(HasSubstr("Simulation ->")));
  EXPECT_THAT(log, Not(HasSubstr("$finish")));
}

TEST_F(FakeSimsRun, HugeWritesTheRequestedMegabytesThenPasses) {
  checkout_.set_control("run", "huge");
  checkout_.set_control("huge_mb", "3");
  TempDir dir;
  auto result = run({"add.S"}, dir);
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_GE(fs::file_size(dir.file("sim.log")), 3u * 1024 * 1024);
  EXPECT_LT(fs::file_size(dir.file("sim.log")), 4u * 1024 * 1024);
  const auto log = lines(slurp(dir.file("sim.log")));
  ASSERT_GE(log.size(), 2u);
  EXPECT_EQ(log[log.size() - 2], "7110750: Simulation -> PASS (HIT GOOD TRAP)");
}

TEST_F(FakeSimsRun, RunSleepPausesMidTranscript) {
  checkout_.set_control("run_sleep", "0.3");
  TempDir dir;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(run({"add.S"}, dir).exit_code, 0);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(300));
}

// A passing run ends at its program's own cycle, printed as OpenPiton's testbench prints
// its time ("%0d: ", cycles * 500 + 250) on every core; memstress the later the smaller the
// first cache its loads meet, as a buffer that no longer fits would: the L1.5 on pico, whose
// tile has no L1 (its L1D size changes nothing), the L1D on sparc.
TEST(FakeSimsCycles, EachProgramEndsAtItsOwnTimeAndMemstressAtOneSetByItsFirstCache) {
  FixtureCheckout checkout;
  TempDir build_dir, diags;
  diags.write("hello.S", "# hello\n");
  diags.write("memstress.S", "# memstress\n");
  auto with = [](std::vector<std::string> build, const std::string& id, const std::string& option) {
    *std::find_if(build.begin(), build.end(), [](const std::string& a) { return a.rfind("-build_id=", 0) == 0; }) =
        "-build_id=" + id;
    build.push_back(option);
    return build;
  };
  const std::vector<std::string> sparc = {"-sys=manycore", "-x_tiles=1", "-y_tiles=1", "-vlt_build",
                                          "-build_id=sparc1x1", "-vlt_build_args=--no-timing"};
  for (const auto& build : {kPico1x1, with(kPico1x1, "pico_l15", "-config_l15_size=4096"),
                            with(kPico1x1, "pico_l1d", "-config_l1d_size=4096"), sparc,
                            with(sparc, "sparc_l1d", "-config_l1d_size=4096")})
    ASSERT_EQ(sims(checkout, build, build_dir.path()).exit_code, 0);
  auto pass_line = [&](const std::string& build_id, bool pico, const std::string& diag) {
    TempDir dir;
    std::vector<std::string> args = run_args(build_id, 1, {"-asm_diag_path=" + diags.path(), diag});
    if (!pico) args.erase(std::find(args.begin(), args.end(), "-pico"));
    EXPECT_EQ(sims(checkout, args, dir.path()).exit_code, 0);
    for (const auto& line : lines(slurp(dir.file("sim.log"))))
      if (line.find("Simulation -> PASS") != std::string::npos) return line;
    return std::string();
  };
  EXPECT_EQ(pass_line("pico1x1", true, "hello.S"), "6943250: Simulation -> PASS (HIT GOOD TRAP)");
  EXPECT_EQ(pass_line("sparc1x1", false, "hello.S"), "6943250: Simulation -> PASS (HIT GOOD TRAP)");
  EXPECT_EQ(pass_line("pico1x1", true, "memstress.S"), "66960250: Simulation -> PASS (HIT GOOD TRAP)");
  EXPECT_EQ(pass_line("pico_l15", true, "memstress.S"), "87440250: Simulation -> PASS (HIT GOOD TRAP)");
  EXPECT_EQ(pass_line("pico_l1d", true, "memstress.S"), "66960250: Simulation -> PASS (HIT GOOD TRAP)");
  EXPECT_EQ(pass_line("sparc1x1", false, "memstress.S"), "66960250: Simulation -> PASS (HIT GOOD TRAP)");
  EXPECT_EQ(pass_line("sparc_l1d", false, "memstress.S"), "87440250: Simulation -> PASS (HIT GOOD TRAP)");
}

// A model built without MINIMAL_MONITORING has OpenPiton's monitors: its transcripts carry
// their lines for every tile (README: "monitors"), memstress's the more the smaller its L1.5.
TEST(FakeSimsMonitors, AModelWithMonitorsPrintsEachTilesLinesAndOneWithoutPrintsNone) {
  FixtureCheckout checkout;
  TempDir build_dir, diags;
  diags.write("memstress.S", "# memstress\n");
  std::vector<std::string> monitored = kPico2x1;
  std::erase(monitored, "-config_rtl=MINIMAL_MONITORING");
  monitored[5] = "-build_id=monitored";
  ASSERT_EQ(sims(checkout, monitored, build_dir.path()).exit_code, 0);
  ASSERT_EQ(sims(checkout, kPico2x1, build_dir.path()).exit_code, 0);
  auto transcript = [&](const std::string& build_id) {
    TempDir dir;
    sims(checkout, run_args(build_id, 2, {"-asm_diag_path=" + diags.path(), "memstress.S"}), dir.path());
    return slurp(dir.file("sim.log"));
  };
  auto count = [](const std::string& text, const std::string& needle) {
    std::size_t n = 0;
    for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
    return n;
  };
  const std::string with = transcript("monitored");
  EXPECT_EQ(count(with, "TILE1 L1.5: Sending NOC1 "), 2058u);
  EXPECT_EQ(count(with, "TILE1 noc2 flit raw: "), 5u * 2058u);
  EXPECT_EQ(count(with, "TILE0-----"), 1u);
  EXPECT_EQ(count(with, "l2_hit: 1"), 2u * 1029u);
  EXPECT_EQ(count(transcript("pico2x1"), "flit raw"), 0u);
}

TEST(FakeSimsPico, TwoTilesWithFinishMaskTimeOutUnlessTileOneIsWoken) {
  FixtureCheckout checkout;
  TempDir build_dir;
  ASSERT_EQ(sims(checkout, kPico2x1, build_dir.path()).exit_code, 0);
  TempDir plain, masked, woken, slot;
  TempDir ev;
  ev.write("wake.ev", "trig_pc_d(1,64'h0000000040000000) -> intp(2, 1, 1)\n");

  ASSERT_EQ(sims(checkout, run_args("pico2x1", 2, {"add.S"}), plain.path()).exit_code, 0);
  EXPECT_THAT(lines(slurp(plain.file("sim.log"))),
              Contains("7110750: Simulation -> PASS (HIT GOOD TRAP)"));

  ASSERT_EQ(sims(checkout, run_args("pico2x1", 2, {"-finish_mask=0x11", "add.S"}), masked.path())
                .exit_code,
            0);
  EXPECT_THAT(lines(slurp(masked.file("sim.log"))),
              Contains("27669250 : Simulation -> FAIL(TIMEOUT)"));

  auto with_ev = sims(checkout,
                      run_args("pico2x1", 2,
                               {"-finish_mask=0x11",
                                "-pre_process_cmd=cp " + ev.file("wake.ev") + " diag.ev", "add.S"}),
                      woken.path());
  ASSERT_EQ(with_ev.exit_code, 0);
  EXPECT_THAT(with_ev.out, HasSubstr("sims: cp " + ev.file("wake.ev") + " diag.ev\n"));
  EXPECT_THAT(lines(slurp(woken.file("sim.log"))),
              Contains("7110750: Simulation -> PASS (HIT GOOD TRAP)"));

  // Bit 1 is tile 0's second thread slot, which a pico tile does not have.
  ASSERT_EQ(
      sims(checkout, run_args("pico2x1", 2, {"-finish_mask=0x3", "add.S"}), slot.path()).exit_code,
      0);
  EXPECT_THAT(lines(slurp(slot.file("sim.log"))),
              Contains("27669250 : Simulation -> FAIL(TIMEOUT)"));
}

TEST(FakeSimsHang, IgnoresSigtermLeavesAGrandchildAndTheDestructorKillsBoth) {
  std::vector<pid_t> pids;
  std::string root;
  {
    FixtureCheckout checkout;
    root = checkout.root();
    TempDir dir;
    ASSERT_EQ(sims(checkout, kPico1x1, dir.path()).exit_code, 0);
    checkout.set_control("run", "hang");
    std::vector<std::string> argv = {"sims"};
    for (const auto& a : run_args("pico1x1", 1, {"add.S"})) argv.push_back(a);
    BackgroundProcess hanging(argv, sims_options(checkout, dir.path()));
    ASSERT_TRUE(eventually([&] { return checkout.recorded_pids().size() == 2; }));
    pids = checkout.recorded_pids();
    EXPECT_THAT(pids, Contains(hanging.pid()));
    for (pid_t pid : pids) ::kill(pid, SIGTERM);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    for (pid_t pid : pids) EXPECT_TRUE(alive(pid)) << pid;
    EXPECT_TRUE(hanging.running());
    EXPECT_THAT(slurp(dir.file("sim.log")), HasSubstr("L15_MON_END"));
    EXPECT_THAT(slurp(dir.file("sim.log")), Not(HasSubstr("Simulation ->")));
    // `hanging` is destroyed first (SIGKILL to sims only), then the checkout.
  }
  for (pid_t pid : pids) EXPECT_FALSE(alive(pid)) << pid;
  EXPECT_FALSE(fs::exists(root));
}

TEST(FakeSimsHang, BuildHangRecordsItsProcessesToo) {
  std::vector<pid_t> pids;
  {
    FixtureCheckout checkout;
    TempDir dir;
    checkout.set_control("build", "hang");
    std::vector<std::string> argv = {"sims"};
    argv.insert(argv.end(), kPico1x1.begin(), kPico1x1.end());
    BackgroundProcess hanging(argv, sims_options(checkout, dir.path()));
    ASSERT_TRUE(eventually([&] { return checkout.recorded_pids().size() == 2; }));
    pids = checkout.recorded_pids();
    for (pid_t pid : pids) EXPECT_TRUE(alive(pid)) << pid;
    EXPECT_FALSE(fs::exists(checkout.root() + "/build/manycore/pico1x1/obj_dir/Vcmp_top"));
  }
  for (pid_t pid : pids) EXPECT_FALSE(alive(pid)) << pid;
}

// ---------------------------------------------------------------------------------------
// Arguments and environment

TEST(FakeSims, NeedsDvRootAndModelDir) {
  FixtureCheckout checkout;
  TempDir dir;
  std::vector<std::string> argv = {checkout.sims()};
  argv.insert(argv.end(), kPico1x1.begin(), kPico1x1.end());

  ProcessOptions no_dv = sims_options(checkout, dir.path());
  no_dv.set_env.erase("DV_ROOT");
  no_dv.unset_env = {"DV_ROOT"};
  auto a = run_process(argv, no_dv);
  EXPECT_EQ(a.exit_code, 1);
  EXPECT_THAT(a.out, HasSubstr("sims -> .local_tool_wrapper: TRE_PROJECT not defined"));

  ProcessOptions no_model = sims_options(checkout, dir.path());
  no_model.set_env.erase("MODEL_DIR");
  no_model.unset_env = {"MODEL_DIR"};
  auto b = run_process(argv, no_model);
  EXPECT_EQ(b.exit_code, 1);
  EXPECT_THAT(b.out, HasSubstr("DIE. could not initialize model_dir"));

  // -model_dir stands in for MODEL_DIR.
  std::vector<std::string> with_dir = argv;
  with_dir.push_back("-model_dir=" + dir.path() + "/models");
  EXPECT_EQ(run_process(with_dir, no_model).exit_code, 0);
  EXPECT_TRUE(executable(dir.path() + "/models/manycore/pico1x1/obj_dir/Vcmp_top"));
  EXPECT_EQ(checkout.invocations(), 3);
}

TEST(FakeSims, DiesOnAnUnprocessedArgumentButTakesKnownOptions) {
  FixtureCheckout checkout;
  TempDir dir;
  std::vector<std::string> args = kPico1x1;
  args.push_back("stray");
  auto stray = sims(checkout, args, dir.path());
  EXPECT_EQ(stray.exit_code, 1);
  EXPECT_THAT(stray.out, HasSubstr("sims: Caught a SIGDIE. Unprocessed argument: stray at "));

  args.back() = "-no_such_option=1";
  EXPECT_EQ(sims(checkout, args, dir.path()).exit_code, 1);

  args.back() = "-sim_run_args=+foo";  // a real sims option the fake has no use for
  args.push_back("-network_config=xbar_config");
  EXPECT_EQ(sims(checkout, args, dir.path()).exit_code, 0);
  args.back() = "-network_config=ring";
  auto ring = sims(checkout, args, dir.path());
  EXPECT_EQ(ring.exit_code, 1);
  EXPECT_THAT(ring.out, HasSubstr("DIE. network_config can only be xbar_config or 2dmesh_config"));
}

}  // namespace
}  // namespace mace::testing
