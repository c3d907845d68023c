// rtl tasks through a real maced: the model's edits are staged through the rtl_edit tool,
// applied for the build, and taken back out however the task ends (REQ-EXEC-14..17). The
// planner and the agent are a fake Vertex server; the checkout is the fixture, whose fake
// sims fails a build when a design file holds FAKE_SYNTAX_ERROR and can be told to hang.

#include <csignal>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "llm/fake_vertex_server.h"  // tests/llm/
#include "support/checkout_files.h"
#include "support/child_process.h"
#include "support/fixture_checkout.h"
#include "support/maced_instance.h"

namespace mace::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using mace::llm::testing::FakeVertexServer;

constexpr const char* kL15 = "piton/design/chip/tile/l15/rtl/l15.v";


// The agent's function call: one replacement in l15.v that breaks the fake build.
mace::llm::testing::ScriptedResponse break_l15() {
  return FakeVertexServer::function_calls(
      {{"rtl_edit__rtl_edit_replace",
        R"({"path":"piton/design/chip/tile/l15/rtl/l15.v","old_text":"wire  hit_s2 = val_s2;",)"
        R"("new_text":"wire  hit_s2 = val_s2; // FAKE_SYNTAX_ERROR"})"}});
}

class RtlRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    original_l15_ = read_file(checkout_.root() + "/" + kL15);
    ASSERT_THAT(original_l15_, HasSubstr("wire  hit_s2 = val_s2;"));
    start();
  }
  void start() {
    dir_.write("maced.json", R"({"checkouts": [{"path": ")" + checkout_.root() + R"("}]})");
    MacedOptions options;
    options.extra_args = {"--config", dir_.file("maced.json"), "--workloads",
                          source_root() + "/workloads"};
    options.process.set_env["MACE_VERTEX_ENDPOINT"] = vertex_.base_url();
    maced_.reset();
    maced_ = std::make_unique<MacedInstance>(dir_, options);
  }
  std::string submit(int max_iterations) {
    dir_.write("spec.json", R"({"core": "pico", "mesh": [1, 1], "workloads": ["add.S"],
      "objective": "Change the L1.5", "options": {"rtl_edits": true},
      "budget": {"max_iterations": )" + std::to_string(max_iterations) + "}}");
    auto r = maced_->mace({"submit", dir_.file("spec.json")});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out.substr(0, r.out.find('\n'));
  }
  int watch(const std::string& id) {
    ProcessOptions options;
    options.timeout = std::chrono::seconds(60);
    return maced_->mace({"watch", id}, options).exit_code;
  }
  std::string l15() const { return read_file(checkout_.root() + "/" + kL15); }

  TempDir dir_;
  FixtureCheckout checkout_;
  FakeVertexServer vertex_;
  std::unique_ptr<MacedInstance> maced_;
  std::string original_l15_;
};

// REQ-EXEC-14, REQ-EXEC-15, REQ-VER-13: the agent's replacement is built (and breaks the
// build), recorded as a diff with the task, quoted to triage, and restored afterwards.
TEST_F(RtlRunTest, AnAgentsEditIsBuiltRecordedAndRestoredWhenTheBuildFails) {
  vertex_.push(FakeVertexServer::text("TASK: r | deps= | kind=rtl | mark the L1.5\n"));
  vertex_.push(break_l15());
  vertex_.push(FakeVertexServer::text("I marked hit_s2."));
  vertex_.push(FakeVertexServer::text("DIAGNOSIS: syntax_error_in_edit\nFIX: remove the marker"));
  vertex_.push(FakeVertexServer::text("ASSESSMENT: fixable_config\nEXPLANATION: e\nNEXT_STEPS: n"));
  std::string id = submit(1);
  EXPECT_EQ(watch(id), 1);

  EXPECT_EQ(l15(), original_l15_) << "the edit is taken back out after the failed build";
  EXPECT_EQ(git_status(checkout_.root()), "");
  EXPECT_EQ(checkout_.invocations("build"), 1);
  auto requests = vertex_.requests();
  ASSERT_EQ(requests.size(), 5u);
  EXPECT_THAT(requests[1].body, HasSubstr("rtl_edit__rtl_edit_replace"));
  EXPECT_THAT(requests[2].body, HasSubstr("functionResponse"));
  // The diagnosis sees the diff the build carried.
  EXPECT_THAT(requests[3].body, HasSubstr("+wire  hit_s2 = val_s2; // FAKE_SYNTAX_ERROR"));
  std::string status = maced_->mace({"status", id, "--json"}).out;
  EXPECT_THAT(status, HasSubstr(R"("rtl_edits":"--- a/piton/design/chip/tile/l15/rtl/l15.v)"));
  EXPECT_THAT(status, HasSubstr(R"("build_outcome":"failed")"));
}

// REQ-EXEC-15: a failed run of an edited design, reproduced by hand: the script applies the
// task's recorded diff to the checkout, rebuilds with it, reproduces the verdict, and takes the edit back out, leaving the checkout clean.
TEST_F(RtlRunTest, AReproductionAppliesTheEditsAndTakesThemBack) {
  checkout_.set_control("run", "fail");
  vertex_.push(FakeVertexServer::text("TASK: r | deps= | kind=rtl | mark the L1.5\n"));
  vertex_.push(FakeVertexServer::function_calls(
      {{"rtl_edit__rtl_edit_replace",
        R"({"path":"piton/design/chip/tile/l15/rtl/l15.v","old_text":"wire  hit_s2 = val_s2;",)"
        R"("new_text":"wire  hit_s2 = val_s2; // marked for the reproduction"})"}}));
  vertex_.push(FakeVertexServer::text("I marked hit_s2."));
  vertex_.push(FakeVertexServer::text("DIAGNOSIS: unknown\nFIX: look at the trap"));
  vertex_.push(FakeVertexServer::text("ASSESSMENT: inconclusive\nEXPLANATION: e\nNEXT_STEPS: n"));
  const std::string id = submit(1);
  EXPECT_EQ(watch(id), 1);
  ASSERT_EQ(l15(), original_l15_);

  const std::string script = dir_.file("repro.sh");
  const auto made = maced_->mace({"repro", id, "-o", script});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  EXPECT_THAT(read_file(script), HasSubstr("+wire  hit_s2 = val_s2; // marked for the reproduction"));
  ProcessOptions options;
  options.timeout = std::chrono::seconds(60);
  options.set_env["MACE_REPRO_DIR"] = dir_.file("work");
  // Exit 0 needs `git apply` to have taken the diff; the last line, `git apply -R` too.
  const auto ran = run_process({"/bin/sh", script}, options);
  EXPECT_EQ(ran.exit_code, 0) << ran.out << ran.err;
  EXPECT_THAT(ran.out, HasSubstr("mace repro: reproduced"));
  EXPECT_THAT(ran.out, HasSubstr("mace repro: RTL edits taken back"));
  EXPECT_EQ(l15(), original_l15_);
  EXPECT_EQ(git_status(checkout_.root()), "");
}

// REQ-EXEC-16: an rtl task whose agent changes nothing still builds and runs.
TEST_F(RtlRunTest, AnRtlTaskWithoutAnEditStillBuildsAndRuns) {
  vertex_.push(FakeVertexServer::text("TASK: r | deps= | kind=rtl | look at the L1.5\n"));
  vertex_.push(FakeVertexServer::text("The L1.5 already does this; I changed nothing."));
  std::string id = submit(1);
  EXPECT_EQ(watch(id), 0);
  EXPECT_EQ(checkout_.invocations("build"), 1);
  EXPECT_EQ(checkout_.invocations("run"), 1);
  std::string status = maced_->mace({"status", id, "--json"}).out;
  EXPECT_THAT(status, HasSubstr(R"("state":"passed")"));
  EXPECT_THAT(status, HasSubstr(R"("rtl_edits":"")"));
}

// REQ-EXEC-15, REQ-BUD-11: a simulation of the edited design that hangs is stopped at the
// run's wall-clock limit, and the edit still comes back out.
TEST_F(RtlRunTest, EditsAreRestoredWhenTheEditedDesignsRunTimesOut) {
  checkout_.set_control("run", "hang");
  vertex_.push(FakeVertexServer::text("TASK: r | deps= | kind=rtl | comment the L1.5\n"));
  vertex_.push(FakeVertexServer::function_calls(
      {{"rtl_edit__rtl_edit_replace",
        R"({"path":"piton/design/chip/tile/l15/rtl/l15.v","old_text":"wire  hit_s2 = val_s2;",)"
        R"("new_text":"wire  hit_s2 = val_s2; // checked"})"}}));
  vertex_.push(FakeVertexServer::text("Added a comment."));
  vertex_.push(FakeVertexServer::text("DIAGNOSIS: hang\nFIX: none"));
  vertex_.push(FakeVertexServer::text("ASSESSMENT: inconclusive\nEXPLANATION: e\nNEXT_STEPS: n"));
  dir_.write("spec.json", R"({"core": "pico", "mesh": [1, 1], "workloads": ["add.S"],
    "objective": "Comment the L1.5", "options": {"rtl_edits": true},
    "budget": {"max_iterations": 3, "max_wall_s": 4}})");
  auto r = maced_->mace({"submit", dir_.file("spec.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string id = r.out.substr(0, r.out.find('\n'));
  EXPECT_EQ(watch(id), 1);
  std::string status = maced_->mace({"status", id, "--json"}).out;
  EXPECT_THAT(status, HasSubstr(R"("state":"budget_exceeded")"));
  EXPECT_THAT(status, HasSubstr(R"("verdict":"timeout")"));
  EXPECT_EQ(l15(), original_l15_);
  EXPECT_EQ(git_status(checkout_.root()), "");
}

// REQ-EXEC-17: maced killed while the edited design builds leaves the edit applied; the
// next maced puts the file back before anything else uses the checkout.
TEST_F(RtlRunTest, EditsOfATaskKilledMidBuildAreRestoredByTheNextMaced) {
  checkout_.set_control("build", "hang");
  vertex_.push(FakeVertexServer::text("TASK: r | deps= | kind=rtl | mark the L1.5\n"));
  vertex_.push(break_l15());
  vertex_.push(FakeVertexServer::text("Done."));
  std::string id = submit(1);
  for (int i = 0; i < 400 && checkout_.invocations("build") < 1; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_EQ(checkout_.invocations("build"), 1);
  EXPECT_THAT(l15(), HasSubstr("FAKE_SYNTAX_ERROR")) << "the edit is in while it builds";
  maced_->process().signal(SIGKILL);
  ASSERT_TRUE(maced_->process().wait(std::chrono::milliseconds(10000)).has_value());
  checkout_.clear_control();
  start();
  EXPECT_EQ(l15(), original_l15_);
  EXPECT_EQ(git_status(checkout_.root()), "");
  EXPECT_THAT(maced_->mace({"status", id, "--json"}).out,
              HasSubstr("maced restarted during the run"));
}

// REQ-EXEC-12: a unit_test task whose module path leaves the checkout fails at once with
// unit_test_bad_module_path; nothing is scaffolded and no agent is asked. (The plan check
// sends the plan back twice first, REQ-PLAN-15, REQ-PLAN-16; then it runs as it stands.)
TEST_F(RtlRunTest, AUnitTestOfAModuleOutsideTheCheckoutFailsWithoutScaffolding) {
  for (int i = 0; i < 3; ++i)
    vertex_.push(FakeVertexServer::text("TASK: u | deps= | kind=unit_test | ../../etc/passwd.v\n"));
  vertex_.push(FakeVertexServer::text("DIAGNOSIS: bad_path\nFIX: name a module"));
  vertex_.push(FakeVertexServer::text("ASSESSMENT: inconclusive\nEXPLANATION: e\nNEXT_STEPS: n"));
  std::string id = submit(1);
  EXPECT_EQ(watch(id), 1);
  std::string status = maced_->mace({"status", id, "--json"}).out;
  EXPECT_THAT(status, HasSubstr(R"("failure_reason":"unit_test_bad_module_path")"));
  EXPECT_EQ(checkout_.invocations(), 0);
  EXPECT_EQ(git_status(checkout_.root()), "");
  auto requests = vertex_.requests();
  ASSERT_EQ(requests.size(), 5u) << "three plans, a diagnosis, a post-mortem; no agent call";
  EXPECT_THAT(requests[1].body, HasSubstr("which does not exist"));
}

}  // namespace
}  // namespace mace::testing
