#include "store/migrations.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "store/sqlite.h"
#include "store/store.h"
#include "temp_dir.h"

namespace mace::store {
namespace {

using ::testing::HasSubstr;
using ::testing::IsSupersetOf;
using testing::TempDir;

std::set<std::string> schema_objects(Database& db, const char* type) {
  auto stmt = db.prepare("SELECT name FROM sqlite_master WHERE type = ?1");
  stmt.bind(1, type);
  std::set<std::string> names;
  while (stmt.step()) names.insert(stmt.text(0));
  return names;
}

RunRecord sample_run(const std::string& id) {
  RunRecord r;
  r.id = id;
  r.core = "pico";
  r.workloads = {"add"};
  return r;
}

TEST(Migrations, EmptyFileReachesTheLatestVersionWithEveryTable) {
  TempDir dir;
  auto store = Store::open(dir.db());
  EXPECT_GE(latest_schema_version(), 1);
  EXPECT_EQ(store->schema_version(), latest_schema_version());
  EXPECT_THAT(schema_objects(store->database(), "table"),
              IsSupersetOf({"runs", "iterations", "tasks", "task_results", "diagnoses",
                            "postmortems", "llm_calls", "events"}));
  // The indexes the status, list and metrics queries filter by.
  EXPECT_THAT(schema_objects(store->database(), "index"),
              IsSupersetOf({"runs_state_id", "runs_uid", "llm_calls_run", "diagnoses_run"}));
}

TEST(Migrations, MigrateCountsWhatItApplies) {
  TempDir dir;
  Database db(dir.db());
  EXPECT_EQ(read_schema_version(db), 0);
  EXPECT_EQ(migrate(db), latest_schema_version());
  EXPECT_EQ(read_schema_version(db), latest_schema_version());
  EXPECT_EQ(migrate(db), 0);
}

TEST(Migrations, ReopeningAppliesNothingAndKeepsData) {
  TempDir dir;
  {
    auto store = Store::open(dir.db());
    store->insert_run(sample_run("20260101-000000-000-000001"));
  }
  {
    Database db(dir.db());
    EXPECT_EQ(migrate(db), 0);
  }
  auto store = Store::open(dir.db());
  EXPECT_EQ(store->schema_version(), latest_schema_version());
  auto run = store->find_run("20260101-000000-000-000001");
  ASSERT_TRUE(run);
  EXPECT_EQ(run->core, "pico");
}

// Version 5 keeps the spec's `checkouts` in a column the scheduler reads; runs submitted
// before it get theirs from their spec.
TEST(Migrations, CheckoutsWantedIsFilledFromTheSpecsOfEarlierRuns) {
  TempDir dir;
  {
    Database db(dir.db());
    ASSERT_EQ(migrate(db, 4), 4);
    db.exec(R"sql(INSERT INTO runs (id, state, spec_json, core, mesh_x, mesh_y, objective,
        workloads_json, backend, model, max_iterations, max_usd, max_wall_s, submitted_by_uid,
        submitted_at_ms) VALUES
      ('two', 'queued', '{"core":"pico","checkouts":2}', 'pico', 1, 1, 'o', '[]', 'direct', '',
       1, 1.0, 1, 0, 1),
      ('any', 'queued', '{"core":"pico"}', 'pico', 1, 1, 'o', '[]', 'direct', '', 1, 1.0, 1, 0, 2))sql");
  }
  auto store = Store::open(dir.db());
  EXPECT_EQ(store->find_run("two")->checkouts_wanted, 2);
  EXPECT_EQ(store->find_run("any")->checkouts_wanted, 0);
}

// Version 14 keeps each run's spec in a table of its own; runs recorded before it keep
// theirs, and their rows lose the column.
TEST(Migrations, SpecsOfEarlierRunsMoveToTheirOwnTable) {
  TempDir dir;
  {
    Database db(dir.db());
    ASSERT_EQ(migrate(db, 13), 13);
    db.exec(R"sql(INSERT INTO runs (id, state, spec_json, core, mesh_x, mesh_y, objective,
        workloads_json, backend, model, max_iterations, max_usd, max_wall_s, submitted_by_uid,
        submitted_at_ms) VALUES
      ('old', 'queued', '{"core":"pico","objective":"kept"}', 'pico', 1, 1, 'kept', '["add"]',
       'direct', '', 1, 1.0, 1, 1000, 1))sql");
  }
  auto store = Store::open(dir.db());
  auto run = store->find_run("old");
  ASSERT_TRUE(run);
  EXPECT_EQ(run->spec_json, R"({"core":"pico","objective":"kept"})");
  EXPECT_EQ(run->objective, "kept");
  EXPECT_EQ(run->submitted_by_uid, 1000u);
  auto columns = store->database().prepare("SELECT count(*) FROM pragma_table_info('runs') WHERE name = 'spec_json'");
  columns.step();
  EXPECT_EQ(columns.int64(0), 0);
}

// REQ-VER-13: results recorded before cycles and build figures were kept read back without
// them (NULL: not known), not as zero cycles or a build that cost nothing.
TEST(Migrations, ResultsRecordedBeforeFiguresWereKeptHaveNone) {
  constexpr int kBeforeFigures = 14;  // the version before the figures' migration
  TempDir dir;
  {
    Database db(dir.db());
    ASSERT_EQ(migrate(db, kBeforeFigures), kBeforeFigures);
    db.exec(R"sql(INSERT INTO runs (id, state, core) VALUES ('old', 'passed', 'pico');
      INSERT INTO tasks (id, run_id, iteration, task_id, kind, build_id, build_outcome)
        VALUES (1, 'old', 1, 't', 'config', 'mace_1', 'succeeded');
      INSERT INTO task_results (task_row, ordinal, workload, verdict, returncode, run_dir, wall_s)
        VALUES (1, 0, 'hello', 'pass', 0, '/r', 1.5))sql");
  }
  auto store = Store::open(dir.db());
  auto tasks = store->tasks("old");
  ASSERT_EQ(tasks.size(), 1u);
  ASSERT_EQ(tasks[0].results.size(), 1u);
  EXPECT_EQ(tasks[0].results[0].cycles, std::nullopt);
  EXPECT_EQ(tasks[0].results[0].verdict_time, std::nullopt);
  EXPECT_EQ(tasks[0].build_wall_s, std::nullopt);
  EXPECT_EQ(tasks[0].build_cpu_s, std::nullopt);
  EXPECT_TRUE(store->find_run("old")->default_caches.empty());
}

TEST(Migrations, NewerSchemaVersionIsRefusedAndTheFileLeftAlone) {
  TempDir dir;
  int newer = latest_schema_version() + 1;
  {
    Database db(dir.db());
    db.exec("PRAGMA user_version = " + std::to_string(newer));
  }
  std::string message;
  try {
    Store::open(dir.db());
  } catch (const std::runtime_error& e) {
    message = e.what();
  }
  EXPECT_THAT(message, HasSubstr("mace.db has schema version " + std::to_string(newer) +
                                 "; this maced knows up to " +
                                 std::to_string(latest_schema_version())));

  Database db(dir.db());
  EXPECT_EQ(read_schema_version(db), newer);
  EXPECT_TRUE(schema_objects(db, "table").empty());
  auto mode = db.prepare("PRAGMA journal_mode");
  mode.step();
  EXPECT_EQ(mode.text(0), "delete");
}

TEST(Migrations, FailedMigrationLeavesNoPartOfItBehind) {
  TempDir dir;
  {
    // A table in the way makes the first migration fail at its last CREATE TABLE, after
    // it has created every other table; none of them may survive.
    Database db(dir.db());
    db.exec("CREATE TABLE events (x)");
  }
  EXPECT_THROW(Store::open(dir.db()), std::runtime_error);
  Database db(dir.db());
  EXPECT_EQ(read_schema_version(db), 0);
  EXPECT_EQ(schema_objects(db, "table"), std::set<std::string>{"events"});
}

TEST(Migrations, ConnectionsOpeningANewFileAtOnceAllSucceed) {
  TempDir dir;
  constexpr int kOpeners = 4;
  std::vector<std::string> errors(kOpeners);
  std::vector<int> versions(kOpeners);
  std::vector<std::thread> threads;
  for (int i = 0; i < kOpeners; ++i)
    threads.emplace_back([&, i] {
      try {
        versions[i] = Store::open(dir.db())->schema_version();
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    });
  for (auto& t : threads) t.join();
  for (int i = 0; i < kOpeners; ++i) {
    EXPECT_EQ(errors[i], "") << "opener " << i;
    EXPECT_EQ(versions[i], latest_schema_version()) << "opener " << i;
  }
}

// Migrations spell the states out; a RunState added without a migration that widens the
// CHECK fails here rather than at the first run that reaches it.
TEST(Migrations, SchemaAcceptsEveryRunStateAndNothingElse) {
  TempDir dir;
  auto store = Store::open(dir.db());
  for (int i = 0;; ++i) {
    auto state = static_cast<RunState>(i);
    if (to_string(state).empty()) break;  // past the last state
    auto run = sample_run("run-" + std::to_string(i));
    run.state = state;
    EXPECT_NO_THROW(store->insert_run(run)) << to_string(state);
    EXPECT_EQ(store->find_run(run.id)->state, state);
  }
  EXPECT_THROW(store->database().exec("INSERT INTO runs (id, state) VALUES ('x', 'paused')"),
               std::runtime_error);
}

}  // namespace
}  // namespace mace::store
