// Runs planned by the vertex backend: a real maced whose Vertex endpoint is a fake server
// on 127.0.0.1 speaking Vertex's wire format, with the fixture checkout in its pool.

#include <sys/stat.h>

#include <thread>

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
  // REQ-FAIL-12: narrowing undid the define, the build passed: that is the diagnosis, with
  // no LLM call, and it reaches the next plan's prompt (REQ-PLAN-14).
  EXPECT_THAT(status, HasSubstr(R"("undone":"undo define FAKE_BREAK_BUILD","build_id")"));
  EXPECT_THAT(status, HasSubstr(R"("label":"define_breaks_design")"));
  EXPECT_THAT(status, HasSubstr(R"("source":"narrowing","recovered":true)"));  // REQ-FAIL-9
  EXPECT_THAT(requests[1].body, HasSubstr("define_breaks_design"));
  auto metrics = maced_->mace({"metrics", id, "--json"}).out;
  EXPECT_THAT(metrics, HasSubstr("\"iterations\":2"));
  EXPECT_THAT(metrics, HasSubstr("\"failures_recovered\":1"));
  // gemini-2.5-flash: 2200 input tokens at $0.30/M, 300 output and 50 thinking at $2.50/M.
  EXPECT_THAT(metrics, HasSubstr("\"compute_cost_usd\":0.001535"));
}

// REQ-BUD-5, REQ-BUD-9, REQ-BUD-12: Vertex reports tokens only (a million cached of two
// million prompt tokens here); priced at gemini-2.5-flash's rates, fresh input at $0.30/M
// and cached at $0.03/M, each planning call costs $0.33, and once that passes max_usd the
// run ends budget_exceeded though iterations remain.
TEST_F(LlmRunTest, PricedTokensPassingMaxUsdEndTheRunBudgetExceeded) {
  dir_.write("spec.json", R"({"core": "pico", "mesh": [1, 1], "workloads": ["add.S"],
    "objective": "Break it", "budget": {"max_iterations": 9, "max_usd": 0.5}})");
  checkout_.set_control("build", "fail");
  for (int i = 0; i < 12; ++i)
    vertex_.push(FakeVertexServer::text("TASK: t | deps= | kind=config | defaults\n",
                                        {2'000'000, 0, 0, 1'000'000}));
  int exit_code = -1;
  std::string id = submit_and_wait(exit_code);
  EXPECT_EQ(exit_code, 1);
  std::string status = maced_->mace({"status", id, "--json"}).out;
  EXPECT_THAT(status, HasSubstr(R"("state":"budget_exceeded")"));
  EXPECT_THAT(status, HasSubstr("cost limit reached"));
  // Its planning and its diagnosis call, $0.66, pass $0.50 within the first iteration.
  EXPECT_THAT(status, HasSubstr(R"("iterations":1)"));
  std::string calls = maced_->mace({"calls", id, "--json"}).out;
  EXPECT_THAT(calls, HasSubstr(R"("input_tokens":1000000,"output_tokens":0,"thinking_tokens":0,)"
                               R"("cache_read_tokens":1000000,"cache_write_tokens":0,)"
                               R"("cost_usd":0.33,"cost_source":"priced")"));
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
  // What the run said, so that a failure below shows why.
  const std::string logs = maced_->mace({"logs", id}).out;
  EXPECT_EQ(exit_code, 0) << logs;
  bool saw_build = false;
  for (const auto& args : checkout_.invocation_args()) {
    for (const auto& a : args) {
      EXPECT_NE(a, "-config_rtl=NO_FILE_MENTIONS_THIS") << logs;
      saw_build |= a == "-config_rtl=PITON_FAKE_KNOWN_DEFINE";
    }
  }
  EXPECT_TRUE(saw_build) << logs;
  EXPECT_THAT(logs, HasSubstr("removed RTL define NO_FILE_MENTIONS_THIS"));
}

// REQ-FAIL-1, REQ-FAIL-2, REQ-FAIL-8, REQ-FAIL-9, REQ-PLAN-14: a failure narrowing cannot
// explain (the default configuration) goes to one diagnosis call; its diagnosis is in the
// next plan's prompt, and once a plan passes the failure counts as recovered.
TEST_F(LlmRunTest, AFailureIsDiagnosedByTheLlmReplannedWithTheDiagnosisAndPasses) {
  checkout_.set_control("run", "fail");
  vertex_.push(FakeVertexServer::text("TASK: plain | deps= | kind=config | defaults\n"));
  auto diagnosis = FakeVertexServer::text("DIAGNOSIS: l1d_too_small\nFIX: double the l1d");
  // Held back until the test has let the next run pass.
  diagnosis.delay = std::chrono::milliseconds(2500);
  vertex_.push(diagnosis);
  vertex_.push(FakeVertexServer::text(
      "TASK: bigger | deps= | kind=config | double l1d\nCACHES: bigger | l1d=16384,4\n"));
  auto r = maced_->mace({"submit", dir_.file("spec.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string id = r.out.substr(0, r.out.find('\n'));
  for (int i = 0; i < 400 && vertex_.requests().size() < 2; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_EQ(vertex_.requests().size(), 2u);
  checkout_.set_control("run", "pass");
  ProcessOptions options;
  options.timeout = std::chrono::seconds(60);
  EXPECT_EQ(maced_->mace({"watch", id}, options).exit_code, 0);

  auto requests = vertex_.requests();
  ASSERT_EQ(requests.size(), 3u);
  // The diagnosis prompt: task id, kind, instruction, build outcome, verdict, reason, logs.
  for (const char* s : {"id: plain", "kind: config", "defaults", "build outcome: succeeded",
                        "verdict: fail", "failure reason: workload_failed", "status.log",
                        "DIAGNOSIS:"})
    EXPECT_THAT(requests[1].body, HasSubstr(s));
  EXPECT_THAT(requests[2].body, HasSubstr("l1d_too_small"));
  EXPECT_THAT(requests[2].body, HasSubstr("double the l1d"));
  std::string status = maced_->mace({"status", id, "--json"}).out;
  EXPECT_THAT(status, HasSubstr(R"("label":"l1d_too_small","fix":"double the l1d","source":"llm","recovered":true)"));
  EXPECT_THAT(status, HasSubstr(R"("narrowing_builds":[])")) << "nothing to undo";
  EXPECT_THAT(status, HasSubstr(R"("post_mortem":null)"));
  std::string human = maced_->mace({"status", id}).out;
  EXPECT_THAT(human, HasSubstr("l1d_too_small [llm, recovered]"));
  EXPECT_THAT(maced_->mace({"metrics", id, "--json"}).out, HasSubstr("\"failures_recovered\":1"));

  // REQ-BUD-12: every call with its phase, prompt and reply, for people and scripts.
  std::string calls = maced_->mace({"calls", id, "--json"}).out;
  EXPECT_THAT(calls, ::testing::ContainsRegex(
      R"(^\[\{"iteration":1,"phase":"planning".*\{"iteration":1,"phase":"diagnosis","task_id":"plain".*\{"iteration":2,"phase":"planning")"));
  EXPECT_THAT(calls, HasSubstr(R"("reply":"DIAGNOSIS: l1d_too_small\nFIX: double the l1d")"));
  EXPECT_THAT(calls, HasSubstr("failure reason: workload_failed"));  // the diagnosis prompt
  std::string listed = maced_->mace({"calls", id, "--full"}).out;
  EXPECT_THAT(listed, HasSubstr("iter1 diagnosis plain  vertex/gemini-2.5-flash"));
  EXPECT_THAT(listed, HasSubstr("    DIAGNOSIS: l1d_too_small"));
  EXPECT_EQ(maced_->mace({"calls", "no-such-run"}).exit_code, 2);  // as for any unknown run
}

// REQ-FAIL-10: a run that ends budget_exceeded gets a post-mortem, recorded and shown; the
// status stays budget_exceeded.
TEST_F(LlmRunTest, ABudgetExceededRunGetsAPostMortem) {
  dir_.write("spec.json", R"({"core": "pico", "mesh": [1, 1], "workloads": ["add.S"],
    "objective": "Boot", "budget": {"max_iterations": 1}})");
  checkout_.set_control("build", "fail");
  vertex_.push(FakeVertexServer::text("TASK: plain | deps= | kind=config | defaults\n"));
  vertex_.push(FakeVertexServer::text("no label here, sorry"));
  vertex_.push(FakeVertexServer::text(
      "ASSESSMENT: likely_hardware_limitation\nEXPLANATION: the build always fails\n"
      "NEXT_STEPS: check the toolchain", {100, 10, 0}));
  int exit_code = -1;
  std::string id = submit_and_wait(exit_code);
  EXPECT_EQ(exit_code, 1);
  std::string status = maced_->mace({"status", id, "--json"}).out;
  EXPECT_THAT(status, HasSubstr("\"state\":\"budget_exceeded\""));
  // REQ-FAIL-4: the reply without a DIAGNOSIS line is recorded as unknown.
  EXPECT_THAT(status, HasSubstr(R"("label":"unknown","fix":"retry with more context","source":"fallback")"));
  EXPECT_THAT(status, HasSubstr(R"("post_mortem":{"assessment":"likely_hardware_limitation","explanation":"the build always fails","next_steps":"check the toolchain"})"));
  auto requests = vertex_.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_THAT(requests[2].body, HasSubstr("fixable_config"));
  EXPECT_THAT(requests[2].body, HasSubstr("budget_exceeded"));
  EXPECT_THAT(maced_->mace({"status", id}).out, HasSubstr("post-mortem likely_hardware_limitation"));
  // The post-mortem's cost counts toward the run's compute cost.
  EXPECT_THAT(maced_->mace({"metrics", id, "--json"}).out, ::testing::Not(HasSubstr("\"compute_cost_usd\":0,")));
}

// REQ-EXEC-7: a tool of maced's configuration that the spec names is offered to the
// planning call; the model calls it, the program runs with the arguments on its standard
// input, and its output goes back to the model in the same call.
TEST_F(LlmRunTest, TheRunsConfiguredToolsReachThePlannerAndTheirOutputReturns) {
  std::string script = dir_.file("echo_tool.sh");
  dir_.write("echo_tool.sh", "#!/bin/sh\necho \"tool $MACE_TOOL_METHOD for $MACE_RUN_ID got $(cat)\"\n");
  ASSERT_EQ(::chmod(script.c_str(), 0755), 0);
  dir_.write("maced.json", R"({"checkouts": [{"path": ")" + checkout_.root() + R"("}],
    "tools": [{"name": "lab", "description": "The lab's notes",
               "methods": [{"name": "notes", "description": "Read the notes on a core",
                            "parameters": {"type": "object", "properties": {"core": {"type": "string"}}},
                            "command": [")" + script + R"("]}]}]})");
  MacedOptions options;
  options.extra_args = {"--config", dir_.file("maced.json"), "--workloads", source_root() + "/workloads"};
  options.process.set_env["MACE_VERTEX_ENDPOINT"] = vertex_.base_url();
  maced_.reset();
  maced_ = std::make_unique<MacedInstance>(dir_, options);
  dir_.write("spec.json", R"({"core": "pico", "mesh": [1, 1], "workloads": ["add.S"],
    "objective": "Use the notes", "tools": ["lab"]})");
  vertex_.push(FakeVertexServer::function_calls({{"lab__lab_notes", R"({"core":"pico"})"}}));
  vertex_.push(FakeVertexServer::text("TASK: plain | deps= | kind=config | defaults\n"));
  int exit_code = -1;
  std::string id = submit_and_wait(exit_code);
  EXPECT_EQ(exit_code, 0);
  auto requests = vertex_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_THAT(requests[0].body, HasSubstr("\"name\":\"lab__lab_notes\""));
  EXPECT_THAT(requests[1].body, HasSubstr("tool notes for " + id + R"( got {\"core\":\"pico\"})"));

  // A spec naming a tool maced does not have is refused at submit, naming the field.
  dir_.write("bad.json", R"({"core": "pico", "workloads": ["add.S"], "objective": "x",
    "tools": ["lab", "nope"]})");
  auto refused = maced_->mace({"submit", dir_.file("bad.json")});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_THAT(refused.err, HasSubstr("tools[1]"));
}

// REQ-FAIL-5: the diagnosis call is offered the read-only diagnostic tools over the failed
// task's runs; a model calling one gets the failed run's files back.
TEST_F(LlmRunTest, TheDiagnosisCallGetsTheDiagnosticToolsOverTheFailedRun) {
  dir_.write("spec.json", R"({"core": "pico", "mesh": [1, 1], "workloads": ["add.S"],
    "objective": "Boot", "budget": {"max_iterations": 1}})");
  checkout_.set_control("run", "fail");
  vertex_.push(FakeVertexServer::text("TASK: plain | deps= | kind=config | defaults\n"));
  vertex_.push(FakeVertexServer::function_calls({{"diagnostics__diagnostics_list_files", "{}"}}));
  vertex_.push(FakeVertexServer::text("DIAGNOSIS: bad_trap\nFIX: none"));
  vertex_.push(FakeVertexServer::text("ASSESSMENT: inconclusive\nEXPLANATION: x\nNEXT_STEPS: y"));
  int exit_code = -1;
  std::string id = submit_and_wait(exit_code);
  EXPECT_EQ(exit_code, 1);
  auto requests = vertex_.requests();
  ASSERT_EQ(requests.size(), 4u);
  EXPECT_THAT(requests[0].body, ::testing::Not(HasSubstr("diagnostics__")));
  EXPECT_THAT(requests[1].body, HasSubstr("diagnostics__diagnostics_search_logs"));
  EXPECT_THAT(requests[1].body, HasSubstr("diagnostic tools"));
  // The tool's answer, in the same call: the failed run's transcript is listed.
  EXPECT_THAT(requests[2].body, HasSubstr("sim.log"));
  EXPECT_THAT(maced_->mace({"status", id, "--json"}).out, HasSubstr(R"("label":"bad_trap")"));
}

// REQ-BUD-5: a model the price table does not know would make max_usd meaningless; the
// run says so in its log instead of silently counting $0.
TEST_F(LlmRunTest, AnUnpricedModelIsRefusedAtSubmitByDefault) {  // REQ-BUD-5
  dir_.write("spec.json", R"({"core": "pico", "mesh": [1, 1], "workloads": ["add.S"],
    "objective": "x", "model": "gemini-9-unreleased"})");
  auto r = maced_->mace({"submit", dir_.file("spec.json")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("no price is known for vertex model 'gemini-9-unreleased'"));
  EXPECT_THAT(r.err, HasSubstr("llm.prices"));
  EXPECT_TRUE(vertex_.requests().empty());
}

// REQ-BUD-5, REQ-BUD-12: with maced's estimate policy the unpriced model runs; its calls
// count the estimate, the run's log names the model once, `mace calls` marks the estimate.
TEST_F(LlmRunTest, AnUnpricedModelCountsTheEstimateAndIsNamedInTheRunsLog) {
  dir_.write("maced.json", R"({"checkouts": [{"path": ")" + checkout_.root() +
                               R"("}], "llm": {"unreported_cost": {"policy": "estimate", "usd_per_call": 0.125}}})");
  MacedOptions options;
  options.extra_args = {"--config", dir_.file("maced.json"), "--workloads",
                        source_root() + "/workloads"};
  options.process.set_env["MACE_VERTEX_ENDPOINT"] = vertex_.base_url();
  maced_.reset();
  maced_ = std::make_unique<MacedInstance>(dir_, options);
  dir_.write("spec.json", R"({"core": "pico", "mesh": [1, 1], "workloads": ["add.S"],
    "objective": "x", "model": "gemini-9-unreleased"})");
  vertex_.push(FakeVertexServer::text("TASK: plain | deps= | kind=config | defaults\n", {1000, 100, 0}));
  int exit_code = -1;
  std::string id = submit_and_wait(exit_code);
  EXPECT_EQ(exit_code, 0);
  EXPECT_THAT(maced_->mace({"logs", id}).out,
              HasSubstr("no price is known for model gemini-9-unreleased (vertex reports tokens, "
                        "not cost): each such call counts $0.1250 toward budget.max_usd"));
  EXPECT_THAT(vertex_.requests().at(0).path, HasSubstr("gemini-9-unreleased:generateContent"));
  EXPECT_THAT(maced_->mace({"calls", id, "--json"}).out,
              HasSubstr(R"("input_tokens":1000,"output_tokens":100,"thinking_tokens":0,"cache_read_tokens":0,"cache_write_tokens":0,"cost_usd":0.125,"cost_source":"estimated")"));
}

// REQ-BUD-3, REQ-BUD-5: the planner's reported usage spends the dollar budget; the check
// before the next iteration ends the run budget_exceeded, naming the limit.
TEST_F(LlmRunTest, SpendingTheDollarBudgetEndsTheRunOverBudget) {
  dir_.write("spec.json", R"({"core": "pico", "mesh": [1, 1], "workloads": ["add.S"],
    "objective": "x", "budget": {"max_usd": 0.01, "max_iterations": 5}})");
  checkout_.set_control("run", "fail");
  // 1M input tokens of gemini-2.5-flash: $0.30, thirty times the budget.
  vertex_.push(FakeVertexServer::text("TASK: plain | deps= | kind=config | defaults\n", {1000000, 10, 0}));
  vertex_.push(FakeVertexServer::text("DIAGNOSIS: x\nFIX: y"));
  vertex_.push(FakeVertexServer::text("ASSESSMENT: inconclusive\nEXPLANATION: e\nNEXT_STEPS: n"));
  int exit_code = -1;
  std::string id = submit_and_wait(exit_code);
  EXPECT_EQ(exit_code, 1);
  std::string status = maced_->mace({"status", id, "--json"}).out;
  EXPECT_THAT(status, HasSubstr(R"("state":"budget_exceeded")"));
  EXPECT_THAT(status, HasSubstr("cost limit reached"));
  EXPECT_THAT(status, HasSubstr(R"("iterations":1)"));
  EXPECT_EQ(vertex_.requests().size(), 3u) << "no second plan was asked for";
}

// REQ-BUD-3, REQ-BUD-11: a build is capped by the time left; the run ends over budget.
TEST_F(LlmRunTest, RunningOutOfWallClockEndsTheRunOverBudget) {
  dir_.write("spec.json", R"({"core": "pico", "mesh": [1, 1], "workloads": ["add.S"],
    "objective": "x", "budget": {"max_wall_s": 2, "max_iterations": 5}})");
  checkout_.set_control("build_sleep", "30");
  vertex_.push(FakeVertexServer::text("TASK: plain | deps= | kind=config | defaults\n"));
  vertex_.push(FakeVertexServer::text("DIAGNOSIS: slow\nFIX: y"));
  vertex_.push(FakeVertexServer::text("ASSESSMENT: inconclusive\nEXPLANATION: e\nNEXT_STEPS: n"));
  auto started = std::chrono::steady_clock::now();
  int exit_code = -1;
  std::string id = submit_and_wait(exit_code);
  EXPECT_EQ(exit_code, 1);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(20))
      << "the 30 s build was stopped at the run's limit";
  std::string status = maced_->mace({"status", id, "--json"}).out;
  EXPECT_THAT(status, HasSubstr(R"("state":"budget_exceeded")"));
  EXPECT_THAT(status, HasSubstr("wall-clock limit reached"));
}

// REQ-BUD-10, REQ-BUD-14: a planner call that gets no reply (credentials refused) ends that
// run with status error and its message; maced goes on serving the next run.
TEST_F(LlmRunTest, APlannerWithoutAReplyEndsTheRunInErrorAndMacedGoesOn) {
  vertex_.push(FakeVertexServer::error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials."));
  int exit_code = -1;
  std::string id = submit_and_wait(exit_code);
  EXPECT_NE(exit_code, 0);
  std::string status = maced_->mace({"status", id, "--json"}).out;
  EXPECT_THAT(status, HasSubstr(R"("state":"error")"));
  EXPECT_THAT(status, HasSubstr("the planner gave no reply"));
  EXPECT_THAT(status, HasSubstr("invalid authentication credentials"));
  EXPECT_EQ(checkout_.invocations(), 0);

  vertex_.push(FakeVertexServer::text("TASK: plain | deps= | kind=config | defaults\n"));
  std::string next = submit_and_wait(exit_code);
  EXPECT_EQ(exit_code, 0);
  EXPECT_THAT(maced_->mace({"status", next, "--json"}).out, HasSubstr(R"("state":"passed")"));
}

// REQ-EXEC-10, REQ-EXEC-11: with task prompts on and the fast path off, a config task
// makes its prompt call first (stage `prompting`); a prompt call cut off at the output
// limit is logged and the task still builds and runs.
TEST_F(LlmRunTest, ATaskPromptCallPrecedesTheBuildAndItsFailureDoesNotStopIt) {
  dir_.write("spec.json", R"({"core": "pico", "mesh": [1, 1], "workloads": ["add.S"],
    "objective": "x", "options": {"task_prompts": true, "fast_path": false}})");
  vertex_.push(FakeVertexServer::text("TASK: plain | deps= | kind=config | defaults\n"));
  vertex_.push(FakeVertexServer::max_tokens("I expect the build to"));
  int exit_code = -1;
  std::string id = submit_and_wait(exit_code);
  EXPECT_EQ(exit_code, 0);
  auto requests = vertex_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_THAT(requests[1].body, HasSubstr("Task plain (kind config)"));
  std::string logs = maced_->mace({"logs", id}).out;
  EXPECT_THAT(logs, HasSubstr("iter1/plain  prompting\n"));
  EXPECT_THAT(logs, HasSubstr("the prompt call of plain failed"));
  EXPECT_LT(logs.find("iter1/plain  prompting\n"), logs.find("iter1/plain  building\n"));
  EXPECT_THAT(maced_->mace({"status", id, "--json"}).out, HasSubstr(R"("state":"passed")"));
  EXPECT_EQ(checkout_.invocations("build"), 1);
}

}  // namespace
}  // namespace mace::testing
