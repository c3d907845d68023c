// What models, transcripts and users wrote, as the real `mace` prints it from a real maced:
// a reply that would retitle the terminal and clear the screen, a program's output in its
// sim.log, a spec's field name with a DEL, a command line with an ESC. Without --raw the
// terminal gets visible escapes (\x1b) and never the bytes; with --raw it gets the text as
// it is. JSON carries them as \u escapes.

#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "llm/fake_vertex_server.h"  // tests/llm/
#include "support/fixture_checkout.h"
#include "support/maced_instance.h"
#include "submit_spec.h"

namespace mace::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using mace::llm::testing::FakeVertexServer;

// Retitles an xterm, then clears the screen; then U+009B, the C1 CSI.
constexpr const char* kHostile = "\x1b]0;owned\x07\x1b[2J\xc2\x9b" "6n";
constexpr const char* kShown = "\\x1b]0;owned\\x07\\x1b[2J\\u009b6n";

bool has_control_bytes(const std::string& text) {
  for (unsigned char c : text)
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) return true;
  return text.find("\xc2\x9b") != std::string::npos;
}

class TerminalTextTest : public ::testing::Test {
 protected:
  void SetUp() override {
    MacedOptions options = options_for_checkout(dir_, checkout_.root());
    options.process.set_env["MACE_VERTEX_ENDPOINT"] = vertex_.base_url();
    maced_ = std::make_unique<MacedInstance>(dir_, options);
  }
  // Everything `mace watch RUN` writes on a pseudo-terminal (the run is over: its
  // history and its end).
  std::string watch_on_a_terminal(const std::string& id) {
    int master = -1;
    winsize size{};
    size.ws_col = 200;
    size.ws_row = 40;
    const std::string mace = mace_binary(), socket = maced_->socket_path();
    const pid_t pid = ::forkpty(&master, nullptr, nullptr, &size);
    if (pid == 0) {
      ::execl(mace.c_str(), mace.c_str(), "--socket", socket.c_str(), "watch", id.c_str(), nullptr);
      ::_exit(127);
    }
    std::string out;
    if (pid < 0) return out;
    char buffer[4096];
    for (;;) {
      const ssize_t n = ::read(master, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // EIO: the child closed its side
      out.append(buffer, static_cast<std::size_t>(n));
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    ::close(master);
    return out;
  }
  int watch(const std::string& id) {
    ProcessOptions options;
    options.timeout = std::chrono::seconds(60);
    return maced_->mace({"watch", id}, options).exit_code;
  }

  TempDir dir_;
  FixtureCheckout checkout_;
  FakeVertexServer vertex_;
  std::unique_ptr<MacedInstance> maced_;
};

// A failed build diagnosed by the model, whose diagnosis, post-mortem and replies carry
// escape sequences: status, calls --full and logs show them as escapes.
TEST_F(TerminalTextTest, ModelTextIsShownAsEscapesUnlessRaw) {
  checkout_.set_control("build", "fail");
  vertex_.push(FakeVertexServer::text(std::string("TASK: plain | deps= | kind=config | defaults ") + kHostile + "\n"));
  vertex_.push(FakeVertexServer::text(std::string("DIAGNOSIS: l1d_too_small\nFIX: double it ") + kHostile));
  vertex_.push(FakeVertexServer::text(std::string("ASSESSMENT: inconclusive\nEXPLANATION: see ") + kHostile +
                                      "\nNEXT_STEPS: retry"));
  const std::string id = submit_spec(*maced_, dir_, R"({"core": "pico", "mesh": [1, 1], "workloads": ["add.S"],
      "objective": "Boot", "budget": {"max_iterations": 1}})");
  ASSERT_EQ(watch(id), 1);

  const auto status = maced_->mace({"status", id});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  EXPECT_FALSE(has_control_bytes(status.out)) << status.out;
  EXPECT_THAT(status.out, HasSubstr(std::string("fix: double it ") + kShown));
  EXPECT_THAT(status.out, HasSubstr(std::string("see ") + kShown));

  const auto calls = maced_->mace({"calls", id, "--full"});
  ASSERT_EQ(calls.exit_code, 0) << calls.err;
  EXPECT_FALSE(has_control_bytes(calls.out)) << calls.out;
  EXPECT_THAT(calls.out, HasSubstr(std::string("    FIX: double it ") + kShown));

  const auto logs = maced_->mace({"logs", id});
  ASSERT_EQ(logs.exit_code, 0) << logs.err;
  EXPECT_FALSE(has_control_bytes(logs.out)) << logs.out;
  EXPECT_THAT(logs.out, HasSubstr(std::string("fix: double it ") + kShown));

  // watch on a terminal: the events' text escaped, only mace's own sequences left.
  const std::string screen = watch_on_a_terminal(id);
  EXPECT_THAT(screen, HasSubstr(std::string("fix: double it ") + kShown));
  EXPECT_EQ(screen.find("\x1b]"), std::string::npos) << screen;
  EXPECT_EQ(screen.find("\x1b[2J"), std::string::npos) << screen;
  EXPECT_EQ(screen.find("\xc2\x9b"), std::string::npos) << screen;

  // --raw: exactly what the model wrote.
  EXPECT_THAT(maced_->mace({"status", id, "--raw"}).out, HasSubstr(std::string("fix: double it ") + kHostile));
  EXPECT_THAT(maced_->mace({"calls", id, "--full", "--raw"}).out, HasSubstr(kHostile));
  // JSON: \u escapes, the C1 control too.
  const auto json = maced_->mace({"status", id, "--json"});
  EXPECT_FALSE(has_control_bytes(json.out)) << json.out;
  EXPECT_THAT(json.out, HasSubstr(R"(double it \u001b]0;owned\u0007\u001b[2J\u009b6n)"));
}

// A program's output in its sim.log, read through `mace logs --sim`: a piece at a time,
// escaped, with the bytes that are not UTF-8 shown as bytes.
TEST_F(TerminalTextTest, ATranscriptsControlBytesAreShownAsEscapesUnlessRaw) {
  checkout_.set_control("program_output", "hello \\033[2J\\033]0;owned\\007 \\xff\\xfe caf\\xc3\\xa9");
  const std::string id = submit_spec(*maced_, dir_, R"({"core": "pico", "mesh": [1, 1],
      "workloads": ["add.S"], "objective": "Boot", "backend": "direct"})");
  ASSERT_EQ(watch(id), 0);
  const auto sim = maced_->mace({"logs", id, "--sim", "add.S"});
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  EXPECT_FALSE(has_control_bytes(sim.out));
  EXPECT_THAT(sim.out, HasSubstr("hello \\x1b[2J\\x1b]0;owned\\x07 \\xff\\xfe caf\xc3\xa9\n"));
  const auto raw = maced_->mace({"logs", id, "--sim", "add.S", "--raw"});
  EXPECT_THAT(raw.out, HasSubstr("hello \x1b[2J\x1b]0;owned\x07 \xff\xfe caf\xc3\xa9\n"));
}

// A user's own bytes echoed back: a spec's unknown field named with a DEL and an ESC, by
// maced (submit) and by mace itself (spec check); a command line with an ESC.
TEST_F(TerminalTextTest, ASpecsBytesEchoedInAnErrorAreEscaped) {
  dir_.write("bad.json", "{\"core\": \"pico\", \"workloads\": [\"add.S\"], \"objective\": \"x\", "
                         "\"obj\x7f\\u001b[2Jective\": 1}");  // DEL may stand in JSON as it is
  for (const char* command : {"submit", "spec"}) {
    const auto r = std::string(command) == "submit"
                       ? maced_->mace({"submit", dir_.file("bad.json")})
                       : maced_->mace({"spec", "check", dir_.file("bad.json")});
    EXPECT_EQ(r.exit_code, 2) << command;
    EXPECT_FALSE(has_control_bytes(r.err)) << command << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr(R"("obj\u007f\u001b[2Jective": unknown field)")) << command;
  }
  const auto typed = maced_->mace({"sta\x1b[2Jtus"});
  EXPECT_EQ(typed.exit_code, 2);
  EXPECT_THAT(typed.err, HasSubstr("unknown command \"sta\\x1b[2Jtus\""));
  const auto run = maced_->mace({"status", "no-such\x1b]0;x\x07"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_FALSE(has_control_bytes(run.err)) << run.err;
}

}  // namespace
}  // namespace mace::testing
