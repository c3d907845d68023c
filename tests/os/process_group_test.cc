#include "os/environment.h"
#include "os/process_group.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/child_process.h"

namespace mace::os {
namespace {

using std::chrono::milliseconds;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;

// A shell script with a minimal environment, a safety timeout, and a short grace period.
ProcessSpec shell(const std::string& script) {
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", script};
  spec.env = {{"PATH", "/usr/bin:/bin"}};
  spec.timeout = milliseconds(20000);
  spec.kill_grace = milliseconds(300);
  return spec;
}

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// /proc/<pid>/stat fields: state and process group. False when the process is gone.
bool proc_stat(pid_t pid, char& state, pid_t& pgrp) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(in, text)) return false;
  auto paren = text.rfind(')');
  if (paren == std::string::npos) return false;
  std::istringstream rest(text.substr(paren + 1));
  int ppid = 0;
  rest >> state >> ppid >> pgrp;
  return static_cast<bool>(rest);
}

// Running, i.e. neither gone nor a zombie waiting for init to reap it.
bool alive(pid_t pid) {
  char state = 0;
  pid_t pgrp = 0;
  return proc_stat(pid, state, pgrp) && state != 'Z' && state != 'X';
}

std::vector<pid_t> live_members(pid_t pgid) {
  std::vector<pid_t> found;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    pid_t pid = std::stoi(name);
    char state = 0;
    pid_t pgrp = 0;
    if (proc_stat(pid, state, pgrp) && pgrp == pgid && state != 'Z' && state != 'X')
      found.push_back(pid);
  }
  return found;
}

// kill(-pgid, 0) also counts zombies, which an init that reaps lazily (as in some containers)
// may leave around for a couple of seconds, so this one is checked with `eventually`.
bool group_gone(pid_t pgid) { return ::kill(-pgid, 0) == -1 && errno == ESRCH; }

void expect_group_dead(pid_t pgid) {
  ASSERT_GT(pgid, 0);
  EXPECT_THAT(live_members(pgid), ::testing::IsEmpty()) << "live members of group " << pgid;
  EXPECT_TRUE(mace::testing::eventually([&] { return group_gone(pgid); }, milliseconds(5000)))
      << "kill(-" << pgid << ", 0) still finds the group";
}

std::vector<pid_t> read_pids(const std::string& path) {
  std::ifstream in(path);
  std::vector<pid_t> pids;
  pid_t pid;
  while (in >> pid) pids.push_back(pid);
  return pids;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string last_bytes_of_file(const std::string& path, std::size_t n) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  const auto size = static_cast<std::size_t>(in.tellg());
  const std::size_t take = std::min(n, size);
  in.seekg(static_cast<std::streamoff>(size - take));
  std::string out(take, '\0');
  in.read(out.data(), static_cast<std::streamsize>(take));
  return out;
}

long max_rss_kib() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

// ---- Resource usage -----------------------------------------------------------------------

// A build's CPU time and peak memory are its compilers': processes the leader's children
// start and wait for. Here a grandchild spins and another holds 96 MiB of touched memory.
TEST(ProcessGroup, ReportsTheCpuTimeAndPeakMemoryOfTheLeaderAndWhatItWaitedFor) {
  ProcessResult result = run_process_group(shell(
      "sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'; "
      "python3 -c 'b = bytearray(96 << 20); b[::4096] = b\"x\" * len(b[::4096])'"));
  ASSERT_TRUE(result.succeeded()) << result.error << result.tail;
  ASSERT_TRUE(result.usage.has_value());
  EXPECT_GT(result.usage->cpu_seconds, 0.1);
  EXPECT_LE(result.usage->cpu_seconds, result.wall_seconds * 2 + 0.1);  // two cores at most
  EXPECT_GT(result.usage->peak_rss_bytes, std::int64_t{96} << 20);
  EXPECT_LT(result.usage->peak_rss_bytes, std::int64_t{512} << 20);
}

TEST(ProcessGroup, ReportsNoUsageWhenNothingRan) {
  ProcessSpec spec = shell("true");
  spec.argv = {"/no/such/program"};
  ProcessResult result = run_process_group(spec);
  ASSERT_TRUE(result.launch_failed);
  EXPECT_FALSE(result.usage.has_value());
}

// ---- Exit status --------------------------------------------------------------------------

TEST(ProcessGroup, ExitCodesPassThrough) {
  for (int code : {0, 3, 255}) {
    ProcessResult result = run_process_group(shell("exit " + std::to_string(code)));
    EXPECT_FALSE(result.launch_failed) << result.error;
    EXPECT_EQ(result.exit_code, code);
    EXPECT_EQ(result.term_signal, 0);
    EXPECT_FALSE(result.timed_out);
    EXPECT_FALSE(result.cancelled);
    EXPECT_GT(result.pid, 0);
    EXPECT_EQ(result.succeeded(), code == 0);
  }
}

TEST(ProcessGroup, LeaderKilledBySignalReportsTheSignalAndNoExitCode) {
  ProcessResult result = run_process_group(shell("kill -USR1 $$; sleep 5"));
  EXPECT_EQ(result.exit_code, -1);
  EXPECT_EQ(result.term_signal, SIGUSR1);
  EXPECT_FALSE(result.timed_out);
  EXPECT_FALSE(result.succeeded());
}

// A runaway writer stops at the file size limit instead of filling the disk: the write past
// it fails and the writer gets SIGXFSZ, as does everything it starts.
TEST(ProcessGroup, AFileSizeLimitStopsAWriterAndItsChildrenAtTheLimit) {
  char dir_template[] = "/tmp/mace-fsize-XXXXXX";
  ASSERT_NE(::mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  ProcessSpec spec = shell("head -c 3000000 /dev/zero > direct; sh -c 'head -c 3000000 /dev/zero > nested'; exit 7");
  spec.working_dir = dir;
  spec.max_file_bytes = 1 << 20;
  ProcessResult result = run_process_group(spec);
  EXPECT_EQ(result.exit_code, 7) << "the shell itself wrote nothing past the limit";
  EXPECT_EQ(std::filesystem::file_size(dir + "/direct"), 1u << 20);
  EXPECT_EQ(std::filesystem::file_size(dir + "/nested"), 1u << 20);
  std::filesystem::remove_all(dir);
}

TEST(ProcessGroup, ChildRunsAsLeaderOfItsOwnSessionAndGroup) {
  ProcessResult result = run_process_group(shell("ps -o pid=,pgid=,sid= -p $$ | awk '{print $1, $2, $3}'"));
  ASSERT_EQ(result.exit_code, 0) << result.tail;
  const std::string me = std::to_string(result.pid);
  EXPECT_EQ(result.tail, me + " " + me + " " + me + "\n");
  EXPECT_NE(::getpgid(0), result.pid);
}

// ---- Environment, directory, descriptors, signals -------------------------------------------

TEST(ProcessGroup, EnvironmentIsExactlyWhatWasGiven) {
  ::setenv("MACE_PROCESS_GROUP_TEST_LEAK", "1", 1);
  ProcessSpec spec;
  spec.argv = {"/usr/bin/env"};
  spec.env = {{"PATH", "/usr/bin:/bin"}, {"FOO", "bar baz"}, {"EMPTY", ""}};
  ProcessResult result = run_process_group(spec);
  ::unsetenv("MACE_PROCESS_GROUP_TEST_LEAK");
  ASSERT_EQ(result.exit_code, 0) << result.error;
  EXPECT_EQ(result.tail, "EMPTY=\nFOO=bar baz\nPATH=/usr/bin:/bin\n");
}

TEST(ProcessGroup, EmptyEnvironmentMeansNoVariablesAtAll) {
  ProcessSpec spec;
  spec.argv = {"/usr/bin/env"};
  ProcessResult result = run_process_group(spec);
  ASSERT_EQ(result.exit_code, 0) << result.error;
  EXPECT_EQ(result.tail, "");
  EXPECT_EQ(result.output_bytes, 0u);
}

TEST(ProcessGroup, InheritedEnvironmentCopiesTheDaemonsOwn) {
  ::setenv("MACE_PROCESS_GROUP_TEST_COPY", "yes", 1);
  auto env = inherited_environment();
  ::unsetenv("MACE_PROCESS_GROUP_TEST_COPY");
  EXPECT_EQ(env["MACE_PROCESS_GROUP_TEST_COPY"], "yes");
}

TEST(ProcessGroup, BareProgramNameIsSearchedInTheGivenPath) {
  ProcessSpec spec;
  spec.argv = {"printenv", "X"};
  spec.env = {{"PATH", "/nonexistent-mace-dir:/usr/bin:/bin"}, {"X", "found"}};
  ProcessResult result = run_process_group(spec);
  ASSERT_FALSE(result.launch_failed) << result.error;
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.tail, "found\n");

  spec.env["PATH"] = "/nonexistent-mace-dir";
  result = run_process_group(spec);
  EXPECT_TRUE(result.launch_failed);
  EXPECT_THAT(result.error, HasSubstr("cannot execute 'printenv'"));
  EXPECT_THAT(result.error, HasSubstr("No such file or directory"));
  EXPECT_THAT(result.error, HasSubstr("searched PATH=/nonexistent-mace-dir"));
}

TEST(ProcessGroup, WorkingDirectoryIsHonouredAlsoForRelativeProgramPaths) {
  mace::testing::TempDir dir;
  dir.write("hello.sh", "#!/bin/sh\necho \"hello from $(/bin/pwd -P)\"\n");
  ASSERT_EQ(::chmod(dir.file("hello.sh").c_str(), 0755), 0);
  const std::string real = std::filesystem::canonical(dir.path()).string();

  ProcessSpec spec;
  spec.argv = {"./hello.sh"};
  spec.env = {{"PATH", "/usr/bin:/bin"}};
  spec.working_dir = dir.path();
  ProcessResult result = run_process_group(spec);
  ASSERT_FALSE(result.launch_failed) << result.error;
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.tail, "hello from " + real + "\n");
}

TEST(ProcessGroup, ChildStartsWithNoBlockedOrIgnoredSignals) {
  sigset_t block, old_mask;
  sigemptyset(&block);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGUSR2);
  ASSERT_EQ(::pthread_sigmask(SIG_BLOCK, &block, &old_mask), 0);
  struct sigaction ignore {}, old_pipe {};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(::sigaction(SIGPIPE, &ignore, &old_pipe), 0);

  ProcessSpec spec;
  spec.argv = {"/bin/grep", "-E", "^Sig(Blk|Ign):", "/proc/self/status"};
  ProcessResult result = run_process_group(spec);

  ::sigaction(SIGPIPE, &old_pipe, nullptr);
  ::pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  ASSERT_EQ(result.exit_code, 0) << result.error;
  EXPECT_EQ(result.tail, "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n");
}

TEST(ProcessGroup, ChildInheritsNoStrayDescriptorsAndReadsDevNull) {
  int stray = ::open("/dev/null", O_RDONLY);  // deliberately without O_CLOEXEC
  ASSERT_GE(stray, 3);
  ProcessResult result = run_process_group(
      shell("if [ -e /proc/$$/fd/" + std::to_string(stray) +
            " ]; then echo leaked; else echo clean; fi; readlink /proc/$$/fd/0; cat"));
  ::close(stray);
  ASSERT_EQ(result.exit_code, 0) << result.error;
  EXPECT_EQ(result.tail, "clean\n/dev/null\n");
}

// ---- Launch failures ------------------------------------------------------------------------

TEST(ProcessGroup, MissingProgramIsLaunchFailedWithAMessage) {
  ProcessSpec spec;
  spec.argv = {"/nonexistent/mace-no-such-program", "arg"};
  ProcessResult result = run_process_group(spec);
  EXPECT_TRUE(result.launch_failed);
  EXPECT_THAT(result.error, HasSubstr("cannot execute '/nonexistent/mace-no-such-program'"));
  EXPECT_THAT(result.error, HasSubstr("No such file or directory"));
  EXPECT_EQ(result.exit_code, -1);
  EXPECT_EQ(result.pid, -1);
  EXPECT_FALSE(result.succeeded());
}

TEST(ProcessGroup, NonExecutableFileIsLaunchFailedWithPermissionDenied) {
  mace::testing::TempDir dir;
  dir.write("not-executable", "#!/bin/sh\necho should not run\n");
  ASSERT_EQ(::chmod(dir.file("not-executable").c_str(), 0644), 0);
  ProcessSpec spec;
  spec.argv = {dir.file("not-executable")};
  ProcessResult result = run_process_group(spec);
  // Root may execute a file without x bits only if some x bit is set, so this holds for root.
  EXPECT_TRUE(result.launch_failed);
  EXPECT_THAT(result.error, HasSubstr("Permission denied"));
}

TEST(ProcessGroup, MissingWorkingDirectoryIsLaunchFailed) {
  ProcessSpec spec = shell("echo ran");
  spec.working_dir = "/nonexistent/mace-no-such-dir";
  ProcessResult result = run_process_group(spec);
  EXPECT_TRUE(result.launch_failed);
  EXPECT_THAT(result.error,
              HasSubstr("cannot change directory to '/nonexistent/mace-no-such-dir'"));
  EXPECT_EQ(result.tail, "");
}

TEST(ProcessGroup, BadSpecsAreLaunchFailedWithoutRunningAnything) {
  ProcessSpec empty;
  ProcessResult result = run_process_group(empty);
  EXPECT_TRUE(result.launch_failed);
  EXPECT_THAT(result.error, HasSubstr("empty argv"));

  ProcessSpec bad_env = shell("exit 0");
  bad_env.env["A=B"] = "c";
  result = run_process_group(bad_env);
  EXPECT_TRUE(result.launch_failed);
  EXPECT_THAT(result.error, HasSubstr("invalid environment variable name 'A=B'"));

  ProcessSpec bad_log = shell("exit 0");
  bad_log.log_path = "/nonexistent/mace-dir/build.log";
  result = run_process_group(bad_log);
  EXPECT_TRUE(result.launch_failed);
  EXPECT_THAT(result.error, HasSubstr("cannot open log file '/nonexistent/mace-dir/build.log'"));
}

// ---- Output ---------------------------------------------------------------------------------

TEST(ProcessGroup, LogFileHoldsEverythingAndTailHoldsTheLastBytes) {
  mace::testing::TempDir dir;
  std::string expected;
  for (int i = 0; i < 5000; ++i) expected += "line " + std::to_string(i) + "\n";
  ProcessSpec spec = shell("i=0; while [ $i -lt 5000 ]; do echo \"line $i\"; i=$((i+1)); done");
  spec.log_path = dir.file("build.log");
  spec.tail_bytes = 100;
  ProcessResult result = run_process_group(spec);
  ASSERT_EQ(result.exit_code, 0) << result.error;
  EXPECT_EQ(read_file(spec.log_path), expected);
  EXPECT_EQ(result.tail, expected.substr(expected.size() - 100));
  EXPECT_EQ(result.output_bytes, expected.size());
  EXPECT_EQ(result.log_error, "");
}

TEST(ProcessGroup, LogFileIsTruncatedUnlessAppendIsAsked) {
  mace::testing::TempDir dir;
  dir.write("build.log", "old\n");
  ProcessSpec spec = shell("echo new");
  spec.log_path = dir.file("build.log");
  spec.log_append = true;
  run_process_group(spec);
  EXPECT_EQ(read_file(spec.log_path), "old\nnew\n");
  spec.log_append = false;
  run_process_group(spec);
  EXPECT_EQ(read_file(spec.log_path), "new\n");
}

TEST(ProcessGroup, StandardOutputAndErrorAreMergedInOrder) {
  mace::testing::TempDir dir;
  ProcessSpec spec = shell("echo out1; echo err1 >&2; echo out2; echo err2 >&2");
  spec.log_path = dir.file("build.log");
  ProcessResult result = run_process_group(spec);
  EXPECT_EQ(result.tail, "out1\nerr1\nout2\nerr2\n");
  EXPECT_EQ(read_file(spec.log_path), "out1\nerr1\nout2\nerr2\n");
}

TEST(ProcessGroup, LinesAreDeliveredWithoutLineEndingsIncludingAnUnterminatedLast) {
  std::vector<std::string> lines;
  ProcessSpec spec = shell("printf 'first\\r\\nsecond\\n\\nlast'");
  spec.on_line = [&](std::string_view line) { lines.emplace_back(line); };
  ProcessResult result = run_process_group(spec);
  ASSERT_EQ(result.exit_code, 0);
  EXPECT_THAT(lines, ElementsAre("first", "second", "", "last"));
  EXPECT_EQ(result.tail, "first\r\nsecond\n\nlast");
}

TEST(ProcessGroup, ErrorLinePredicateKeepsTheFirstMatchesAndCountsAll) {
  ProcessSpec spec = shell(
      "echo 'make: entering directory'\n"
      "echo '%Error: dut.v:12:3: Cannot find file containing module: foo'\n"
      "echo 'verilating...' >&2\n"
      "echo 'tile.cc:3:1: error: expected ; before }' >&2\n"
      "echo '%Warning-WIDTH: dut.v:20:1: width mismatch'\n"
      "echo '%Error: dut.v:40:7: syntax error'\n"
      "exit 2");
  spec.is_error_line = [](std::string_view line) {
    return line.starts_with("%Error") || line.find(": error:") != std::string_view::npos;
  };
  spec.max_error_lines = 2;
  ProcessResult result = run_process_group(spec);
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.error_lines,
              ElementsAre("%Error: dut.v:12:3: Cannot find file containing module: foo",
                          "tile.cc:3:1: error: expected ; before }"));
  EXPECT_EQ(result.error_lines_total, 3u);
}

TEST(ProcessGroup, HugeOutputGoesToTheLogInFullWithoutGrowingMemory) {
  mace::testing::TempDir dir;
  constexpr std::uint64_t kBytes = 200'000'000;
  // "0123456789abcdefghij\n" is 21 bytes: 9,523,809 full lines and an unterminated 11 bytes.
  ProcessSpec spec = shell("yes 0123456789abcdefghij | head -c " + std::to_string(kBytes));
  spec.log_path = dir.file("huge.log");
  spec.tail_bytes = 4096;
  std::uint64_t lines = 0;
  spec.on_line = [&](std::string_view) { ++lines; };
  const long rss_before = max_rss_kib();
  ProcessResult result = run_process_group(spec);
  const long rss_growth_kib = max_rss_kib() - rss_before;

  ASSERT_EQ(result.exit_code, 0) << result.error;
  EXPECT_EQ(result.output_bytes, kBytes);
  EXPECT_EQ(std::filesystem::file_size(spec.log_path), kBytes);
  EXPECT_EQ(lines, 9'523'810u);
  ASSERT_EQ(result.tail.size(), 4096u);
  EXPECT_EQ(result.tail, last_bytes_of_file(spec.log_path, 4096));
  EXPECT_TRUE(result.tail.ends_with("\n0123456789a"));
  EXPECT_LT(rss_growth_kib, 32 * 1024) << "peak memory grew by " << rss_growth_kib << " KiB";
}

TEST(ProcessGroup, FiftyMegabyteLineWithoutNewlineIsCappedButLoggedInFull) {
  mace::testing::TempDir dir;
  ProcessSpec spec = shell(
      "head -c 50000000 /dev/zero | tr '\\0' a; printf '\\nerror: after the long line\\n'");
  spec.log_path = dir.file("long.log");
  spec.max_line_bytes = 1024;
  std::vector<std::string> lines;
  spec.on_line = [&](std::string_view line) { lines.emplace_back(line); };
  spec.is_error_line = [](std::string_view line) { return line.starts_with("error:"); };
  const long rss_before = max_rss_kib();
  ProcessResult result = run_process_group(spec);
  const long rss_growth_kib = max_rss_kib() - rss_before;

  ASSERT_EQ(result.exit_code, 0) << result.error;
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], std::string(1024, 'a'));
  EXPECT_EQ(lines[1], "error: after the long line");
  EXPECT_THAT(result.error_lines, ElementsAre("error: after the long line"));
  EXPECT_EQ(std::filesystem::file_size(spec.log_path), 50'000'000u + 28u);
  EXPECT_EQ(last_bytes_of_file(spec.log_path, 30), "aa\nerror: after the long line\n");
  EXPECT_LT(rss_growth_kib, 16 * 1024) << "peak memory grew by " << rss_growth_kib << " KiB";
}

TEST(ProcessGroup, ThrowingLineCallbackKillsTheGroupAndPropagates) {
  mace::testing::TempDir dir;
  ProcessSpec spec = shell("echo $$ > '" + dir.file("pids") + "'; sleep 1000 & echo $! >> '" +
                           dir.file("pids") + "'; echo boom; wait");
  spec.on_line = [](std::string_view line) {
    if (line == "boom") throw std::runtime_error("callback failed");
  };
  EXPECT_THROW(run_process_group(spec), std::runtime_error);
  auto pids = read_pids(dir.file("pids"));
  ASSERT_EQ(pids.size(), 2u);
  EXPECT_FALSE(alive(pids[0]));
  EXPECT_TRUE(mace::testing::eventually([&] { return !alive(pids[1]); }, milliseconds(2000)));
}

// ---- Stopping the group -----------------------------------------------------------------------

TEST(ProcessGroup, TimeoutKillsTheWholeTreeEvenWhenItIgnoresSigterm) {
  mace::testing::TempDir dir;
  const std::string pids_file = dir.file("pids");
  ProcessSpec spec = shell("trap '' TERM; echo $$ > '" + pids_file +
                           "'; sleep 1000 & echo $! >> '" + pids_file +
                           "'; sleep 1000 & echo $! >> '" + pids_file + "'; wait");
  spec.timeout = milliseconds(300);
  spec.kill_grace = milliseconds(300);
  ProcessResult result = run_process_group(spec);

  EXPECT_TRUE(result.timed_out);
  EXPECT_FALSE(result.cancelled);
  EXPECT_FALSE(result.launch_failed);
  EXPECT_EQ(result.exit_code, -1);
  EXPECT_EQ(result.term_signal, SIGKILL);  // SIGTERM was ignored, so it took the SIGKILL
  EXPECT_GE(result.wall_seconds, 0.55);
  EXPECT_LT(result.wall_seconds, 3.0);
  EXPECT_EQ(result.stragglers_killed, 0);

  auto pids = read_pids(pids_file);
  ASSERT_EQ(pids.size(), 3u);
  EXPECT_EQ(pids[0], result.pid);
  for (pid_t pid : pids) EXPECT_FALSE(alive(pid)) << "pid " << pid;
  expect_group_dead(result.pid);
}

TEST(ProcessGroup, TimeoutWithoutGraceNeedsNoSigkillWhenTheTreeObeysSigterm) {
  ProcessSpec spec = shell("sleep 1000");
  spec.argv = {"/bin/sleep", "1000"};
  spec.timeout = milliseconds(200);
  spec.kill_grace = milliseconds(10000);
  ProcessResult result = run_process_group(spec);
  EXPECT_TRUE(result.timed_out);
  EXPECT_EQ(result.term_signal, SIGTERM);
  EXPECT_LT(result.wall_seconds, 2.0);  // did not sit out the 10 s grace period
}

TEST(ProcessGroup, CancelFromAnotherThreadStopsTheGroupPromptly) {
  mace::testing::TempDir dir;
  const std::string pids_file = dir.file("pids");
  ProcessSpec spec = shell("trap '' TERM; echo $$ > '" + pids_file +
                           "'; sleep 1000 & echo $! >> '" + pids_file + "'; wait");
  spec.timeout = milliseconds(0);  // none: only the cancel can stop it
  spec.kill_grace = milliseconds(200);
  CancelToken token;
  std::atomic<Clock::time_point::rep> cancelled_at{0};
  std::thread canceller([&] {
    mace::testing::eventually([&] { return read_pids(pids_file).size() == 2; });
    cancelled_at = Clock::now().time_since_epoch().count();
    token.cancel();
  });
  ProcessResult result = run_process_group(spec, &token);
  const auto returned_at = Clock::now();
  canceller.join();

  EXPECT_TRUE(result.cancelled);
  EXPECT_FALSE(result.timed_out);
  EXPECT_EQ(result.term_signal, SIGKILL);
  const double latency = std::chrono::duration<double>(
      returned_at - Clock::time_point(Clock::duration(cancelled_at.load()))).count();
  EXPECT_LT(latency, 2.0);
  EXPECT_GE(latency, 0.19);  // the grace period was honoured
  auto pids = read_pids(pids_file);
  ASSERT_EQ(pids.size(), 2u);
  for (pid_t pid : pids) EXPECT_FALSE(alive(pid)) << "pid " << pid;
  expect_group_dead(result.pid);
}

TEST(ProcessGroup, CancelWakesTheRunnerAtOnceNotAfterTheGracePeriod) {
  ProcessSpec spec;
  spec.argv = {"/bin/sleep", "1000"};
  spec.kill_grace = milliseconds(10000);
  CancelToken token;
  std::thread canceller([&] {
    std::this_thread::sleep_for(milliseconds(100));
    token.cancel();
  });
  const auto started = Clock::now();
  ProcessResult result = run_process_group(spec, &token);
  canceller.join();
  EXPECT_TRUE(result.cancelled);
  EXPECT_EQ(result.term_signal, SIGTERM);
  EXPECT_LT(seconds_since(started), 1.0);
}

TEST(ProcessGroup, AlreadyCancelledTokenRunsNothing) {
  mace::testing::TempDir dir;
  CancelToken token;
  token.cancel();
  token.cancel();  // idempotent
  EXPECT_TRUE(token.cancelled());
  ProcessResult result = run_process_group(shell("touch '" + dir.file("ran") + "'"), &token);
  EXPECT_TRUE(result.cancelled);
  EXPECT_FALSE(result.launch_failed);
  EXPECT_EQ(result.pid, -1);
  EXPECT_FALSE(std::filesystem::exists(dir.file("ran")));
}

TEST(ProcessGroup, OneTokenCancelsSeveralRuns) {
  CancelToken token;
  std::vector<ProcessResult> results(3);
  std::vector<std::thread> runners;
  for (auto& slot : results) {
    runners.emplace_back([&slot, &token] {
      ProcessSpec spec;
      spec.argv = {"/bin/sleep", "1000"};
      slot = run_process_group(spec, &token);
    });
  }
  std::this_thread::sleep_for(milliseconds(200));
  const auto cancelled = Clock::now();
  token.cancel();
  for (auto& runner : runners) runner.join();
  EXPECT_LT(seconds_since(cancelled), 1.5);
  for (const auto& result : results) {
    EXPECT_TRUE(result.cancelled);
    EXPECT_EQ(result.term_signal, SIGTERM);
  }
}

TEST(ProcessGroup, LeftoverProcessesInTheGroupAreKilledWhenTheLeaderExits) {
  mace::testing::TempDir dir;
  const std::string pids_file = dir.file("pids");
  // One helper keeps the output pipe open; the other detaches its output, ignores TERM and
  // HUP, and only becomes its final program after the leader is gone (a daemonizing tool).
  ProcessSpec spec = shell("sleep 1000 & echo $! > '" + pids_file +
                           "'\n"
                           "( trap '' TERM HUP; sleep 0.5; exec sleep 1000 ) >/dev/null 2>&1 </dev/null &\n"
                           "echo $! >> '" + pids_file + "'\n"
                           "echo leader done; exit 4");
  ProcessResult result = run_process_group(spec);

  EXPECT_EQ(result.exit_code, 4);
  EXPECT_FALSE(result.timed_out);
  EXPECT_EQ(result.tail, "leader done\n");
  EXPECT_GE(result.stragglers_killed, 2);  // plus the subshell's `sleep 0.5` if started
  EXPECT_FALSE(result.output_abandoned);
  EXPECT_LT(result.wall_seconds, 2.0);
  auto pids = read_pids(pids_file);
  ASSERT_EQ(pids.size(), 2u);
  for (pid_t pid : pids) EXPECT_FALSE(alive(pid)) << "pid " << pid;
  expect_group_dead(result.pid);
  // And it stays dead: the delayed `exec sleep` never happens.
  std::this_thread::sleep_for(milliseconds(700));
  EXPECT_THAT(live_members(result.pid), ::testing::IsEmpty());
}

TEST(ProcessGroup, ProcessThatLeftTheGroupCannotHoldTheRunnerPastTheDrainTimeout) {
  mace::testing::TempDir dir;
  const std::string pids_file = dir.file("pids");
  // The leader waits until the helper has left (its pid file is written after setsid).
  ProcessSpec spec = shell("setsid sh -c 'echo $$ > \"$0\"; exec sleep 30' '" + pids_file +
                           "' &\n"
                           "while [ ! -s '" + pids_file + "' ]; do sleep 0.01; done; echo bye");
  spec.drain_timeout = milliseconds(200);
  ProcessResult result = run_process_group(spec);
  auto pids = read_pids(pids_file);
  for (pid_t pid : pids) ::kill(pid, SIGKILL);  // ours to clean up: it escaped the group

  EXPECT_EQ(result.exit_code, 0);
  EXPECT_TRUE(result.output_abandoned);
  EXPECT_EQ(result.tail, "bye\n");
  EXPECT_LT(result.wall_seconds, 1.5);
  ASSERT_EQ(pids.size(), 1u);
}

// ---- Concurrency --------------------------------------------------------------------------------

TEST(ProcessGroup, ConcurrentRunsInSeveralThreadsAreIndependent) {
  mace::testing::TempDir dir;
  constexpr int kThreads = 4;
  std::vector<ProcessResult> results(kThreads);
  std::vector<std::vector<std::string>> errors(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      ProcessSpec spec = shell("sleep 0.3; echo \"error: from $WHO\"; exit $CODE");
      spec.env["WHO"] = "thread" + std::to_string(i);
      spec.env["CODE"] = std::to_string(10 + i);
      spec.log_path = dir.file("log" + std::to_string(i));
      spec.is_error_line = [](std::string_view line) { return line.starts_with("error:"); };
      results[i] = run_process_group(spec);
    });
  }
  for (auto& thread : threads) thread.join();
  for (int i = 0; i < kThreads; ++i) {
    const std::string who = "thread" + std::to_string(i);
    EXPECT_FALSE(results[i].launch_failed) << results[i].error;
    EXPECT_EQ(results[i].exit_code, 10 + i);
    EXPECT_EQ(results[i].tail, "error: from " + who + "\n");
    EXPECT_THAT(results[i].error_lines, ElementsAre("error: from " + who));
    EXPECT_EQ(read_file(dir.file("log" + std::to_string(i))), "error: from " + who + "\n");
  }
}

}  // namespace
}  // namespace mace::os
