// Who sees what of others' runs (docs/operating-maced.md), with real users: maced runs as
// root here, and `mace` runs as uids 65533 and 65534, which are nobody's administrators
// unless maced's configuration makes them so. Needs root to act as other users.

#include <sys/stat.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/maced_instance.h"

namespace mace::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr uint32_t kAlice = 65533;
constexpr uint32_t kBob = 65534;  // "nobody", in group "nogroup" (65534) on Debian

class AccessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::getuid() != 0) GTEST_SKIP() << "needs root to act as two other users";
    dir_.write("spec.json", R"({"core": "pico", "workloads": ["hello"], "backend": "direct",
      "objective": "the secret L2 of project falcon"})");
    ::chmod(dir_.path().c_str(), 0755);
  }

  void start(const std::string& config = "{}") {
    dir_.write("maced.json", config);
    MacedOptions options;
    options.extra_args = {"--config", dir_.file("maced.json")};
    maced_ = std::make_unique<MacedInstance>(dir_, options);
    ::chmod(maced_->socket_path().c_str(), 0666);  // let the two users reach it
  }

  ProcessResult as(uint32_t uid, const std::vector<std::string>& args) {
    ProcessOptions options;
    options.uid = uid;
    return maced_->mace(args, options);
  }

  std::string submit_as(uint32_t uid) {
    auto r = as(uid, {"submit", dir_.file("spec.json")});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out.substr(0, r.out.find('\n'));
  }

  TempDir dir_;
  std::unique_ptr<MacedInstance> maced_;
};

// Everyone sees the queue, as with squeue; contents are the submitter's and the
// administrators'. Every method that shows or changes a run checks.
TEST_F(AccessTest, OthersSeeTheQueueButNoMethodShowsThemTheContents) {
  start();
  std::string id = submit_as(kAlice);

  auto listed = as(kBob, {"list", "--json"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_THAT(listed.out, HasSubstr("\"run_id\":\"" + id + "\""));
  EXPECT_THAT(listed.out, HasSubstr("\"submitted_by_uid\":65533"));
  EXPECT_THAT(listed.out, Not(HasSubstr("falcon")));

  for (auto command : std::vector<std::vector<std::string>>{
           {"status", id}, {"logs", id}, {"calls", id}, {"metrics", id}, {"watch", id},
           {"logs", id, "--build"}, {"logs", id, "--sim", "hello", "--follow"},
           {"report", id, "--junit", dir_.file("bob.xml")}, {"repro", id}, {"replay", id}, {"cancel", id}}) {
    auto r = as(kBob, command);
    EXPECT_EQ(r.exit_code, 2) << command[0] << ": " << r.out << r.err;
    EXPECT_THAT(r.err, HasSubstr("uid 65533")) << command[0];
    EXPECT_THAT(r.out + r.err, Not(HasSubstr("falcon"))) << command[0];
  }

  auto own = as(kAlice, {"status", id, "--json"});
  ASSERT_EQ(own.exit_code, 0) << own.err;
  EXPECT_THAT(own.out, HasSubstr("falcon"));
  auto root = maced_->mace({"logs", id});
  EXPECT_EQ(root.exit_code, 0) << root.err;
  EXPECT_EQ(as(kAlice, {"cancel", id}).exit_code, 0);
}

// REQ-REPLAY-3: a spec's replay.from serves its builds, verdicts and LLM replies from the
// run it names, so naming another user's run is reading it, and is refused as reading it is.
TEST_F(AccessTest, ASpecReplayingAnotherUsersRunIsRefusedNamingReplayFrom) {
  start();
  std::string id = submit_as(kAlice);
  ASSERT_EQ(as(kAlice, {"cancel", id}).exit_code, 0);
  dir_.write("replay.json", R"({"core": "pico", "workloads": ["hello"], "backend": "direct",
    "objective": "o", "replay": {"bypass": ["build", "run"], "from": ")" + id + R"("}})");
  for (auto command : std::vector<std::vector<std::string>>{{"submit", dir_.file("replay.json")},
                                                            {"spec", "check", dir_.file("replay.json")}}) {
    auto r = as(kBob, command);
    EXPECT_EQ(r.exit_code, 2) << command[0] << ": " << r.out << r.err;
    EXPECT_THAT(r.err, HasSubstr(dir_.file("replay.json") + ": replay.from: run " + id +
                                 " belongs to uid 65533"))
        << command[0];
  }
  auto listed = as(kBob, {"list", "--json"});
  EXPECT_THAT(listed.out, Not(HasSubstr("\"submitted_by_uid\":65534"))) << "Bob's refused run was queued";
  auto own = as(kAlice, {"submit", dir_.file("replay.json")});
  EXPECT_EQ(own.exit_code, 0) << own.err;
}

TEST_F(AccessTest, MembersOfTheAdminGroupReadAndCancelEveryRun) {
  start(R"({"access": {"admin_group": "nogroup"}})");
  std::string id = submit_as(kAlice);
  auto status = as(kBob, {"status", id, "--json"});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  EXPECT_THAT(status.out, HasSubstr("falcon"));
  auto cancelled = as(kBob, {"cancel", id});
  EXPECT_EQ(cancelled.exit_code, 0) << cancelled.err;
  EXPECT_THAT(as(kAlice, {"status", id}).out, HasSubstr("cancelled by uid 65534"));
}

TEST_F(AccessTest, AOneTeamServerShowsEveryoneEverythingButControlStaysWithTheOwner) {
  start(R"({"access": {"others_see": "everything"}})");
  std::string id = submit_as(kAlice);
  auto status = as(kBob, {"status", id, "--json"});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  EXPECT_THAT(status.out, HasSubstr("falcon"));
  EXPECT_EQ(as(kBob, {"cancel", id}).exit_code, 2);
}

// Reading a batch is not cancelling it: who may read every batch but not cancel this one
// changes nothing by asking, neither the batch nor its run under way.
TEST_F(AccessTest, AnEvalCancelRefusedLeavesTheBatchAndItsRunAsTheyWere) {
  start(R"({"access": {"others_see": "everything"}})");
  dir_.write("suite.json", R"({"suite": "s", "tasks": [
    {"id": "a", "spec": {"core": "pico", "workloads": ["hello"], "objective": "o", "backend": "direct"}, "expert": {}},
    {"id": "b", "spec": {"core": "pico", "workloads": ["hello"], "objective": "o", "backend": "direct"}, "expert": {}}]})");
  auto submitted = as(kAlice, {"eval", "submit", dir_.file("suite.json"), "--methods", "mace"});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  const std::string batch = submitted.out.substr(0, submitted.out.find('\n'));
  const std::string before = as(kAlice, {"eval", "status", batch}).out;
  EXPECT_THAT(before, HasSubstr("): running, 0/2 jobs done"));
  EXPECT_THAT(before, HasSubstr(" queued\n"));

  auto refused = as(kBob, {"eval", "cancel", batch});
  EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
  EXPECT_THAT(refused.err, HasSubstr("batch " + batch + " was submitted by uid 65533; only "
                                     "that user and maced's administrators may cancel it"));
  EXPECT_EQ(as(kAlice, {"eval", "status", batch}).out, before);

  EXPECT_EQ(as(kAlice, {"eval", "cancel", batch}).exit_code, 0);
  EXPECT_THAT(as(kAlice, {"eval", "status", batch}).out, HasSubstr("): cancelled, "));
}

TEST_F(AccessTest, AnAdminGroupThatDoesNotExistStopsMacedAtStart) {
  dir_.write("maced.json", R"({"access": {"admin_group": "no-such-group-here"}})");
  auto r = run_process({maced_binary(), "--socket", dir_.file("m.sock"), "--state-dir",
                        dir_.file("state"), "--config", dir_.file("maced.json")});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("access.admin_group: there is no group named \"no-such-group-here\""));
}

}  // namespace
}  // namespace mace::testing
