// Runs of the core generic through a real maced (REQ-PLAN-1, REQ-PLAN-15, REQ-EXEC-20,
// REQ-VER-17). The planner and the rtl task's agent are a fake Vertex server: the agent
// stand-in writes the wrapper through the rtl_edit tool, as a model would.
//
// On the fixture: a descriptor the Generic Tile cannot host, or one naming a file the
// checkout lacks, ends the run unsupported_core before any LLM call.
//
// With MACE_TEST_PITON_ROOT (a real checkout patched by scripts/patch_openpiton.sh):
// PicoRV32 itself described as a generic core (its file from the checkout) passes hello on
// 1x1 and on every tile of 2x1, and the same descriptor with a wrong reset vector fails
// with REQ-VER-17's reason although hello passes. The checkout is left as it was found.
//
//   MACE_TEST_PITON_ROOT=/path/to/openpiton meson test -C build generic_run

#include <cstdlib>
#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "llm/fake_vertex_server.h"  // tests/llm/
#include "openpiton/generic_tile.h"
#include "support/checkout_files.h"
#include "support/fixture_checkout.h"
#include "support/maced_instance.h"
#include "support/real_checkout.h"

namespace mace::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using mace::llm::testing::FakeVertexServer;

// PicoRV32's own layout (at 0x40000000), given explicitly so that a descriptor whose only
// change is its reset vector still links its programs where the core really starts.
constexpr const char* kLinkScript =
    R"(OUTPUT_ARCH( \"riscv\" )\nENTRY(_start)\nSECTIONS\n{\n  . = 0x40000000;\n)"
    R"(  .text.init : { *(.text.init) }\n  . = ALIGN(0x1000);\n  .tohost : { *(.tohost) }\n)"
    R"(  . = ALIGN(0x1000);\n  .text : { *(.text) }\n  . = ALIGN(0x1000);\n)"
    R"(  .data : { *(.data) }\n  .bss : { *(.bss) }\n  _end = .;\n}\n)";

std::string pico_descriptor(const std::string& reset_vector, const std::string& extra = "") {
  return R"({"name":"picorv32","isa":"RV32IMA","top_module":"picorv32",)"
         R"("files":["piton/design/chip/tile/pico/rtl/picorv32.v"],"reset_vector":")" +
         reset_vector + R"(","link_script":")" + kLinkScript +
         R"(","memory_interface":{"protocol":"picorv32_native"},)"
         R"("parameters":{"PROGADDR_RESET":"32'h4000_0000"})" + extra + "}";
}

std::string spec(int x_tiles, const std::string& descriptor) {
  return R"({"core": "generic", "mesh": [)" + std::to_string(x_tiles) +
         R"(, 1], "workloads": ["hello"], "objective": "Host PicoRV32 as a generic core",
    "options": {"rtl_edits": true},
    "budget": {"max_iterations": 1, "max_usd": 5.0, "max_wall_s": 3600},
    "core_descriptor": )" + descriptor + "}";
}

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

// The skeleton's tied-off body, which an agent's replacement takes out whole.
std::string skeleton_body(const std::string& top_module) {
  openpiton::GenericCore core;
  core.name = top_module;
  core.isa = "RV32I";
  core.top_module = top_module;
  const std::string skeleton = openpiton::wrapper_skeleton(core);
  const auto from = skeleton.find("    // Skeleton:");
  return skeleton.substr(from, skeleton.find("endmodule") - from);
}

// The agent stand-in's one call: the skeleton's tied-off body replaced by PicoRV32 itself,
// its memory port passed straight through and the two nets the testbench reads driven.
mace::llm::testing::ScriptedResponse write_the_wrapper() {
  const std::string body = skeleton_body("picorv32");
  const std::string wrapper =
      "    picorv32 #(.PROGADDR_RESET(32'h4000_0000)) u_core (\n"
      "        .clk(clk), .reset_l(reset_l), .trap(trap), .mem_valid(mem_valid),\n"
      "        .mem_instr(mem_instr), .mem_ready(mem_ready), .mem_addr(mem_addr),\n"
      "        .mem_wdata(mem_wdata), .mem_wstrb(mem_wstrb), .mem_amo_op(mem_amo_op),\n"
      "        .mem_rdata(mem_rdata), .pico_int(pico_int));\n"
      "    assign launch_next_insn = u_core.launch_next_insn;\n"
      "    assign reg_pc = u_core.reg_pc;\n";
  return FakeVertexServer::function_calls(
      {{"rtl_edit__rtl_edit_replace", R"({"path":")" + std::string(openpiton::kGeneratedWrapper) +
                                          R"(","old_text":)" + json_string(body) +
                                          R"(,"new_text":)" + json_string(wrapper) + "}"}});
}

class GenericRunTest : public ::testing::Test {
 protected:
  void start(const std::string& checkout_root) {
    dir_.write("maced.json", R"({"checkouts": [{"path": ")" + checkout_root + R"("}]})");
    MacedOptions options;
    options.extra_args = {"--config", dir_.file("maced.json"), "--workloads",
                          source_root() + "/workloads"};
    options.process.set_env["MACE_VERTEX_ENDPOINT"] = vertex_.base_url();
    maced_ = std::make_unique<MacedInstance>(dir_, options);
  }
  // Submits, follows the run to its end, returns `mace status --json`.
  std::string run(const std::string& spec_json) {
    dir_.write("spec.json", spec_json);
    auto submitted = maced_->mace({"submit", dir_.file("spec.json")});
    EXPECT_EQ(submitted.exit_code, 0) << submitted.err;
    id_ = submitted.out.substr(0, submitted.out.find('\n'));
    ProcessOptions options;
    options.timeout = std::chrono::minutes(30);
    maced_->mace({"watch", id_}, options);
    return maced_->mace({"status", id_, "--json"}).out;
  }
  std::string logs() { return maced_->mace({"logs", id_}).out; }

  TempDir dir_;
  FakeVertexServer vertex_;
  std::unique_ptr<MacedInstance> maced_;
  std::string id_;
};

// REQ-EXEC-20: the support check comes before any LLM call; nothing is planned or built.
TEST_F(GenericRunTest, ACoreTheTileCannotHostEndsUnsupportedBeforeAnyLlmCall) {
  FixtureCheckout checkout;
  start(checkout.root());
  std::string descriptor = pico_descriptor("0x40000000");
  descriptor.replace(descriptor.find(R"("isa":"RV32IMA")"), 15, R"("isa":"RV32IMF","harts":2)");
  std::string status = run(spec(1, descriptor));
  EXPECT_THAT(status, HasSubstr(R"("state":"unsupported_core")"));
  EXPECT_THAT(status, HasSubstr("extension F is not supported"));
  EXPECT_THAT(status, HasSubstr("harts 2"));
  EXPECT_TRUE(vertex_.requests().empty()) << "an LLM was called";
  EXPECT_THAT(status, Not(HasSubstr(R"("build_id")")));
}

TEST_F(GenericRunTest, ADescriptorNamingAFileTheCheckoutLacksEndsUnsupported) {  // REQ-EXEC-20
  FixtureCheckout checkout;
  start(checkout.root());
  std::string descriptor = pico_descriptor("0x40000000");
  descriptor.replace(descriptor.find("picorv32.v"), 10, "missing.v");
  std::string status = run(spec(1, descriptor));
  EXPECT_THAT(status, HasSubstr(R"("state":"unsupported_core")"));
  EXPECT_THAT(status, HasSubstr("lacks piton/design/chip/tile/pico/rtl/missing.v"));
  EXPECT_TRUE(vertex_.requests().empty()) << "an LLM was called";
}

// ---------------------------------------------------------------- a real checkout

class RealGenericRunTest : public GenericRunTest {
 protected:
  void SetUp() override {
    const auto root = real_checkout_root();
    if (!root)
      GTEST_SKIP() << "MACE_TEST_PITON_ROOT is not set: this test needs a real OpenPiton "
                      "checkout patched with scripts/patch_openpiton.sh (Verilator, the "
                      "RISC-V GCC and OpenPiton's tools installed)";
    root_ = *root;
    status_before_ = git_status(root_);
    start(root_);
  }
  void TearDown() override {
    maced_.reset();
    if (!root_.empty()) {
      EXPECT_EQ(git_status(root_), status_before_) << "the run left the checkout changed";
      for (auto path : {openpiton::kGeneratedWrapper, openpiton::kGeneratedFlist,
                        openpiton::kGeneratedLinkScript})
        EXPECT_FALSE(std::filesystem::exists(root_ + "/" + std::string(path))) << path;
    }
  }
  // The plan (one rtl task), the agent's edit, its closing words.
  void script_the_wrapper() {
    vertex_.push(FakeVertexServer::text("TASK: r | deps= | kind=rtl | write the wrapper of PicoRV32\n"));
    vertex_.push(write_the_wrapper());
    vertex_.push(FakeVertexServer::text("The wrapper instantiates picorv32 and passes its port through."));
  }

  std::string root_;
  std::string status_before_;
};

// REQ-EXEC-20, REQ-PLAN-15, REQ-VER-17: the wrapper written through rtl_edit builds, hello
// passes on the one tile, whose first request is at the reset vector.
TEST_F(RealGenericRunTest, PicoRv32AsAGenericCorePassesHelloOnOneTile) {
  script_the_wrapper();
  std::string status = run(spec(1, pico_descriptor("0x40000000")));
  EXPECT_THAT(status, HasSubstr(R"("state":"passed")")) << status << logs();
  EXPECT_THAT(status, HasSubstr(R"("workload":"hello","verdict":"pass")"));
  auto requests = vertex_.requests();
  ASSERT_GE(requests.size(), 2u);
  // The agent's prompt carries the interface and the core's ports (REQ-PLAN-15).
  EXPECT_THAT(requests[1].body, HasSubstr("mace_generic_wrapper.v"));
  EXPECT_THAT(requests[1].body, HasSubstr("module picorv32"));
  EXPECT_THAT(requests[1].body, HasSubstr("launch_next_insn"));
}

TEST_F(RealGenericRunTest, PicoRv32AsAGenericCorePassesHelloOnEveryTileOfTwo) {  // REQ-VER-7
  script_the_wrapper();
  std::string status = run(spec(2, pico_descriptor("0x40000000")));
  EXPECT_THAT(status, HasSubstr(R"("state":"passed")")) << status << logs();
  EXPECT_THAT(status, HasSubstr(R"("workload":"hello","verdict":"pass")"));
}

// REQ-VER-17: the descriptor says 0x40000100, the core starts at 0x40000000: the task
// fails with the first request's reason even though hello passes.
TEST_F(RealGenericRunTest, AWrongResetVectorFailsTheTaskAlthoughHelloPasses) {
  script_the_wrapper();
  vertex_.push(FakeVertexServer::text("DIAGNOSIS: wrong_reset_vector\nFIX: match the descriptor"));
  vertex_.push(FakeVertexServer::text("ASSESSMENT: the core starts elsewhere\n"));
  std::string status = run(spec(1, pico_descriptor("0x40000100")));
  // Its one iteration ended without a pass: the loop's end for that is the iteration limit.
  EXPECT_THAT(status, HasSubstr(R"("state":"budget_exceeded")")) << status << logs();
  EXPECT_THAT(status, HasSubstr(R"("failure_reason":"wrong_first_request")"));
  EXPECT_THAT(status, HasSubstr(R"("workload":"hello","verdict":"pass")"));
  EXPECT_THAT(status + logs(), HasSubstr("tile 0 at 0x40000000"));
}

// A second core with a different memory interface: SERV (github.com/olofk/serv), bit-serial
// RV32I with Zicsr and two Wishbone ports, which the wrapper muxes onto the tile's one
// port (SERV never has both in a cycle at once). It is not part of OpenPiton nor of MACE:
// copy its rtl/ (without serv_synth_wrapper.v) to piton/design/chip/tile/serv/rtl/ of the
// checkout to run this. The gate workload is the checkout's add.S (MACE's own programs
// need the A extension). REQ-EXEC-20, REQ-VER-17.
TEST_F(RealGenericRunTest, ASecondCoreWithTwoWishbonePortsRunsAddOnOneTile) {
  const std::string dir = "piton/design/chip/tile/serv/rtl/";
  const std::vector<std::string> files = {
      "serv_aligner.v", "serv_alu.v", "serv_bufreg.v", "serv_bufreg2.v", "serv_compdec.v",
      "serv_csr.v", "serv_ctrl.v", "serv_debug.v", "serv_decode.v", "serv_immdec.v",
      "serv_mem_if.v", "serv_rf_if.v", "serv_rf_ram.v", "serv_rf_ram_if.v", "serv_state.v",
      // Last: these two set `default_nettype back to wire for what is compiled after them.
      "serv_top.v", "serv_rf_top.v"};
  if (!std::filesystem::exists(root_ + "/" + dir + "serv_top.v"))
    GTEST_SKIP() << "the checkout has no SERV: copy olofk/serv's rtl/ to " << dir;
  std::string list;
  for (const auto& f : files) list += (list.empty() ? "\"" : ",\"") + dir + f + "\"";
  const std::string descriptor =
      R"({"name":"serv","isa":"RV32I_ZICSR","top_module":"serv_rf_top","files":[)" + list +
      R"(],"reset_vector":"0x40000000","memory_interface":{"protocol":"wishbone","ports":2},)"
      R"("parameters":{"RESET_PC":"32'h4000_0000"}})";
  const std::string wrapper =
      "    wire [31:0] ibus_adr, dbus_adr, dbus_dat;\n"
      "    wire        ibus_cyc, dbus_cyc, dbus_we;\n"
      "    wire [3:0]  dbus_sel;\n"
      "    // Held in reset until the tile's wake-up, as PicoRV32 holds itself.\n"
      "    reg woken;\n"
      "    always @(posedge clk) if (!reset_l) woken <= 1'b0; else if (pico_int) woken <= 1'b1;\n"
      "    serv_rf_top #(.RESET_PC(32'h4000_0000)) u_core (\n"
      "        .clk(clk), .i_rst(!woken), .i_timer_irq(1'b0),\n"
      "        .o_ibus_adr(ibus_adr), .o_ibus_cyc(ibus_cyc), .i_ibus_rdt(mem_rdata),\n"
      "        .i_ibus_ack(mem_ready && ibus_cyc && !dbus_cyc),\n"
      "        .o_dbus_adr(dbus_adr), .o_dbus_dat(dbus_dat), .o_dbus_sel(dbus_sel),\n"
      "        .o_dbus_we(dbus_we), .o_dbus_cyc(dbus_cyc), .i_dbus_rdt(mem_rdata),\n"
      "        .i_dbus_ack(mem_ready && dbus_cyc),\n"
      "        .o_ext_rs1(), .o_ext_rs2(), .o_ext_funct3(), .i_ext_rd(32'b0),\n"
      "        .i_ext_ready(1'b0), .o_mdu_valid());\n"
      "    // The tile's decoder takes a request on a rising mem_valid (pico_decoder.v): SERV can\n"
      "    // start its next request in the cycle after an acknowledgement, so hold valid low\n"
      "    // for that cycle.\n"
      "    reg just_acked;\n"
      "    always @(posedge clk) just_acked <= mem_ready;\n"
      "    assign mem_valid  = (ibus_cyc || dbus_cyc) && !just_acked;\n"
      "    assign mem_instr  = ibus_cyc;\n"
      "    assign mem_addr   = dbus_cyc ? dbus_adr : ibus_adr;\n"
      "    assign mem_wdata  = dbus_dat;\n"
      "    assign mem_wstrb  = (dbus_cyc && dbus_we) ? dbus_sel : 4'b0;\n"
      "    assign mem_amo_op = `L15_AMO_OP_NONE;\n"
      "    assign trap       = 1'b0;\n"
      "    // An instruction starts when its fetch completes; the testbench traps on its PC.\n"
      "    assign launch_next_insn = ibus_cyc && mem_ready;\n"
      "    assign reg_pc     = ibus_adr;\n";
  vertex_.push(FakeVertexServer::text("TASK: r | deps= | kind=rtl | write the wrapper of SERV\n"));
  vertex_.push(FakeVertexServer::function_calls(
      {{"rtl_edit__rtl_edit_replace",
        R"({"path":")" + std::string(openpiton::kGeneratedWrapper) + R"(","old_text":)" +
            json_string(skeleton_body("serv_rf_top")) + R"(,"new_text":)" + json_string(wrapper) + "}"}}));
  vertex_.push(FakeVertexServer::text("The wrapper muxes SERV's two Wishbone ports."));
  vertex_.push(FakeVertexServer::text("DIAGNOSIS: serv\nFIX: none"));
  vertex_.push(FakeVertexServer::text("ASSESSMENT: serv\n"));
  std::string status = run(R"({"core": "generic", "mesh": [1, 1], "workloads": ["add.S"],
    "objective": "Host SERV as a generic core", "options": {"rtl_edits": true},
    "budget": {"max_iterations": 1, "max_usd": 5.0, "max_wall_s": 3600},
    "core_descriptor": )" + descriptor + "}");
  EXPECT_THAT(status, HasSubstr(R"("state":"passed")")) << status << logs();
  EXPECT_THAT(status, HasSubstr(R"("workload":"add.S","verdict":"pass")"));
}

}  // namespace
}  // namespace mace::testing
