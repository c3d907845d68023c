// Runs planned by the vertex backend: a real maced whose Vertex endpoint is a fake server
// on 127.0.0.1 speaking Vertex's wire format, with the fixture checkout in its pool.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "llm/fake_vertex_server.h"  // tests/llm/
#include "support/fixture_checkout.h"
#include "support/maced_instance.h"

namespace mace::testing {
namespace {

using ::testing::HasSubstr;
using mace::llm::testing::FakeVertexServer;

constexpr const char* kSpec = R"({"core": "pico", "mesh": [1, 1], "workloads": ["add.S"],
  "objective": "Try a broken build first", "budget": {"max_iterations": 3}})";

class LlmRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.write("maced.json", R"({"checkouts": [{"path": ")" + checkout_.root() + R"("}]})");
    dir_.write("spec.json", kSpec);
    MacedOptions options;
    options.extra_args = {"--config", dir_.file("maced.json"), "--workloads",
                          source_root() + "/workloads"};
    options.process.set_env["MACE_VERTEX_ENDPOINT"] = vertex_.base_url();
    maced_ = std::make_unique<MacedInstance>(dir_, options);
  }
  std::string submit_and_wait(int& exit_code) {
    auto r = maced_->mace({"submit", dir_.file("spec.json")});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::string id = r.out.substr(0, r.out.find('\n'));
    ProcessOptions options;
    options.timeout = std::chrono::seconds(60);
    exit_code = maced_->mace({"watch", id}, options).exit_code;
    return id;
  }

  TempDir dir_;
  FixtureCheckout checkout_;
  FakeVertexServer vertex_;
  std::unique_ptr<MacedInstance> maced_;
};

// REQ-PLAN-5, REQ-FAIL-13, REQ-BUD-5, REQ-BUD-12, REQ-VER-10
// REQ-EXEC-18: two iterations make exactly two LLM calls, both planning; config tasks make none.
TEST_F(LlmRunTest, AFailedPlanIsReplannedWithTheBuildErrorAndThenPasses) {
  vertex_.push(FakeVertexServer::text(
      "TASK: broken | deps= | kind=config | try the define\nCONFIG_RTL: broken | FAKE_BREAK_BUILD\n",
      {1000, 200, 50}));
  vertex_.push(FakeVertexServer::text("TASK: plain | deps= | kind=config | defaults\n",
                                      {1200, 100, 0}));
  int exit_code = -1;
  std::string id = submit_and_wait(exit_code);
  EXPECT_EQ(exit_code, 0);
  std::string status = maced_->mace({"status", id, "--json"}).out;
  EXPECT_THAT(status, HasSubstr("\"state\":\"passed\""));
  EXPECT_THAT(status, HasSubstr("\"iterations\":2"));

  auto requests = vertex_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_THAT(requests[0].path, HasSubstr("gemini-2.5-flash:generateContent"));
  EXPECT_THAT(requests[0].body, HasSubstr("Try a broken build first"));
  EXPECT_THAT(requests[0].body, HasSubstr("add.S"));
  // The second prompt carries the failed build's error line.
  EXPECT_THAT(requests[1].body, HasSubstr("syntax error"));
  auto metrics = maced_->mace({"metrics", id, "--json"}).out;
  EXPECT_THAT(metrics, HasSubstr("\"iterations\":2"));
  // gemini-2.5-flash: 2200 input tokens at $0.30/M, 300 output and 50 thinking at $2.50/M.
  EXPECT_THAT(metrics, HasSubstr("\"compute_cost_usd\":0.001535"));
}

TEST_F(LlmRunTest, RepliesWithoutAPlanEndThePlanningFailed) {  // REQ-PLAN-13, REQ-PLAN-16
  for (int i = 0; i < 3; ++i)
    vertex_.push(FakeVertexServer::text("I am not sure what you want me to do."));
  int exit_code = -1;
  std::string id = submit_and_wait(exit_code);
  EXPECT_EQ(exit_code, 1);
  EXPECT_THAT(maced_->mace({"status", id, "--json"}).out,
              HasSubstr("\"state\":\"planning_failed\""));
  EXPECT_EQ(vertex_.requests().size(), 3u);
  EXPECT_EQ(checkout_.invocations(), 0);
}

TEST_F(LlmRunTest, ADefineNoFileMentionsIsDroppedBeforeTheBuild) {  // REQ-PLAN-15
  vertex_.push(FakeVertexServer::text(
      "TASK: t | deps= | kind=config | x\nCONFIG_RTL: t | NO_FILE_MENTIONS_THIS PITON_FAKE_KNOWN_DEFINE\n"));
  int exit_code = -1;
  std::string id = submit_and_wait(exit_code);
  EXPECT_EQ(exit_code, 0);
  bool saw_build = false;
  for (const auto& args : checkout_.invocation_args()) {
    for (const auto& a : args) {
      EXPECT_NE(a, "-config_rtl=NO_FILE_MENTIONS_THIS");
      saw_build |= a == "-config_rtl=PITON_FAKE_KNOWN_DEFINE";
    }
  }
  EXPECT_TRUE(saw_build);
  EXPECT_THAT(maced_->mace({"logs", id}).out, HasSubstr("NO_FILE_MENTIONS_THIS"));
}

}  // namespace
}  // namespace mace::testing
