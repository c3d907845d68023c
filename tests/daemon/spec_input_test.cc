// What the real `mace` reads and sends, and what the real maced refuses: the spec-hardening
// findings end to end (a spec with a NUL, a refused sims option, inputs that never end).

#include <sys/resource.h>
#include <sys/stat.h>

#include <chrono>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/maced_instance.h"
#include "support/sanitizers.h"

namespace mace::testing {
namespace {

using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;

constexpr const char* kGoodSpec =
    R"({"core": "pico", "workloads": ["add.S"], "objective": "run add", "backend": "direct"})";

// A child that could grow without bound (the old `mace spec check /dev/zero`) dies of its
// memory limit instead of taking the machine's, and a test that waits on one gives up.
ProcessOptions bounded(std::chrono::seconds timeout) {
  ProcessOptions options;
  options.timeout = timeout;
  options.in_child = [] {
    if (kShadowMemory) return;  // its shadow memory alone is over any such limit
    struct rlimit limit {1024L * 1024 * 1024, 1024L * 1024 * 1024};
    ::setrlimit(RLIMIT_AS, &limit);
  };
  return options;
}

class SpecInputTest : public ::testing::Test {
 protected:
  void SetUp() override { maced_ = std::make_unique<MacedInstance>(dir_); }
  ProcessResult mace(const std::vector<std::string>& args,
                     ProcessOptions options = bounded(std::chrono::seconds(20))) {
    return maced_->mace(args, options);
  }
  bool nothing_recorded() { return mace({"list", "--json"}).out == "[]\n"; }

  TempDir dir_;
  std::unique_ptr<MacedInstance> maced_;
};

// spec-hardening finding 3: the client cut the spec at its NUL before sending it, so maced
// accepted what `spec check` refused. Now the same bytes reach maced, which refuses them
// itself.
TEST_F(SpecInputTest, SubmitOfASpecWithANulAndGarbageIsRefusedByMaced) {
  dir_.write("nul.json", std::string(kGoodSpec) + std::string("\0garbage", 8));
  auto local = mace({"spec", "check", dir_.file("nul.json")});
  auto remote = mace({"submit", dir_.file("nul.json")});
  EXPECT_EQ(local.exit_code, 2);
  EXPECT_EQ(remote.exit_code, 2) << remote.out;
  const std::string why = "a run spec must not contain a NUL byte, got one at byte " +
                          std::to_string(std::string(kGoodSpec).size());
  EXPECT_THAT(local.err, HasSubstr(why));
  EXPECT_THAT(remote.err, HasSubstr(why));
  EXPECT_EQ(remote.out, "");
  EXPECT_TRUE(nothing_recorded());
}

// An error of the spec as a whole (not JSON, a NUL) has no field: "FILE: message", with no
// empty field between two colons.
TEST_F(SpecInputTest, AnErrorOfTheWholeSpecIsFileColonMessage) {
  dir_.write("broken.json", "{\"core\": ");
  auto r = mace({"submit", dir_.file("broken.json")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, ::testing::StartsWith(dir_.file("broken.json") + ": "));
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr(": : ")));
  EXPECT_THAT(r.err, HasSubstr("JSON"));
  EXPECT_EQ(mace({"spec", "check", dir_.file("broken.json")}).err, r.err);
  EXPECT_TRUE(nothing_recorded());
}

// spec-hardening finding 1: -model= ran a simulator from a directory the submitter made.
TEST_F(SpecInputTest, SubmitOfAModelOptionIsRefusedNamingTheFieldAndTheOption) {
  dir_.write("model.json", R"({"core": "pico", "workloads": ["add.S"], "objective": "run add",
    "workload_args": {"add.S": {"options": ["-model=/tmp/mallory/manycore"]}}})");
  auto r = mace({"submit", dir_.file("model.json")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("workload_args.add.S.options[0]: -model is not a sims option a "
                               "run spec may give"));
  EXPECT_TRUE(nothing_recorded());
}

// spec-hardening finding 2: `mace spec check /dev/zero` grew to gigabytes. A device is not
// a spec file.
TEST_F(SpecInputTest, SpecCheckOfDevZeroExitsTwoAtOnce) {
  auto start = Clock::now();
  auto r = run_process({mace_binary(), "spec", "check", "/dev/zero"},
                       bounded(std::chrono::seconds(20)));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("cannot read /dev/zero: not a regular file"));
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(5));
}

// spec-hardening finding 2: standard input is allowed to be anything, and is read up to the limit.
TEST_F(SpecInputTest, SpecCheckReadsStandardInputOnlyUpToTheLimit) {
  auto start = Clock::now();
  auto r = run_process({"/bin/sh", "-c", mace_binary() + " spec check - < /dev/zero"},
                       bounded(std::chrono::seconds(20)));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("a run spec must be at most 262144 bytes of JSON, got more"));
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(5));
}

// spec-hardening finding 2: `mace verdict` on a FIFO waited for ever for a writer.
TEST_F(SpecInputTest, VerdictOnAFifoExitsTwoAtOnce) {
  const std::string fifo = dir_.file("sim.log");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto start = Clock::now();
  auto r = run_process({mace_binary(), "verdict", fifo}, bounded(std::chrono::seconds(20)));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("cannot read " + fifo + ": not a regular file"));
  EXPECT_EQ(r.out, "none\n");
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(5));

  r = run_process({mace_binary(), "verdict", "/dev/zero"}, bounded(std::chrono::seconds(20)));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("cannot read /dev/zero: not a regular file"));
}

// spec-hardening finding 2: a FIFO given as a spec file is refused too (standard input is "-").
TEST_F(SpecInputTest, SubmitOfAFifoIsRefused) {
  const std::string fifo = dir_.file("spec.json");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto r = mace({"submit", fifo});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("not a regular file (use - for standard input)"));
  EXPECT_TRUE(nothing_recorded());
}

}  // namespace
}  // namespace mace::testing
