// Agent tasks on a real OpenPiton checkout (MACE_TEST_PITON_ROOT, patched; pico works):
// an rtl task whose scripted agent edits a real design file builds with Verilator and
// runs, and the checkout is as it was afterwards (REQ-EXEC-14, 15); a unit_test task
// scaffolds a real environment with OpenPiton's create_env.py, its scripted agent
// rewrites the testbench, and the environment builds (REQ-EXEC-8, REQ-VER-6). The planner
// and the agents are a fake Vertex server. Slow: a fresh pico build takes minutes.

#include <cstdlib>
#include <filesystem>
#include <regex>

#include <simdjson.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "llm/fake_vertex_server.h"  // tests/llm/
#include "support/checkout_files.h"
#include "support/child_process.h"
#include "support/maced_instance.h"

namespace mace::testing {
namespace {

using ::testing::HasSubstr;
using mace::llm::testing::FakeVertexServer;
using mace::llm::testing::RecordedRequest;
using mace::llm::testing::ScriptedResponse;


// The text a tool returned to the model, from the request that carries it.
std::string last_tool_result(const RecordedRequest& request) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(request.body);
  simdjson::dom::array contents = doc["contents"];
  std::string result;
  for (simdjson::dom::element content : contents)
    for (simdjson::dom::element part : content["parts"].get_array()) {
      simdjson::dom::element response;
      if (part["functionResponse"]["response"].get(response) == simdjson::SUCCESS) {
        std::string_view text;
        if (response["result"].get(text) == simdjson::SUCCESS) result = std::string(text);
      }
    }
  return result;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      out += c;
    }
  }
  return out + "\"";
}

class RealAgentRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* root = std::getenv("MACE_TEST_PITON_ROOT");
    if (!root || !*root)
      GTEST_SKIP() << "MACE_TEST_PITON_ROOT is unset: these tests need a patched OpenPiton "
                      "checkout (see docs/openpiton.md)";
    root_ = root;
    status_before_ = git_status(root_);
    dir_.write("maced.json", R"({"checkouts": [{"path": ")" + root_ + R"("}]})");
    MacedOptions options;
    options.extra_args = {"--config", dir_.file("maced.json"), "--workloads",
                          source_root() + "/workloads"};
    options.process.set_env["MACE_VERTEX_ENDPOINT"] = vertex_.base_url();
    maced_ = std::make_unique<MacedInstance>(dir_, options);
  }
  void TearDown() override {
    if (!root_.empty()) {
      EXPECT_EQ(git_status(root_), status_before_) << "the checkout changed";
    }
  }
  std::string run(const std::string& spec) {
    dir_.write("spec.json", spec);
    auto r = maced_->mace({"submit", dir_.file("spec.json")});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::string id = r.out.substr(0, r.out.find('\n'));
    ProcessOptions options;
    options.timeout = std::chrono::minutes(30);
    maced_->mace({"watch", id}, options);
    return maced_->mace({"status", id, "--json"}).out;
  }

  std::string root_, status_before_;
  TempDir dir_;
  FakeVertexServer vertex_;
  std::unique_ptr<MacedInstance> maced_;
};

// REQ-EXEC-14, REQ-EXEC-15: the edit is in the build, and out of the checkout afterwards.
TEST_F(RealAgentRunTest, AnRtlTaskEditsARealDesignFileBuildsRunsAndLeavesTheCheckoutClean) {
  const std::string file = "piton/design/chip/tile/rtl/pico_l15_transducer.v";
  const std::string original = read_file(root_ + "/" + file);
  vertex_.push(FakeVertexServer::text("TASK: r | deps= | kind=rtl | note the transducer\n"));
  vertex_.push(FakeVertexServer::function_calls(
      {{"rtl_edit__rtl_edit_replace",
        R"({"path":")" + file + R"(","old_text":"endmodule","new_text":"// checked by MACE's tests\nendmodule"})"}}));
  vertex_.push(FakeVertexServer::text("I added a comment before endmodule."));
  std::string status = run(R"({"core": "pico", "mesh": [1, 1], "workloads": ["hello"],
    "objective": "Note the transducer", "options": {"rtl_edits": true},
    "budget": {"max_iterations": 1, "max_wall_s": 3000}})");
  EXPECT_THAT(status, HasSubstr(R"("state":"passed")"));
  EXPECT_THAT(status, HasSubstr("+// checked by MACE's tests"));
  EXPECT_THAT(status, HasSubstr(R"("verdict":"pass")"));
  EXPECT_EQ(read_file(root_ + "/" + file), original);
}

// REQ-EXEC-8, REQ-VER-6: the agent reads the scaffold, writes it back reconciled with the
// module, and the environment builds; the scaffold is gone afterwards.
TEST_F(RealAgentRunTest, AUnitTestTaskScaffoldsAndBuildsARealEnvironment) {
  // ut_edit_ + the first 8 hex digits of sha1("u"); the scaffold's name is mace_ut_ + the
  // first 8 of sha256("u").
  const std::string tool = "ut_edit_51e69892";
  const std::string env = "mace_ut_0bfe935e";
  vertex_.push(FakeVertexServer::text(
      "TASK: u | deps= | kind=unit_test | piton/design/common/rtl/synchronizer.v\n"));
  vertex_.push(FakeVertexServer::function_calls({{tool + "__" + tool + "_read_testbench", "{}"}}));
  ScriptedResponse rewrite;
  rewrite.compute = [&](const RecordedRequest& request) {
    std::string tb = last_tool_result(request);
    tb = std::regex_replace(tb, std::regex("    " + env + " dut\n"), "    synchronizer dut\n");
    tb = std::regex_replace(
        tb, std::regex(R"(\.rst_n \(rst_n\),\n        // TODO: Fill in your DUT[\s\S]*?\.output1 \(sink_bits\[16\]\)\n)"),
        ".presyncdata (src_bits),\n        .syncdata (sink_bits)\n");
    for (auto [from, to] : std::vector<std::pair<std::string, std::string>>{
             {"SRC_LOG2_ENTRIES", "2"}, {"SINK_LOG2_ENTRIES", "2"}, {"SRC_BIT_WIDTH", "1"},
             {"SINK_BIT_WIDTH", "1"}, {"SRC_ENTRIES", "4"}, {"SINK_ENTRIES", "4"},
             {"NUM_TEST_CASES", "1"}})
      tb = std::regex_replace(tb, std::regex(from), to);
    return FakeVertexServer::function_calls(
        {{tool + "__" + tool + "_write_testbench", "{\"content\":" + json_string(tb) + "}"}});
  };
  vertex_.push(rewrite);
  vertex_.push(FakeVertexServer::text("Connected the synchronizer's ports."));
  std::string status = run(R"({"core": "pico", "mesh": [1, 1], "workloads": ["hello"],
    "objective": "Unit-test the synchronizer", "budget": {"max_iterations": 1}})");
  EXPECT_THAT(status, HasSubstr(R"("state":"passed")"));
  EXPECT_THAT(status, HasSubstr(R"("kind":"unit_test")"));
  auto requests = vertex_.requests();
  ASSERT_GE(requests.size(), 3u);
  EXPECT_THAT(requests[1].body, HasSubstr("presyncdata")) << "the agent is given the port list";
  EXPECT_FALSE(std::filesystem::exists(root_ + "/piton/verif/env/" + env));
}

}  // namespace
}  // namespace mace::testing
