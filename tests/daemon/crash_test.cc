// maced dying without a chance to clean up (kill -9), and what the next maced finds: no
// build left running, RTL edits put back, a store that is whole.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "maced/keeper.h"
#include "openpiton/rtl_edits.h"
#include "support/fixture_checkout.h"
#include "support/maced_instance.h"

namespace mace::testing {
namespace {

using ::testing::HasSubstr;

constexpr const char* kSpec =
    R"({"core": "pico", "mesh": [1, 1], "workloads": ["add.S"], "backend": "direct",
        "objective": "build the tile and run add"})";

struct ProcInfo {
  pid_t ppid = 0;
  std::uint64_t start = 0;
  char state = '?';
  std::string comm;
};

std::optional<ProcInfo> proc_info(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(in, text)) return std::nullopt;
  auto open = text.find('('), close = text.rfind(')');
  if (open == std::string::npos || close == std::string::npos) return std::nullopt;
  ProcInfo info;
  info.comm = text.substr(open + 1, close - open - 1);
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  for (int n = 3; fields >> field && n <= 22; ++n) {
    if (n == 3) info.state = field[0];
    if (n == 4) info.ppid = std::stoi(field);
    if (n == 22) info.start = std::stoull(field);
  }
  return info;
}

// Alive: the very process we saw (same start time), and not a zombie waiting to be reaped.
bool alive(pid_t pid, std::uint64_t start) {
  auto info = proc_info(pid);
  return info && info->start == start && info->state != 'Z' && info->state != 'X';
}

// The keeper is the child of maced named maced-keeper.
std::optional<pid_t> keeper_of(pid_t maced) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    auto info = proc_info(std::stoi(name));
    if (info && info->ppid == maced && info->comm == "maced-keeper") return std::stoi(name);
  }
  return std::nullopt;
}

class CrashTest : public ::testing::Test {
 protected:
  void start() {
    dir_.write("maced.json", R"({"checkouts": [{"path": ")" + checkout_.root() + R"("}]})");
    MacedOptions options;
    options.extra_args = {"--config", dir_.file("maced.json"), "--workloads",
                          source_root() + "/workloads"};
    maced_.reset();
    maced_ = std::make_unique<MacedInstance>(dir_, options);
  }
  std::string submit() {
    dir_.write("spec.json", kSpec);
    auto r = maced_->mace({"submit", dir_.file("spec.json")});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out.substr(0, r.out.find('\n'));
  }
  void kill_maced() {
    maced_->process().signal(SIGKILL);
    ASSERT_TRUE(maced_->process().wait(std::chrono::milliseconds(10000)).has_value());
  }

  TempDir dir_;
  FixtureCheckout checkout_;
  std::unique_ptr<MacedInstance> maced_;
};

// REQ-BUD-13: nothing survives maced, also after kill -9, without systemd: the hung build's
// sims, its grandchild that ignores SIGTERM, and one that left the process group (but not
// the session) are all gone two seconds later.
TEST_F(CrashTest, NothingOfARunSurvivesMacedKilledWithSigkill) {
  checkout_.set_control("build", "hang");
  checkout_.set_control("hang_escape", "pgid");
  start();
  submit();
  ASSERT_TRUE(eventually([&] { return checkout_.recorded_pids().size() >= 3; },
                         std::chrono::seconds(30)))
      << "the hung build never recorded its processes";
  std::map<pid_t, std::uint64_t> left;
  for (pid_t pid : checkout_.recorded_pids()) {
    auto info = proc_info(pid);
    ASSERT_TRUE(info) << "pid " << pid << " was gone before maced was killed";
    left[pid] = info->start;
  }
  auto keeper = keeper_of(maced_->process().pid());
  ASSERT_TRUE(keeper) << "maced has no keeper";
  auto keeper_start = proc_info(*keeper)->start;

  kill_maced();
  std::this_thread::sleep_for(std::chrono::seconds(2));
  for (const auto& [pid, start] : left) EXPECT_FALSE(alive(pid, start)) << "pid " << pid;
  EXPECT_FALSE(alive(*keeper, keeper_start)) << "the keeper stays after its work is done";
}

// The same with simulations side by side: both hung simulations and their grandchildren
// are gone two seconds after maced is killed.
TEST_F(CrashTest, NothingOfSimulationsSideBySideSurvivesMacedKilledWithSigkill) {
  checkout_.write("piton/verif/diag/assembly/riscv/pico/sub.S",
                  checkout_.read("piton/verif/diag/assembly/riscv/pico/add.S"));
  checkout_.set_control("run", "hang");
  start();
  dir_.write("spec.json", R"({"core": "pico", "mesh": [1, 1], "backend": "direct", "objective": "hang",
      "workloads": ["add.S", "sub.S"], "parallel_workloads": 2})");
  ASSERT_EQ(maced_->mace({"submit", dir_.file("spec.json")}).exit_code, 0);
  ASSERT_TRUE(eventually([&] { return checkout_.recorded_pids().size() >= 4; }, std::chrono::seconds(30)))
      << "the two hung simulations never recorded their processes";
  std::map<pid_t, std::uint64_t> left;
  for (pid_t pid : checkout_.recorded_pids())
    if (auto info = proc_info(pid)) left[pid] = info->start;
  kill_maced();
  std::this_thread::sleep_for(std::chrono::seconds(2));
  for (const auto& [pid, start] : left) EXPECT_FALSE(alive(pid, start)) << "pid " << pid;
}

// A run's log is copied into its evidence when its build ends; a maced killed during the
// build never did. The next maced keeps it for the run before any other run can write
// there, and `mace logs` reads the run's own copy.
TEST_F(CrashTest, TheLogsOfARunMacedWasKilledDuringAreKeptByTheNextMaced) {
  checkout_.set_control("build", "hang");
  start();
  const std::string id = submit();
  ASSERT_TRUE(eventually([&] { return checkout_.recorded_pids().size() >= 1; }, std::chrono::seconds(30)));
  ASSERT_TRUE(eventually([&] { return maced_->mace({"logs", id, "--build"}).out.find("sims") != std::string::npos; },
                         std::chrono::seconds(30)));
  kill_maced();
  checkout_.clear_control();
  start();
  const auto build = maced_->mace({"logs", id, "--build"});
  EXPECT_EQ(build.exit_code, 0) << build.err;
  EXPECT_THAT(build.out, HasSubstr("-vlt_build"));
  EXPECT_THAT(build.err, ::testing::Not(HasSubstr("not kept"))) << "served from the run's copy";
  EXPECT_TRUE(std::filesystem::exists(maced_->state_dir() + "/runs/" + id + "/iter1/build/build.log"));
  EXPECT_THAT(maced_->mace({"status", id}).out, HasSubstr("maced restarted during the run"));
}

// The keeper must not outlive a maced that stopped cleanly, nor kill anything then.
TEST_F(CrashTest, TheKeeperLeavesWithACleanlyStoppedMaced) {
  start();
  auto keeper = keeper_of(maced_->process().pid());
  ASSERT_TRUE(keeper);
  auto keeper_start = proc_info(*keeper)->start;
  maced_->process().signal(SIGTERM);
  auto result = maced_->process().wait(std::chrono::milliseconds(10000));
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->exit_code, 0) << result->err;
  EXPECT_TRUE(eventually([&] { return !alive(*keeper, keeper_start); },
                         std::chrono::seconds(5)));
  EXPECT_THAT(result->err, ::testing::Not(HasSubstr("maced-keeper")));
}

// REQ-EXEC-17: a task killed with its RTL edits applied left a journal; the next maced
// restores the file on start, before any run, and says so in its log.
TEST_F(CrashTest, RestoresRtlEditsAnInterruptedTaskLeftOnStart) {
  const std::string file = "piton/design/chip/tile/l15/rtl/l15.v";
  const std::string original = checkout_.read(file);
  {
    openpiton::EditSet edits;
    edits.edits.push_back(openpiton::TextReplacement{
        file, "wire  hit_s2 = val_s2;", "wire  hit_s2 = 1'b0;  // edited"});
    auto applied = openpiton::apply_edits(checkout_.root(), edits);
    applied.release_without_restore();  // as a maced killed mid-task leaves it
  }
  ASSERT_THAT(checkout_.read(file), HasSubstr("// edited"));

  start();
  EXPECT_EQ(checkout_.read(file), original);
  EXPECT_FALSE(std::filesystem::exists(checkout_.root() + "/build/.mace_edit_journal"));
  maced_->process().signal(SIGTERM);
  auto result = maced_->process().wait(std::chrono::milliseconds(10000));
  ASSERT_TRUE(result.has_value());
  EXPECT_THAT(result->err, HasSubstr(checkout_.root() + ": restored " + file));
}

// REQ-PLAT-2: a configured checkout missing from this machine is named at start-up, refused
// with what to do, and maced starts all the same.
TEST_F(CrashTest, AMissingCheckoutDoesNotStopStartUp) {
  dir_.write("maced.json", R"({"checkouts": [{"path": "/nonexistent/mace/checkout"}]})");
  MacedOptions options;
  options.extra_args = {"--config", dir_.file("maced.json")};
  MacedInstance maced(dir_, options);  // throws unless it becomes ready
  EXPECT_EQ(maced.mace({"list"}).exit_code, 0);
  maced.process().signal(SIGTERM);
  auto ended = maced.process().wait(std::chrono::milliseconds(10000));
  ASSERT_TRUE(ended.has_value());
  EXPECT_THAT(ended->err, ::testing::HasSubstr(
      "checkout /nonexistent/mace/checkout refused: nothing is there (fix: clone OpenPiton there"));
}

std::set<std::string> run_ids_in(const std::string& db_path, std::string& integrity) {
  std::set<std::string> ids;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    integrity = std::string("cannot open: ") + sqlite3_errmsg(db);
    sqlite3_close(db);
    return ids;
  }
  auto each_row = [&](const char* sql, auto&& row) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) != SQLITE_OK) {
      integrity = std::string(sql) + ": " + sqlite3_errmsg(db);
      return;
    }
    while (sqlite3_step(stmt) == SQLITE_ROW)
      row(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)));
    sqlite3_finalize(stmt);
  };
  integrity.clear();
  each_row("PRAGMA integrity_check", [&](const char* line) {
    integrity += (integrity.empty() ? "" : "; ") + std::string(line);
  });
  each_row("SELECT id FROM runs", [&](const char* id) { ids.insert(id); });
  sqlite3_close(db);
  return ids;
}

// The store survives kill -9 at any moment: five times maced is killed while it records
// runs, builds and events; afterwards SQLite finds the database whole and every run
// accepted before a kill is still there.
TEST_F(CrashTest, TheStoreSurvivesRepeatedSigkillsWhileBusy) {
  // Slow enough that a kill finds builds and runs under way, fast enough for many events.
  checkout_.set_control("build_sleep", "0.3");
  checkout_.set_control("run_sleep", "0.2");
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> delay_ms(100, 2500);
  std::set<std::string> accepted;
  for (int round = 0; round < 5; ++round) {
    start();
    for (int i = 0; i < 3; ++i) accepted.insert(submit());
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(random)));
    kill_maced();
  }
  start();  // recovers the WAL and marks the interrupted runs
  maced_->process().signal(SIGTERM);
  ASSERT_TRUE(maced_->process().wait(std::chrono::milliseconds(70000)).has_value());

  std::string integrity;
  auto ids = run_ids_in(maced_->state_dir() + "/mace.db", integrity);
  EXPECT_EQ(integrity, "ok");
  for (const auto& id : accepted) EXPECT_TRUE(ids.count(id)) << "run " << id << " was lost";
  EXPECT_EQ(accepted.size(), 15u);
}

// The keeper's own checks, without a maced around it.

pid_t spawn_group_leader() {
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setsid();
    ::execl("/bin/sleep", "sleep", "60", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

TEST(Keeper, ReadsItsProtocol) {
  keeper::Groups groups;
  EXPECT_TRUE(keeper::apply_line("+1234 5678", groups));
  EXPECT_EQ(groups.at(1234), 5678u);
  EXPECT_TRUE(keeper::apply_line("-1234", groups));
  EXPECT_TRUE(groups.empty());
  for (const char* bad : {"", "+", "+12", "+12 x", "*12 3", "-12 3", "+1 5", "+0 5", "+-3 5"})
    EXPECT_FALSE(keeper::apply_line(bad, groups)) << bad;
  EXPECT_TRUE(groups.empty());
}

TEST(Keeper, ReadsTheSlurmJobsMacedReports) {
  std::set<std::string> jobs;
  EXPECT_TRUE(keeper::apply_job_line("J+41", jobs));
  EXPECT_TRUE(keeper::apply_job_line("J+42_3", jobs));
  EXPECT_TRUE(keeper::apply_job_line("J-41", jobs));
  EXPECT_EQ(jobs, std::set<std::string>{"42_3"});
  // Nothing that could become another scancel argument is taken.
  for (const char* bad : {"J", "J+", "J*1", "J+-1", "J+1 2", "J+--user=x", "J+1;2", "+12"})
    EXPECT_FALSE(keeper::apply_job_line(bad, jobs)) << bad;
  EXPECT_EQ(jobs.size(), 1u);
}

TEST(Keeper, KillsARegisteredGroup) {  // REQ-BUD-13
  pid_t leader = spawn_group_leader();
  ASSERT_TRUE(eventually([&] { return proc_info(leader) && proc_info(leader)->comm == "sleep"; }));
  auto start = keeper::start_time(leader);
  ASSERT_TRUE(start);
  EXPECT_EQ(keeper::sweep({{leader, *start}}, std::chrono::seconds(2)), 1);
  int status = 0;
  ASSERT_EQ(::waitpid(leader, &status, 0), leader);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

// A group id whose leader has another start time was reused by a stranger: hands off.
TEST(Keeper, LeavesAReusedGroupIdAlone) {
  pid_t stranger = spawn_group_leader();
  ASSERT_TRUE(eventually([&] { return proc_info(stranger) && proc_info(stranger)->comm == "sleep"; }));
  auto start = keeper::start_time(stranger);
  ASSERT_TRUE(start && *start > 0);
  EXPECT_EQ(keeper::sweep({{stranger, *start - 1}}, std::chrono::seconds(1)), 0);
  EXPECT_TRUE(alive(stranger, *start));
  ::kill(stranger, SIGKILL);
  ::waitpid(stranger, nullptr, 0);
}

}  // namespace
}  // namespace mace::testing
