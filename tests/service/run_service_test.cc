// The daemon's run bookkeeping without sockets or an event loop.

#include "service/run_service.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "service/service_error.h"
#include "store/sqlite.h"
#include "support/child_process.h"

namespace mace::service {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class Recorder : public RunWatcher {
 public:
  void on_event(const store::EventRecord& e) override {
    events.push_back(std::to_string(e.seq) + ":" + std::string(to_string(e.kind)));
  }
  void on_done(const store::RunRecord& run) override { done.push_back(run.state); }
  std::vector<std::string> events;
  std::vector<RunState> done;
};

class RunServiceTest : public ::testing::Test {
 protected:
  RunServiceTest()
      : store_(store::Store::open(dir_.file("mace.db"))),
        service_(*store_, settings(), [this] { return now_; }) {}

  static ServiceSettings settings() {
    ServiceSettings s;
    s.backend = "vertex";
    return s;
  }

  std::string submit(uint32_t uid = 1000) {
    auto outcome = service_.submit_json(
        R"({"workloads": ["hello"], "objective": "o", "core": "pico"})", Caller{uid});
    EXPECT_TRUE(outcome.errors.empty());
    return outcome.run_id;
  }

  static constexpr Caller kAlice{1000, false};
  static constexpr Caller kBob{1001, false};
  static constexpr Caller kAdmin{999, true};

  testing::TempDir dir_;
  int64_t now_ = 1'700'000'000'000;
  std::unique_ptr<store::Store> store_;
  RunService service_;
};

TEST_F(RunServiceTest, RejectedSpecRecordsNothing) {  // REQ-PLAN-4
  auto outcome = service_.submit_json(R"({"workloads": [], "objective": ""})", kAlice);
  EXPECT_TRUE(outcome.run_id.empty());
  EXPECT_GE(outcome.errors.size(), 2u);
  EXPECT_TRUE(service_.list({}).empty());
}

TEST_F(RunServiceTest, AcceptedRunIsQueuedWithDefaultsResolved) {  // REQ-PLAT-7, REQ-PLAT-8
  std::string id = submit();
  auto run = service_.run(id);
  EXPECT_EQ(run.state, RunState::queued);
  EXPECT_EQ(run.submitted_by_uid, 1000u);
  EXPECT_EQ(run.submitted_at_ms, now_);
  EXPECT_EQ(run.backend, "vertex");
  EXPECT_EQ(run.model, "gemini-2.5-flash");
  EXPECT_EQ(run.max_iterations, 10);
}

TEST_F(RunServiceTest, AToolMacedDoesNotHaveIsRefusedAndNothingIsRecorded) {  // REQ-EXEC-7
  ServiceSettings with_tools = settings();
  with_tools.tool_names = {"logs", "waves"};
  RunService service(*store_, with_tools, [this] { return now_; });
  auto outcome = service.submit_json(
      R"({"workloads": ["hello"], "objective": "o", "tools": ["waves", "gdb", "logs", "lint"]})", kAlice);
  EXPECT_TRUE(outcome.run_id.empty());
  EXPECT_THAT(outcome.errors,
              ElementsAre(FieldError{"tools[1]", R"(no tool "gdb" in maced's configuration; it has logs, waves)"},
                          FieldError{"tools[3]", R"(no tool "lint" in maced's configuration; it has logs, waves)"}));
  EXPECT_TRUE(service.list({}).empty());

  // The typed form is held to the same list.
  RunSpec spec;
  spec.workloads = {"hello"};
  spec.objective = "o";
  spec.tools = {"gdb"};
  EXPECT_THAT(service.submit(spec, kAlice).errors,
              ElementsAre(FieldError{"tools[0]", R"(no tool "gdb" in maced's configuration; it has logs, waves)"}));
  EXPECT_TRUE(service.list({}).empty());
}

TEST_F(RunServiceTest, WithNoToolsConfiguredASpecMayNameNone) {  // REQ-EXEC-7
  auto outcome = service_.submit_json(R"({"workloads": ["hello"], "objective": "o", "tools": ["logs"]})", kAlice);
  EXPECT_THAT(outcome.errors,
              ElementsAre(FieldError{"tools[0]", R"(no tool "logs" in maced's configuration; it declares none)"}));
  EXPECT_TRUE(service_.list({}).empty());
}

TEST_F(RunServiceTest, ConfiguredToolsAreAcceptedAndKeptInTheRecordedSpec) {  // REQ-EXEC-7
  ServiceSettings with_tools = settings();
  with_tools.tool_names = {"logs", "waves"};
  RunService service(*store_, with_tools, [this] { return now_; });
  auto outcome = service.submit_json(
      R"({"workloads": ["hello"], "objective": "o", "tools": ["waves", "logs"]})", kAlice);
  ASSERT_TRUE(outcome.errors.empty()) << outcome.errors.front().to_string();
  auto recorded = parse_run_spec_json(service.run(outcome.run_id).spec_json);
  ASSERT_TRUE(recorded.spec);
  EXPECT_EQ(recorded.spec->tools, (std::vector<std::string>{"waves", "logs"}));
}

TEST_F(RunServiceTest, IdsIncreaseEvenWhenTheClockStandsStill) {
  std::string a = submit(), b = submit(), c = submit();
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  EXPECT_TRUE(looks_like_run_id(a));
}

TEST_F(RunServiceTest, WatcherSeesHistoryThenLiveEventsThenDone) {
  std::string id = submit();
  Recorder r;
  service_.watch(id, 0, r, kAlice);
  EXPECT_THAT(r.events, ElementsAre("1:submitted"));
  store::EventRecord e;
  e.run_id = id;
  e.kind = EventKind::message;
  service_.record_event(e);
  service_.set_state(id, RunState::running, "");
  service_.set_state(id, RunState::passed, "");
  EXPECT_THAT(r.events, ElementsAre("1:submitted", "2:message", "3:state_changed", "4:state_changed"));
  EXPECT_THAT(r.done, ElementsAre(RunState::passed));
  // After done, nothing more reaches the watcher.
  service_.record_event(e);
  EXPECT_EQ(r.events.size(), 4u);
}

TEST_F(RunServiceTest, WatchingAFinalRunEndsAtOnce) {
  std::string id = submit();
  service_.cancel(id, kAlice);
  Recorder r;
  service_.watch(id, 1, r, kAlice);
  EXPECT_THAT(r.events, ElementsAre("2:state_changed"));
  EXPECT_THAT(r.done, ElementsAre(RunState::cancelled));
}

TEST_F(RunServiceTest, UnwatchedWatcherHearsNothing) {
  std::string id = submit();
  Recorder r;
  auto token = service_.watch(id, 0, r, kAlice);
  service_.unwatch(token);
  service_.cancel(id, kAlice);
  EXPECT_EQ(r.events.size(), 1u);
  EXPECT_TRUE(r.done.empty());
}

TEST_F(RunServiceTest, CancelIsForTheSubmitterAndTheAdministrators) {
  std::string id = submit(1000);
  try {
    service_.cancel(id, kBob);
    FAIL() << "another user cancelled the run";
  } catch (const RequestError& e) {
    EXPECT_EQ(e.field_error().path, "runId");
    EXPECT_THAT(e.what(), HasSubstr("submitted by uid 1000"));
    EXPECT_THAT(e.what(), HasSubstr("may cancel it"));
  }
  EXPECT_TRUE(service_.cancel(id, kAdmin).changed);
  EXPECT_FALSE(service_.cancel(id, kAlice).changed);
  EXPECT_EQ(service_.run(id).state, RunState::cancelled);
  EXPECT_THAT(service_.run(id).reason, HasSubstr("cancelled by uid 999"));
}

// Who sees what (caller.h): everyone sees the queue; a run's contents are its submitter's
// and the administrators'.
TEST_F(RunServiceTest, OthersSeeTheQueueButNotTheContents) {
  std::string id = submit(1000);
  auto seen_by = [&](const Caller& c) { return service_.list({}, c).at(0); };
  EXPECT_EQ(seen_by(kAlice).objective, "o");
  EXPECT_EQ(seen_by(kAdmin).objective, "o");
  const store::RunRecord bob_sees = seen_by(kBob);
  EXPECT_EQ(bob_sees.id, id);
  EXPECT_EQ(bob_sees.state, RunState::queued);
  EXPECT_EQ(bob_sees.submitted_by_uid, 1000u);
  EXPECT_EQ(bob_sees.objective, "");
  EXPECT_TRUE(bob_sees.workloads.empty());
  Recorder r;
  for (auto read : std::vector<std::function<void()>>{
           [&] { service_.detail(id, kBob); }, [&] { service_.metrics(id, kBob); },
           [&] { service_.llm_calls(id, kBob); }, [&] { service_.events_after(id, 0, 0, kBob); },
           [&] { service_.watch(id, 0, r, kBob); }, [&] { service_.replay(id, 0, kBob); }}) {
    try {
      read();
      FAIL() << "uid 1001 read uid 1000's run";
    } catch (const RequestError& e) {
      EXPECT_THAT(e.what(), HasSubstr("uid 1000"));
    }
  }
  EXPECT_TRUE(r.events.empty());
  EXPECT_NO_THROW(service_.detail(id, kAlice));
  EXPECT_NO_THROW(service_.events_after(id, 0, 0, kAdmin));
}

TEST_F(RunServiceTest, OthersSeeEverythingWhenMacedSaysSo) {
  ServiceSettings open = settings();
  open.others_see = OthersSee::everything;
  RunService service(*store_, open);
  std::string id = service.submit_json(R"({"workloads": ["hello"], "objective": "o", "core": "pico"})", kAlice).run_id;
  EXPECT_EQ(service.list({}, kBob).at(0).objective, "o");
  EXPECT_NO_THROW(service.detail(id, kBob));
  // Control stays the submitter's and the administrators'.
  EXPECT_THROW(service.cancel(id, kBob), RequestError);
}

// docs/operating-maced.md "Limits": one user's queue is bounded, so it cannot cost everyone
// else; the refusal names the limit and the user's count, and stores nothing.
TEST_F(RunServiceTest, ASubmitBeyondTheUsersQueueLimitIsRefusedNamingItAndStoresNothing) {
  ServiceSettings limited = settings();
  limited.queue.max_runs_per_user = 2;
  RunService service(*store_, limited, [this] { return now_; });
  const char* spec = R"({"workloads": ["hello"], "objective": "o", "core": "pico"})";
  const std::string first = service.submit_json(spec, Caller{1000}).run_id;
  ASSERT_FALSE(first.empty());
  ASSERT_FALSE(service.submit_json(spec, Caller{1000}).run_id.empty());
  const int64_t events_before = static_cast<int64_t>(store_->events_after(first, 0).size());

  auto refused = service.submit_json(spec, Caller{1000});
  EXPECT_TRUE(refused.run_id.empty());
  ASSERT_EQ(refused.errors.size(), 1u);
  EXPECT_EQ(refused.errors[0].path, "queue.max_runs_per_user");
  EXPECT_THAT(refused.errors[0].message, HasSubstr("uid 1000 already has 2 runs queued"));
  EXPECT_THAT(refused.errors[0].message, HasSubstr("at most 2 per user"));
  EXPECT_EQ(service.list({}).size(), 2u);
  EXPECT_EQ(static_cast<int64_t>(store_->events_after(first, 0).size()), events_before);

  // Another user's queue is their own; and a run that starts frees its place.
  EXPECT_FALSE(service.submit_json(spec, Caller{1001}).run_id.empty());
  service.set_state(first, RunState::running, "");
  EXPECT_FALSE(service.submit_json(spec, Caller{1000}).run_id.empty());
  // A replay queues a run too.
  service.set_state(first, RunState::passed, "");
  auto replay = service.replay(first, 0, kAlice);
  ASSERT_EQ(replay.errors.size(), 1u);
  EXPECT_EQ(replay.errors[0].path, "queue.max_runs_per_user");
}

// REQ-REPLAY-3: a run's replay.from serves its bypassed calls from that run's recorded builds,
// verdicts and LLM replies, so naming a run is reading it: the submitter must be allowed
// to read it, as `mace status RUN` would, and a refusal records nothing.
TEST_F(RunServiceTest, AReplayFromARunTheSubmitterMayNotReadIsRefusedNamingTheField) {
  const std::string alices = submit(1000);
  const std::string spec = R"({"workloads": ["hello"], "objective": "o", "core": "pico",
    "replay": {"bypass": ["build", "run"], "from": ")" + alices + R"("}})";
  auto refused = service_.submit_json(spec, kBob);
  EXPECT_TRUE(refused.run_id.empty());
  ASSERT_EQ(refused.errors.size(), 1u);
  EXPECT_EQ(refused.errors[0].path, "replay.from");
  EXPECT_THAT(refused.errors[0].message, HasSubstr("run " + alices + " belongs to uid 1000"));
  EXPECT_EQ(service_.list({}).size(), 1u) << "a refused submit recorded a run";
  // `mace spec check` says the same, before anything is submitted.
  auto parsed = parse_run_spec_json(spec);
  ASSERT_TRUE(parsed.spec);
  EXPECT_THAT(service_.check(*parsed.spec, kBob),
              ElementsAre(FieldError{"replay.from", refused.errors[0].message}));
  // Whoever may read it may name it.
  EXPECT_TRUE(service_.submit_json(spec, kAlice).errors.empty());
  EXPECT_TRUE(service_.submit_json(spec, kAdmin).errors.empty());
  ServiceSettings open = settings();
  open.others_see = OthersSee::everything;
  RunService one_team(*store_, open, [this] { return now_; });
  EXPECT_TRUE(one_team.submit_json(spec, kBob).errors.empty());
}

// A replay is served what its original recorded: replaying one's own replay of another's
// run reads that run, and needs the right to read it still.
TEST_F(RunServiceTest, AReplayOfAReplayNeedsTheRightToReadTheOriginalStill) {
  const std::string alices = submit(1000);
  service_.set_state(alices, RunState::failed, "workload_failed");
  const std::string admins_replay = service_.replay(alices, 0, kAdmin).run_id;
  ASSERT_FALSE(admins_replay.empty());
  service_.set_state(admins_replay, RunState::failed, "workload_failed");
  const Caller no_longer_admin{kAdmin.uid, false};
  try {
    service_.replay(admins_replay, 0, no_longer_admin);
    FAIL() << "uid 999, no longer an administrator, replayed uid 1000's run";
  } catch (const RequestError& e) {
    EXPECT_EQ(e.field_error().path, "runId");
    EXPECT_THAT(e.what(), HasSubstr("replays run " + alices));
    EXPECT_THAT(e.what(), HasSubstr("belongs to uid 1000"));
  }
  EXPECT_EQ(service_.list({}).size(), 2u);
  EXPECT_TRUE(service_.replay(admins_replay, 0, kAdmin).errors.empty());
}

// REQ-VER-13: a run and its `submitted` event are one write. The store is held to the
// pages it has (SQLite's max_page_count, as a full disk holds it): whichever write of a
// submit needs a page more is refused, and the whole submit with it, so a submit answered
// with an error never runs later.
TEST_F(RunServiceTest, ASubmitTheStoreCannotRecordWholeRecordsNothing) {
  ServiceSettings unlimited = settings();
  unlimited.queue.max_runs_per_user = kMaxMaxQueuedRunsPerUser;
  RunService service(*store_, unlimited, [this] { return now_; });
  store::Database& db = store_->database();
  auto page_count = [&] {
    auto stmt = db.prepare("PRAGMA page_count");
    stmt.step();
    return stmt.int64(0);
  };
  // Runs' rows and events' rows fill their pages at different rates: the refused write is
  // sometimes the run's, sometimes its event's.
  const std::string spec = R"({"workloads": ["hello"], "core": "pico", "objective": "o"})";
  size_t accepted = 0;
  int refused = 0;
  bool held = true;
  for (int i = 0; i < 1000 && refused < 40; ++i) {
    // Held to its pages until a submit is refused, then let one more grow it.
    db.exec("PRAGMA max_page_count = " + std::to_string(held ? page_count() : 1'000'000));
    try {
      ASSERT_FALSE(service.submit_json(spec, kAlice).run_id.empty());
      ++accepted;
      held = true;
    } catch (const std::exception& e) {
      EXPECT_THAT(e.what(), HasSubstr("full"));
      ++refused;
      held = false;
    }
    const auto runs = store_->runs_in_states({RunState::queued});
    ASSERT_EQ(runs.size(), accepted) << "a refused submit left a run (submit " << i << ")";
    for (const auto& run : runs)
      ASSERT_EQ(store_->events_after(run.id, 0, 1).size(), 1u) << run.id << " has no event";
  }
  EXPECT_GE(refused, 40);
}

TEST_F(RunServiceTest, UnknownRunIsARequestErrorOnRunId) {
  EXPECT_THROW(service_.run("nope"), RequestError);
  EXPECT_THROW(service_.metrics("nope", kAdmin), RequestError);
  EXPECT_THROW(service_.cancel("nope", kAdmin), RequestError);
  Recorder r;
  EXPECT_THROW(service_.watch("nope", 0, r, kAdmin), RequestError);
}

TEST_F(RunServiceTest, FinalStateStampsFinishTime) {  // REQ-BUD-9
  std::string id = submit();
  now_ += 1000;
  service_.set_state(id, RunState::running, "");
  now_ += 5000;
  service_.set_state(id, RunState::failed, "no results");
  auto run = service_.run(id);
  EXPECT_EQ(run.finished_at_ms - run.started_at_ms, 5000);
  EXPECT_EQ(run.reason, "no results");
}

}  // namespace
}  // namespace mace::service
