// `mace plan parse FILE` through the built binary: JSON on stdout, exit code, reasons.

#include <csignal>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/child_process.h"

namespace mace {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using mace::testing::ProcessOptions;
using mace::testing::run_process;

std::string mace_binary() { return mace::testing::build_root() + "/client/mace"; }

TEST(PlanCli, PrintsAUsablePlanAndExitsZero) {
  // REQ-PLAN-6
  // REQ-PLAN-9
  mace::testing::TempDir dir;
  dir.write("reply.txt",
            "Here is the plan:\r\n"
            "1. **TASK:** a | deps= | kind=config | Build\r\n"
            "2. TASK: b | deps=a | kind=magic | nope\r\n"
            "CACHES: a | l1d=16384,4\r\n");
  auto r = run_process({mace_binary(), "plan", "parse", dir.file("reply.txt")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            R"({"tasks":[{"id":"a","deps":[],"kind":"config","instruction":"Build",)"
            R"("caches":{"l1d":{"size":16384,"associativity":4}},"config_rtl":[]}],)"
            R"("skipped":["2. TASK: b | deps=a | kind=magic | nope"],"errors":[]})"
            "\n");
  EXPECT_THAT(r.err, HasSubstr("unknown kind \"magic\""));
}

TEST(PlanCli, UnusablePlanExitsTwoWithReasons) {
  // REQ-PLAN-13
  ProcessOptions options;
  options.stdin_text = "TASK: a | deps=b | kind=config | x\nTASK: b | deps=a | kind=config | y\n";
  auto r = run_process({mace_binary(), "plan", "parse", "-"}, options);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.out, HasSubstr(R"("errors":["dependency cycle a -> b -> a"])"));
  EXPECT_THAT(r.err, HasSubstr("dependency cycle a -> b -> a"));
}

// A reply's bytes echoed in the reasons reach a terminal as escapes, not as the escape
// sequences or broken UTF-8 they were; the JSON holds them as \u escapes and U+FFFD.
TEST(PlanCli, ControlBytesAndBrokenUtf8InAReplyAreEscapedInTheReasons) {
  mace::testing::TempDir dir;
  dir.write("reply.txt", "TASK: a | deps= | kind=ma\x1b]0;owned\x07gic\xff | x\n");
  auto r = run_process({mace_binary(), "plan", "parse", dir.file("reply.txt")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\xff'), std::string::npos) << r.err;
  EXPECT_THAT(r.err, HasSubstr("ma\\x1b]0;owned\\x07gic\\xff"));
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
  EXPECT_THAT(r.out, HasSubstr("ma\\u001b]0;owned\\u0007gic\\ufffd"));
}

TEST(PlanCli, MissingFileAndUsage) {
  // REQ-PLAN-13
  EXPECT_EQ(run_process({mace_binary(), "plan", "parse", "/nonexistent/reply.txt"}).exit_code, 2);
  auto usage = run_process({mace_binary(), "plan", "parse"});
  EXPECT_EQ(usage.exit_code, 2);
  EXPECT_THAT(usage.err, HasSubstr("usage: mace plan parse FILE"));
}

// A reply over the limit is read only up to it, but its size is the file's, not where the
// reading stopped.
TEST(PlanCli, AnOversizedReplyIsRefusedWithItsRealSize) {
  mace::testing::TempDir dir;
  std::string line = "TASK: a | deps= | kind=config | Build\n";
  std::string reply;
  while (reply.size() < 2'700'000) reply += line;
  dir.write("reply.txt", reply);
  auto r = run_process({mace_binary(), "plan", "parse", dir.file("reply.txt")});
  EXPECT_EQ(r.exit_code, 2);
  const std::string why = "the reply is " + std::to_string(reply.size()) +
                          " bytes, over 1048576 bytes, the most a plan may be";
  EXPECT_THAT(r.err, HasSubstr(dir.file("reply.txt") + ": " + why + "\n"));
  EXPECT_THAT(r.out, HasSubstr(why));
  EXPECT_THAT(r.err, Not(HasSubstr("1048577")));
  // From a pipe, whose size is not known without reading it all, it is "over". mace stops
  // reading past the limit, so the test's write of the rest meets a closed pipe.
  ProcessOptions piped;
  piped.stdin_text = reply;
  auto previous = std::signal(SIGPIPE, SIG_IGN);
  auto from_pipe = run_process({mace_binary(), "plan", "parse", "-"}, piped);
  std::signal(SIGPIPE, previous);
  EXPECT_EQ(from_pipe.exit_code, 2);
  EXPECT_THAT(from_pipe.err, HasSubstr("-: the reply is over 1048576 bytes, the most a plan may be"));
}

}  // namespace
}  // namespace mace
