// A state an earlier MACE wrote opens in this one with nothing lost: every state directory
// kept in tests/store/upgrade/ (one per schema version a release of MACE had, each made by
// that version's own maced: make_state.sh) is migrated, then every run, iteration, task,
// verdict, diagnosis, LLM call, event, evaluation batch and kept log it held is read back
// through today's Store as it was stored. And a migration cut short by kill -9 is finished
// by the next open.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "store/migrations.h"
#include "store/sqlite.h"
#include "store/store.h"
#include "support/child_process.h"
#include "support/earlier_states.h"

namespace mace::store {
namespace {

namespace fs = std::filesystem;
using mace::testing::EarlierState;
using mace::testing::TempDir;

// What the old database holds, read with plain SQL over the columns every version had.
struct Held {
  std::map<std::string, std::tuple<std::string, std::string>> runs;  // id -> state, objective
  std::map<std::string, int64_t> events, llm_calls, iterations, log_files;
  // run -> (iteration, task, workload, verdict) of every result
  std::map<std::string, std::set<std::tuple<int64_t, std::string, std::string, std::string>>> verdicts;
  std::map<std::string, std::vector<std::string>> diagnoses;  // run -> labels, oldest first
  std::map<std::string, int64_t> eval_jobs;                   // batch -> jobs
  std::vector<std::string> kept_paths;                        // kept, not removed
};

bool has_table(Database& db, const std::string& table) {
  auto stmt = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1");
  stmt.bind(1, table);
  return stmt.step();
}

std::map<std::string, int64_t> count_by_run(Database& db, const std::string& table) {
  std::map<std::string, int64_t> counts;
  if (!has_table(db, table)) return counts;
  auto stmt = db.prepare("SELECT run_id, count(*) FROM " + table + " GROUP BY run_id");
  while (stmt.step()) counts[stmt.text(0)] = stmt.int64(1);
  return counts;
}

Held read_held(const fs::path& db_path) {
  Database db(db_path);
  Held held;
  for (auto stmt = db.prepare("SELECT id, state, objective FROM runs"); stmt.step();)
    held.runs[stmt.text(0)] = {stmt.text(1), stmt.text(2)};
  held.events = count_by_run(db, "events");
  held.llm_calls = count_by_run(db, "llm_calls");
  held.iterations = count_by_run(db, "iterations");
  held.log_files = count_by_run(db, "log_files");
  for (auto stmt = db.prepare(
           "SELECT t.run_id, t.iteration, t.task_id, r.workload, r.verdict FROM task_results r "
           "JOIN tasks t ON t.id = r.task_row");
       stmt.step();)
    held.verdicts[stmt.text(0)].insert({stmt.int64(1), stmt.text(2), stmt.text(3), stmt.text(4)});
  for (auto stmt = db.prepare("SELECT run_id, label FROM diagnoses ORDER BY id"); stmt.step();)
    held.diagnoses[stmt.text(0)].push_back(stmt.text(1));
  if (has_table(db, "eval_jobs"))
    for (auto stmt = db.prepare("SELECT batch_id, count(*) FROM eval_jobs GROUP BY batch_id"); stmt.step();)
      held.eval_jobs[stmt.text(0)] = stmt.int64(1);
  if (has_table(db, "log_files")) {
    bool kept_column = false;
    for (auto stmt = db.prepare("PRAGMA table_info(log_files)"); stmt.step();)
      kept_column = kept_column || stmt.text(1) == "kept_at_ms";
    if (kept_column)
      for (auto stmt = db.prepare("SELECT path FROM log_files WHERE kept_at_ms IS NOT NULL AND removed_at_ms IS NULL");
           stmt.step();)
        held.kept_paths.push_back(stmt.text(0));
  }
  return held;
}

// Every table's columns (name, type, not null, default, key) and every index, by name: what
// the code of today relies on, whatever order the migrations came in.
std::map<std::string, std::string> schema_of(const fs::path& db_path) {
  Database db(db_path);
  std::map<std::string, std::string> schema;
  for (auto t = db.prepare("SELECT type, name, tbl_name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"); t.step();) {
    std::string shape = t.text(0) + " on " + t.text(2);
    if (t.text(0) != "table") {
      schema[t.text(1)] = shape;
      continue;
    }
    auto c = db.prepare("SELECT name, type, \"notnull\", ifnull(dflt_value, 'NULL'), pk FROM pragma_table_info(?1)");
    c.bind(1, t.text(1));
    while (c.step())
      shape += "\n  " + c.text(0) + " " + c.text(1) + " " + std::to_string(c.int64(2)) + " " + c.text(3) + " " +
                 std::to_string(c.int64(4));
    schema[t.text(1)] = shape;
  }
  return schema;
}

int64_t count_of(const std::map<std::string, int64_t>& counts, const std::string& run) {
  auto it = counts.find(run);
  return it == counts.end() ? 0 : it->second;
}

class UpgradeTest : public ::testing::TestWithParam<EarlierState> {};

TEST_P(UpgradeTest, EveryRecordOfTheEarlierStateReadsBackAfterMigration) {
  const EarlierState& earlier = GetParam();
  TempDir dir;
  const fs::path state = fs::path(dir.path()) / "state";
  mace::testing::lay_out(earlier, state, fs::path(dir.path()) / "checkout");
  const Held held = read_held(state / "mace.db");
  ASSERT_GE(held.runs.size(), 3u) << "the kept state has runs to check: " << earlier.made_by;
  {
    Database db(state / "mace.db");
    ASSERT_EQ(read_schema_version(db), earlier.schema_version);
  }

  auto store = Store::open(state / "mace.db");
  EXPECT_EQ(store->schema_version(), latest_schema_version());
  // The same tables, columns and indexes as a database made today (also for schema 6 of
  // the Slurm line, whose migrations came in another order: store/migrations.cc).
  {
    Store::open(fs::path(dir.path()) / "today.db");
    EXPECT_EQ(schema_of(state / "mace.db"), schema_of(fs::path(dir.path()) / "today.db"));
  }
  int64_t events = 0, calls = 0, verdicts = 0;
  for (const auto& [id, state_and_objective] : held.runs) {
    SCOPED_TRACE("run " + id);
    const auto run = store->find_run(id);
    ASSERT_TRUE(run.has_value());
    EXPECT_EQ(std::string(to_string(run->state)), std::get<0>(state_and_objective));
    EXPECT_EQ(run->objective, std::get<1>(state_and_objective));
    EXPECT_EQ(static_cast<int64_t>(store->events_after(id, 0).size()), count_of(held.events, id));
    EXPECT_EQ(static_cast<int64_t>(store->llm_calls(id).size()), count_of(held.llm_calls, id));
    EXPECT_EQ(static_cast<int64_t>(store->iterations(id).size()), count_of(held.iterations, id));
    EXPECT_EQ(static_cast<int64_t>(store->log_files(id).size()), count_of(held.log_files, id));
    std::set<std::tuple<int64_t, std::string, std::string, std::string>> read;
    for (const auto& task : store->tasks(id))
      for (const auto& result : task.results)
        read.insert({task.iteration, task.task_id, result.workload, std::string(to_string(result.verdict))});
    const auto expected = held.verdicts.count(id) ? held.verdicts.at(id) : decltype(read){};
    EXPECT_EQ(read, expected);
    std::vector<std::string> labels;
    for (const auto& diagnosis : store->diagnoses(id)) labels.push_back(diagnosis.label);
    EXPECT_EQ(labels, held.diagnoses.count(id) ? held.diagnoses.at(id) : std::vector<std::string>{});
    events += count_of(held.events, id);
    calls += count_of(held.llm_calls, id);
    verdicts += static_cast<int64_t>(read.size());
  }
  EXPECT_GT(events, 0);
  EXPECT_GT(verdicts, 0);
  if (earlier.schema_version >= 4) EXPECT_GT(calls, 0) << "the state holds LLM calls";

  std::map<std::string, int64_t> jobs;
  for (const auto& batch : store->eval_batches({EvalBatchState::running, EvalBatchState::done, EvalBatchState::cancelled}))
    jobs[batch.id] = static_cast<int64_t>(store->eval_jobs(batch.id).size());
  EXPECT_EQ(jobs, held.eval_jobs);

  // Every kept log is where the store says, whole.
  EXPECT_EQ(store->kept_file_paths().size(), held.kept_paths.size());
  for (const auto& path : store->kept_file_paths()) {
    EXPECT_TRUE(fs::is_regular_file(path)) << path;
    EXPECT_GT(fs::file_size(path), 0u) << path;
  }
}

INSTANTIATE_TEST_SUITE_P(EachEarlierSchema, UpgradeTest, ::testing::ValuesIn(mace::testing::earlier_states()),
                         [](const ::testing::TestParamInfo<EarlierState>& info) {
                           return "schema" + std::to_string(info.param.schema_version);
                         });

TEST(Upgrade, EveryEarlierSchemaOfAReleaseIsKept) {
  const auto states = mace::testing::earlier_states();
  std::set<int> kept;
  for (const auto& state : states) kept.insert(state.schema_version);
  // 1 never had a maced to write one; 16 and 17 never reached main on their own (18 came
  // with them); the latest is today's.
  for (int version = 2; version < latest_schema_version(); ++version)
    if (version != 16 && version != 17) EXPECT_TRUE(kept.count(version)) << "no state of schema " << version;
}

// kill -9 in the middle of a migration's transaction: the next open finds the database as
// it was before that migration, finishes every migration, and loses nothing.
TEST(Upgrade, AMigrationCutShortByKillIsFinishedByTheNextOpen) {
  const auto states = mace::testing::earlier_states();
  ASSERT_FALSE(states.empty());
  const EarlierState& oldest = states.front();
  TempDir dir;
  const fs::path state = fs::path(dir.path()) / "state";
  mace::testing::lay_out(oldest, state, fs::path(dir.path()) / "checkout");
  const Held held = read_held(state / "mace.db");
  const int cut_at = (oldest.schema_version + latest_schema_version() + 1) / 2;  // one it lacks

  const pid_t child = ::fork();
  if (child == 0) {
    Database db(state / "mace.db");
    db.set_busy_timeout(5000);
    db.exec("PRAGMA journal_mode = WAL");
    migrate(db, latest_schema_version(), [cut_at](int version) {
      if (version == cut_at) ::kill(::getpid(), SIGKILL);
    });
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "the migration was not cut short";
  {
    Database db(state / "mace.db");
    EXPECT_EQ(read_schema_version(db), cut_at - 1) << "the cut migration left nothing, those before it stand";
  }

  auto store = Store::open(state / "mace.db");
  EXPECT_EQ(store->schema_version(), latest_schema_version());
  for (const auto& [id, state_and_objective] : held.runs) {
    const auto run = store->find_run(id);
    ASSERT_TRUE(run.has_value()) << id;
    EXPECT_EQ(run->objective, std::get<1>(state_and_objective));
    EXPECT_EQ(static_cast<int64_t>(store->events_after(id, 0).size()), count_of(held.events, id)) << id;
  }
}

}  // namespace
}  // namespace mace::store
