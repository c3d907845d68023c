// The real `mace` binary against a real maced over its Unix socket.

#include <sys/stat.h>
#include <unistd.h>

#include <regex>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/maced_instance.h"

namespace mace::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kGoodSpec = R"({
  "core": "pico", "mesh": [2, 1], "workloads": ["hello"],
  "objective": "Build a 2x1 PicoRV32 mesh that runs hello on every tile"
})";

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.write("good.json", kGoodSpec);
    maced_ = std::make_unique<MacedInstance>(dir_);
  }
  std::string submit_good() {
    auto r = maced_->mace({"submit", dir_.file("good.json")});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::string id = r.out;
    while (!id.empty() && id.back() == '\n') id.pop_back();
    return id;
  }

  TempDir dir_;
  std::unique_ptr<MacedInstance> maced_;
};

TEST_F(CliTest, SubmittedRunIsListedQueuedWithTheSubmittersUid) {  // REQ-PLAN-1
  std::string id = submit_good();
  ASSERT_FALSE(id.empty());

  auto list = maced_->mace({"list", "--json"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_THAT(list.out, HasSubstr("\"run_id\":\"" + id + "\""));
  EXPECT_THAT(list.out, HasSubstr("\"state\":\"queued\""));
  EXPECT_THAT(list.out, HasSubstr("\"submitted_by_uid\":" + std::to_string(::getuid())));

  auto status = maced_->mace({"status", id, "--json"});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  EXPECT_THAT(status.out, HasSubstr("\"core\":\"pico\""));
  EXPECT_THAT(status.out, HasSubstr("\"mesh\":[2,1]"));
  // The stored spec is the normalised one: defaults filled in (REQ-BUD-1).
  EXPECT_THAT(status.out, HasSubstr("\"max_wall_s\":3600"));

  auto human = maced_->mace({"status", id});
  EXPECT_THAT(human.out, HasSubstr("state      queued"));
}

TEST_F(CliTest, ASubmittedRunsIdIsOneJsonObjectForAScript) {
  auto r = maced_->mace({"--json", "submit", dir_.file("good.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::smatch id;
  ASSERT_TRUE(std::regex_match(r.out, id, std::regex(R"re(\{"run_id":"([^"]+)"\}\n)re"))) << r.out;
  EXPECT_THAT(maced_->mace({"status", id[1].str(), "--json"}).out, HasSubstr("\"state\":\"queued\""));
}

TEST_F(CliTest, RunIdsSortBySubmissionTime) {
  std::string first = submit_good();
  std::string second = submit_good();
  EXPECT_LT(first, second);
  auto list = maced_->mace({"list", "--json"});
  // Newest first.
  EXPECT_LT(list.out.find(second), list.out.find(first));
}

TEST_F(CliTest, InvalidSpecIsRejectedWithEveryFieldErrorAndNothingRecorded) {  // REQ-PLAN-4, REQ-BUD-2
  dir_.write("bad.json", R"({"core": "arm", "workloads": [], "objective": "x",
                             "budget": {"max_wall_s": 10.5}})");
  auto r = maced_->mace({"submit", dir_.file("bad.json")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err,
              HasSubstr("budget.max_wall_s: must be an integer from 1 to 2592000, got 10.5"));
  EXPECT_THAT(r.err, HasSubstr("core:"));
  EXPECT_THAT(r.err, HasSubstr("workloads:"));
  EXPECT_EQ(r.out, "");

  auto list = maced_->mace({"list", "--json"});
  EXPECT_EQ(list.out, "[]\n");
  // The daemon is still healthy.
  EXPECT_EQ(maced_->mace({"version"}).exit_code, 0);
  EXPECT_TRUE(maced_->process().running());
}

TEST_F(CliTest, SpecCheckPrintsTheNormalisedSpecWithoutADaemon) {
  auto r = run_process({mace_binary(), "--socket", "/nonexistent/socket", "spec", "check",
                        dir_.file("good.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"max_iterations\": 10"));
  EXPECT_THAT(r.out, HasSubstr("\"rtl_timeout\": 1000000"));
}

TEST_F(CliTest, SpecCheckGivesTheSameErrorsAsSubmit) {
  dir_.write("bad.json", R"({"workloads": ["a"], "objective": "x", "coverage": "yes", "budgett": {}})");
  auto local = run_process({mace_binary(), "spec", "check", dir_.file("bad.json")});
  auto remote = maced_->mace({"submit", dir_.file("bad.json")});
  EXPECT_EQ(local.exit_code, 2);
  EXPECT_EQ(remote.exit_code, 2);
  EXPECT_EQ(local.err, remote.err);
  EXPECT_THAT(local.err, HasSubstr("budgett"));
  EXPECT_THAT(local.err, HasSubstr("coverage"));
}

TEST_F(CliTest, WatchShowsHistoryThenLiveEventsAndExitsWhenTheRunEnds) {
  std::string id = submit_good();
  BackgroundProcess watch({mace_binary(), "--socket", maced_->socket_path(), "--json", "watch", id});
  // The watcher has seen the history before we cancel.
  ASSERT_TRUE(eventually(
      [&] { return watch.output_so_far().find("\"kind\":\"submitted\"") != std::string::npos; }));
  EXPECT_TRUE(watch.running());
  auto cancel = maced_->mace({"cancel", id});
  ASSERT_EQ(cancel.exit_code, 0) << cancel.err;
  EXPECT_THAT(cancel.out, HasSubstr("cancelled"));

  auto result = watch.wait(std::chrono::milliseconds(10000));
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->exit_code, 1);  // cancelled is not passed
  EXPECT_THAT(result->out, HasSubstr("\"kind\":\"submitted\""));
  EXPECT_THAT(result->out, HasSubstr("\"kind\":\"state_changed\",\"state\":\"cancelled\""));
  EXPECT_THAT(result->out, HasSubstr("{\"result\":{\"run_id\":\"" + id + "\",\"state\":\"cancelled\""));
}

TEST_F(CliTest, WatchingAFinishedRunReplaysItsHistoryAndEnds) {
  std::string id = submit_good();
  ASSERT_EQ(maced_->mace({"cancel", id}).exit_code, 0);
  auto r = maced_->mace({"watch", id});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("\"kind\":\"submitted\""));
  EXPECT_THAT(r.out, HasSubstr("{\"result\":{\"run_id\":\"" + id + "\",\"state\":\"cancelled\""));
}

TEST_F(CliTest, CancellingTwiceSaysTheRunWasAlreadyFinal) {
  std::string id = submit_good();
  ASSERT_EQ(maced_->mace({"cancel", id}).exit_code, 0);
  auto again = maced_->mace({"cancel", id, "--json"});
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_THAT(again.out, HasSubstr("\"changed\":false"));
}

TEST_F(CliTest, AnUnknownRunIsBadInputSaidInTheUsersWordsWithTheNextStep) {
  for (const char* command : {"status", "watch", "logs", "metrics", "cancel"}) {
    auto r = maced_->mace({command, "20990101-000000-000-000000"});
    EXPECT_EQ(r.exit_code, 2) << command;
    EXPECT_THAT(r.err, HasSubstr("mace: no run named '20990101-000000-000-000000'\n"
                                 "  `mace list` shows the runs you may see.")) << command;
    EXPECT_THAT(r.err, Not(HasSubstr("runId"))) << command;
  }
}

TEST_F(CliTest, MetricsOfAQueuedRunAreZero) {  // REQ-VER-15
  std::string id = submit_good();
  auto r = maced_->mace({"metrics", id, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "{\"successful_tasks\":0,\"iterations\":0,\"failures_recovered\":0,"
            "\"execution_time_s\":0.0,\"compute_cost_usd\":0.0}\n");
}

TEST_F(CliTest, LogsListTheRecordedEvents) {
  std::string id = submit_good();
  maced_->mace({"cancel", id});
  auto r = maced_->mace({"logs", id, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"seq\":1"));
  EXPECT_THAT(r.out, HasSubstr("\"seq\":2"));
  EXPECT_THAT(r.out, HasSubstr("cancelled by uid"));
}

TEST_F(CliTest, SubmitReadsStandardInput) {
  ProcessOptions options;
  options.stdin_text = kGoodSpec;
  auto r = maced_->mace({"submit", "-"}, options);
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(CliTest, UsageMistakesAreExitTwo) {
  EXPECT_EQ(maced_->mace({}).exit_code, 2);
  EXPECT_EQ(maced_->mace({"frobnicate"}).exit_code, 2);
  EXPECT_EQ(maced_->mace({"list", "--bogus"}).exit_code, 2);
  EXPECT_EQ(maced_->mace({"list", "--state", "sleeping"}).exit_code, 2);
  EXPECT_EQ(maced_->mace({"submit"}).exit_code, 2);
  EXPECT_EQ(maced_->mace({"submit", dir_.file("missing.json")}).exit_code, 2);
}

TEST_F(CliTest, UnreachableDaemonIsExitThree) {
  auto r = run_process({mace_binary(), "--socket", dir_.file("nobody-here.sock"), "list"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.err, HasSubstr("cannot reach maced"));
}

TEST_F(CliTest, RunsSurviveARestartOfMaced) {  // REQ-VER-13
  std::string id = submit_good();
  maced_.reset();  // SIGKILL: nothing committed may be lost
  maced_ = std::make_unique<MacedInstance>(dir_);
  auto r = maced_->mace({"status", id, "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(id));
}

TEST_F(CliTest, OnlyTheSubmitterOrAnAdministratorMayCancel) {
  if (::getuid() != 0) GTEST_SKIP() << "needs root to act as a second user";
  std::string id = submit_good();
  ::chmod(maced_->socket_path().c_str(), 0666);  // let uid 65534 reach it for this test
  ::chmod(dir_.path().c_str(), 0755);
  ProcessOptions nobody;
  nobody.uid = 65534;
  auto r = maced_->mace({"cancel", id}, nobody);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("only that user and maced's administrators may cancel it"));
  auto status = maced_->mace({"status", id, "--json"});
  EXPECT_THAT(status.out, HasSubstr("\"state\":\"queued\""));
}

TEST_F(CliTest, SocketIsGroupOnly) {
  struct stat st {};
  ASSERT_EQ(::stat(maced_->socket_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0660u);
  if (::getuid() == 0) {
    ::chmod(dir_.path().c_str(), 0755);
    ProcessOptions nobody;
    nobody.uid = 65534;
    auto r = maced_->mace({"list"}, nobody);
    EXPECT_EQ(r.exit_code, 3);  // permission denied at connect
  }
}

TEST_F(CliTest, SubmitChoosesVertexAndGeminiFlashUnlessToldOtherwise) {  // REQ-PLAT-7, REQ-PLAT-8
  // maced's environment names another default; the command line still picks vertex.
  TempDir dir;
  dir.write("good.json", kGoodSpec);
  MacedOptions options;
  options.process.set_env["MACE_LLM_MODEL"] = "gemini-2.5-pro";
  MacedInstance maced(dir, options);
  auto submitted = maced.mace({"submit", dir.file("good.json")});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  std::string id = submitted.out.substr(0, submitted.out.find('\n'));
  auto status = maced.mace({"status", id, "--json"});
  EXPECT_THAT(status.out, HasSubstr("\"backend\":\"vertex\""));
  EXPECT_THAT(status.out, HasSubstr("\"model\":\"gemini-2.5-flash\""));

  auto direct = maced.mace({"submit", dir.file("good.json"), "--backend", "direct"});
  ASSERT_EQ(direct.exit_code, 0) << direct.err;
  id = direct.out.substr(0, direct.out.find('\n'));
  EXPECT_THAT(maced.mace({"status", id, "--json"}).out, HasSubstr("\"backend\":\"direct\""));
}

TEST_F(CliTest, ABackendThatCannotBeUsedIsRefusedAtSubmit) {  // REQ-PLAT-7
  TempDir dir;
  dir.write("good.json", kGoodSpec);
  MacedOptions options;
  options.process.unset_env = {"MACE_VERTEX_ACCESS_TOKEN", "GOOGLE_CLOUD_PROJECT"};
  options.process.set_env["MACE_CLAUDE_CLI"] = "/nonexistent/claude";
  options.process.set_env["HOME"] = dir.path();  // no gcloud application-default file
  MacedInstance maced(dir, options);

  auto vertex = maced.mace({"submit", dir.file("good.json")});
  EXPECT_EQ(vertex.exit_code, 2);
  EXPECT_THAT(vertex.err, HasSubstr("backend: "));
  EXPECT_THAT(vertex.err, HasSubstr("vertex"));

  auto claude = maced.mace({"submit", dir.file("good.json"), "--backend", "claude"});
  EXPECT_EQ(claude.exit_code, 2);
  EXPECT_THAT(claude.err, HasSubstr("/nonexistent/claude"));

  auto unknown = maced.mace({"submit", dir.file("good.json"), "--backend", "gpt"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("backend: must be one of"));

  EXPECT_EQ(maced.mace({"list", "--json"}).out, "[]\n");
  EXPECT_EQ(maced.mace({"submit", dir.file("good.json"), "--backend", "direct"}).exit_code, 0);
}

}  // namespace
}  // namespace mace::testing
