// `mace doctor` through a real maced (docs/client.md#mace-doctor): each checkout that
// cannot work named with its fix and refused by maced at start, the LLM backends without
// credentials, output for people and for scripts, and a maced that cannot be reached.

#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include "support/fixture_checkout.h"
#include "support/maced_instance.h"
#include "submit_spec.h"

namespace mace::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

// Every variable a backend's credentials come from, so maced has none of them.
const std::vector<std::string> kCredentialVariables = {
    "MACE_VERTEX_ACCESS_TOKEN", "GOOGLE_OAUTH_ACCESS_TOKEN", "GOOGLE_APPLICATION_CREDENTIALS",
    "GOOGLE_CLOUD_PROJECT", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "MACE_CLAUDE_CLI",
    "MACE_OPENCODE_CLI", "MACE_ANTIGRAVITY_CLI", "MACE_LLM", "MACE_LLM_MODEL"};

class DoctorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Under a directory whose name holds "-B": OpenPiton's bw_cpp cannot take its path.
    fs::create_directories(dir_.file("nightly-B7"));
    under_dash_b_ = dir_.file("nightly-B7/openpiton");
    fs::create_directory_symlink(for_dash_b_.root(), under_dash_b_);
    fs::create_directories(dir_.file("not-a-checkout/piton"));
    not_a_checkout_ = dir_.file("not-a-checkout");
    // The usable one last: a run must skip every refused checkout to reach it.
    dir_.write("maced.json", R"({"checkouts": [{"path": ")" + under_dash_b_ + R"("}, {"path": ")" +
                                 not_a_checkout_ + R"("}, {"path": ")" + unpatched_.root() +
                                 R"("}, {"path": ")" + good_.root() + R"("}]})");
    MacedOptions options;
    options.extra_args = {"--config", dir_.file("maced.json"), "--workloads", source_root() + "/workloads"};
    options.process.unset_env = kCredentialVariables;
    options.process.set_env = {{"PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}};
    maced_ = std::make_unique<MacedInstance>(dir_, options);
  }

  TempDir dir_;
  FixtureCheckout good_;
  FixtureCheckout unpatched_{FixtureState::as_in_openpiton};
  FixtureCheckout for_dash_b_;
  std::string under_dash_b_, not_a_checkout_;
  std::unique_ptr<MacedInstance> maced_;
};

// REQ-PLAT-2, REQ-PLAT-6: what cannot work is named once, with its fix, and no run is ever
// given it; the checkout that can work takes the run.
TEST_F(DoctorTest, NamesEachCheckoutThatCannotWorkWithItsFixAndRunsGoOnlyToTheOthers) {
  const auto doctor = maced_->mace({"doctor"});
  EXPECT_EQ(doctor.exit_code, 1) << doctor.out << doctor.err;
  const std::string& out = doctor.out;
  EXPECT_THAT(out, HasSubstr("maced at " + maced_->socket_path()));
  EXPECT_THAT(out, HasSubstr("FAIL  checkout " + under_dash_b_ + ": its path cannot be used: it contains \"-B\""));
  EXPECT_THAT(out, HasSubstr("fix: move the checkout (or clone it) to a path of letters, digits"));
  EXPECT_THAT(out, HasSubstr("FAIL  checkout " + not_a_checkout_ + ": not an OpenPiton checkout"));
  EXPECT_THAT(out, HasSubstr("FAIL  checkout " + unpatched_.root() + ": not patched for Verilator 5"));
  EXPECT_THAT(out, HasSubstr("patch_openpiton.sh " + unpatched_.root()));
  EXPECT_THAT(out, HasSubstr("ok    checkout " + good_.root() + ": an OpenPiton checkout, patched"));
  EXPECT_THAT(out, HasSubstr("ok    tool verilator: Verilator "));
  EXPECT_THAT(out, HasSubstr("WARN  llm backend vertex: cannot be used (maced's default backend): vertex: no credentials"));
  EXPECT_THAT(out, HasSubstr("fix: set it up as docs/llm-backends.md says"));
  EXPECT_THAT(out, HasSubstr("3 failure(s)"));

  // `mace status` says the same of each checkout, and a run never waits on a refused one.
  const auto status = maced_->mace({"status"});
  EXPECT_THAT(status.out, HasSubstr(under_dash_b_ + "  node local  free  REFUSED: its path cannot be used"));
  EXPECT_THAT(status.out, HasSubstr(unpatched_.root() + "  node local  free  REFUSED: not patched"));
  const std::string id = submit_spec(*maced_, dir_, R"({"core": "pico", "workloads": ["add.S"],
      "backend": "direct", "objective": "build the tile and run add"})");
  ProcessOptions wait;
  wait.timeout = std::chrono::seconds(60);
  const auto watched = maced_->mace({"watch", id}, wait);
  EXPECT_EQ(watched.exit_code, 0) << watched.out << watched.err;
  EXPECT_THAT(maced_->mace({"status", id, "--json"}).out, HasSubstr("\"checkout\":\"" + good_.root() + "\""));
  EXPECT_EQ(unpatched_.invocations(), 0);
  EXPECT_EQ(for_dash_b_.invocations(), 0);
}

// For scripts: every finding with its words, the counts, and the exit code.
TEST_F(DoctorTest, JsonGivesEveryFindingWithItsTopicLevelAndFix) {
  const auto doctor = maced_->mace({"--json", "doctor"});
  EXPECT_EQ(doctor.exit_code, 1) << doctor.err;
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  ASSERT_EQ(parser.parse(doctor.out).get(root), simdjson::SUCCESS) << doctor.out;
  EXPECT_EQ(std::string_view(root["socket"].get_string().value()), maced_->socket_path());
  EXPECT_EQ(root["failures"].get_uint64().value(), 3u);
  int refused = 0, backends = 0;
  for (simdjson::dom::element f : root["findings"].get_array()) {
    const std::string_view topic = f["topic"].get_string().value();
    const std::string_view level = f["level"].get_string().value();
    if (topic == "checkout" && level == "failure") {
      ++refused;
      EXPECT_THAT(std::string(f["fix"].get_string().value()), HasSubstr("restart maced"));
    }
    if (topic == "llm_backend") ++backends;
  }
  EXPECT_EQ(refused, 3);
  EXPECT_EQ(backends, 4) << "vertex, claude, opencode, antigravity";
}

// A maced whose every checkout was refused cannot run anything: a submit says so, naming
// each checkout and why, and queues nothing, where before it queued a run for ever (and
// earlier still answered "maced internal error: not an OpenPiton checkout").
TEST(DoctorAllRefusedTest, ASubmitToAMacedWithNoUsableCheckoutIsRefusedSayingWhy) {
  TempDir dir;
  dir.write("maced.json", R"({"checkouts": [{"path": "/nonexistent/openpiton"}]})");
  MacedOptions options;
  options.extra_args = {"--config", dir.file("maced.json"), "--workloads", source_root() + "/workloads"};
  MacedInstance maced(dir, options);
  dir.write("spec.json", R"({"core": "pico", "workloads": ["hello"], "backend": "direct", "objective": "o"})");
  const auto submitted = maced.mace({"submit", dir.file("spec.json")});
  EXPECT_EQ(submitted.exit_code, 2) << submitted.out << submitted.err;
  EXPECT_THAT(submitted.err, HasSubstr("no checkout of this maced can run it: every one was refused when maced "
                                       "started (/nonexistent/openpiton: nothing is there); nothing was queued"));
  EXPECT_THAT(submitted.err, Not(HasSubstr("internal error")));
  EXPECT_THAT(maced.mace({"list"}).out, Not(HasSubstr("queued")));
}

TEST(DoctorUnreachableTest, AMacedThatCannotBeReachedIsExit3WithHowToStartOne) {
  TempDir dir;
  ProcessOptions options;
  const auto r = run_process({mace_binary(), "--socket", dir.file("none.sock"), "doctor"}, options);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.err, HasSubstr("scripts/quickstart.sh"));
  EXPECT_THAT(r.err, HasSubstr("systemctl start maced.socket"));
  const auto json = run_process({mace_binary(), "--socket", dir.file("none.sock"), "--json", "doctor"}, options);
  EXPECT_EQ(json.exit_code, 3);
  EXPECT_THAT(json.out, HasSubstr(R"("level":"failure")"));
  EXPECT_THAT(json.out, HasSubstr(R"("failures":1)"));
}

}  // namespace
}  // namespace mace::testing
