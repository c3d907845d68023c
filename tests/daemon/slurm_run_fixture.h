#pragma once
// What the runs through maced on the test Slurm (support/slurm_cluster.h) share: a maced
// with the Slurm executor and fixture checkouts placed on the cluster's nodes, its store
// read as SQL, the jobs Slurm still holds for a run, and the processes a test kills.

#include <signal.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/fixture_checkout.h"
#include "support/maced_instance.h"
#include "submit_spec.h"
#include "support/slurm_cluster.h"

namespace mace::testing {

// Rows of one column of `sql` in maced's store, read-only.
inline std::vector<std::string> column(const std::string& db_path, const std::string& sql) {
  std::vector<std::string> rows;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK) {
      while (sqlite3_step(stmt) == SQLITE_ROW) {
        const auto* text = sqlite3_column_text(stmt, 0);
        rows.emplace_back(text ? reinterpret_cast<const char*>(text) : "");
      }
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return rows;
}

// The task a Slurm job of maced's belongs to, from its name (docs/slurm.md): a task's job is
// "mace:<run>:<task>:<purpose>"; a job of the run itself, "mace:<run>:<purpose>", has none.
inline std::optional<std::string> task_of_job(const std::string& name) {
  std::vector<std::string> fields;
  std::istringstream parts(name);
  for (std::string field; std::getline(parts, field, ':');) fields.push_back(field);
  if (fields.size() != 4 || fields[0] != "mace") return std::nullopt;
  return fields[2];
}

// Alive and not a zombie.
inline bool alive(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(in, text)) return false;
  const auto close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() && text[close + 2] != 'Z';
}

inline bool none_alive(const std::vector<pid_t>& pids) {
  return std::none_of(pids.begin(), pids.end(), alive);
}

inline std::optional<pid_t> keeper_of(pid_t maced) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "stat");
    std::string text;
    if (!std::getline(in, text)) continue;
    const auto open = text.find('('), close = text.rfind(')');
    if (open == std::string::npos || close == std::string::npos) continue;
    std::istringstream rest(text.substr(close + 2));
    std::string state;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == maced && text.substr(open + 1, close - open - 1) == "maced-keeper")
      return std::stoi(name);
  }
  return std::nullopt;
}

class SlurmRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    MACE_REQUIRE_SLURM();
    ASSERT_TRUE(cluster().wait_until_idle()) << cluster().live_jobs();
  }
  void TearDown() override {
    maced_.reset();
    if (!cluster().available()) return;
    cluster().command({"scancel", "--user=root"});
    for (const auto& node : cluster().nodes()) cluster().resume_node(node);
    cluster().wait_until_idle();
  }
  static SlurmCluster& cluster() { return SlurmCluster::shared(); }

  // maced with the Slurm executor and `count` fixture checkouts on the cluster's first node.
  void start(std::size_t count = 1,
             const std::string& build = R"({"cpus": 1, "memory_mb": 200})") {
    start_on(std::vector<std::string>(count, cluster().node()), build);
  }

  // maced with the Slurm executor and one fixture checkout on each of `nodes`, in that
  // order (the pool leases the first free one first). `extra` is more of maced's
  // configuration (", \"model_store\": ...").
  void start_on(const std::vector<std::string>& nodes,
                const std::string& build = R"({"cpus": 1, "memory_mb": 200})",
                const std::string& extra = "", MacedOptions options = {}) {
    while (checkouts_.size() < nodes.size()) checkouts_.push_back(std::make_unique<FixtureCheckout>());
    std::string list;
    for (std::size_t i = 0; i < nodes.size(); ++i)
      list += std::string(i ? ", " : "") + R"({"path": ")" + checkouts_[i]->root() +
              R"(", "node": ")" + nodes[i] + R"("})";
    dir_.write("maced.json", R"({"checkouts": [)" + list + R"(],
      "executor": {"kind": "slurm", "slurm": {
        "gres": "openpiton:1", "pending_limit_s": 120, "cleanup_limit_s": 60,
        "build": )" + build + R"(, "simulate": {"cpus": 1, "memory_mb": 200},
        "environment": {"SLURM_CONF": ")" + cluster().conf() + R"("}}})" + extra + "}");
    options.extra_args = {"--config", dir_.file("maced.json"), "--workloads",
                          source_root() + "/workloads"};
    maced_.reset();
    maced_ = std::make_unique<MacedInstance>(dir_, options);
  }
  std::string submit(const std::string& spec) { return submit_spec(*maced_, dir_, spec); }
  // More pico diags in the first checkout, each a copy of add.S: gate workloads to run
  // side by side.
  void add_pico_diags(const std::vector<std::string>& names) {
    const std::string dir = "piton/verif/diag/assembly/riscv/pico/";
    for (const auto& name : names) checkouts_[0]->write(dir + name, checkouts_[0]->read(dir + "add.S"));
  }
  // `mace cancel` of run `id`: no job of it left with Slurm, none of `pids` alive, the run
  // cancelled.
  void cancel_leaving_nothing(const std::string& id, const std::vector<pid_t>& pids) {
    ASSERT_EQ(maced_->mace({"cancel", id}).exit_code, 0);
    EXPECT_TRUE(eventually([&] { return live_jobs_of(id).empty(); }, std::chrono::seconds(30)))
        << live_jobs_of(id);
    EXPECT_TRUE(eventually([&] { return none_alive(pids); }, std::chrono::seconds(10)));
    EXPECT_EQ(wait_for(id).exit_code, 1);
    EXPECT_THAT(status(id), ::testing::HasSubstr("\"state\":\"cancelled\""));
  }
  // A run of three pico workloads, two at a time; its ID.
  std::string submit_three_two_at_once() {
    add_pico_diags({"sub.S", "xor.S"});
    return submit(R"({"core": "pico", "mesh": [1, 1], "backend": "direct",
        "objective": "three, two at once", "workloads": ["add.S", "sub.S", "xor.S"],
        "parallel_workloads": 2})");
  }
  ProcessResult wait_for(const std::string& id, int seconds = 120) {
    ProcessOptions options;
    options.timeout = std::chrono::seconds(seconds);
    return maced_->mace({"watch", id}, options);
  }
  std::string status(const std::string& id) { return maced_->mace({"status", id, "--json"}).out; }
  std::string db() const { return maced_->state_dir() + "/mace.db"; }
  // The IDs of the run's jobs Slurm still runs or waits to run.
  std::string live_jobs_of(const std::string& run_id) {
    std::string out;
    std::istringstream lines(cluster().live_jobs());
    for (std::string line; std::getline(lines, line);)
      if (line.find("mace:" + run_id + ":") != std::string::npos) out += line + "\n";
    return out;
  }
  // How many of the run's jobs of `purpose` Slurm runs now.
  int jobs_running_for(const std::string& run_id, const std::string& purpose) {
    int n = 0;
    std::istringstream lines(cluster().live_jobs());
    for (std::string line; std::getline(lines, line);)
      n += line.find("mace:" + run_id + ":") != std::string::npos &&
           line.find(":" + purpose + " RUNNING") != std::string::npos;
    return n;
  }
  bool job_running_for(const std::string& run_id, const std::string& purpose) {
    return jobs_running_for(run_id, purpose) > 0;
  }

  TempDir dir_;
  std::vector<std::unique_ptr<FixtureCheckout>> checkouts_;
  std::unique_ptr<MacedInstance> maced_;
};

}  // namespace mace::testing
