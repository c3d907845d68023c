#include "store/store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "store/sqlite.h"
#include "temp_dir.h"

namespace mace::store {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::TempDir;

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override { store = Store::open(dir.db()); }

  Database& db() { return store->database(); }

  RunRecord make_run(const std::string& id, RunState state = RunState::queued,
                     uint32_t uid = 1000) {
    RunRecord r;
    r.id = id;
    r.state = state;
    r.core = "pico";
    r.workloads = {"add", "hello"};
    r.submitted_by_uid = uid;
    r.submitted_at_ms = 1'700'000'000'000;
    return r;
  }

  int64_t count(const std::string& sql) {
    auto stmt = db().prepare(sql);
    stmt.step();
    return stmt.int64(0);
  }

  void insert_iteration(const std::string& run, int64_t iteration, double cost = 0) {
    auto stmt = db().prepare(
        "INSERT INTO iterations (run_id, iteration, cost_usd, wall_s) VALUES (?1, ?2, ?3, 1.5)");
    stmt.bind(1, run).bind(2, iteration).bind(3, cost).run();
  }

  int64_t insert_task(const std::string& run, int64_t iteration, const std::string& task,
                      std::optional<int64_t> passed) {
    auto stmt = db().prepare(
        "INSERT INTO tasks (run_id, iteration, task_id, kind, passed) "
        "VALUES (?1, ?2, ?3, 'config', ?4)");
    stmt.bind(1, run).bind(2, iteration).bind(3, task).bind(4, passed).run();
    return db().last_insert_rowid();
  }

  void insert_llm_call(const std::string& run, double cost, bool success = true) {
    auto stmt = db().prepare(
        "INSERT INTO llm_calls (run_id, phase, cost_usd, success, created_at_ms) "
        "VALUES (?1, 'plan', ?2, ?3, 0)");
    stmt.bind(1, run).bind(2, cost).bind(3, success).run();
  }

  void insert_diagnosis(const std::string& run, int64_t iteration, bool recovered) {
    auto stmt = db().prepare(
        "INSERT INTO diagnoses (run_id, iteration, task_id, label, source, recovered, "
        "created_at_ms) VALUES (?1, ?2, 't1', 'way_rule', 'llm', ?3, 0)");
    stmt.bind(1, run).bind(2, iteration).bind(3, recovered).run();
  }

  static std::vector<std::string> ids(const std::vector<RunRecord>& runs) {
    std::vector<std::string> out;
    for (auto& r : runs) out.push_back(r.id);
    return out;
  }

  TempDir dir;
  std::unique_ptr<Store> store;
};

std::string pragma(Database& db, const char* sql) {
  auto stmt = db.prepare(sql);
  stmt.step();
  return stmt.text(0);
}

TEST_F(StoreTest, ConnectionIsInWalModeWithForeignKeysAndABusyTimeout) {
  EXPECT_EQ(pragma(db(), "PRAGMA journal_mode"), "wal");
  EXPECT_EQ(pragma(db(), "PRAGMA foreign_keys"), "1");
  EXPECT_EQ(pragma(db(), "PRAGMA busy_timeout"), "5000");
  EXPECT_EQ(pragma(db(), "PRAGMA synchronous"), "1");  // NORMAL
  // WAL is a property of the file: a plain connection sees it too.
  Database other(dir.db());
  EXPECT_EQ(pragma(other, "PRAGMA journal_mode"), "wal");
}

TEST_F(StoreTest, ForeignKeysRejectRowsOfAnUnknownRun) {
  EXPECT_THAT([&] { insert_iteration("no-such-run", 1); },
              ::testing::ThrowsMessage<std::runtime_error>(
                  HasSubstr("FOREIGN KEY constraint failed")));
  EventRecord e;
  e.run_id = "no-such-run";
  e.kind = EventKind::message;
  EXPECT_THROW(store->append_event(e), std::runtime_error);
  EXPECT_THROW(insert_llm_call("no-such-run", 1.0), std::runtime_error);
  auto stmt = db().prepare(
      "INSERT INTO task_results (task_row, ordinal, workload, verdict) VALUES (42, 0, 'add', "
      "'pass')");
  EXPECT_THROW(stmt.run(), std::runtime_error);
}

TEST_F(StoreTest, DeletingARunDeletesEverythingRecordedForIt) {
  store->insert_run(make_run("r1"));
  insert_iteration("r1", 1);
  int64_t task = insert_task("r1", 1, "t1", 1);
  db().prepare("INSERT INTO task_results (task_row, ordinal, workload, verdict) "
               "VALUES (?1, 0, 'add', 'pass')")
      .bind(1, task)
      .run();
  insert_llm_call("r1", 0.5);
  insert_diagnosis("r1", 1, false);
  EventRecord e;
  e.run_id = "r1";
  e.kind = EventKind::submitted;
  store->append_event(e);

  db().exec("DELETE FROM runs WHERE id = 'r1'");
  for (const char* table :
       {"iterations", "tasks", "task_results", "llm_calls", "diagnoses", "events"})
    EXPECT_EQ(count(std::string("SELECT count(*) FROM ") + table), 0) << table;
}

// REQ-VER-13
TEST_F(StoreTest, InsertedRunReadsBackEveryField) {
  RunRecord r = make_run("20260101-120000-000-abcdef", RunState::running, 4242);
  r.reason = "because";
  r.spec_json = R"({"core":"pico"})";
  r.mesh_x = 2;
  r.mesh_y = 3;
  r.objective = "make the L2 bigger";
  r.workloads = {"add", "with \"quotes\"", "ünïcode"};
  r.backend = "vertex";
  r.model = "gemini-2.5-flash";
  r.max_iterations = 10;
  r.max_usd = 20.5;
  r.max_wall_s = 3600;
  r.started_at_ms = 1'700'000'000'500;
  store->insert_run(make_run("original"));
  r.replay_of = "original";
  store->insert_run(r);

  auto got = store->find_run(r.id);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->id, r.id);
  EXPECT_EQ(got->state, RunState::running);
  EXPECT_EQ(got->reason, "because");
  EXPECT_EQ(got->spec_json, r.spec_json);
  EXPECT_EQ(got->core, "pico");
  EXPECT_EQ(got->mesh_x, 2);
  EXPECT_EQ(got->mesh_y, 3);
  EXPECT_EQ(got->objective, r.objective);
  EXPECT_EQ(got->workloads, r.workloads);
  EXPECT_EQ(got->backend, "vertex");
  EXPECT_EQ(got->model, "gemini-2.5-flash");
  EXPECT_EQ(got->max_iterations, 10);
  EXPECT_DOUBLE_EQ(got->max_usd, 20.5);
  EXPECT_EQ(got->max_wall_s, 3600);
  EXPECT_EQ(got->submitted_by_uid, 4242u);
  EXPECT_EQ(got->submitted_at_ms, r.submitted_at_ms);
  EXPECT_EQ(got->started_at_ms, r.started_at_ms);
  EXPECT_EQ(got->finished_at_ms, 0);
  EXPECT_EQ(got->replay_of, "original");
  EXPECT_EQ(got->iterations, 0);
  EXPECT_EQ(got->cost_usd, 0);

  // Zero and empty mean "none", which the schema records as NULL.
  EXPECT_EQ(count("SELECT count(*) FROM runs WHERE id = 'original' AND replay_of IS NULL "
                  "AND started_at_ms IS NULL AND finished_at_ms IS NULL"),
            1);
}

// What a run's tasks' configurations are told apart from: the checkout's default caches,
// recorded when its loop starts.
TEST_F(StoreTest, ARunKeepsItsDefaultCaches) {
  store->insert_run(make_run("a"));
  EXPECT_TRUE(store->find_run("a")->default_caches.empty());
  const CacheGeometry defaults = {{"l1i", {16384, 4}}, {"l1d", {8192, 4}}, {"l15", {8192, 4}},
                                  {"l2", {65536, 4}}};
  store->set_run_default_caches("a", defaults);
  EXPECT_EQ(store->find_run("a")->default_caches, defaults);
  EXPECT_EQ(count("SELECT count(*) FROM runs WHERE default_caches = "
                  "'l15:8192:4 l1d:8192:4 l1i:16384:4 l2:65536:4'"),
            1);
  EXPECT_THROW(store->set_run_default_caches("a", {{"l1 d", {1, 1}}}), std::invalid_argument);
  // A hand edit the store cannot read is an error naming the run, never a silent default.
  store->database().exec("UPDATE runs SET default_caches = 'l1d:8k:4' WHERE id = 'a'");
  EXPECT_THROW(store->find_run("a"), std::runtime_error);
}

TEST_F(StoreTest, FindingAnUnknownRunFindsNothing) {
  EXPECT_EQ(store->find_run("nope"), std::nullopt);
}

TEST_F(StoreTest, InsertingADuplicateRunIdThrows) {
  store->insert_run(make_run("r1"));
  EXPECT_THROW(store->insert_run(make_run("r1")), std::runtime_error);
}

TEST_F(StoreTest, ReplayOfAnUnknownRunIsRejected) {
  auto r = make_run("r1");
  r.replay_of = "never-was";
  EXPECT_THROW(store->insert_run(r), std::runtime_error);
}

// REQ-BUD-12
TEST_F(StoreTest, RunRecordCountsIterationsAndSumsLlmCost) {
  store->insert_run(make_run("r1"));
  store->insert_run(make_run("r2"));
  insert_iteration("r1", 1);
  insert_iteration("r1", 2);
  insert_llm_call("r1", 0.25);
  insert_llm_call("r1", 0.5, false);  // a failed call still cost what it cost
  insert_llm_call("r2", 7.0);

  auto r1 = store->find_run("r1");
  EXPECT_EQ(r1->iterations, 2);
  EXPECT_DOUBLE_EQ(r1->cost_usd, 0.75);
  auto listed = store->list_runs({});
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[1].id, "r1");
  EXPECT_EQ(listed[1].iterations, 2);
  EXPECT_DOUBLE_EQ(listed[1].cost_usd, 0.75);
  EXPECT_DOUBLE_EQ(listed[0].cost_usd, 7.0);
}

TEST_F(StoreTest, ListRunsIsNewestFirst) {
  for (auto id : {"20260101-000000-000-000002", "20260101-000000-000-000001",
                  "20260102-000000-000-000000"})
    store->insert_run(make_run(id));
  EXPECT_THAT(ids(store->list_runs({})),
              ElementsAre("20260102-000000-000-000000", "20260101-000000-000-000002",
                          "20260101-000000-000-000001"));
}

TEST_F(StoreTest, ListRunsFiltersByStateUserAndLimit) {
  store->insert_run(make_run("r1", RunState::passed, 1000));
  store->insert_run(make_run("r2", RunState::failed, 1000));
  store->insert_run(make_run("r3", RunState::running, 2000));
  store->insert_run(make_run("r4", RunState::passed, 2000));
  store->insert_run(make_run("r5", RunState::queued, 1000));

  RunFilter f;
  f.states = {RunState::passed, RunState::failed};
  EXPECT_THAT(ids(store->list_runs(f)), ElementsAre("r4", "r2", "r1"));

  f.submitted_by_uid = 1000;
  EXPECT_THAT(ids(store->list_runs(f)), ElementsAre("r2", "r1"));

  f.states.clear();
  EXPECT_THAT(ids(store->list_runs(f)), ElementsAre("r5", "r2", "r1"));

  f.limit = 2;
  EXPECT_THAT(ids(store->list_runs(f)), ElementsAre("r5", "r2"));

  RunFilter all;
  all.limit = 0;
  EXPECT_EQ(store->list_runs(all).size(), 5u);
  all.limit = 1;
  EXPECT_THAT(ids(store->list_runs(all)), ElementsAre("r5"));

  RunFilter nobody;
  nobody.submitted_by_uid = 0;
  EXPECT_TRUE(store->list_runs(nobody).empty());
}

// A listing comes a page at a time: `before` starts the next page after the last run of
// the previous one, with the same filter, and no run comes twice or is skipped.
TEST_F(StoreTest, ListRunsPagesFromBeforeWithTheSameFilter) {
  for (auto id : {"r1", "r2", "r3", "r4", "r5", "r6"})
    store->insert_run(make_run(id, id == std::string("r3") ? RunState::running : RunState::queued));
  RunFilter f;
  f.states = {RunState::queued};
  f.limit = 2;
  EXPECT_THAT(ids(store->list_runs(f)), ElementsAre("r6", "r5"));
  f.before = "r5";
  EXPECT_THAT(ids(store->list_runs(f)), ElementsAre("r4", "r2"));
  f.before = "r2";
  EXPECT_THAT(ids(store->list_runs(f)), ElementsAre("r1"));
  f.before = "r1";
  EXPECT_TRUE(store->list_runs(f).empty());
  // Where a queued run stands: the queued runs submitted before it.
  EXPECT_EQ(store->count_queued_before("r1"), 0);
  EXPECT_EQ(store->count_queued_before("r4"), 2);
  EXPECT_EQ(store->count_queued_before("r6"), 4);
}

// A listing reads no spec (a quarter of a MiB each, at most); the run itself has it.
TEST_F(StoreTest, ListedRunsCarryNoSpecAndFoundRunsTheirs) {
  RunRecord run = make_run("r1");
  run.spec_json = R"({"core":"pico","objective":")" + std::string(200 * 1024, 'x') + R"("})";
  run.objective = "o";
  store->insert_run(run);
  const auto listed = store->list_runs({});
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].objective, "o");
  EXPECT_EQ(listed[0].spec_json, "");
  EXPECT_EQ(store->find_run("r1")->spec_json, run.spec_json);
  EXPECT_EQ(store->runs_in_states({RunState::queued}).at(0).spec_json, run.spec_json);
  // Deleting a run deletes its spec.
  db().exec("DELETE FROM runs WHERE id = 'r1'");
  EXPECT_EQ(count("SELECT count(*) FROM run_specs"), 0);
}

TEST_F(StoreTest, CountsAUsersQueuedRunsAndPendingEvaluationJobs) {
  store->insert_run(make_run("r1", RunState::queued, 1000));
  store->insert_run(make_run("r2", RunState::running, 1000));
  store->insert_run(make_run("r3", RunState::queued, 1000));
  store->insert_run(make_run("r4", RunState::queued, 2000));
  EXPECT_EQ(store->count_queued_runs(1000), 2);
  EXPECT_EQ(store->count_queued_runs(2000), 1);
  EXPECT_EQ(store->count_queued_runs(3000), 0);

  auto batch = [&](const std::string& id, uint32_t uid, int jobs) {
    EvalBatchRecord b;
    b.id = id;
    b.suite_name = "s";
    b.suite_json = "{}";
    b.request_json = "{}";
    b.submitted_by_uid = uid;
    std::vector<EvalJobRecord> rows;
    for (int i = 0; i < jobs; ++i) {
      EvalJobRecord job;
      job.position = i;
      job.method = EvalMethod::mace;
      job.task_id = "t";
      rows.push_back(job);
    }
    store->insert_eval_batch(b, rows);
  };
  batch("b1", 1000, 3);
  batch("b2", 1000, 2);
  batch("b3", 2000, 5);
  store->set_eval_job_state("b1", 0, EvalJobState::done);
  EXPECT_EQ(store->count_pending_eval_jobs(1000), 4);
  store->set_eval_batch_state("b2", EvalBatchState::cancelled, 1);
  EXPECT_EQ(store->count_pending_eval_jobs(1000), 2);
  EXPECT_EQ(store->count_pending_eval_jobs(2000), 5);
}

TEST_F(StoreTest, RunsInStatesIsOldestFirst) {
  store->insert_run(make_run("r3", RunState::queued));
  store->insert_run(make_run("r1", RunState::running));
  store->insert_run(make_run("r2", RunState::passed));
  store->insert_run(make_run("r0", RunState::queued));
  EXPECT_THAT(ids(store->runs_in_states({RunState::queued, RunState::running})),
              ElementsAre("r0", "r1", "r3"));
  EXPECT_TRUE(store->runs_in_states({}).empty());
}

// REQ-BUD-9
TEST_F(StoreTest, SetRunStateStampsStartOnceAndFinishOnFinalState) {
  store->insert_run(make_run("r1"));
  EXPECT_TRUE(store->set_run_state("r1", RunState::running, "", 1000));
  auto r = store->find_run("r1");
  EXPECT_EQ(r->state, RunState::running);
  EXPECT_EQ(r->started_at_ms, 1000);
  EXPECT_EQ(r->finished_at_ms, 0);

  // Requeued after a daemon restart, then started again: the first start stands.
  EXPECT_TRUE(store->set_run_state("r1", RunState::queued, "maced restarted", 2000));
  EXPECT_TRUE(store->set_run_state("r1", RunState::running, "", 3000));
  r = store->find_run("r1");
  EXPECT_EQ(r->started_at_ms, 1000);
  EXPECT_EQ(r->finished_at_ms, 0);
  EXPECT_EQ(r->reason, "");

  EXPECT_TRUE(store->set_run_state("r1", RunState::budget_exceeded, "max_usd 20.0", 5000));
  r = store->find_run("r1");
  EXPECT_EQ(r->state, RunState::budget_exceeded);
  EXPECT_EQ(r->reason, "max_usd 20.0");
  EXPECT_EQ(r->started_at_ms, 1000);
  EXPECT_EQ(r->finished_at_ms, 5000);
}

TEST_F(StoreTest, RunCancelledWhileQueuedFinishesWithoutStarting) {
  store->insert_run(make_run("r1"));
  EXPECT_TRUE(store->set_run_state("r1", RunState::cancelled, "cancelled by uid 1000", 700));
  auto r = store->find_run("r1");
  EXPECT_EQ(r->started_at_ms, 0);
  EXPECT_EQ(r->finished_at_ms, 700);
}

TEST_F(StoreTest, SetRunStateOfAnUnknownRunReturnsFalse) {
  EXPECT_FALSE(store->set_run_state("nope", RunState::running, "", 1));
}

TEST_F(StoreTest, EventSeqIsGaplessPerRun) {
  store->insert_run(make_run("a"));
  store->insert_run(make_run("b"));
  std::vector<int64_t> a_seqs, b_seqs;
  for (int i = 0; i < 5; ++i) {
    EventRecord e;
    e.kind = EventKind::message;
    e.message = std::to_string(i);
    e.run_id = "a";
    a_seqs.push_back(store->append_event(e));
    if (i % 2 == 0) {
      e.run_id = "b";
      b_seqs.push_back(store->append_event(e));
    }
  }
  EXPECT_THAT(a_seqs, ElementsAre(1, 2, 3, 4, 5));
  EXPECT_THAT(b_seqs, ElementsAre(1, 2, 3));
}

TEST_F(StoreTest, FailedAppendUsesNoSeq) {
  store->insert_run(make_run("a"));
  EventRecord e;
  e.run_id = "a";
  e.kind = EventKind::message;
  EXPECT_EQ(store->append_event(e), 1);
  // The trigger fails the insert after the seq was chosen inside the transaction.
  db().exec(
      "CREATE TRIGGER refuse BEFORE INSERT ON events WHEN NEW.message = 'refused' "
      "BEGIN SELECT RAISE(ABORT, 'refused'); END");
  e.message = "refused";
  EXPECT_THROW(store->append_event(e), std::runtime_error);
  EXPECT_FALSE(db().in_transaction());
  e.message = "accepted";
  EXPECT_EQ(store->append_event(e), 2);
}

TEST_F(StoreTest, AppendInsideACallersTransactionCommitsWithIt) {
  store->insert_run(make_run("a"));
  EventRecord e;
  e.run_id = "a";
  e.kind = EventKind::message;
  {
    Transaction step(db());
    EXPECT_EQ(store->append_event(e), 1);
    EXPECT_EQ(store->append_event(e), 2);
  }  // abandoned: neither event happened
  EXPECT_TRUE(store->events_after("a", 0).empty());
  {
    Transaction step(db());
    store->append_event(e);
    step.commit();
  }
  EXPECT_EQ(store->events_after("a", 0).size(), 1u);
}

TEST_F(StoreTest, EventsReadBackEveryField) {
  store->insert_run(make_run("a"));
  EventRecord e;
  e.run_id = "a";
  e.at_ms = 123456;
  e.kind = EventKind::state_changed;
  e.state = RunState::planning_failed;
  e.iteration = 3;
  e.task_id = "t7";
  e.stage = TaskStage::building;
  e.workload = "hello";
  e.verdict = Verdict::maxcycles;
  e.message = "text";
  e.verdict_time = 750000250;
  e.cycles = 1500000;
  store->append_event(e);
  EventRecord plain;
  plain.run_id = "a";
  plain.kind = EventKind::message;
  store->append_event(plain);

  auto got = store->events_after("a", 0);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].run_id, "a");
  EXPECT_EQ(got[0].seq, 1);
  EXPECT_EQ(got[0].at_ms, 123456);
  EXPECT_EQ(got[0].kind, EventKind::state_changed);
  EXPECT_EQ(got[0].state, RunState::planning_failed);
  EXPECT_EQ(got[0].iteration, 3);
  EXPECT_EQ(got[0].task_id, "t7");
  EXPECT_EQ(got[0].stage, TaskStage::building);
  EXPECT_EQ(got[0].workload, "hello");
  EXPECT_EQ(got[0].verdict, Verdict::maxcycles);
  EXPECT_EQ(got[0].message, "text");
  EXPECT_EQ(got[0].verdict_time, std::optional<int64_t>(750000250));
  EXPECT_EQ(got[0].cycles, std::optional<int64_t>(1500000));
  EXPECT_EQ(got[1].seq, 2);
  EXPECT_EQ(got[1].state, std::nullopt);
  EXPECT_EQ(got[1].cycles, std::nullopt);
}

TEST_F(StoreTest, EventsAfterPagesInOrder) {
  store->insert_run(make_run("a"));
  store->insert_run(make_run("b"));
  for (int i = 0; i < 10; ++i) {
    EventRecord e;
    e.run_id = "a";
    e.kind = EventKind::message;
    e.message = std::to_string(i + 1);
    store->append_event(e);
  }
  EventRecord other;
  other.run_id = "b";
  other.kind = EventKind::message;
  store->append_event(other);

  std::vector<int64_t> seen;
  int64_t after = 0;
  int pages = 0;
  for (;;) {
    auto page = store->events_after("a", after, 4);
    if (page.empty()) break;
    ++pages;
    EXPECT_LE(page.size(), 4u);
    for (auto& e : page) {
      EXPECT_EQ(e.message, std::to_string(e.seq));
      seen.push_back(e.seq);
    }
    after = page.back().seq;
  }
  EXPECT_EQ(pages, 3);
  EXPECT_THAT(seen, ElementsAre(1, 2, 3, 4, 5, 6, 7, 8, 9, 10));
  EXPECT_EQ(store->events_after("a", 7).size(), 3u);
  EXPECT_EQ(store->events_after("a", 10).size(), 0u);
  EXPECT_EQ(store->events_after("b", 0).size(), 1u);
}

// REQ-VER-15
TEST_F(StoreTest, MetricsCountRecordedRowsOfTheRunOnly) {
  store->insert_run(make_run("r1"));
  store->insert_run(make_run("noise"));
  store->set_run_state("r1", RunState::running, "", 10'000);
  store->set_run_state("r1", RunState::passed, "", 75'500);

  insert_iteration("r1", 1, 0.4);
  insert_iteration("r1", 2, 0.2);
  insert_task("r1", 1, "t1", 1);
  insert_task("r1", 1, "t2", 0);
  insert_task("r1", 2, "t1", 1);
  insert_task("r1", 2, "t2", 1);
  insert_task("r1", 2, "t3", std::nullopt);  // never finished
  insert_llm_call("r1", 0.25);
  insert_llm_call("r1", 0.125);
  insert_llm_call("r1", 0.0, false);
  insert_diagnosis("r1", 1, true);
  insert_diagnosis("r1", 1, true);
  insert_diagnosis("r1", 2, false);

  insert_iteration("noise", 1, 9);
  insert_task("noise", 1, "t1", 1);
  insert_llm_call("noise", 9.0);
  insert_diagnosis("noise", 1, true);

  RunMetrics m = store->metrics("r1", 999'999'999);
  EXPECT_EQ(m.successful_tasks, 3);
  EXPECT_EQ(m.iterations, 2);
  EXPECT_EQ(m.failures_recovered, 2);
  EXPECT_DOUBLE_EQ(m.execution_time_s, 65.5);
  EXPECT_DOUBLE_EQ(m.compute_cost_usd, 0.375);
}

// REQ-VER-15
TEST_F(StoreTest, MetricsOfAnUnfinishedRunRunToNow) {
  store->insert_run(make_run("r1"));
  EXPECT_EQ(store->metrics("r1", 50'000).execution_time_s, 0);  // never started
  store->set_run_state("r1", RunState::running, "", 10'000);
  EXPECT_DOUBLE_EQ(store->metrics("r1", 12'345).execution_time_s, 2.345);
  EXPECT_EQ(store->metrics("r1", 9'000).execution_time_s, 0);  // clock stepped back

  auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
                 .count();
  store->insert_run(make_run("r2"));
  store->set_run_state("r2", RunState::running, "", now - 3000);
  double t = store->metrics("r2").execution_time_s;
  EXPECT_GE(t, 3.0);
  EXPECT_LT(t, 60.0);
}

TEST_F(StoreTest, MetricsOfAnUnknownRunAreZero) {
  RunMetrics m = store->metrics("nope", 1);
  EXPECT_EQ(m.successful_tasks, 0);
  EXPECT_EQ(m.iterations, 0);
  EXPECT_EQ(m.failures_recovered, 0);
  EXPECT_EQ(m.execution_time_s, 0);
  EXPECT_EQ(m.compute_cost_usd, 0);
}

// REQ-VER-13: a task's whole build configuration, and its results, as the harness
// reads them.
TEST_F(StoreTest, TaskRowsHoldTheBuildConfigurationAndResults) {
  store->insert_run(make_run("r1"));
  const std::string diff =
      "--- a/piton/design/chip/tile/l2/rtl/l2.v\n"
      "+++ b/piton/design/chip/tile/l2/rtl/l2.v\n"
      "@@ -1 +1 @@\n-old\n+new\n";
  db().prepare(R"sql(
INSERT INTO tasks (run_id, iteration, task_id, kind, instruction, deps_json, core, mesh_x,
                   mesh_y, l1i_size, l1i_assoc, l1d_size, l1d_assoc, l15_size, l15_assoc,
                   l2_size, l2_assoc, rtl_defines, rtl_edits, rtl_edits_hash, build_id,
                   build_outcome, build_reused, stage, passed)
VALUES ('r1', 1, 't1', 'rtl', 'grow L2', '["t0"]', 'pico', 2, 2, 16384, 4, 8192, 4, 8192,
        4, 65536, 8, 'NO_RTL_CSM PITON_ASIC', ?1, 'abc123', 'b-1', 'succeeded', 0, 'passed', 1)
)sql")
      .bind(1, diff)
      .run();
  int64_t row = db().last_insert_rowid();
  for (int i = 0; i < 2; ++i)
    db().prepare("INSERT INTO task_results (task_row, ordinal, workload, verdict, returncode, "
                 "run_dir, wall_s) VALUES (?1, ?2, ?3, 'pass', 0, '/runs/x', 0.65)")
        .bind(1, row)
        .bind(2, i)
        .bind(3, i == 0 ? "add" : "hello")
        .run();

  auto stmt = db().prepare(
      "SELECT l1i_size, l1i_assoc, l1d_size, l1d_assoc, l15_size, l15_assoc, l2_size, "
      "l2_assoc, rtl_defines, rtl_edits FROM tasks WHERE run_id = 'r1' AND task_id = 't1'");
  ASSERT_TRUE(stmt.step());
  EXPECT_EQ(stmt.int64(0), 16384);
  EXPECT_EQ(stmt.int64(1), 4);
  EXPECT_EQ(stmt.int64(6), 65536);
  EXPECT_EQ(stmt.int64(7), 8);
  EXPECT_EQ(stmt.text(8), "NO_RTL_CSM PITON_ASIC");
  EXPECT_EQ(stmt.text(9), diff);
  EXPECT_EQ(count("SELECT count(*) FROM task_results WHERE task_row = " + std::to_string(row)),
            2);

  // One row per task id in an iteration.
  EXPECT_THROW(insert_task("r1", 1, "t1", 0), std::runtime_error);
}

// REQ-VER-13: how a build and each simulation ran, kept with the verdict: command lines,
// whole environments, and a failed run's inputs byte for byte (binary too).
TEST_F(StoreTest, TaskRowsKeepCommandLinesEnvironmentsAndAFailedRunsInputs) {
  store->insert_run(make_run("r1"));
  TaskRecord t;
  t.run_id = "r1";
  t.iteration = 1;
  t.task_id = "t1";
  t.build_argv = {"sims", "-vlt_build", "-build_id=mace_01", "-config_rtl=A B"};
  t.build_environment = {"PATH=/usr/bin:/bin", "PITON_ROOT=/srv/o p"};
  WorkloadResultRecord r;
  r.workload = "hello";
  r.verdict = Verdict::fail;
  r.argv = {"/srv/sims", "-vlt_run", "hello.S"};
  r.environment = {"A=1", "B=x=y"};
  r.inputs = {{"hello.S", "main:\n"}, {"sub/bin", std::string("\0\xff\n", 3)}};
  r.inputs_note = "symbolic links not kept: l";
  t.results = {r, WorkloadResultRecord{.ordinal = 1, .workload = "add.S", .verdict = Verdict::pass}};
  store->upsert_task(t);

  const auto tasks = store->tasks("r1");
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].build_argv, t.build_argv);
  EXPECT_EQ(tasks[0].build_environment, t.build_environment);
  ASSERT_EQ(tasks[0].results.size(), 2u);
  EXPECT_EQ(tasks[0].results[0].argv, r.argv);
  EXPECT_EQ(tasks[0].results[0].environment, r.environment);
  EXPECT_EQ(tasks[0].results[0].inputs, r.inputs);
  EXPECT_EQ(tasks[0].results[0].inputs_note, r.inputs_note);
  EXPECT_TRUE(tasks[0].results[1].argv.empty());
  EXPECT_TRUE(tasks[0].results[1].inputs.empty());
}

// REQ-BUD-6
TEST_F(StoreTest, IterationRowsHoldCostAndWallTime) {
  store->insert_run(make_run("r1"));
  db().exec("INSERT INTO iterations (run_id, iteration, started_at_ms, finished_at_ms, cost_usd, "
            "wall_s, passed, plan_text) VALUES ('r1', 1, 1000, 61000, 0.42, 60.0, 1, 'TASK: t1')");
  auto stmt = db().prepare("SELECT cost_usd, wall_s, passed, plan_text FROM iterations "
                           "WHERE run_id = 'r1' AND iteration = 1");
  ASSERT_TRUE(stmt.step());
  EXPECT_DOUBLE_EQ(stmt.real(0), 0.42);
  EXPECT_DOUBLE_EQ(stmt.real(1), 60.0);
  EXPECT_EQ(stmt.int64(2), 1);
  EXPECT_EQ(stmt.text(3), "TASK: t1");
  // One row per iteration of a run.
  EXPECT_THROW(insert_iteration("r1", 1), std::runtime_error);
}

// REQ-BUD-12
TEST_F(StoreTest, LlmCallRowsHoldPhaseTokensCostTimeSuccessAndReply) {
  store->insert_run(make_run("r1"));
  db().prepare(R"sql(
INSERT INTO llm_calls (run_id, iteration, phase, backend, model, input_tokens, output_tokens,
                       thinking_tokens, cost_usd, wall_s, success, error_class, reply_text,
                       created_at_ms)
VALUES ('r1', 1, 'plan', 'vertex', 'gemini-2.5-flash', 1200, 300, 450, 0.0123, 4.5, 0, 'rate_limited',
        'TASK: t1 | deps= | kind=config | grow L2', 99)
)sql")
      .run();
  auto stmt = db().prepare(
      "SELECT phase, input_tokens, output_tokens, thinking_tokens, cost_usd, wall_s, success, "
      "error_class, reply_text FROM llm_calls WHERE run_id = 'r1'");
  ASSERT_TRUE(stmt.step());
  EXPECT_EQ(stmt.text(0), "plan");
  EXPECT_EQ(stmt.int64(1), 1200);
  EXPECT_EQ(stmt.int64(2), 300);
  EXPECT_EQ(stmt.int64(3), 450);
  EXPECT_DOUBLE_EQ(stmt.real(4), 0.0123);
  EXPECT_DOUBLE_EQ(stmt.real(5), 4.5);
  EXPECT_EQ(stmt.int64(6), 0);
  EXPECT_EQ(stmt.text(7), "rate_limited");
  EXPECT_EQ(stmt.text(8), "TASK: t1 | deps= | kind=config | grow L2");
  EXPECT_DOUBLE_EQ(store->find_run("r1")->cost_usd, 0.0123);
}

// REQ-FAIL-8, REQ-FAIL-10, REQ-FAIL-11
TEST_F(StoreTest, SchemaRefusesADiagnosisOrPostmortemOutsideTheirVocabulary) {
  store->insert_run(make_run("r1"));
  EXPECT_THROW(db().exec("INSERT INTO diagnoses (run_id, iteration, task_id, source, "
                         "created_at_ms) VALUES ('r1', 1, 't1', 'guess', 0)"),
               std::runtime_error);
  EXPECT_THROW(db().exec("INSERT INTO postmortems (run_id, created_at_ms) VALUES ('r1', 0)"),
               std::runtime_error);
  EXPECT_THROW(db().exec("INSERT INTO postmortems (run_id, assessment, created_at_ms) "
                         "VALUES ('r1', 'maybe', 0)"),
               std::runtime_error);
  db().exec("INSERT INTO postmortems (run_id, assessment, explanation, next_steps, "
            "created_at_ms) VALUES ('r1', 'likely_hardware_limitation', 'e', 'n', 0)");
  EXPECT_THROW(db().exec("INSERT INTO postmortems (run_id, assessment, created_at_ms) "
                         "VALUES ('r1', 'inconclusive', 0)"),
               std::runtime_error);
  for (const char* source : {"narrowing", "llm", "rule", "fallback"})
    db().prepare("INSERT INTO diagnoses (run_id, iteration, task_id, source, created_at_ms) "
                 "VALUES ('r1', 1, 't1', ?1, 0)")
        .bind(1, source)
        .run();
  EXPECT_EQ(count("SELECT count(*) FROM diagnoses WHERE run_id = 'r1' AND recovered = 0"), 4);
}

}  // namespace
}  // namespace mace::store

namespace mace::store {
namespace {

class LlmCallStoreTest : public StoreTest {};

// REQ-BUD-12, REQ-BUD-5
TEST_F(LlmCallStoreTest, EveryFieldOfACallIsRecordedAndItsCostCountsForTheRun) {
  store->insert_run(make_run("r1"));
  LlmCallRecord call;
  call.run_id = "r1";
  call.iteration = 2;
  call.phase = LlmPhase::planning;
  call.backend = "vertex";
  call.model = "gemini-2.5-flash";
  call.input_tokens = 1200;
  call.output_tokens = 340;
  call.thinking_tokens = 56;
  call.cost_usd = 0.0125;
  call.wall_s = 3.5;
  call.success = true;
  call.reply_text = "TASK: t1 | deps= | kind=config | build it";
  call.prompt_text = "You are planning the next iteration...";
  call.created_at_ms = 1000;
  int64_t id = store->record_llm_call(call);
  LlmCallRecord failed = call;
  failed.phase = LlmPhase::diagnosis;
  failed.task_id = "t1";
  failed.success = false;
  failed.error_class = LlmErrorClass::rate_limit;
  failed.cost_usd = 0.0;
  failed.reply_text = "";
  store->record_llm_call(failed);

  auto calls = store->llm_calls("r1");
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].id, id);
  EXPECT_EQ(calls[0].phase, LlmPhase::planning);
  EXPECT_EQ(calls[0].input_tokens, 1200);
  EXPECT_EQ(calls[0].output_tokens, 340);
  EXPECT_EQ(calls[0].thinking_tokens, 56);
  EXPECT_DOUBLE_EQ(calls[0].wall_s, 3.5);
  EXPECT_TRUE(calls[0].success);
  EXPECT_EQ(calls[0].reply_text, call.reply_text);
  EXPECT_EQ(calls[0].prompt_text, call.prompt_text);
  EXPECT_EQ(calls[1].task_id, "t1");
  EXPECT_FALSE(calls[1].success);
  EXPECT_EQ(calls[1].error_class, LlmErrorClass::rate_limit);
  EXPECT_DOUBLE_EQ(store->find_run("r1")->cost_usd, 0.0125);
  EXPECT_DOUBLE_EQ(store->metrics("r1").compute_cost_usd, 0.0125);
}

}  // namespace
}  // namespace mace::store

namespace mace::store {
namespace {

class RecordStoreTest : public StoreTest {
 protected:
  TaskRecord make_task(const std::string& run, int64_t iteration, const std::string& id) {
    TaskRecord t;
    t.run_id = run;
    t.iteration = iteration;
    t.task_id = id;
    t.kind = TaskKind::config;
    return t;
  }
};

// REQ-VER-13, REQ-BUD-6
TEST_F(RecordStoreTest, IterationReadsBackEveryField) {
  store->insert_run(make_run("r1"));
  store->record_iteration_start("r1", 1, 1000, "TASK: t1 | deps= | kind=config | grow L2");
  EXPECT_EQ(store->iterations("r1").at(0).finished_at_ms, 0);  // NULL until it ends
  store->record_iteration_end("r1", 1, 61'000, 0.42, 60.5, true);
  store->record_iteration_start("r1", 2, 62'000, "plan two");

  auto its = store->iterations("r1");
  ASSERT_EQ(its.size(), 2u);
  EXPECT_EQ(its[0].run_id, "r1");
  EXPECT_EQ(its[0].iteration, 1);
  EXPECT_EQ(its[0].started_at_ms, 1000);
  EXPECT_EQ(its[0].finished_at_ms, 61'000);
  EXPECT_DOUBLE_EQ(its[0].cost_usd, 0.42);
  EXPECT_DOUBLE_EQ(its[0].wall_s, 60.5);
  EXPECT_TRUE(its[0].passed);
  EXPECT_EQ(its[0].plan_text, "TASK: t1 | deps= | kind=config | grow L2");
  EXPECT_EQ(its[1].iteration, 2);
  EXPECT_EQ(its[1].started_at_ms, 62'000);
  EXPECT_EQ(its[1].finished_at_ms, 0);
  EXPECT_DOUBLE_EQ(its[1].cost_usd, 0);
  EXPECT_FALSE(its[1].passed);
  EXPECT_EQ(its[1].plan_text, "plan two");
  EXPECT_EQ(count("SELECT count(*) FROM iterations WHERE finished_at_ms IS NULL"), 1);
  EXPECT_TRUE(store->iterations("other").empty());
}

// REQ-VER-13
TEST_F(RecordStoreTest, IterationRecordsUpdateRatherThanDuplicate) {
  store->insert_run(make_run("r1"));
  store->record_iteration_start("r1", 1, 1000, "first plan");
  store->record_iteration_start("r1", 1, 2000, "replanned");
  store->record_iteration_end("r1", 1, 5000, 0.1, 3.0, false);
  store->record_iteration_end("r1", 1, 6000, 0.2, 4.0, true);
  // An end whose start was never recorded still counts the iteration.
  store->record_iteration_end("r1", 2, 9000, 0.3, 1.0, false);
  auto its = store->iterations("r1");
  ASSERT_EQ(its.size(), 2u);
  EXPECT_EQ(its[0].started_at_ms, 2000);
  EXPECT_EQ(its[0].plan_text, "replanned");
  EXPECT_EQ(its[0].finished_at_ms, 6000);
  EXPECT_DOUBLE_EQ(its[0].cost_usd, 0.2);
  EXPECT_TRUE(its[0].passed);
  EXPECT_EQ(its[1].started_at_ms, 0);
  EXPECT_EQ(its[1].finished_at_ms, 9000);
  EXPECT_THROW(store->record_iteration_start("no-such-run", 1, 0, ""), std::runtime_error);
  EXPECT_THROW(store->record_iteration_end("no-such-run", 1, 0, 0, 0, false),
               std::runtime_error);
}

// REQ-VER-13
TEST_F(RecordStoreTest, TaskReadsBackEveryFieldWithItsResults) {
  store->insert_run(make_run("r1"));
  TaskRecord t = make_task("r1", 1, "t2");
  t.kind = TaskKind::rtl;
  t.instruction = "grow L2 \"twice\"\n\tand see";
  t.deps = {"t0", "t\"1\\", "ü"};
  t.checkout = "/var/lib/mace/checkouts/c3";
  t.core = "ariane";
  t.mesh_x = 2;
  t.mesh_y = 3;
  t.network = "xy";
  t.l1i_size = 16384;
  t.l1i_assoc = 4;
  t.l1d_size = 8192;
  t.l1d_assoc = 2;
  t.l15_size = 4096;
  t.l15_assoc = 8;
  t.l2_size = 65536;
  t.l2_assoc = 16;
  t.rtl_defines = {"PITON_ASIC", "NO_RTL_CSM"};  // stored sorted
  t.rtl_edits = "--- a/l2.v\n+++ b/l2.v\n@@ -1 +1 @@\n-old\n+new\n";
  t.rtl_edits_hash = "abc123";
  t.extra_flags = {"--x_tiles", "-O2"};  // order kept
  t.build_id = "b-7";
  t.build_outcome = BuildOutcome::reused;
  t.build_reused = true;
  t.build_source = "store";
  t.build_origin = "/models/entries/b-7-x, built in /srv/a on n1 at 2026-12-01 10:00:00 UTC";
  t.failure_reason = FailureReason::way_rule;
  t.stage = TaskStage::running;
  t.passed = true;
  t.started_at_ms = 1000;
  t.finished_at_ms = 2000;
  t.build_wall_s = 312.5;
  t.build_cpu_s = 590.25;
  t.build_peak_rss_bytes = int64_t{270} << 20;
  t.results = {{0, "add", Verdict::pass, 0, "/runs/a", 0.65, 7110750, 14221},
               {1, "hello", Verdict::timeout, std::nullopt, "/runs/h", 30.0, std::nullopt, std::nullopt,
                "27669250 : Simulation -> FAIL(TIMEOUT)", "9: x\n10: 27669250 : Simulation -> FAIL(TIMEOUT)\n"}};
  int64_t row = store->upsert_task(t);
  EXPECT_GT(row, 0);
  EXPECT_EQ(count("SELECT count(*) FROM tasks WHERE rtl_defines = 'NO_RTL_CSM PITON_ASIC' "
                  "AND extra_flags = '--x_tiles -O2'"),
            1);

  auto tasks = store->tasks("r1");
  ASSERT_EQ(tasks.size(), 1u);
  const TaskRecord& r = tasks[0];
  EXPECT_EQ(r.row_id, row);
  EXPECT_EQ(r.run_id, "r1");
  EXPECT_EQ(r.iteration, 1);
  EXPECT_EQ(r.task_id, "t2");
  EXPECT_EQ(r.kind, TaskKind::rtl);
  EXPECT_EQ(r.instruction, t.instruction);
  EXPECT_EQ(r.deps, t.deps);
  EXPECT_EQ(r.checkout, t.checkout);
  EXPECT_EQ(r.core, "ariane");
  EXPECT_EQ(r.mesh_x, 2);
  EXPECT_EQ(r.mesh_y, 3);
  EXPECT_EQ(r.network, "xy");
  EXPECT_EQ(r.l1i_size, 16384);
  EXPECT_EQ(r.l1i_assoc, 4);
  EXPECT_EQ(r.l1d_size, 8192);
  EXPECT_EQ(r.l1d_assoc, 2);
  EXPECT_EQ(r.l15_size, 4096);
  EXPECT_EQ(r.l15_assoc, 8);
  EXPECT_EQ(r.l2_size, 65536);
  EXPECT_EQ(r.l2_assoc, 16);
  EXPECT_THAT(r.rtl_defines, ElementsAre("NO_RTL_CSM", "PITON_ASIC"));
  EXPECT_EQ(r.rtl_edits, t.rtl_edits);
  EXPECT_EQ(r.rtl_edits_hash, "abc123");
  EXPECT_THAT(r.extra_flags, ElementsAre("--x_tiles", "-O2"));
  EXPECT_EQ(r.build_id, "b-7");
  EXPECT_EQ(r.build_outcome, BuildOutcome::reused);
  EXPECT_TRUE(r.build_reused);
  EXPECT_EQ(r.build_source, "store");
  EXPECT_EQ(r.build_origin, t.build_origin);
  EXPECT_EQ(r.failure_reason, FailureReason::way_rule);
  EXPECT_EQ(r.stage, TaskStage::running);
  EXPECT_EQ(r.passed, std::optional<bool>(true));
  EXPECT_EQ(r.started_at_ms, 1000);
  EXPECT_EQ(r.finished_at_ms, 2000);
  ASSERT_EQ(r.results.size(), 2u);
  EXPECT_EQ(r.results[0].ordinal, 0);
  EXPECT_EQ(r.results[0].workload, "add");
  EXPECT_EQ(r.results[0].verdict, Verdict::pass);
  EXPECT_EQ(r.results[0].returncode, std::optional<int64_t>(0));
  EXPECT_EQ(r.results[0].run_dir, "/runs/a");
  EXPECT_DOUBLE_EQ(r.results[0].wall_s, 0.65);
  EXPECT_EQ(r.results[0].verdict_time, std::optional<int64_t>(7110750));
  EXPECT_EQ(r.results[0].cycles, std::optional<int64_t>(14221));
  EXPECT_EQ(r.results[1].ordinal, 1);
  EXPECT_EQ(r.results[1].workload, "hello");
  EXPECT_EQ(r.results[1].verdict, Verdict::timeout);
  EXPECT_EQ(r.results[1].returncode, std::nullopt);
  EXPECT_DOUBLE_EQ(r.results[1].wall_s, 30.0);
  EXPECT_EQ(r.results[1].verdict_time, std::nullopt);  // the transcript gave none
  EXPECT_EQ(r.results[1].cycles, std::nullopt);
  EXPECT_EQ(r.build_wall_s, std::optional<double>(312.5));
  EXPECT_EQ(r.build_cpu_s, std::optional<double>(590.25));
  EXPECT_EQ(r.build_peak_rss_bytes, std::optional<int64_t>(int64_t{270} << 20));
  EXPECT_EQ(r.results[0].error_line, "");
  EXPECT_EQ(r.results[1].error_line, "27669250 : Simulation -> FAIL(TIMEOUT)");
  EXPECT_EQ(r.results[1].excerpt, t.results[1].excerpt);
}

// REQ-EXEC-6: a task's coverage reads back with its modules, replaced when recorded again,
// and goes with its run.
TEST_F(RecordStoreTest, TaskCoverageReadsBackReplacedAndDeletedWithTheRun) {
  store->insert_run(make_run("r1"));
  TaskCoverageRecord c;
  c.run_id = "r1";
  c.iteration = 1;
  c.task_id = "build";
  c.workloads = 2;
  c.data_path = "/state/runs/r1/iter1/build/coverage/coverage.dat";
  c.annotated_dir = "/state/runs/r1/iter1/build/coverage/annotated";
  c.data_file_id = 7;
  c.total = {"", 80, 100, 40, 60};
  c.modules = {{"monitor", 5, 10, 2, 4}, {"system.chip.tile0", 75, 90, 38, 56}};
  c.created_at_ms = 123;
  store->record_task_coverage(c);
  TaskCoverageRecord failed = c;
  failed.task_id = "other";
  failed.error = "no simulation wrote coverage.dat";
  failed.workloads = 0;
  failed.total = {};
  failed.modules = {};
  failed.data_path = failed.annotated_dir = "";
  failed.data_file_id = 0;
  store->record_task_coverage(failed);
  auto read = store->task_coverage("r1");
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(read[0], c);
  EXPECT_EQ(read[1], failed);

  c.modules.pop_back();
  c.total = {"", 5, 10, 2, 4};
  store->record_task_coverage(c);
  read = store->task_coverage("r1");
  EXPECT_EQ(read[0], c);
  EXPECT_TRUE(store->task_coverage("r2").empty());
  EXPECT_ANY_THROW(store->record_task_coverage([&] {
    TaskCoverageRecord bad = c;
    bad.total = {"", 11, 10, 0, 0};  // more lines covered than there are
    return bad;
  }()));
  EXPECT_EQ(store->task_coverage("r1")[0], c) << "a refused record changes nothing";
  db().exec("DELETE FROM runs WHERE id = 'r1'");
  EXPECT_EQ(count("SELECT count(*) FROM task_coverage"), 0);
  EXPECT_EQ(count("SELECT count(*) FROM task_coverage_modules"), 0);
}

// REQ-VER-13: the unset fields are NULL in the schema and read back unset.
TEST_F(RecordStoreTest, TaskWithDefaultsStoresNullsAndReadsBackDefaults) {
  store->insert_run(make_run("r1"));
  store->upsert_task(make_task("r1", 1, "t1"));
  EXPECT_EQ(count("SELECT count(*) FROM tasks WHERE checkout IS NULL AND core IS NULL AND "
                  "mesh_x IS NULL AND network IS NULL AND l1i_size IS NULL AND l2_assoc IS NULL "
                  "AND build_id IS NULL AND passed IS NULL AND started_at_ms IS NULL AND "
                  "deps_json = '[]' AND rtl_defines = '' AND stage = 'pending'"),
            1);
  auto tasks = store->tasks("r1");
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].passed, std::nullopt);
  EXPECT_TRUE(tasks[0].deps.empty());
  EXPECT_TRUE(tasks[0].rtl_defines.empty());
  EXPECT_TRUE(tasks[0].extra_flags.empty());
  EXPECT_TRUE(tasks[0].results.empty());
  EXPECT_EQ(tasks[0].l2_size, 0);
  EXPECT_EQ(tasks[0].stage, TaskStage::pending);
  EXPECT_EQ(tasks[0].build_wall_s, std::nullopt);  // nothing measured is not zero
  EXPECT_EQ(tasks[0].build_cpu_s, std::nullopt);
  EXPECT_EQ(tasks[0].build_peak_rss_bytes, std::nullopt);
  EXPECT_EQ(count("SELECT count(*) FROM tasks WHERE build_wall_s IS NULL AND build_cpu_s IS NULL "
                  "AND build_peak_rss_bytes IS NULL"),
            1);

  TaskRecord failed = make_task("r1", 1, "t1");
  failed.passed = false;
  store->upsert_task(failed);
  EXPECT_EQ(store->tasks("r1").at(0).passed, std::optional<bool>(false));
}

// REQ-VER-13
TEST_F(RecordStoreTest, UpsertUpdatesTheTaskAndReplacesItsResults) {
  store->insert_run(make_run("r1"));
  TaskRecord t = make_task("r1", 1, "t1");
  t.stage = TaskStage::building;
  t.results = {{0, "add", Verdict::fail, 1, "/runs/a", 1.0},
               {1, "hello", Verdict::pass, 0, "/runs/h", 2.0},
               {2, "fib", Verdict::pass, 0, "/runs/f", 3.0}};
  int64_t row = store->upsert_task(t);

  t.stage = TaskStage::passed;
  t.passed = true;
  t.build_id = "b-1";
  t.results = {{0, "add", Verdict::pass, 0, "/runs/a2", 1.5}};
  EXPECT_EQ(store->upsert_task(t), row);
  EXPECT_EQ(count("SELECT count(*) FROM tasks"), 1);
  EXPECT_EQ(count("SELECT count(*) FROM task_results"), 1);
  auto tasks = store->tasks("r1");
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].stage, TaskStage::passed);
  EXPECT_EQ(tasks[0].build_id, "b-1");
  ASSERT_EQ(tasks[0].results.size(), 1u);
  EXPECT_EQ(tasks[0].results[0].verdict, Verdict::pass);
  EXPECT_EQ(tasks[0].results[0].run_dir, "/runs/a2");

  // Fields set back to their defaults are cleared, not kept.
  t.build_id.clear();
  t.passed.reset();
  t.results.clear();
  EXPECT_EQ(store->upsert_task(t), row);
  tasks = store->tasks("r1");
  EXPECT_EQ(tasks.at(0).build_id, "");
  EXPECT_EQ(tasks.at(0).passed, std::nullopt);
  EXPECT_TRUE(tasks.at(0).results.empty());
}

// REQ-VER-13
TEST_F(RecordStoreTest, FailedUpsertWritesNothing) {
  store->insert_run(make_run("r1"));
  TaskRecord t = make_task("r1", 1, "t1");
  t.results = {{0, "add", Verdict::pass, 0, "", 1.0}};
  store->upsert_task(t);

  TaskRecord dup = t;
  dup.stage = TaskStage::failed;
  dup.results = {{0, "add", Verdict::fail, 1, "", 1.0}, {0, "hello", Verdict::fail, 1, "", 1.0}};
  EXPECT_THROW(store->upsert_task(dup), std::runtime_error);
  TaskRecord spaced = t;
  spaced.stage = TaskStage::failed;
  spaced.extra_flags = {"-D X=1 2"};
  EXPECT_THROW(store->upsert_task(spaced), std::invalid_argument);
  spaced.extra_flags.clear();
  spaced.rtl_defines = {""};
  EXPECT_THROW(store->upsert_task(spaced), std::invalid_argument);
  EXPECT_THROW(store->upsert_task(make_task("no-such-run", 1, "t1")), std::runtime_error);

  auto tasks = store->tasks("r1");
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].stage, TaskStage::pending);
  ASSERT_EQ(tasks[0].results.size(), 1u);
  EXPECT_EQ(tasks[0].results[0].verdict, Verdict::pass);
  EXPECT_FALSE(db().in_transaction());
}

// REQ-VER-13
TEST_F(RecordStoreTest, TasksAreByIterationThenFirstRecordedAndOfTheRunOnly) {
  store->insert_run(make_run("r1"));
  store->insert_run(make_run("r2"));
  store->upsert_task(make_task("r1", 2, "a"));
  store->upsert_task(make_task("r1", 1, "z"));
  store->upsert_task(make_task("r1", 1, "b"));
  store->upsert_task(make_task("r2", 1, "other"));
  TaskRecord z = make_task("r1", 1, "z");
  z.results = {{0, "add", Verdict::pass, 0, "", 0}};
  store->upsert_task(z);  // an update keeps its place
  std::vector<std::string> order;
  for (auto& t : store->tasks("r1")) order.push_back(std::to_string(t.iteration) + t.task_id);
  EXPECT_THAT(order, ElementsAre("1z", "1b", "2a"));
  // The same task id in another iteration is another row.
  EXPECT_NE(store->upsert_task(make_task("r1", 3, "z")), store->upsert_task(z));
}

// REQ-FAIL-8, REQ-FAIL-9
TEST_F(RecordStoreTest, DiagnosesAreRecordedAndMarkedRecoveredForTheirRunOnly) {
  store->insert_run(make_run("r1"));
  store->insert_run(make_run("r2"));
  store->record_diagnosis("r1", 1, "t1", "way_rule", "set l2_assoc to 8", DiagnosisSource::rule,
                          "l2_assoc=6 is not a power of two", 1234);
  store->record_diagnosis("r1", 2, "t3", "build_failed", "drop the define", DiagnosisSource::llm, "log tail",
                          5678);
  store->record_diagnosis("r2", 1, "t1", "timeout", "", DiagnosisSource::fallback, "", 9);
  auto stmt = db().prepare(
      "SELECT run_id, iteration, task_id, label, fix, source, evidence, recovered, "
      "created_at_ms FROM diagnoses ORDER BY id LIMIT 1");
  ASSERT_TRUE(stmt.step());
  EXPECT_EQ(stmt.text(0), "r1");
  EXPECT_EQ(stmt.int64(1), 1);
  EXPECT_EQ(stmt.text(2), "t1");
  EXPECT_EQ(stmt.text(3), "way_rule");
  EXPECT_EQ(stmt.text(4), "set l2_assoc to 8");
  EXPECT_EQ(stmt.text(5), "rule");
  EXPECT_EQ(stmt.text(6), "l2_assoc=6 is not a power of two");
  EXPECT_EQ(stmt.int64(7), 0);
  EXPECT_EQ(stmt.int64(8), 1234);
  EXPECT_THROW(store->record_diagnosis("no-such-run", 1, "t1", "", "", DiagnosisSource::llm, "", 0),
               std::runtime_error);

  EXPECT_EQ(store->mark_failures_recovered("r1"), 2);
  EXPECT_EQ(store->mark_failures_recovered("r1"), 0);  // already marked
  EXPECT_EQ(store->mark_failures_recovered("no-such-run"), 0);
  EXPECT_EQ(count("SELECT count(*) FROM diagnoses WHERE run_id = 'r1' AND recovered = 1"), 2);
  EXPECT_EQ(count("SELECT count(*) FROM diagnoses WHERE run_id = 'r2' AND recovered = 0"), 1);
}

TEST_F(RecordStoreTest, DiagnosesReadBackOldestFirstWithRecovery) {  // REQ-FAIL-8, REQ-FAIL-9
  store->insert_run(make_run("r1"));
  store->record_diagnosis("r1", 1, "t1", "a", "fa", DiagnosisSource::narrowing, "ev", 1);
  store->record_diagnosis("r1", 2, "t2", "b", "fb", DiagnosisSource::llm, "", 2);
  store->mark_failures_recovered("r1");
  auto d = store->diagnoses("r1");
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].label, "a");
  EXPECT_EQ(d[0].source, DiagnosisSource::narrowing);
  EXPECT_EQ(d[0].evidence, "ev");
  EXPECT_TRUE(d[1].recovered);
  EXPECT_EQ(d[1].iteration, 2);
  EXPECT_TRUE(store->diagnoses("r2").empty());
}

TEST_F(RecordStoreTest, NarrowingBuildsAreKeptApartFromTasks) {  // REQ-FAIL-12
  store->insert_run(make_run("r1"));
  store->record_narrowing_build({"r1", 1, "t1", "undo define PITON_A", "mace_x", "/co", true, FailureReason::none, 7});
  store->record_narrowing_build({"r1", 1, "t1", "undo l2", "mace_y", "/co", false, FailureReason::workload_failed, 8});
  auto b = store->narrowing_builds("r1");
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].undone, "undo define PITON_A");
  EXPECT_TRUE(b[0].passed);
  EXPECT_EQ(b[1].failure_reason, FailureReason::workload_failed);
  EXPECT_EQ(store->metrics("r1").successful_tasks, 0) << "narrowing builds are not plan tasks";
  EXPECT_THROW(store->record_narrowing_build({"nope", 1, "t", "u", "", "", false, FailureReason::none, 0}),
               std::runtime_error);
}

TEST_F(RecordStoreTest, OnePostMortemPerRunWithAValidAssessment) {  // REQ-FAIL-10, REQ-FAIL-11
  store->insert_run(make_run("r1"));
  EXPECT_FALSE(store->post_mortem("r1"));
  store->record_post_mortem("r1", {"fixable_config", "l2 too small", "double it", 5});
  auto pm = store->post_mortem("r1");
  ASSERT_TRUE(pm);
  EXPECT_EQ(pm->assessment, "fixable_config");
  EXPECT_EQ(pm->next_steps, "double it");
  EXPECT_THROW(store->record_post_mortem("r1", {"inconclusive", "", "", 6}), std::runtime_error);
  store->insert_run(make_run("r2"));
  EXPECT_THROW(store->record_post_mortem("r2", {"hopeless", "", "", 6}), std::runtime_error);
}

// REQ-VER-15: the metrics count what the recording methods wrote.
TEST_F(RecordStoreTest, MetricsCountRecordedTasksIterationsAndRecoveredFailures) {
  store->insert_run(make_run("r1"));
  store->insert_run(make_run("r2"));
  store->record_iteration_start("r1", 1, 1000, "p1");
  store->record_iteration_end("r1", 1, 2000, 0.1, 1.0, false);
  store->record_iteration_start("r1", 2, 3000, "p2");
  store->record_iteration_end("r1", 2, 4000, 0.1, 1.0, true);
  store->record_iteration_start("r2", 1, 1000, "other run");

  TaskRecord t = make_task("r1", 1, "t1");
  t.passed = false;
  store->upsert_task(t);
  t.iteration = 2;
  t.passed = true;
  store->upsert_task(t);
  store->upsert_task(make_task("r1", 2, "t2"));  // not ended: passed is NULL
  TaskRecord t3 = make_task("r1", 2, "t3");
  t3.passed = true;
  store->upsert_task(t3);
  store->upsert_task(t3);  // recorded twice, counted once
  TaskRecord other = make_task("r2", 1, "t1");
  other.passed = true;
  store->upsert_task(other);

  store->record_diagnosis("r1", 1, "t1", "way_rule", "fix", DiagnosisSource::rule, "", 0);
  store->record_diagnosis("r1", 1, "t1", "way_rule", "fix", DiagnosisSource::narrowing, "", 0);
  store->record_diagnosis("r2", 1, "t9", "x", "", DiagnosisSource::llm, "", 0);
  EXPECT_EQ(store->metrics("r1", 0).failures_recovered, 0);
  store->mark_failures_recovered("r1");

  RunMetrics m = store->metrics("r1", 0);
  EXPECT_EQ(m.successful_tasks, 2);
  EXPECT_EQ(m.iterations, 2);
  EXPECT_EQ(m.failures_recovered, 2);
  EXPECT_EQ(store->find_run("r1")->iterations, 2);
  RunMetrics m2 = store->metrics("r2", 0);
  EXPECT_EQ(m2.successful_tasks, 1);
  EXPECT_EQ(m2.iterations, 1);
  EXPECT_EQ(m2.failures_recovered, 0);
}

TEST_F(RecordStoreTest, DeletingARunDeletesWhatTheRecordingMethodsWrote) {
  store->insert_run(make_run("r1"));
  store->insert_run(make_run("r2"));
  for (const char* run : {"r1", "r2"}) {
    store->record_iteration_start(run, 1, 1000, "p");
    store->record_iteration_end(run, 1, 2000, 0.1, 1.0, true);
    TaskRecord t = make_task(run, 1, "t1");
    t.results = {{0, "add", Verdict::pass, 0, "", 1.0}, {1, "hello", Verdict::pass, 0, "", 1.0}};
    store->upsert_task(t);
    store->record_diagnosis(run, 1, "t1", "l", "f", DiagnosisSource::llm, "e", 0);
  }
  db().exec("DELETE FROM runs WHERE id = 'r1'");
  EXPECT_TRUE(store->iterations("r1").empty());
  EXPECT_TRUE(store->tasks("r1").empty());
  EXPECT_EQ(count("SELECT count(*) FROM diagnoses WHERE run_id = 'r1'"), 0);
  EXPECT_EQ(count("SELECT count(*) FROM task_results"), 2);  // r2's only
  EXPECT_EQ(store->iterations("r2").size(), 1u);
  EXPECT_EQ(store->tasks("r2").at(0).results.size(), 2u);
  EXPECT_EQ(count("SELECT count(*) FROM diagnoses WHERE run_id = 'r2'"), 1);
}

}  // namespace
}  // namespace mace::store

namespace mace::store {
namespace {

// What the scheduler and the status line read: a few columns, not the specs. A queue of
// runs with large specs made an idle maced spin re-reading them every few seconds.
TEST(StoreQueue, QueuedRunsAndCountsReadOnlyWhatTheyNeed) {
  testing::TempDir dir;
  auto store = Store::open(dir.db());
  for (const char* id : {"20260101-000000-000-000001", "20260101-000000-000-000002"}) {
    RunRecord r;
    r.id = id;
    r.objective = std::string(1 << 20, 'x');
    r.submitted_by_uid = 7;
    r.checkouts_wanted = 2;
    store->insert_run(r);
  }
  store->set_run_state("20260101-000000-000-000002", RunState::running, "", 1);
  auto queued = store->queued_runs();
  ASSERT_EQ(queued.size(), 1u);
  EXPECT_EQ(queued[0].id, "20260101-000000-000-000001");
  EXPECT_EQ(queued[0].submitted_by_uid, 7u);
  EXPECT_EQ(queued[0].checkouts_wanted, 2);
  auto counts = store->count_runs_by_state();
  EXPECT_EQ(counts[RunState::queued], 1);
  EXPECT_EQ(counts[RunState::running], 1);
  EXPECT_EQ(counts.count(RunState::passed), 0u);
}

}  // namespace
}  // namespace mace::store

namespace mace::store {
namespace {

// REQ-EVAL-7: a run's re-simulated designs read back in order, a second recording replaces
// the first, and they go with their run.
TEST(EvalResimulationStoreTest, ReadBackReplacedAndDeletedWithTheRun) {
  TempDir dir;
  auto store = Store::open(dir.db());
  RunRecord run;
  run.id = "r1";
  run.core = "pico";
  run.workloads = {"hello", "memstress"};
  store->insert_run(run);
  EvalResimulationRecord design{"d1", "mace_1",
                                {{0, "hello", Verdict::pass, 0, "/r/h", 1.5, 6943250, 13886},
                                 {1, "memstress", Verdict::none, std::nullopt, "", 0}}};
  store->set_eval_resimulations("r1", {design, {"d0", "mace_0", {{0, "hello", Verdict::fail, 1, "/r/f", 2}}}});
  auto read = store->eval_resimulations("r1");
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(read[0].task_id, "d0");
  EXPECT_EQ(read[1].build_id, "mace_1");
  ASSERT_EQ(read[1].results.size(), 2u);
  EXPECT_EQ(read[1].results[0].verdict, Verdict::pass);
  EXPECT_EQ(read[1].results[0].returncode, 0);
  EXPECT_EQ(read[1].results[0].cycles, std::optional<int64_t>(13886));
  EXPECT_EQ(read[1].results[0].verdict_time, std::optional<int64_t>(6943250));
  EXPECT_EQ(read[1].results[1].returncode, std::nullopt);
  EXPECT_EQ(read[1].results[1].cycles, std::nullopt);
  store->set_eval_resimulations("r1", {design});
  EXPECT_EQ(store->eval_resimulations("r1").size(), 1u);
  store->database().exec("DELETE FROM runs WHERE id = 'r1'");
  EXPECT_TRUE(store->eval_resimulations("r1").empty());
}

}  // namespace
}  // namespace mace::store
