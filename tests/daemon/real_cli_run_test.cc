// Whole runs through a real maced with the real agent CLIs, Claude Code and opencode, at
// the versions scripts/install-agent-clis.sh pins and the build installs from npm under
// the build tree (MACE_AGENT_CLIS). Their model is a fake Messages API on 127.0.0.1
// (tests/llm/fake_anthropic_server.h): claude reaches it through ANTHROPIC_BASE_URL,
// opencode through its configuration's provider.anthropic.options.baseURL, exactly as a
// site points them at a proxy. The tests skip, saying why, only when npm could not be
// reached to install them; a failed install fails the build.
//
// What they show: the CLI plans a run that passes on the fixture checkout; an rtl task's
// model asks for MACE's rtl_edit tool, the CLI starts `mace mcp` from the MCP
// configuration MACE wrote, calls it, and the edit is staged, built and restored; a bad
// key (401) is classified authentication; a rate limit (429 with retry-after) is waited
// out and tried again; an overloaded API (529); and all of it with maced as root, which
// the CI is, and as an ordinary user (uid 65534).

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "llm/fake_anthropic_server.h"  // tests/llm/
#include "support/checkout_files.h"
#include "support/fixture_checkout.h"
#include "support/maced_instance.h"

namespace mace::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using mace::llm::testing::FakeAnthropicServer;

constexpr const char* kPlan = "TASK: t | deps= | kind=config | build it";
constexpr const char* kL15 = "piton/design/chip/tile/l15/rtl/l15.v";
constexpr const char* kModel = "claude-sonnet-4-5";

// Where the CLIs are, or why the tests cannot run.
std::string agent_clis(std::string& why_not) {
  const char* dir = std::getenv("MACE_AGENT_CLIS");
  if (!dir) {
    why_not = "MACE_AGENT_CLIS is not set (run through meson test)";
    return {};
  }
  std::string stamp = read_file(std::string(dir) + ".stamp");
  if (stamp.rfind("unreachable", 0) == 0) {
    why_not = "the agent CLIs could not be installed from npm: " + stamp;
    return {};
  }
  return dir;
}

struct Cli {
  const char* backend;
  const char* override_var;
  const char* executable;  // under node_modules/.bin
  const char* model;       // the spec's model
};
constexpr Cli kClaude{"claude", "MACE_CLAUDE_CLI", "claude", kModel};
constexpr Cli kOpencode{"opencode", "MACE_OPENCODE_CLI", "opencode", "anthropic/claude-sonnet-4-5"};

struct Param {
  Cli cli;
  bool as_root;  // maced as root, else as uid 65534
};

class RealCliRunTest : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    std::string why_not;
    clis_ = agent_clis(why_not);
    if (clis_.empty()) GTEST_SKIP() << why_not;
    if (!GetParam().as_root && ::getuid() != 0)
      GTEST_SKIP() << "needs root to run maced as another user";
    if (GetParam().as_root && ::getuid() != 0) GTEST_SKIP() << "needs root to run maced as root";
  }

  // maced with the real CLI; `extra` goes into maced's configuration.
  void start(const std::string& extra = "") {
    const Cli cli = GetParam().cli;
    dir_.write("maced.json", R"({"checkouts": [{"path": ")" + checkout_.root() + R"("}])" + extra + "}");
    std::filesystem::create_directories(dir_.file("home/.config/opencode"));
    // opencode's own configuration, as a site writes it: its provider at the fake API.
    dir_.write("home/.config/opencode/opencode.json",
               R"({"$schema": "https://opencode.ai/config.json", "provider": {"anthropic": {)"
               R"("options": {"baseURL": ")" + api_.base_url() + R"(/v1", "apiKey": "sk-ant-fake"}}}})");
    MacedOptions options;
    options.extra_args = {"--config", dir_.file("maced.json"), "--workloads",
                          source_root() + "/workloads"};
    auto& env = options.process.set_env;
    env[cli.override_var] = clis_ + "/node_modules/.bin/" + cli.executable;
    env["HOME"] = dir_.file("home");
    env["XDG_CONFIG_HOME"] = dir_.file("home/.config");
    env["XDG_DATA_HOME"] = dir_.file("home/.local/share");
    env["ANTHROPIC_BASE_URL"] = api_.base_url();
    env["ANTHROPIC_API_KEY"] = "sk-ant-fake";
    env["MACE_LLM_RETRY_SCALE"] = "0.01";
    // No network here: opencode must not wait to fetch its model list.
    env["OPENCODE_DISABLE_MODELS_FETCH"] = "1";
    env["OPENCODE_DISABLE_AUTOUPDATE"] = "1";
    options.process.unset_env.push_back("MACE_CLIENT");
    if (!GetParam().as_root) {
      // An ordinary user owns maced's state, its checkout and its home, as under systemd.
      for (const auto& root : {dir_.path(), checkout_.root()})
        for (const auto& e : std::filesystem::recursive_directory_iterator(root))
          (void)::lchown(e.path().c_str(), 65534, 65534);
      (void)::chown(dir_.path().c_str(), 65534, 65534);
      (void)::chown(checkout_.root().c_str(), 65534, 65534);
      options.process.uid = 65534;
      // The test's notify socket is root's: wait for maced's own socket instead.
      options.wait_ready = false;
      options.read_notify = false;
    }
    maced_ = std::make_unique<MacedInstance>(dir_, options);
    if (!GetParam().as_root) {
      for (int i = 0; i < 200 && !std::filesystem::exists(maced_->socket_path()); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      ASSERT_TRUE(std::filesystem::exists(maced_->socket_path())) << "maced did not start as uid 65534";
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }

  std::string submit(const std::string& extra = "") {
    dir_.write("spec.json", std::string(R"({"core": "pico", "mesh": [1, 1], "workloads": ["add.S"],
      "objective": "Plan the tile", "backend": ")") + GetParam().cli.backend +
                                R"(", "model": ")" + GetParam().cli.model +
                                R"(", "budget": {"max_iterations": 2})" + extra + "}");
    auto r = maced_->mace({"submit", dir_.file("spec.json")});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out.substr(0, r.out.find('\n'));
  }
  int watch(const std::string& id) {
    ProcessOptions options;
    options.timeout = std::chrono::seconds(240);
    return maced_->mace({"watch", id}, options).exit_code;
  }
  std::string calls(const std::string& id) { return maced_->mace({"calls", id, "--json"}).out; }
  std::string status(const std::string& id) { return maced_->mace({"status", id, "--json"}).out; }
  std::string logs(const std::string& id) { return maced_->mace({"logs", id}).out; }

  std::string clis_;
  TempDir dir_;
  FixtureCheckout checkout_;
  FakeAnthropicServer api_;
  std::unique_ptr<MacedInstance> maced_;
};

// REQ-PLAT-7, REQ-BUD-5, REQ-BUD-12: the real CLI plans the run, which passes; the call is
// recorded with the tokens the API reported, kind by kind, and the CLI's own cost.
TEST_P(RealCliRunTest, TheRealCliPlansARunThatPasses) {
  start();
  api_.push(FakeAnthropicServer::text(kPlan));
  std::string id = submit();
  EXPECT_EQ(watch(id), 0) << logs(id);
  EXPECT_THAT(status(id), HasSubstr(R"("state":"passed")"));
  ASSERT_EQ(api_.message_requests().size(), 1u);
  EXPECT_THAT(api_.message_requests()[0].body, HasSubstr("Plan the tile"));
  std::string c = calls(id);
  EXPECT_THAT(c, HasSubstr(R"("input_tokens":11,)"));
  EXPECT_THAT(c, HasSubstr(R"("cache_read_tokens":5,"cache_write_tokens":3,)"));
  EXPECT_THAT(c, HasSubstr(R"("cost_source":"reported")"));
  EXPECT_THAT(c, Not(HasSubstr(R"("cost_usd":0,)")));
}

// REQ-EXEC-7, REQ-EXEC-14, REQ-EXEC-15: the rtl task's model asks for rtl_edit's replace;
// the real CLI starts `mace mcp` from MACE's MCP configuration, calls the tool (allowed
// without --dangerously-skip-permissions, root or not), and the staged edit is built and
// recorded, then the checkout is restored.
TEST_P(RealCliRunTest, AnRtlTasksEditGoesThroughMaceMcpAndIsBuilt) {
  const std::string original = read_file(checkout_.root() + "/" + kL15);
  ASSERT_THAT(original, HasSubstr("wire  hit_s2 = val_s2;"));
  start();
  api_.push(FakeAnthropicServer::text("TASK: r | deps= | kind=rtl | mark the L1.5"));
  api_.push(FakeAnthropicServer::tool_use(
      "rtl_edit_replace",
      R"({"path":"piton/design/chip/tile/l15/rtl/l15.v","old_text":"wire  hit_s2 = val_s2;",)"
      R"("new_text":"wire  hit_s2 = val_s2; // marked by the agent"})"));
  api_.push(FakeAnthropicServer::text("I marked hit_s2."));
  std::string id = submit(R"(, "options": {"rtl_edits": true})");
  EXPECT_EQ(watch(id), 0) << logs(id);
  std::string s = status(id);
  EXPECT_THAT(s, HasSubstr(R"("state":"passed")"));
  EXPECT_THAT(s, HasSubstr("+wire  hit_s2 = val_s2; // marked by the agent"));
  // The tool's answer went back to the model in the CLI's next request.
  auto requests = api_.message_requests();
  ASSERT_GE(requests.size(), 3u);
  EXPECT_THAT(requests[2].body, HasSubstr("tool_result"));
  EXPECT_THAT(requests[2].body, HasSubstr("replaced 1 place in"));
  EXPECT_EQ(read_file(checkout_.root() + "/" + kL15), original);
  EXPECT_GE(checkout_.invocations("build"), 1);
}

// REQ-PLAT-7: a bad key: the API answers 401 and the call is recorded `authentication`;
// the run does not pass.
TEST_P(RealCliRunTest, ABadKeyIsClassifiedAuthentication) {
  start();
  api_.push(FakeAnthropicServer::error(401));
  std::string id = submit();
  EXPECT_NE(watch(id), 0);
  EXPECT_THAT(calls(id), HasSubstr(R"("success":false,"error_class":"authentication")"));
}

// REQ-BUD-14: a 429 with retry-after is waited out and the call tried again (by maced for
// claude, which MACE runs without its own retries; by opencode itself, which honours the
// header), and the run passes.
TEST_P(RealCliRunTest, ARateLimitedCallIsWaitedOutAndRetried) {
  start();
  api_.push(FakeAnthropicServer::error(429, 1));
  api_.push(FakeAnthropicServer::text(kPlan));
  std::string id = submit();
  EXPECT_EQ(watch(id), 0) << logs(id);
  EXPECT_EQ(api_.message_requests().size(), 2u);
  if (std::string(GetParam().cli.backend) == "claude")
    EXPECT_THAT(calls(id), HasSubstr(R"("error_class":"rate_limit")"));
}

// REQ-BUD-14: an overloaded API (529). claude, run without its own retries, reports it
// and the call is classified `server` (final, as for vertex); opencode retries it itself
// and goes on.
TEST_P(RealCliRunTest, AnOverloadedApi) {
  start();
  api_.push(FakeAnthropicServer::error(529));
  api_.push(FakeAnthropicServer::text(kPlan));
  std::string id = submit();
  int rc = watch(id);
  if (std::string(GetParam().cli.backend) == "claude") {
    EXPECT_NE(rc, 0);
    EXPECT_THAT(calls(id), HasSubstr(R"("error_class":"server")"));
  } else {
    EXPECT_EQ(rc, 0) << logs(id);
    EXPECT_EQ(api_.message_requests().size(), 2u);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Clis, RealCliRunTest,
    ::testing::Values(Param{kClaude, true}, Param{kClaude, false}, Param{kOpencode, true},
                      Param{kOpencode, false}),
    [](const auto& info) {
      return std::string(info.param.cli.backend) + (info.param.as_root ? "_as_root" : "_as_user");
    });

}  // namespace
}  // namespace mace::testing
