// Builds on the fixture checkout, whose fake sims records every invocation.

#include "openpiton/builder.h"
#include "openpiton/rtl_edits.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include "openpiton/cache_defaults.h"
#include "support/child_process.h"
#include "support/fixture_checkout.h"

namespace mace::openpiton {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using ::testing::Contains;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

const VerilatorVersion kVerilator5{5, 6, "Verilator 5.006 2023-01-22 rev (Debian 5.006-3)"};

bool alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return false;
  const auto paren = text.rfind(')');
  return paren != std::string::npos && text.size() > paren + 2 && text[paren + 2] != 'Z';
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class BuilderTest : public ::testing::Test {
 protected:
  BuilderTest() : checkout_(fixture_.root()) {}

  BuildConfig pico_1x1() const {
    BuildConfig config;
    config.core = Core::pico;
    const auto defaults = read_cache_defaults(checkout_, Core::pico);
    EXPECT_TRUE(defaults.caches) << defaults.error;
    config.caches = defaults.caches.value_or(CacheSet{});
    config.rtl_defines = normalise_defines({});
    return config;
  }

  BuildOptions options() const {
    BuildOptions options;
    options.verilator = kVerilator5;
    options.kill_grace = milliseconds(500);
    options.timeout = std::chrono::seconds(60);
    return options;
  }

  BuildResult build_it(const BuildConfig& config) { return build(checkout_, config, options()); }

  void git(std::vector<std::string> arguments) const {
    std::vector<std::string> argv = {"git",
                                     "-C",
                                     fixture_.root(),
                                     "-c",
                                     "user.name=MACE test",
                                     "-c",
                                     "user.email=test@mace.invalid",
                                     "-c",
                                     "commit.gpgsign=false"};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    const auto result = mace::testing::run_process(argv);
    ASSERT_EQ(result.exit_code, 0) << result.err;
  }

  fs::path marker(const BuildResult& result) const {
    return fs::path(result.model_dir) / std::string(kBuildMarkerName);
  }

  mace::testing::FixtureCheckout fixture_;
  Checkout checkout_;
};

// REQ-EXEC-5, REQ-VER-12
TEST_F(BuilderTest, BuildSucceedsAndWritesTheMarker) {
  std::vector<std::string> lines;
  BuildOptions opts = options();
  opts.on_line = [&](std::string_view line) { lines.emplace_back(line); };
  const BuildConfig config = pico_1x1();
  const auto result = build(checkout_, config, opts);

  ASSERT_TRUE(result.success) << result.failure_reason << ": " << result.message << "\n"
                              << result.tail;
  EXPECT_FALSE(result.reused);
  EXPECT_EQ(result.failure_reason, Failure::none);
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.build_id, build_id(config));
  EXPECT_EQ(result.model_dir, checkout_.model_dir(result.build_id).string());
  EXPECT_TRUE(fs::exists(checkout_.model_binary(result.build_id)));
  EXPECT_THAT(result.error_lines, IsEmpty());
  EXPECT_GT(result.wall_seconds, 0);
  // What sims and its children used, as the kernel counted it (the fake is bash and a few
  // tools: some CPU, a few MiB).
  ASSERT_TRUE(result.usage.has_value());
  EXPECT_GT(result.usage->cpu_seconds, 0);
  EXPECT_GT(result.usage->peak_rss_bytes, 1 << 20);
  EXPECT_FALSE(lines.empty());
  EXPECT_FALSE(result.tail.empty());

  EXPECT_EQ(result.log_path, result.model_dir + "/mace_build.log");
  EXPECT_EQ(read_text(result.log_path).substr(0, 64), result.tail.substr(0, 64));

  ASSERT_EQ(result.fingerprint.digest.size(), 64u) << result.fingerprint_error;
  const std::string marker_text = read_text(marker(result));
  EXPECT_EQ(marker_text.substr(0, marker_text.find('\n')), result.fingerprint.digest);
  EXPECT_THAT(marker_text, HasSubstr(canonical_text(config)));

  ASSERT_EQ(fixture_.invocations("build"), 1);
  EXPECT_EQ(fixture_.invocation_args()[0],
            std::vector<std::string>(result.argv.begin() + 1, result.argv.end()));
}

// REQ-VER-12: a build does not change the fingerprint it was started with.
TEST_F(BuilderTest, SecondBuildIsReusedWithoutRunningSims) {
  const auto first = build_it(pico_1x1());
  ASSERT_TRUE(first.success) << first.message;
  const auto second = build_it(pico_1x1());
  EXPECT_TRUE(second.success);
  EXPECT_TRUE(second.reused);
  EXPECT_FALSE(second.usage.has_value()) << "no sims ran to measure";
  EXPECT_EQ(second.build_id, first.build_id);
  EXPECT_EQ(second.fingerprint.digest, first.fingerprint.digest);
  EXPECT_EQ(fixture_.invocations(), 1);
}

// REQ-VER-12
TEST_F(BuilderTest, ATrackedEditForcesARebuild) {
  ASSERT_TRUE(build_it(pico_1x1()).success);
  const std::string l15 = "piton/design/chip/tile/l15/rtl/l15.v";
  fixture_.write(l15, fixture_.read(l15) + "// an edit made outside an rtl task\n");
  const auto rebuilt = build_it(pico_1x1());
  EXPECT_TRUE(rebuilt.success);
  EXPECT_FALSE(rebuilt.reused);
  EXPECT_EQ(fixture_.invocations("build"), 2);
  EXPECT_TRUE(build_it(pico_1x1()).reused) << "and then it is reused again";
  EXPECT_EQ(fixture_.invocations("build"), 2);
}

// REQ-EXEC-17
TEST_F(BuilderTest, ABuildWithoutEditsFirstRestoresWhatAnInterruptedTaskLeft) {
  const std::string l15 = "piton/design/chip/tile/l15/rtl/l15.v";
  const std::string original = fixture_.read(l15);
  EditSet edits;
  edits.edits.push_back(TextReplacement{l15, "module l15 (", "FAKE_SYNTAX_ERROR module l15 ("});
  {
    AppliedEdits applied = apply_edits(fixture_.root(), edits);
    applied.release_without_restore();  // as if maced was killed mid-task
  }
  ASSERT_NE(fixture_.read(l15), original);

  const auto result = build_it(pico_1x1());
  EXPECT_TRUE(result.success) << result.message;
  EXPECT_EQ(fixture_.read(l15), original);
  EXPECT_THAT(result.restored_leftover_edits, ::testing::Contains(l15));
}

// REQ-VER-12
TEST_F(BuilderTest, AnUntrackedFileForcesARebuild) {
  ASSERT_TRUE(build_it(pico_1x1()).success);
  fixture_.write("piton/design/chip/tile/l15/rtl/l15_extra.v", "module l15_extra; endmodule\n");
  const auto rebuilt = build_it(pico_1x1());
  EXPECT_TRUE(rebuilt.success);
  EXPECT_FALSE(rebuilt.reused);
  EXPECT_EQ(fixture_.invocations("build"), 2);
}

// REQ-VER-12
TEST_F(BuilderTest, ANewCommitForcesARebuild) {
  ASSERT_TRUE(build_it(pico_1x1()).success);
  git({"commit", "-q", "--allow-empty", "-m", "another commit"});
  const auto rebuilt = build_it(pico_1x1());
  EXPECT_TRUE(rebuilt.success);
  EXPECT_FALSE(rebuilt.reused);
  EXPECT_EQ(fixture_.invocations("build"), 2);
}

// REQ-VER-12
TEST_F(BuilderTest, ANewVerilatorForcesARebuild) {
  ASSERT_TRUE(build_it(pico_1x1()).success);
  BuildOptions opts = options();
  opts.verilator = VerilatorVersion{5, 8, "Verilator 5.008 2023-03-04 rev v5.008"};
  const auto rebuilt = build(checkout_, pico_1x1(), opts);
  EXPECT_TRUE(rebuilt.success);
  EXPECT_FALSE(rebuilt.reused);
  EXPECT_EQ(fixture_.invocations("build"), 2);
}

// REQ-VER-12: ignored files (what a build itself writes) do not force a rebuild.
TEST_F(BuilderTest, IgnoredFilesDoNotForceARebuild) {
  ASSERT_TRUE(build_it(pico_1x1()).success);
  fixture_.write("piton/design/chip/tile/l15/rtl/other.tmp.v", "generated\n");
  fixture_.write("sims.log", "whatever\n");
  EXPECT_TRUE(build_it(pico_1x1()).reused);
  EXPECT_EQ(fixture_.invocations("build"), 1);
}

TEST_F(BuilderTest, AMissingBinaryForcesARebuild) {
  const auto first = build_it(pico_1x1());
  ASSERT_TRUE(first.success);
  fs::remove(checkout_.model_binary(first.build_id));
  EXPECT_FALSE(build_it(pico_1x1()).reused);
  EXPECT_EQ(fixture_.invocations("build"), 2);
}

// REQ-EXEC-5: each configuration has its own model.
TEST_F(BuilderTest, DifferentConfigurationsDoNotShareAModel) {
  ASSERT_TRUE(build_it(pico_1x1()).success);
  BuildConfig bigger = pico_1x1();
  bigger.caches.l2.size_bytes *= 2;
  const auto result = build_it(bigger);
  EXPECT_TRUE(result.success);
  EXPECT_FALSE(result.reused);
  EXPECT_NE(result.build_id, build_id(pico_1x1()));
  EXPECT_THAT(fixture_.invocation_args()[1], Contains("-config_l2_size=131072"));
}

TEST_F(BuilderTest, ABrokenDefineFailsWithTheErrorLine) {
  BuildConfig config = pico_1x1();
  config.rtl_defines = normalise_defines({"FAKE_BREAK_BUILD"});
  const auto result = build_it(config);
  EXPECT_FALSE(result.success);
  EXPECT_EQ(result.failure_reason, Failure::build_failed);
  EXPECT_NE(result.exit_code, 0);
  ASSERT_FALSE(result.error_lines.empty()) << result.tail;
  EXPECT_THAT(result.error_lines[0], ContainsRegex(R"(^%Error: .*/l15\.v:[0-9]+:[0-9]+: )"));
  for (const auto& line : result.error_lines) EXPECT_THAT(line, Not(HasSubstr("%Warning")));
  EXPECT_FALSE(fs::exists(marker(result)));
  EXPECT_FALSE(fs::exists(checkout_.model_binary(result.build_id)));
  EXPECT_THAT(read_text(result.log_path), HasSubstr("%Error"));
}

// A failed rebuild must not leave the earlier build's marker standing: restoring the
// source afterwards would otherwise reuse a model that the failed build may have clobbered.
TEST_F(BuilderTest, AFailedRebuildRemovesTheOldMarker) {
  const auto first = build_it(pico_1x1());
  ASSERT_TRUE(first.success);
  const std::string l15 = "piton/design/chip/tile/l15/rtl/l15.v";
  const std::string original = fixture_.read(l15);
  fixture_.write(l15, original + "FAKE_SYNTAX_ERROR\n");
  const auto broken = build_it(pico_1x1());
  EXPECT_EQ(broken.failure_reason, Failure::build_failed);
  ASSERT_FALSE(broken.error_lines.empty());
  EXPECT_THAT(broken.error_lines[0], HasSubstr("l15.v:"));
  EXPECT_FALSE(fs::exists(marker(first)));
  fixture_.write(l15, original);
  const auto again = build_it(pico_1x1());
  EXPECT_TRUE(again.success);
  EXPECT_FALSE(again.reused);
  EXPECT_EQ(fixture_.invocations("build"), 3);
}

TEST_F(BuilderTest, Verilator5NeedsNoTimingAndVerilator4DoesNot) {
  BuildOptions opts = options();
  opts.verilator = VerilatorVersion{4, 228, "Verilator 4.228 2022-10-29 rev v4.228"};
  const auto result = build(checkout_, pico_1x1(), opts);
  // The fake behaves like Verilator 5, so without --no-timing the build fails as it would.
  EXPECT_EQ(result.failure_reason, Failure::build_failed);
  ASSERT_FALSE(result.error_lines.empty());
  EXPECT_THAT(result.error_lines[0], HasSubstr("%Error-NEEDTIMINGOPT"));
}

// REQ-EXEC-6
TEST_F(BuilderTest, CoverageReachesSims) {
  BuildConfig config = pico_1x1();
  config.extra_flags = {"-vlt_build_args=--coverage-line"};
  ASSERT_TRUE(build_it(config).success);
  EXPECT_THAT(fixture_.invocation_args()[0], Contains("-vlt_build_args=--coverage-line"));
}

// REQ-EXEC-13
TEST_F(BuilderTest, WayRuleFailsBeforeAnythingRuns) {
  BuildConfig config = pico_1x1();
  config.core = Core::ariane;
  config.caches.l1d.associativity = 8;
  auto result = build_it(config);
  EXPECT_FALSE(result.success);
  EXPECT_EQ(result.failure_reason, Failure::way_rule);
  EXPECT_EQ(result.message, "l1d has 8 ways, more than the L1.5's 4");
  EXPECT_THAT(result.error_lines, Contains(HasSubstr("l1d")));

  config.caches.l1d.associativity = 4;
  config.caches.l1i.associativity = 16;
  result = build_it(config);
  EXPECT_EQ(result.failure_reason, Failure::way_rule);
  EXPECT_EQ(result.message, "l1i has 16 ways, more than the L1.5's 4");
  EXPECT_EQ(fixture_.invocations(), 0);
  EXPECT_FALSE(fs::exists(checkout_.model_dir(result.build_id)));
}

// REQ-BUD-11
TEST_F(BuilderTest, NoTimeLeftStartsNothing) {
  for (auto timeout : {milliseconds(0), milliseconds(-5000)}) {
    BuildOptions opts = options();
    opts.timeout = timeout;
    const auto result = build(checkout_, pico_1x1(), opts);
    EXPECT_FALSE(result.success);
    EXPECT_EQ(result.failure_reason, Failure::budget_exhausted);
  }
  EXPECT_EQ(fixture_.invocations(), 0);
}

// REQ-BUD-11: the limit the caller passes is enforced on the whole process group.
TEST_F(BuilderTest, TimeoutKillsTheWholeGroup) {
  fixture_.set_control("build", "hang");
  BuildOptions opts = options();
  opts.timeout = milliseconds(1500);
  const auto start = std::chrono::steady_clock::now();
  const auto result = build(checkout_, pico_1x1(), opts);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_FALSE(result.success);
  EXPECT_EQ(result.failure_reason, Failure::timeout);
  EXPECT_LT(seconds, 10);
  const auto pids = fixture_.recorded_pids();
  EXPECT_GE(pids.size(), 2u) << "the fake records sims and a grandchild";
  for (pid_t pid : pids) EXPECT_FALSE(alive(pid)) << pid << " outlived the timeout";
  EXPECT_FALSE(fs::exists(marker(result)));
}

TEST_F(BuilderTest, CancelStopsARunningBuild) {
  fixture_.set_control("build_sleep", "60");
  os::CancelToken token;
  BuildOptions opts = options();
  opts.cancel = &token;
  std::thread canceller([&] {
    mace::testing::eventually([&] { return fixture_.invocations("build") == 1; });
    std::this_thread::sleep_for(milliseconds(200));
    token.cancel();
  });
  const auto start = std::chrono::steady_clock::now();
  const auto result = build(checkout_, pico_1x1(), opts);
  canceller.join();
  EXPECT_EQ(result.failure_reason, Failure::cancelled);
  EXPECT_FALSE(result.success);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 20);
  EXPECT_FALSE(fs::exists(marker(result)));
}

TEST_F(BuilderTest, AlreadyCancelledStartsNothing) {
  os::CancelToken token;
  token.cancel();
  BuildOptions opts = options();
  opts.cancel = &token;
  EXPECT_EQ(build(checkout_, pico_1x1(), opts).failure_reason, Failure::cancelled);
  EXPECT_EQ(fixture_.invocations(), 0);
}

TEST_F(BuilderTest, AnUnsafeConfigurationIsRefused) {
  BuildConfig config = pico_1x1();
  config.rtl_defines = {"FOO; rm -rf /"};
  const auto result = build_it(config);
  EXPECT_EQ(result.failure_reason, Failure::invalid_config);
  EXPECT_THAT(result.message, HasSubstr("FOO; rm -rf /"));
  EXPECT_EQ(fixture_.invocations(), 0);
}

TEST_F(BuilderTest, ExitZeroWithoutABinaryIsNotASuccess) {
  fixture_.write("piton/tools/bin/sims", "#!/bin/sh\necho 'pretending to build'\nexit 0\n");
  const auto result = build_it(pico_1x1());
  EXPECT_FALSE(result.success);
  EXPECT_EQ(result.failure_reason, Failure::no_model_binary);
  EXPECT_FALSE(fs::exists(marker(result)));
}

TEST_F(BuilderTest, SimsThatCannotRunIsALaunchFailure) {
  ASSERT_EQ(chmod((fixture_.root() + "/piton/tools/bin/sims").c_str(), 0644), 0);
  const auto result = build_it(pico_1x1());
  EXPECT_EQ(result.failure_reason, Failure::launch_failed);
  EXPECT_FALSE(result.message.empty());
}

// The make wrapper that bounds sims' `make -j`.
TEST_F(BuilderTest, MaxParallelismBoundsMake) {
  BuildOptions opts = options();
  opts.max_parallelism = 3;
  const auto result = build(checkout_, pico_1x1(), opts);
  ASSERT_TRUE(result.success) << result.message;
  const fs::path wrapper = fs::path(result.model_dir) / ".mace_tools/make";
  ASSERT_TRUE(fs::exists(wrapper));
  mace::testing::TempDir dir;
  dir.write("Makefile", "all:\n\t@echo flags:$(MAKEFLAGS)\n");
  const auto made = mace::testing::run_process({wrapper.string(), "-j", "-C", dir.path(), "all"});
  EXPECT_EQ(made.exit_code, 0) << made.err;
  EXPECT_THAT(made.out, HasSubstr("-j3"));
}

// The real Verilator on this machine, through the checkout's PATH.
TEST_F(BuilderTest, DetectsVerilatorWhenNotTold) {
  if (system("command -v verilator >/dev/null 2>&1") != 0) GTEST_SKIP() << "no verilator";
  BuildOptions opts = options();
  opts.verilator.reset();
  const auto result = build(checkout_, pico_1x1(), opts);
  ASSERT_TRUE(result.success) << result.message;
  EXPECT_THAT(result.verilator.text, ::testing::StartsWith("Verilator "));
  EXPECT_EQ(result.fingerprint.verilator_version, result.verilator.text);
}

TEST(BuilderErrorLines, PicksErrorsAndNotWarnings) {
  EXPECT_TRUE(
      is_build_error_line("%Error: /p/piton/design/chip/tile/pico/rtl/picorv32.v:3096:1: syntax "
                          "error, unexpected this"));
  EXPECT_TRUE(is_build_error_line(
      "%Error-NEEDTIMINGOPT: /p/pc_cmp.tmp.v:661:5: Use --timing or --no-timing"));
  EXPECT_TRUE(is_build_error_line("  %Error: Exiting due to 1 error(s)"));
  EXPECT_TRUE(is_build_error_line("Vcmp_top.cpp:12:3: error: 'x' was not declared in this scope"));
  EXPECT_TRUE(is_build_error_line("cc1plus: fatal error: Vcmp_top.h: No such file or directory"));
  EXPECT_TRUE(is_build_error_line("make: *** [Vcmp_top.mk:60: Vcmp_top] Error 1"));
  EXPECT_TRUE(is_build_error_line("make[1]: *** [verilated.mk:261: Vcmp_top__1.o] Error 1"));
  EXPECT_TRUE(is_build_error_line("DIE. network_config can only be xbar_config or 2dmesh_config"));
  EXPECT_TRUE(is_build_error_line(
      "sims: Caught a SIGDIE. failed building model at /p/sims,2.0 line 1572."));
  EXPECT_FALSE(
      is_build_error_line("%Warning-WIDTH: /p/l15.v:10:3: Operator ASSIGN expects 8 bits"));
  EXPECT_FALSE(is_build_error_line("%Warning-UNOPTFLAT: /p/a.v:1:1: Signal unoptimizable"));
  EXPECT_FALSE(is_build_error_line("sims: make -j -C /p/obj_dir -f Vcmp_top.mk Vcmp_top"));
  EXPECT_FALSE(is_build_error_line("g++ -c error_handler.cpp"));
  EXPECT_FALSE(is_build_error_line(""));
}

}  // namespace
}  // namespace mace::openpiton

namespace mace::openpiton {
namespace {

// REQ-EVAL-4: a checkout's MACE models go, under every system; sims' own and other files stay.
TEST(RemoveMaceModelsTest, RemovesOnlyMacesModels) {
  mace::testing::FixtureCheckout fixture;
  const std::filesystem::path root = fixture.root();
  for (const char* dir : {"build/manycore/mace_0123", "build/manycore/pico1x1", "build/unit_env/mace_4567",
                          "build/.mace_staging/mace_x"})
    std::filesystem::create_directories(root / dir / "obj_dir");
  const Checkout checkout(root);
  EXPECT_EQ(checkout.remove_mace_models(),
            (std::vector<std::string>{"build/manycore/mace_0123", "build/unit_env/mace_4567"}));
  EXPECT_TRUE(std::filesystem::exists(root / "build/manycore/pico1x1"));
  EXPECT_TRUE(std::filesystem::exists(root / "build/.mace_staging/mace_x"));
  EXPECT_TRUE(checkout.remove_mace_models().empty());
}

}  // namespace
}  // namespace mace::openpiton
