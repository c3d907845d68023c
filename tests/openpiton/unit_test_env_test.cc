// unit_test task building blocks: module path checks, port lists, the build-failure
// classifier, and (with MACE_TEST_PITON_ROOT naming a real checkout) scaffolding and
// building an environment with OpenPiton's own create_env.py and Verilator.

#include "openpiton/unit_test_env.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/child_process.h"

namespace mace::openpiton {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void spit(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

// A directory standing in for a checkout: validation needs nothing of OpenPiton.
class ModulePathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(dir_.path()) / "checkout";
    spit(root_ / "piton/design/common/rtl/sync.v", "module sync; endmodule\n");
    spit(root_ / "piton/design/chip/tile/l15/rtl/l15_pipeline.v.pyv", "module l15_pipeline;\n");
    spit(root_ / "piton/design/x/core.sv", "module core; endmodule\n");
    spit(root_ / "piton/design/x/notes.txt", "not verilog\n");
    spit(fs::path(dir_.path()) / "outside.v", "module outside; endmodule\n");
    fs::create_directories(root_ / "piton/design/dir.v");
  }
  mace::testing::TempDir dir_;
  fs::path root_;
};

// REQ-EXEC-12
TEST_F(ModulePathTest, AcceptsExistingVerilogFilesInsideTheCheckout) {
  for (const char* ok : {"piton/design/common/rtl/sync.v",
                         "piton/design/chip/tile/l15/rtl/l15_pipeline.v.pyv",
                         "piton/design/x/core.sv", "piton/design/x/../common/rtl/sync.v"}) {
    auto check = validate_unit_test_module(root_, ok);
    EXPECT_TRUE(check.ok) << ok << ": " << check.error;
    EXPECT_EQ(check.error, "");
  }
  auto check = validate_unit_test_module(root_, "piton/design/x/../common/rtl/sync.v");
  EXPECT_EQ(check.relative, "piton/design/common/rtl/sync.v");
  EXPECT_EQ(check.resolved, fs::canonical(root_ / "piton/design/common/rtl/sync.v"));
}

// REQ-EXEC-12
TEST_F(ModulePathTest, RefusesAbsolutePaths) {
  const std::string abs = (root_ / "piton/design/common/rtl/sync.v").string();
  auto check = validate_unit_test_module(root_, abs);
  EXPECT_FALSE(check.ok);
  EXPECT_THAT(check.error, HasSubstr("'" + abs + "'"));
  EXPECT_THAT(check.error, HasSubstr("is absolute"));
}

// REQ-EXEC-12
TEST_F(ModulePathTest, RefusesDotDotEscapes) {
  auto check = validate_unit_test_module(root_, "piton/../../outside.v");
  EXPECT_FALSE(check.ok);
  EXPECT_THAT(check.error, HasSubstr("'piton/../../outside.v'"));
  EXPECT_THAT(check.error, HasSubstr("resolves outside the checkout"));
  EXPECT_FALSE(validate_unit_test_module(root_, "..").ok);
  EXPECT_FALSE(validate_unit_test_module(root_, ".").ok);
}

// REQ-EXEC-12
TEST_F(ModulePathTest, RefusesSymlinksThatLeadOut) {
  fs::create_symlink(fs::path(dir_.path()) / "outside.v", root_ / "piton/design/link.v");
  fs::create_directory_symlink(fs::path(dir_.path()), root_ / "piton/design/up");
  for (const char* bad : {"piton/design/link.v", "piton/design/up/outside.v"}) {
    auto check = validate_unit_test_module(root_, bad);
    EXPECT_FALSE(check.ok) << bad;
    EXPECT_THAT(check.error, HasSubstr("resolves outside the checkout")) << bad;
  }
  // A link that stays inside is the file it names.
  fs::create_symlink("common/rtl/sync.v", root_ / "piton/design/inside.v");
  auto check = validate_unit_test_module(root_, "piton/design/inside.v");
  EXPECT_TRUE(check.ok) << check.error;
  EXPECT_EQ(check.relative, "piton/design/common/rtl/sync.v");
}

// REQ-EXEC-12
TEST_F(ModulePathTest, RefusesOtherExtensions) {
  for (const char* bad : {"piton/design/x/notes.txt", "piton/design/common/rtl/sync.vh",
                          "piton/design/common/rtl/sync", "piton/design/common/rtl/sync.v.bak"}) {
    auto check = validate_unit_test_module(root_, bad);
    EXPECT_FALSE(check.ok) << bad;
    EXPECT_THAT(check.error, HasSubstr("is not a .v, .sv or .pyv file")) << bad;
  }
}

// REQ-EXEC-12
TEST_F(ModulePathTest, RefusesMissingFilesAndDirectories) {
  auto missing = validate_unit_test_module(root_, "piton/design/common/rtl/nope.v");
  EXPECT_FALSE(missing.ok);
  EXPECT_THAT(missing.error, HasSubstr("'piton/design/common/rtl/nope.v' does not exist"));
  auto dir = validate_unit_test_module(root_, "piton/design/dir.v");
  EXPECT_FALSE(dir.ok);
  EXPECT_THAT(dir.error, HasSubstr("is not a regular file"));
  auto empty = validate_unit_test_module(root_, "");
  EXPECT_FALSE(empty.ok);
  EXPECT_THAT(empty.error, HasSubstr("is empty"));
}

// REQ-EXEC-12: a bad path fails with its reason before anything runs or is written.
TEST_F(ModulePathTest, ScaffoldingABadPathFailsWithoutTouchingAnything) {
  ScaffoldOptions options;
  options.checkout_root = root_;
  options.env_name = "mace_ut_00000000";
  options.module_path = "piton/design/x/notes.txt";
  options.work_dir = dir_.path();
  auto result = scaffold_unit_test_env(options);
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.failure_reason, Failure::unit_test_bad_module_path);
  EXPECT_THAT(result.error, HasSubstr("notes.txt"));
  EXPECT_EQ(result.process.pid, -1) << "create_env.py must not have run";
  EXPECT_FALSE(fs::exists(fs::path(dir_.path()) / "create_env.log"));
}

TEST(UnitTestEnvName, IsAFixedLengthIdentifierFromTheTaskId) {
  // printf %s t1 | sha256sum -> 628b49d96dcd...
  EXPECT_EQ(unit_test_env_name("t1"), "mace_ut_628b49d9");
  EXPECT_EQ(unit_test_env_name("a task id/with ../ odd `chars`").size(), 16u);
  EXPECT_NE(unit_test_env_name("t1"), unit_test_env_name("t2"));
}

// ---- port lists (REQ-EXEC-8) ----

std::vector<std::string> port_lines(const ModuleInterface& m) {
  std::vector<std::string> out;
  for (const auto& p : m.ports) {
    out.push_back(p.direction + "|" + p.type + "|" + p.width + "|" + p.name +
                  (p.unpacked.empty() ? "" : "|" + p.unpacked));
  }
  return out;
}

// REQ-EXEC-8
TEST(ModulePortList, ReadsANonAnsiHeaderWithBodyDeclarations) {
  // The shape of piton/design/common/rtl/synchronizer.v.
  const char* src = R"(
// header comment: module not_this (a, b);
`ifdef L15_EXTRA_DEBUG
`default_nettype none
`endif

module synchronizer (
    clk,
    presyncdata,
    syncdata
    );

// synopsys template
parameter SIZE = 1;

input wire clk;
input wire [SIZE-1:0] presyncdata;
output reg [SIZE-1:0] syncdata;

reg [SIZE-1:0] presyncdata_tmp;
always @ (posedge clk) begin
    presyncdata_tmp <= presyncdata;
    syncdata <= presyncdata_tmp;
end
endmodule
)";
  auto m = module_port_list(src);
  EXPECT_EQ(m.module, "synchronizer");
  ASSERT_EQ(m.parameters.size(), 1u);
  EXPECT_EQ(m.parameters[0].name, "SIZE");
  EXPECT_EQ(m.parameters[0].default_value, "1");
  EXPECT_EQ(port_lines(m), (std::vector<std::string>{"input|wire||clk",
                                                     "input|wire|[SIZE-1:0]|presyncdata",
                                                     "output|reg|[SIZE-1:0]|syncdata"}));
  EXPECT_EQ(format_module_interface(m),
            "module synchronizer\n"
            "  parameter SIZE = 1\n"
            "  input wire clk\n"
            "  input wire [SIZE-1:0] presyncdata\n"
            "  output reg [SIZE-1:0] syncdata\n");
}

// REQ-EXEC-8
TEST(ModulePortList, ReadsAnAnsiHeaderWithParameters) {
  // The shape of piton/design/common/rtl/sync_fifo_vr.v.
  const char* src = R"(
`include "define.tmp.h"

module sync_fifo_vr #(
    parameter   DATA_WIDTH     = 64,
    // FIFO_DEPTH needs to be at least 2.
    parameter   FIFO_DEPTH     = 4
) (
    input                               clk,
    input                               rst_n,

    input                               enqueue_vr_val,
    input       [DATA_WIDTH-1:0]        enqueue_vr_dat,
    output                              enqueue_vr_rdy,

    output                              dequeue_vr_val,
    output      [DATA_WIDTH-1:0]        dequeue_vr_dat,
    input                               dequeue_vr_rdy
);
    function integer clog2;
      input integer value;
    begin
      for (clog2=0; value>0; clog2=clog2+1) value = value >> 1;
    end
    endfunction
endmodule
)";
  auto m = module_port_list(src);
  EXPECT_EQ(m.module, "sync_fifo_vr");
  ASSERT_EQ(m.parameters.size(), 2u);
  EXPECT_EQ(m.parameters[0].name, "DATA_WIDTH");
  EXPECT_EQ(m.parameters[0].default_value, "64");
  EXPECT_EQ(m.parameters[1].name, "FIFO_DEPTH");
  EXPECT_EQ(m.parameters[1].default_value, "4");
  EXPECT_EQ(port_lines(m),
            (std::vector<std::string>{"input|||clk", "input|||rst_n", "input|||enqueue_vr_val",
                                      "input||[DATA_WIDTH-1:0]|enqueue_vr_dat",
                                      "output|||enqueue_vr_rdy", "output|||dequeue_vr_val",
                                      "output||[DATA_WIDTH-1:0]|dequeue_vr_dat",
                                      "input|||dequeue_vr_rdy"}));
}

// REQ-EXEC-8
TEST(ModulePortList, AnsiNamesShareTheDeclarationBeforeThem) {
  const char* src = R"(
module alu
  import alu_pkg::*;
#(parameter int W = 8, parameter [3:0] MODE = 4'h2)
(
  input  logic clk, rst_n,          // two one-bit inputs
  input  logic signed [W-1:0] a, b, /* two operands */
`ifdef ALU_DEBUG
  output logic [W-1:0] debug_q,
`endif
  (* keep *) output logic [W-1:0] q [2],
  inout  wire  pad
);
endmodule
module second (input x); endmodule
)";
  auto m = module_port_list(src);
  EXPECT_EQ(m.module, "alu");
  ASSERT_EQ(m.parameters.size(), 2u);
  EXPECT_EQ(m.parameters[0].name, "W");
  EXPECT_EQ(m.parameters[1].name, "MODE");
  EXPECT_EQ(m.parameters[1].default_value, "4'h2");
  EXPECT_EQ(port_lines(m), (std::vector<std::string>{
                               "input|logic||clk", "input|logic||rst_n",
                               "input|logic signed|[W-1:0]|a", "input|logic signed|[W-1:0]|b",
                               "output|logic|[W-1:0]|debug_q", "output|logic|[W-1:0]|q|[2]",
                               "inout|wire||pad"}));
  auto second = module_port_list(src, "second");
  EXPECT_EQ(second.module, "second");
  EXPECT_EQ(port_lines(second), std::vector<std::string>{"input|||x"});
}

// REQ-EXEC-8
TEST(ModulePortList, NonAnsiSkipsTaskArgumentsAndTakesTypesFromLaterDeclarations) {
  const char* src = R"(
module counter (clk, rst_n, count, overflow, unused);
  input clk, rst_n;
  output [7:0] count;
  output overflow;
  reg [7:0] count;
  reg overflow;
  task bump;
    input [7:0] step;
    count = count + step;
  endtask
endmodule
)";
  auto m = module_port_list(src);
  EXPECT_EQ(port_lines(m), (std::vector<std::string>{"input|||clk", "input|||rst_n",
                                                     "output|reg|[7:0]|count",
                                                     "output|reg||overflow", "|||unused"}));
  EXPECT_THAT(format_module_interface(m), HasSubstr("  (undeclared) unused\n"));
}

// REQ-EXEC-8: a pyHP source's Python blocks are not Verilog.
TEST(ModulePortList, SkipsPyhpBlocks) {
  const char* src = R"(<%
from pyhplib import *
ports = "input wrong_port,"
%>
module l15_pipeline (
    input clk,
    <% print("input fake,") %>
    input [`L15_WIDTH-1:0] data
);
endmodule
)";
  auto m = module_port_list(src);
  EXPECT_EQ(m.module, "l15_pipeline");
  EXPECT_EQ(port_lines(m), (std::vector<std::string>{"input|||clk",
                                                     "input||[`L15_WIDTH-1:0]|data"}));
}

TEST(ModulePortList, NoModuleMeansAnEmptyInterface) {
  auto m = module_port_list("// module fake (a);\n/* module also_fake; */\nwire x;\n");
  EXPECT_EQ(m.module, "");
  EXPECT_THAT(m.ports, IsEmpty());
  EXPECT_EQ(format_module_interface(m), "(no module declaration found)\n");
}

// ---- REQ-FAIL-3 ----

// REQ-FAIL-3: the line as Verilator 5.006 wrote it for a scaffolded testbench.
TEST(ClassifyUnitTestBuildFailure, PinNotFoundIsATestbenchMismatch) {
  const char* output =
      "sims: Building rtl model\n"
      "%Error-PINNOTFOUND: /c/piton/verif/env/mace_ut_1/mace_ut_1_top.v:78:10: Pin not found: "
      "'input0'\n"
      "%Error: Exiting due to 7 error(s)\n";
  EXPECT_EQ(classify_unit_test_build_failure(output), Failure::testbench_mismatch);
  EXPECT_EQ(to_string(Failure::testbench_mismatch), "testbench_mismatch");
}

// REQ-FAIL-3
TEST(ClassifyUnitTestBuildFailure, OtherErrorsAreBuildFailures) {
  EXPECT_EQ(classify_unit_test_build_failure(
                "%Error: x_top.v:166:31: Can't find definition of variable: 'NUM_TEST_CASES'\n"),
            Failure::unit_test_build_failed);
  EXPECT_EQ(classify_unit_test_build_failure("%Warning-PINMISSING: x_top.v:3: Cell has missing pin"),
            Failure::unit_test_build_failed);
  EXPECT_EQ(classify_unit_test_build_failure(""), Failure::unit_test_build_failed);
}

// ---- a real checkout (REQ-VER-6, REQ-FAIL-3, REQ-EXEC-8) ----

class RealUnitTestEnvTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* root = std::getenv("MACE_TEST_PITON_ROOT");
    if (root == nullptr || *root == '\0') {
      GTEST_SKIP() << "MACE_TEST_PITON_ROOT is not set: scaffolding and building a unit-test "
                      "environment needs a real OpenPiton checkout";
    }
    root_ = root;
    status_before_ = git_status();
    sims_config_before_ = slurp(root_ / "piton/tools/src/sims/sims.config");
  }
  void TearDown() override {
    if (root_.empty()) return;
    EXPECT_EQ(git_status(), status_before_) << "the test left the checkout changed";
    EXPECT_EQ(slurp(root_ / "piton/tools/src/sims/sims.config"), sims_config_before_);
  }
  std::string git_status() const {
    auto r = mace::testing::run_process({"git", "-C", root_.string(), "status", "--porcelain"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  }
  fs::path root_;
  std::string status_before_, sims_config_before_;
  mace::testing::TempDir work_;
};

// What an agent does with the scaffold for synchronizer.v: the DUT's real name and ports,
// and concrete sizes for the template's placeholders.
std::string reconcile_for_synchronizer(std::string tb, const std::string& env_name) {
  tb = std::regex_replace(tb, std::regex("    " + env_name + " dut\n"), "    synchronizer dut\n");
  tb = std::regex_replace(tb, std::regex(R"(\.rst_n \(rst_n\),\n        // TODO: Fill in your DUT[\s\S]*?\.output1 \(sink_bits\[16\]\)\n)"),
                          ".presyncdata (src_bits),\n        .syncdata (sink_bits)\n");
  for (auto [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"SRC_LOG2_ENTRIES", "2"}, {"SINK_LOG2_ENTRIES", "2"}, {"SRC_BIT_WIDTH", "1"},
           {"SINK_BIT_WIDTH", "1"}, {"SRC_ENTRIES", "4"}, {"SINK_ENTRIES", "4"},
           {"NUM_TEST_CASES", "1"}}) {
    tb = std::regex_replace(tb, std::regex(from), to);
  }
  return tb;
}

// REQ-VER-6, REQ-FAIL-3, REQ-EXEC-8; REQ-TOOL-6: scaffolding runs OpenPiton's create_env.py
// with python3.
TEST_F(RealUnitTestEnvTest, ScaffoldsBuildsAndRestoresTheCheckout) {
  const std::string name = unit_test_env_name("unit_test_env_test/real");
  const fs::path work = work_.path();
  fs::path env_dir, testbench, model_root;
  const auto t0 = std::chrono::steady_clock::now();
  {
    ScaffoldOptions options;
    options.checkout_root = root_;
    options.env_name = name;
    options.module_path = "piton/design/common/rtl/synchronizer.v";
    options.work_dir = work;
    auto scaffold = scaffold_unit_test_env(options);
    ASSERT_TRUE(scaffold.ok()) << scaffold.error << "\n" << scaffold.process.tail;
    const auto t_scaffold = std::chrono::steady_clock::now();
    UnitTestEnv& env = *scaffold.env;
    env_dir = env.env_dir();
    testbench = env.testbench();
    model_root = env.model_root();
    EXPECT_EQ(env.module_name(), "synchronizer");
    EXPECT_EQ(env.module_relative(), "piton/design/common/rtl/synchronizer.v");
    EXPECT_EQ(testbench, fs::canonical(root_) / "piton/verif/env" / name / (name + "_top.v"));
    EXPECT_TRUE(fs::is_regular_file(testbench));
    EXPECT_THAT(slurp(root_ / "piton/tools/src/sims/sims.config"),
                HasSubstr("#include \"" + name + ".config\"\n"));
    const std::string config = slurp(root_ / "piton/tools/src/sims" / (name + ".config"));
    EXPECT_THAT(config, HasSubstr("-flist=$DV_ROOT/verif/env/" + name + "/" + name + "_dut.flist"));
    EXPECT_THAT(config, ::testing::Not(HasSubstr("-env_base=")));
    EXPECT_EQ(format_module_interface(scaffold.module),
              "module synchronizer\n  parameter SIZE = 1\n  input wire clk\n"
              "  input wire [SIZE-1:0] presyncdata\n  output reg [SIZE-1:0] syncdata\n");

    UnitTestBuildOptions build;
    build.work_dir = work;
    build.timeout = std::chrono::minutes(5);

    // The scaffold with only the DUT's name put in: its example pins do not exist.
    std::string tb = slurp(testbench);
    spit(testbench, std::regex_replace(tb, std::regex("    " + name + " dut\n"),
                                       "    synchronizer dut\n"));
    auto mismatch = build_unit_test_env(env, build);
    const auto t_mismatch = std::chrono::steady_clock::now();
    EXPECT_FALSE(mismatch.ok);
    EXPECT_EQ(mismatch.failure_reason, Failure::testbench_mismatch) << mismatch.error;
    EXPECT_THAT(mismatch.error_lines,
                ::testing::Contains(HasSubstr("%Error-PINNOTFOUND"))) << mismatch.error;
    EXPECT_EQ(classify_unit_test_build_failure(slurp(mismatch.log_path)), Failure::testbench_mismatch);

    // Reconciled as the agent is asked to: it builds, and the task passes (REQ-VER-6).
    spit(testbench, reconcile_for_synchronizer(tb, name));
    auto built = build_unit_test_env(env, build);
    const auto t_built = std::chrono::steady_clock::now();
    EXPECT_TRUE(built.ok) << built.error << "\n" << slurp(built.log_path);
    EXPECT_EQ(built.failure_reason, Failure::none);
    EXPECT_TRUE(fs::exists(built.model_dir / "obj_dir" / ("V" + name + "_top__ALL.a")));

    auto secs = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
    std::cout << "[ timing ] scaffold " << secs(t0, t_scaffold) << " s, mismatched build "
              << secs(t_scaffold, t_mismatch) << " s, reconciled build "
              << secs(t_mismatch, t_built) << " s\n";

    EXPECT_THAT(env.restore(), IsEmpty());
    EXPECT_TRUE(env.restored());
  }
  EXPECT_FALSE(fs::exists(env_dir));
  EXPECT_FALSE(fs::exists(model_root));
  EXPECT_FALSE(fs::exists(root_ / "piton/tools/src/sims" / (name + ".config")));
  EXPECT_FALSE(fs::exists(root_ / "piton/tools/src/sims" / (name + ".Linux.x86_64")));
}

// create_env.py refuses a name that exists; scaffolding must refuse it first and leave the
// other environment alone (restore() must never remove what it did not create).
TEST_F(RealUnitTestEnvTest, RefusesAnExistingEnvironmentAndLeavesItAlone) {
  ScaffoldOptions options;
  options.checkout_root = root_;
  options.env_name = "ifu_esl_lfsr";  // a stock environment
  options.module_path = "piton/design/common/rtl/synchronizer.v";
  options.work_dir = work_.path();
  auto result = scaffold_unit_test_env(options);
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.failure_reason, Failure::unit_test_scaffold_failed);
  EXPECT_THAT(result.error, HasSubstr("already exists"));
  EXPECT_EQ(result.process.pid, -1);
  EXPECT_TRUE(fs::is_regular_file(root_ / "piton/verif/env/ifu_esl_lfsr/ifu_esl_lfsr_top.v"));
}

// The guard also restores when the UnitTestEnv is only destroyed (a task that throws).
TEST_F(RealUnitTestEnvTest, DestructionRestores) {
  const std::string name = unit_test_env_name("unit_test_env_test/destroy");
  {
    ScaffoldOptions options;
    options.checkout_root = root_;
    options.env_name = name;
    options.module_path = "piton/design/common/rtl/synchronizer.v";
    options.work_dir = work_.path();
    auto result = scaffold_unit_test_env(options);
    ASSERT_TRUE(result.ok()) << result.error;
    EXPECT_TRUE(fs::exists(root_ / "piton/verif/env" / name));
  }
  EXPECT_FALSE(fs::exists(root_ / "piton/verif/env" / name));
}

}  // namespace
}  // namespace mace::openpiton
