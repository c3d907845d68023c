// What a person and a script see of a run, end to end with a real maced on the
// fixture checkout: `mace watch` on a pipe (JSON Lines of the documented schema) and on a
// pseudo-terminal (the live view drawn in place), `mace logs --build | --sim` (a log
// served through maced in bounded pieces, --follow until the run ends).

#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include "support/fixture_checkout.h"
#include "support/maced_instance.h"
#include "support/sanitizers.h"

namespace mace::testing {
namespace {

using ::testing::HasSubstr;

class WatchAndLogsTest : public ::testing::Test {
 protected:
  void SetUp() override { start(); }
  void start(const std::string& evidence = "") {
    maced_.reset();
    dir_.write("maced.json", R"({"checkouts": [{"path": ")" + checkout_.root() + R"("}])" +
                                 (evidence.empty() ? "" : ", \"evidence\": " + evidence) + "}");
    MacedOptions options;
    options.extra_args = {"--config", dir_.file("maced.json"), "--workloads",
                          source_root() + "/workloads"};
    maced_ = std::make_unique<MacedInstance>(dir_, options);
  }
  std::string submit(const std::string& workloads = R"(["add.S"])") {
    dir_.write("spec.json", R"({"core": "pico", "mesh": [1, 1], "backend": "direct",
        "objective": "build and run", "workloads": )" + workloads + "}");
    auto r = maced_->mace({"submit", dir_.file("spec.json")});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out.substr(0, r.out.find('\n'));
  }
  ProcessResult watch(const std::string& id) {
    ProcessOptions options;
    options.timeout = std::chrono::seconds(60);
    return maced_->mace({"watch", id}, options);
  }

  TempDir dir_;
  FixtureCheckout checkout_;
  std::unique_ptr<MacedInstance> maced_;
};

// The schema docs/client.md documents, checked field by field: every key known,
// every required key present with its type.
void expect_documented_event(simdjson::dom::object event, int64_t expected_seq) {
  static const std::set<std::string> kinds = {
      "submitted", "state_changed", "iteration_started", "level_started", "task_stage",
      "verdict",   "iteration_finished", "message", "build_progress", "workload_started"};
  static const std::set<std::string> known = {
      "seq",     "at_ms",   "kind",         "state",         "iteration",  "task_id",
      "stage",   "workload", "verdict",     "objects_done",  "objects_total", "elapsed_ms",
      "estimate_left_ms", "message", "verdict_time", "cycles"};
  for (auto field : event) EXPECT_TRUE(known.count(std::string(field.key))) << field.key;
  EXPECT_EQ(int64_t(event["seq"]), expected_seq) << "seq counts from 1 without gaps";
  EXPECT_GT(int64_t(event["at_ms"]), 0);
  const std::string kind{std::string_view(event["kind"])};
  ASSERT_TRUE(kinds.count(kind)) << kind;
  EXPECT_TRUE(event["message"].is_string());
  if (kind == "submitted" || kind == "state_changed") {
    EXPECT_TRUE(event["state"].is_string());
  }
  if (kind == "task_stage") {
    EXPECT_TRUE(event["stage"].is_string());
  }
  if (kind == "verdict") {
    EXPECT_TRUE(event["task_id"].is_string());
    EXPECT_TRUE(event["workload"].is_string());
    EXPECT_TRUE(event["verdict"].is_string());
    EXPECT_TRUE(event["verdict_time"].is_null() || event["verdict_time"].is_int64());
    EXPECT_TRUE(event["cycles"].is_null() || event["cycles"].is_int64());
  }
  if (kind == "workload_started") {
    EXPECT_TRUE(event["task_id"].is_string());
    EXPECT_TRUE(event["workload"].is_string());
  }
  if (kind == "build_progress") {
    EXPECT_TRUE(event["task_id"].is_string());
    EXPECT_TRUE(event["objects_done"].is_int64() || event["objects_done"].is_uint64());
    EXPECT_TRUE(event["objects_total"].is_null() || event["objects_total"].is_uint64() ||
                event["objects_total"].is_int64());
    EXPECT_TRUE(event["elapsed_ms"].is_int64() || event["elapsed_ms"].is_uint64());
    EXPECT_TRUE(event["estimate_left_ms"].is_null() || event["estimate_left_ms"].is_int64() ||
                event["estimate_left_ms"].is_uint64());
  }
}

TEST_F(WatchAndLogsTest, WatchOnAPipeIsJsonLinesOfTheDocumentedSchema) {
  const std::string id = submit();
  const ProcessResult r = watch(id);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  simdjson::dom::parser parser;
  std::istringstream lines(r.out);
  std::string line;
  int64_t seq = 0;
  bool result_seen = false;
  std::map<std::string, int> kinds;
  while (std::getline(lines, line)) {
    ASSERT_FALSE(result_seen) << "the result is the last line";
    simdjson::dom::object object;
    ASSERT_EQ(parser.parse(line).get(object), simdjson::SUCCESS) << line;
    ASSERT_EQ(object.size(), 1u) << line;
    simdjson::dom::object event;
    if (object["event"].get(event) == simdjson::SUCCESS) {
      expect_documented_event(event, ++seq);
      ++kinds[std::string(std::string_view(event["kind"]))];
    } else {
      simdjson::dom::object result;
      ASSERT_EQ(object["result"].get(result), simdjson::SUCCESS) << line;
      EXPECT_EQ(std::string_view(result["run_id"]), id);
      EXPECT_EQ(std::string_view(result["state"]), "passed");
      result_seen = true;
    }
  }
  EXPECT_TRUE(result_seen);
  EXPECT_GE(kinds["build_progress"], 3) << r.out;
  EXPECT_EQ(kinds["verdict"], 1);
}

// A tiny terminal: enough of VT100 to replay what `mace watch` writes (text, CR, LF,
// erase to end of line, cursor up, colours ignored) onto an unbounded page.
class Screen {
 public:
  void feed(std::string_view bytes) {
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      const char c = bytes[i];
      if (c == '\033' && i + 1 < bytes.size() && bytes[i + 1] == '[') {
        std::size_t j = i + 2;
        while (j < bytes.size() && (std::isdigit(static_cast<unsigned char>(bytes[j])) || bytes[j] == ';')) ++j;
        if (j >= bytes.size()) break;
        const char op = bytes[j];
        if (op == 'K') line().resize(std::min(line().size(), col_));
        if (op == 'A' && row_ > 0) --row_;
        i = j;
      } else if (c == '\r') {
        col_ = 0;
      } else if (c == '\n') {
        ++row_;
      } else {
        std::string& l = line();
        if (l.size() < col_ + 1) l.resize(col_ + 1, ' ');
        l[col_++] = c;
      }
    }
  }
  std::vector<std::string> lines() const {
    std::vector<std::string> out = page_;
    while (!out.empty() && out.back().empty()) out.pop_back();
    return out;
  }

 private:
  std::string& line() {
    if (page_.size() <= row_) page_.resize(row_ + 1);
    return page_[row_];
  }
  std::vector<std::string> page_;
  std::size_t row_ = 0, col_ = 0;
};

TEST_F(WatchAndLogsTest, OnATerminalWatchDrawsALiveLinePerTaskAboveWhichTheLogScrolls) {
  checkout_.set_control("compile_sleep", "0.25");  // a build of about three seconds
  const std::string id = submit();
  int master = -1;
  winsize size{};
  size.ws_col = 120;
  size.ws_row = 40;
  const std::string mace = mace_binary(), socket = maced_->socket_path();
  const pid_t pid = ::forkpty(&master, nullptr, nullptr, &size);
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::execl(mace.c_str(), mace.c_str(), "--socket", socket.c_str(), "watch", id.c_str(), nullptr);
    ::_exit(127);
  }
  Screen screen;
  bool saw_progress_bar = false;
  const std::regex bar(R"(^iter1\s+build\s+building\s+\[#*-*\] \d+/11  0:0\d)");
  char buffer[4096];
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (;;) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "mace watch did not end";
    const ssize_t n = ::read(master, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EIO: the child closed its side
    screen.feed(std::string_view(buffer, static_cast<std::size_t>(n)));
    for (const auto& l : screen.lines()) saw_progress_bar = saw_progress_bar || std::regex_search(l, bar);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ::close(master);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_TRUE(saw_progress_bar) << "no live line with a build's progress bar was drawn";

  // What stays on the screen is the event log, each line whole, and the run's end: the
  // live lines were erased, not left behind or mixed into the log.
  const auto lines = screen.lines();
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back(), "run " + id + " passed (direct)") << "the direct planner did not try the objective";
  const std::regex event_line(R"(^\d\d:\d\d:\d\d  \S)");
  for (std::size_t i = 0; i + 1 < lines.size(); ++i)
    EXPECT_TRUE(std::regex_search(lines[i], event_line)) << "line " << i << ": " << lines[i];
  std::string all;
  for (const auto& l : lines) all += l + "\n";
  EXPECT_THAT(all, HasSubstr("iter1 build: building"));
  EXPECT_THAT(all, HasSubstr("iter1 build: build linking 11/11 objects"));
  EXPECT_THAT(all, HasSubstr("iter1 build: add.S pass"));
  EXPECT_THAT(all, HasSubstr("iter1 build: passed\n")) << "a stage is said once";
  EXPECT_THAT(all, ::testing::Not(HasSubstr("building  building")));
}

TEST_F(WatchAndLogsTest, LogsServeTheBuildLogAndTheSimLogOfARun) {
  const std::string id = submit();
  ASSERT_EQ(watch(id).exit_code, 0);
  auto build = maced_->mace({"logs", id, "--build"});
  ASSERT_EQ(build.exit_code, 0) << build.err;
  EXPECT_THAT(build.out, HasSubstr("sims: make -j -C "));
  EXPECT_THAT(build.out, HasSubstr("sims: stop_time"));
  auto tail = maced_->mace({"logs", id, "--build", "--tail", "2"});
  ASSERT_EQ(tail.exit_code, 0) << tail.err;
  EXPECT_EQ(std::count(tail.out.begin(), tail.out.end(), '\n'), 2) << tail.out;
  EXPECT_THAT(tail.out, HasSubstr("sims: stop_time"));
  auto sim = maced_->mace({"logs", id, "--sim", "add.S", "--task", "build"});
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  EXPECT_THAT(sim.out, HasSubstr("HIT GOOD TRAP"));

  auto missing = maced_->mace({"logs", id, "--sim", "other.S"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("no sim.log of other.S"));
  EXPECT_EQ(maced_->mace({"logs", id, "--tail", "5"}).exit_code, 2) << "--tail needs a log file";
  EXPECT_EQ(maced_->mace({"logs", id, "--build", "--tail", "x"}).exit_code, 2);
}

TEST_F(WatchAndLogsTest, TheRunsLogNamesEachVerdictAndFoldsTheBuildsProgressToItsLastLine) {
  const std::string id = submit();
  ASSERT_EQ(watch(id).exit_code, 0);
  auto log = maced_->mace({"logs", id});
  ASSERT_EQ(log.exit_code, 0) << log.err;
  EXPECT_THAT(log.out, ::testing::ContainsRegex("iter1/build  add\\.S pass \\([0-9]+\\.[0-9] s, 14221 cycles\\)\n"));
  EXPECT_THAT(log.out, HasSubstr("linking 11/11 objects\n"));
  EXPECT_THAT(log.out, HasSubstr("iter1/build  passed\n")) << "a stage is said once";
  EXPECT_THAT(log.out, ::testing::Not(HasSubstr("compiling 5/11 objects")));
  EXPECT_THAT(log.out, ::testing::ContainsRegex("passed in [0-9]+\\.[0-9] s\n"))
      << "an iteration's time for people, not 1.234567 s";
}

// Peak resident memory of a process, in KiB.
int64_t peak_rss_kib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6));
  return -1;
}

TEST_F(WatchAndLogsTest, ALargeSimLogIsStreamedInBoundedMemoryAndFollowEndsWithTheRun) {
  // Kept whole (by default a run keeps 64 MiB of a log): a follower slower than the writer
  // goes on from the run's copy once the simulation has ended, and must see the same bytes.
  start(R"({"max_log_mb": 256, "keep_run_dirs": true})");  // compared with the original below
  checkout_.set_control("run", "huge");
  checkout_.set_control("huge_mb", "160");
  checkout_.set_control("run_sleep", "1");
  const std::string id = submit();
  // Followed from before it exists until the run ends, into a file.
  const std::string out = dir_.file("sim.log.copy");
  ProcessOptions options;
  options.timeout = std::chrono::seconds(120);
  options.in_child = [out] {
    const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    ::dup2(fd, STDOUT_FILENO);
    // mace may not hold the file: a third of it is more than it may use (not under a
    // sanitizer, whose shadow memory alone is over the limit).
    const rlimit data{48u << 20, 48u << 20};
    if (!kShadowMemory) ::setrlimit(RLIMIT_DATA, &data);
  };
  const int64_t maced_before = peak_rss_kib(maced_->process().pid());
  const ProcessResult followed = maced_->mace({"logs", id, "--sim", "add.S", "--follow"}, options);
  ASSERT_EQ(followed.exit_code, 0) << followed.err;
  const int64_t maced_after = peak_rss_kib(maced_->process().pid());
  EXPECT_THAT(maced_->mace({"status", id, "--json"}).out, HasSubstr("\"state\":\"passed\""))
      << "--follow ended only when the run had";

  const auto& original = checkout_.root();
  std::string sim_log;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(original + "/build"))
    if (entry.path().filename() == "sim.log") sim_log = entry.path();
  ASSERT_FALSE(sim_log.empty());
  EXPECT_GT(std::filesystem::file_size(sim_log), 160u << 20);
  EXPECT_EQ(std::filesystem::file_size(out), std::filesystem::file_size(sim_log));
  std::ifstream a(sim_log, std::ios::binary), b(out, std::ios::binary);
  EXPECT_TRUE(std::equal(std::istreambuf_iterator<char>(a), {}, std::istreambuf_iterator<char>(b)))
      << "the copy differs from the sim.log";
  // Not under a sanitizer: ASan's quarantine keeps what maced freed (up to 256 MiB) on
  // purpose, and TSan's shadow grows with what maced touches.
  if (!kShadowMemory)
    EXPECT_LT(maced_after - maced_before, 32 * 1024) << "maced held more than pieces of the file";
}

}  // namespace
}  // namespace mace::testing
