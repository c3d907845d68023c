// maced's state directory (docs/operating-maced.md, "The state directory"): one maced per
// state directory, however the previous one ended; owner-only modes whatever the umask; a
// damaged database refused at start with how to recover; and the backup an administrator
// takes while runs write, restored into a new state directory with nothing lost.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <list>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/fixture_checkout.h"
#include "support/maced_instance.h"

namespace mace::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using namespace std::chrono_literals;

unsigned mode_of(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return 0;
  return info.st_mode & 07777;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

ProcessResult maced_with(const std::vector<std::string>& args, const ProcessOptions& options = {}) {
  std::vector<std::string> argv = {maced_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, options);
}

// A second maced on a state directory in use would take the first one's running runs for a
// dead maced's and start its queued runs again: it says who holds the directory, exits 3
// (systemd does not restart it) and touches nothing, not even its own socket.
TEST(StateDirectory, ASecondMacedOnItNamesTheFirstAndTouchesNothing) {
  TempDir dir;
  MacedInstance first(dir);
  TempDir other;
  auto second = maced_with({"--socket", other.file("second.sock"), "--state-dir", first.state_dir()});
  EXPECT_EQ(second.exit_code, 3) << second.err;
  EXPECT_EQ(first_line(second.err), "maced: the state directory " + first.state_dir() + " is in use by maced " +
                                        std::to_string(first.process().pid()) + " on " + first.socket_path() +
                                        "; one maced per state directory: stop that one first, or give this one "
                                        "--state-dir of its own");
  EXPECT_FALSE(fs::exists(other.file("second.sock")));
  EXPECT_EQ(first.mace({"list"}).exit_code, 0);
}

// The lock is the kernel's (flock): it goes with the process however it ends.
TEST(StateDirectory, AMacedKilledWithSigkillLeavesItFreeForTheNext) {
  TempDir dir;
  std::string state;
  {
    MacedInstance first(dir);
    state = first.state_dir();
    first.process().signal(SIGKILL);
    ASSERT_TRUE(first.process().wait(10s).has_value());
  }
  MacedInstance next(dir);
  EXPECT_EQ(next.mace({"list"}).exit_code, 0);
}

// What the group may see is the API's to say: on disk the state is maced's user's alone,
// whatever umask maced was started with and whatever modes an earlier maced left.
TEST(StateDirectory, ItsFilesAreReadableByMacedsUserOnlyWhateverTheUmask) {
  TempDir dir;
  {
    MacedInstance earlier(dir);
    ASSERT_EQ(earlier.mace({"list"}).exit_code, 0);
  }
  const std::string state = dir.file("state");
  ASSERT_EQ(::chmod(state.c_str(), 0755), 0);
  ASSERT_EQ(::chmod((state + "/mace.db").c_str(), 0644), 0);
  MacedOptions options;
  options.process.in_child = [] { ::umask(022); };
  MacedInstance maced(dir, options);
  dir.write("spec.json", R"({"core": "pico", "workloads": ["hello"], "objective": "o", "backend": "direct"})");
  ASSERT_EQ(maced.mace({"submit", dir.file("spec.json")}).exit_code, 0);

  EXPECT_EQ(mode_of(state), 0700u);
  for (const char* file : {"/mace.db", "/mace.db-wal", "/mace.db-shm", "/maced.lock"})
    EXPECT_EQ(mode_of(state + file), 0600u) << file;
  EXPECT_THAT(maced.process().errors_so_far(), HasSubstr(state + " was 0755, now 0700 (only maced's user reads it)"));
  EXPECT_THAT(maced.process().errors_so_far(), HasSubstr(state + "/mace.db was 0644, now 0600"));
  // Every file maced makes from now on is its user's only.
  for (const auto& entry : fs::recursive_directory_iterator(state))
    EXPECT_EQ(mode_of(entry.path()) & 077, 0u) << entry.path();
}

// With the socket inside the state directory, its group may pass through to the socket
// and nothing more.
TEST(StateDirectory, WithTheSocketInsideTheGroupPassesThroughAndReadsNothing) {
  TempDir dir;
  const std::string state = dir.file("state");
  auto maced = std::make_unique<BackgroundProcess>(
      std::vector<std::string>{maced_binary(), "--socket", state + "/maced.sock", "--state-dir", state});
  ASSERT_TRUE(eventually([&] { return fs::exists(state + "/maced.sock"); })) << maced->errors_so_far();
  EXPECT_EQ(mode_of(state), 0710u);
  EXPECT_EQ(mode_of(state + "/maced.sock"), 0660u);
}

// Garbage in the middle of the database, or a file cut short: maced says it is damaged and
// how to recover, exits 3, and leaves the file as it was, where before it started and failed
// every call with "database disk image is malformed".
TEST(StateDirectory, ADamagedDatabaseRefusesTheStartSayingHowToRecover) {
  TempDir dir;
  {
    MacedInstance earlier(dir);
    dir.write("spec.json", R"({"core": "pico", "workloads": ["hello"], "objective": "o", "backend": "direct"})");
    for (int i = 0; i < 30; ++i) ASSERT_EQ(earlier.mace({"submit", dir.file("spec.json")}).exit_code, 0);
    earlier.process().signal(SIGTERM);
    ASSERT_TRUE(earlier.process().wait(10s).has_value());
  }
  const std::string db = dir.file("state") + "/mace.db";
  const auto size = fs::file_size(db);
  ASSERT_GT(size, 16384u);
  const std::string clean = read_file(dir.file("state/mace.db"));

  {
    int fd = ::open(db.c_str(), O_WRONLY);
    const std::string garbage(4096, '\x5a');
    ASSERT_EQ(::pwrite(fd, garbage.data(), garbage.size(), static_cast<off_t>(size / 2 / 4096 * 4096)),
              static_cast<ssize_t>(garbage.size()));
    ::close(fd);
  }
  const std::string damaged = read_file(dir.file("state/mace.db"));
  auto refused = maced_with({"--socket", dir.file("m.sock"), "--state-dir", dir.file("state")});
  EXPECT_EQ(refused.exit_code, 3) << refused.err;
  EXPECT_THAT(refused.err, HasSubstr(db + " is damaged, and maced will not start on it:"));
  EXPECT_THAT(refused.err, HasSubstr("restore the latest backup: maced --restore BACKUP"));
  EXPECT_THAT(refused.err, HasSubstr("move mace.db, mace.db-wal and mace.db-shm aside"));
  EXPECT_EQ(read_file(dir.file("state/mace.db")), damaged) << "a refused start changes nothing";

  fs::resize_file(db, size / 2);
  auto truncated = maced_with({"--socket", dir.file("m.sock"), "--state-dir", dir.file("state")});
  EXPECT_EQ(truncated.exit_code, 3) << truncated.err;
  EXPECT_THAT(truncated.err, HasSubstr("is damaged"));
  EXPECT_THAT(truncated.err, Not(HasSubstr("user_version")));
}

class BackupTest : public ::testing::Test {
 protected:
  void start(const std::string& state_name, const std::string& evidence = "") {
    dir_.write("maced.json", R"({"checkouts": [{"path": ")" + checkout_.root() + R"("}])" +
                                 (evidence.empty() ? "" : R"(, "evidence": {"path": ")" + evidence + R"("})") + "}");
    TempDir& home = homes_.emplace_back();
    home.write("maced.json", read_file(dir_.file("maced.json")));
    MacedOptions options;
    options.extra_args = {"--config", dir_.file("maced.json"), "--workloads", source_root() + "/workloads",
                          "--state-dir", dir_.file(state_name)};
    maced_ = std::make_unique<MacedInstance>(home, options);
  }
  void stop() {
    maced_->process().signal(SIGTERM);
    ASSERT_TRUE(maced_->process().wait(20s).has_value());
    maced_.reset();
  }
  std::string submit(const std::string& workloads) {
    dir_.write("spec.json", R"({"core": "pico", "backend": "direct", "objective": "o", "workloads": )" + workloads + "}");
    auto r = maced_->mace({"submit", dir_.file("spec.json")});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return first_line(r.out);
  }
  void wait_for_end(const std::string& id) {
    ProcessOptions options;
    options.timeout = 120s;
    maced_->mace({"watch", id}, options);
  }
  std::vector<std::string> config_args(const std::string& state_name) {
    return {"--config", dir_.file("maced.json"), "--state-dir", dir_.file(state_name)};
  }

  TempDir dir_;
  std::list<TempDir> homes_;
  FixtureCheckout checkout_;
  std::unique_ptr<MacedInstance> maced_;
};

// An administrator's backup, taken while a run writes, restored into a new state directory:
// every run, its events and its kept logs read back there.
TEST_F(BackupTest, ABackupTakenWhileARunWritesRestoresEveryRunAndItsLogs) {
  start("state");
  const std::string passed = submit(R"(["add.S"])");
  wait_for_end(passed);
  checkout_.set_control("run", "fail");
  const std::string failed = submit(R"(["add.S"])");
  wait_for_end(failed);
  checkout_.set_control("run", "pass");
  checkout_.set_control("run_sleep", "3");
  const std::string running = submit(R"(["add.S"])");
  ASSERT_TRUE(eventually([&] { return maced_->mace({"status", running}).out.find("running") != std::string::npos; }));

  std::vector<std::string> backup = {"--backup", dir_.file("backup")};
  const auto args = config_args("state");
  backup.insert(backup.end(), args.begin(), args.end());
  const auto backed_up = maced_with(backup);
  ASSERT_EQ(backed_up.exit_code, 0) << backed_up.err;
  EXPECT_THAT(backed_up.out, ::testing::StartsWith("backed up 3 runs (schema "));
  EXPECT_THAT(backed_up.out, HasSubstr(" kept files ("));
  EXPECT_EQ(mode_of(dir_.file("backup")), 0700u);
  EXPECT_THAT(read_file(dir_.file("backup/backup.json")), HasSubstr("\"evidence_root\": \"" + dir_.file("state") + "/runs\""));
  wait_for_end(running);
  const std::string passed_sim = maced_->mace({"logs", passed, "--sim", "add.S"}).out;
  const std::string failed_status = maced_->mace({"status", failed}).out;
  stop();

  std::vector<std::string> restore = {"--restore", dir_.file("backup")};
  const auto into = config_args("restored");
  restore.insert(restore.end(), into.begin(), into.end());
  const auto restored = maced_with(restore);
  ASSERT_EQ(restored.exit_code, 0) << restored.err;
  EXPECT_THAT(restored.out, ::testing::StartsWith("restored 3 runs (schema "));

  start("restored");
  const auto list = maced_->mace({"list"}).out;
  for (const auto& id : {passed, failed, running}) EXPECT_THAT(list, HasSubstr(id));
  EXPECT_EQ(maced_->mace({"logs", passed, "--sim", "add.S"}).out, passed_sim);
  EXPECT_EQ(maced_->mace({"status", failed}).out, failed_status);
  // The run under way at the backup is, in the restored store, one a maced left: an error.
  EXPECT_THAT(maced_->mace({"status", running}).out, HasSubstr("error"));
}

// A restore leaves what was there aside, never overwrites it; into another evidence root,
// the stored paths follow the files; and never under a maced that runs.
TEST_F(BackupTest, ARestoreKeepsTheStoreThatWasThereAndFollowsANewEvidenceRoot) {
  start("state");
  const std::string id = submit(R"(["add.S"])");
  wait_for_end(id);
  const std::string sim = maced_->mace({"logs", id, "--sim", "add.S"}).out;
  std::vector<std::string> backup = {"--backup", dir_.file("backup")};
  const auto args = config_args("state");
  backup.insert(backup.end(), args.begin(), args.end());
  ASSERT_EQ(maced_with(backup).exit_code, 0);

  std::vector<std::string> restore = {"--restore", dir_.file("backup")};
  restore.insert(restore.end(), args.begin(), args.end());
  const auto refused = maced_with(restore);
  EXPECT_EQ(refused.exit_code, 3) << refused.err;
  EXPECT_THAT(refused.err, HasSubstr("is in use by maced " + std::to_string(maced_->process().pid())));
  stop();

  const std::string other_root = dir_.file("other-evidence");
  dir_.write("maced.json", R"({"checkouts": [{"path": ")" + checkout_.root() + R"("}], "evidence": {"path": ")" +
                               other_root + R"("}})");
  const auto restored = maced_with(restore);
  ASSERT_EQ(restored.exit_code, 0) << restored.err;
  EXPECT_THAT(restored.err, HasSubstr("the store that was there is kept in " + dir_.file("state") + "/before-restore-"));
  EXPECT_THAT(restored.err, HasSubstr("now under " + other_root));
  fs::remove_all(dir_.file("state/runs"));  // only the restored copies remain

  start("state", other_root);
  EXPECT_EQ(maced_->mace({"logs", id, "--sim", "add.S"}).out, sim);
}

}  // namespace
}  // namespace mace::testing
