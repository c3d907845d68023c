// The daemon's run bookkeeping without sockets or an event loop.

#include "service/run_service.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "service/service_error.h"
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
        R"({"workloads": ["hello"], "objective": "o", "core": "pico"})", uid);
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
  auto outcome = service_.submit_json(R"({"workloads": [], "objective": ""})", 1000);
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
      R"({"workloads": ["hello"], "objective": "o", "tools": ["waves", "gdb", "logs", "lint"]})", 1000);
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
  EXPECT_THAT(service.submit(spec, 1000).errors,
              ElementsAre(FieldError{"tools[0]", R"(no tool "gdb" in maced's configuration; it has logs, waves)"}));
  EXPECT_TRUE(service.list({}).empty());
}

TEST_F(RunServiceTest, WithNoToolsConfiguredASpecMayNameNone) {  // REQ-EXEC-7
  auto outcome = service_.submit_json(R"({"workloads": ["hello"], "objective": "o", "tools": ["logs"]})", 1000);
  EXPECT_THAT(outcome.errors,
              ElementsAre(FieldError{"tools[0]", R"(no tool "logs" in maced's configuration; it declares none)"}));
  EXPECT_TRUE(service_.list({}).empty());
}

TEST_F(RunServiceTest, ConfiguredToolsAreAcceptedAndKeptInTheRecordedSpec) {  // REQ-EXEC-7
  ServiceSettings with_tools = settings();
  with_tools.tool_names = {"logs", "waves"};
  RunService service(*store_, with_tools, [this] { return now_; });
  auto outcome = service.submit_json(
      R"({"workloads": ["hello"], "objective": "o", "tools": ["waves", "logs"]})", 1000);
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
  std::string id = service.submit_json(R"({"workloads": ["hello"], "objective": "o", "core": "pico"})", 1000).run_id;
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
  const std::string first = service.submit_json(spec, 1000).run_id;
  ASSERT_FALSE(first.empty());
  ASSERT_FALSE(service.submit_json(spec, 1000).run_id.empty());
  const int64_t events_before = static_cast<int64_t>(store_->events_after(first, 0).size());

  auto refused = service.submit_json(spec, 1000);
  EXPECT_TRUE(refused.run_id.empty());
  ASSERT_EQ(refused.errors.size(), 1u);
  EXPECT_EQ(refused.errors[0].path, "queue.max_runs_per_user");
  EXPECT_THAT(refused.errors[0].message, HasSubstr("uid 1000 already has 2 runs queued"));
  EXPECT_THAT(refused.errors[0].message, HasSubstr("at most 2 per user"));
  EXPECT_EQ(service.list({}).size(), 2u);
  EXPECT_EQ(static_cast<int64_t>(store_->events_after(first, 0).size()), events_before);

  // Another user's queue is their own; and a run that starts frees its place.
  EXPECT_FALSE(service.submit_json(spec, 1001).run_id.empty());
  service.set_state(first, RunState::running, "");
  EXPECT_FALSE(service.submit_json(spec, 1000).run_id.empty());
  // A replay queues a run too.
  service.set_state(first, RunState::passed, "");
  auto replay = service.replay(first, 0, kAlice);
  ASSERT_EQ(replay.errors.size(), 1u);
  EXPECT_EQ(replay.errors[0].path, "queue.max_runs_per_user");
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
