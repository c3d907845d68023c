// `mace replay`: a run recorded through the fake Vertex server and the fixture checkout is
// replayed with no LLM server and no `sims` at all; the replay decides as the original did.
// Then one recorded reply is changed in the database and the replay stops where it differs.

#include <sqlite3.h>

#include <filesystem>
#include <thread>

#include <regex>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "llm/fake_vertex_server.h"  // tests/llm/
#include "support/fixture_checkout.h"
#include "support/maced_instance.h"

namespace mace::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using mace::llm::testing::FakeVertexServer;

constexpr const char* kSpec = R"({"core": "pico", "mesh": [1, 1], "workloads": ["add.S"],
  "objective": "Pass after a failure", "budget": {"max_iterations": 3}})";

// Runs one statement on the database while maced is stopped; returns the rows it changed.
int execute(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  if (sqlite3_open(db_path.c_str(), &db) != SQLITE_OK) {
    sqlite3_close(db);
    ADD_FAILURE() << "cannot open " << db_path;
    return -1;
  }
  char* error = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  EXPECT_EQ(rc, SQLITE_OK) << (error ? error : "");
  sqlite3_free(error);
  int changed = sqlite3_changes(db);
  sqlite3_close(db);
  return changed;
}

// One column of one row, as text.
std::string query(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::string out;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW && sqlite3_column_text(stmt, 0))
      out = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return out;
}

class ReplayRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.write("maced.json", R"({"checkouts": [{"path": ")" + checkout_.root() + R"("}]})");
    dir_.write("spec.json", kSpec);
    start_maced();
  }
  void start_maced() {
    MacedOptions options;
    options.extra_args = {"--config", dir_.file("maced.json"), "--workloads",
                          source_root() + "/workloads"};
    if (vertex_) options.process.set_env["MACE_VERTEX_ENDPOINT"] = vertex_->base_url();
    // Once the server is gone, a call that reached for it would fail at once.
    else options.process.set_env["MACE_VERTEX_ENDPOINT"] = "http://127.0.0.1:1";
    maced_ = std::make_unique<MacedInstance>(dir_, options);
  }
  // MacedInstance keeps its state in dir/state; known also while maced is stopped.
  std::string db() const { return dir_.file("state") + "/mace.db"; }
  int watch(const std::string& id) {
    ProcessOptions options;
    options.timeout = std::chrono::seconds(60);
    return maced_->mace({"watch", id}, options).exit_code;
  }
  std::string replay(const std::string& id) {
    auto r = maced_->mace({"replay", id});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out.substr(0, r.out.find('\n'));
  }

  // The run of LlmRunTest.AFailureIsDiagnosedByTheLlmReplannedWithTheDiagnosisAndPasses:
  // add.S fails, the LLM diagnoses it, the next plan doubles the L1D and passes.
  std::string record_failing_then_passing_run() {
    checkout_.set_control("run", "fail");
    vertex_->push(FakeVertexServer::text("TASK: plain | deps= | kind=config | defaults\n", {100, 10, 0}));
    auto diagnosis = FakeVertexServer::text("DIAGNOSIS: l1d_too_small\nFIX: double the l1d", {200, 20, 0});
    diagnosis.delay = std::chrono::milliseconds(2500);  // until the fixture passes again
    vertex_->push(diagnosis);
    vertex_->push(FakeVertexServer::text(
        "TASK: bigger | deps= | kind=config | double l1d\nCACHES: bigger | l1d=16384,4\n", {300, 30, 0}));
    auto r = maced_->mace({"submit", dir_.file("spec.json")});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::string id = r.out.substr(0, r.out.find('\n'));
    for (int i = 0; i < 400 && vertex_->requests().size() < 2; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    checkout_.set_control("run", "pass");
    EXPECT_EQ(watch(id), 0);
    EXPECT_EQ(vertex_->requests().size(), 3u);
    return id;
  }

  // The fake LLM server stopped and the fixture's sims removed: nothing a replay needs may
  // run. A folder without piton/tools/bin/sims is not a checkout maced accepts, so in its
  // place stands a program that only leaves a mark and fails.
  void take_away_the_llm_and_sims() {
    vertex_.reset();
    maced_.reset();
    start_maced();
    std::filesystem::remove(checkout_.sims());
    checkout_.write("piton/tools/bin/sims",
                    "#!/bin/sh\necho \"$@\" >> \"" + sims_mark() + "\"\nexit 1\n");
    std::filesystem::permissions(checkout_.sims(), std::filesystem::perms::owner_all);
  }
  std::string sims_mark() const { return dir_.file("sims-called"); }
  bool sims_called() const { return std::filesystem::exists(sims_mark()); }

  TempDir dir_;
  FixtureCheckout checkout_;
  std::unique_ptr<FakeVertexServer> vertex_ = std::make_unique<FakeVertexServer>();
  std::unique_ptr<MacedInstance> maced_;
};

// REQ-REPLAY-1, REQ-REPLAY-2: the recorded run cached its build and run under their tags.
// REQ-REPLAY-3: the replay serves them without running sims, and its LLM replies from the
// record; its plans, tasks, diagnosis and final status are the original's.
TEST_F(ReplayRunTest, AReplayWithoutLlmOrSimsDecidesAsTheOriginalDid) {
  std::string id = record_failing_then_passing_run();
  EXPECT_EQ(query(db(), "SELECT count(*) FROM call_cache WHERE run_id = '" + id + "'"), "4");
  EXPECT_EQ(query(db(), "SELECT function FROM call_cache WHERE tag = '" + id + "/iter1/plain/build'"),
            "build");
  EXPECT_EQ(query(db(), "SELECT function FROM call_cache WHERE tag = '" + id + "/iter2/bigger/run'"),
            "run");
  int sims_before = checkout_.invocations();
  EXPECT_GT(sims_before, 0);
  take_away_the_llm_and_sims();

  auto accepted = maced_->mace({"--json", "replay", id});
  ASSERT_EQ(accepted.exit_code, 0) << accepted.err;
  std::smatch json;
  ASSERT_TRUE(std::regex_match(accepted.out, json,
                               std::regex(R"re(\{"run_id":"([^"]+)","replay_of":"([^"]+)"\}\n)re")))
      << accepted.out;
  EXPECT_EQ(json[2].str(), id);
  const std::string replayed = json[1].str();
  ASSERT_NE(replayed, id);
  EXPECT_EQ(watch(replayed), 0);
  EXPECT_FALSE(sims_called()) << "a bypassed call ran sims";
  EXPECT_EQ(checkout_.invocations(), sims_before);

  std::string original = maced_->mace({"status", id, "--json"}).out;
  std::string status = maced_->mace({"status", replayed, "--json"}).out;
  EXPECT_THAT(status, HasSubstr("\"state\":\"passed\""));
  EXPECT_THAT(status, HasSubstr("\"replay_of\":\"" + id + "\""));
  EXPECT_THAT(status, HasSubstr("every decision matched the original"));
  EXPECT_THAT(status, HasSubstr("\"iterations\":2"));
  EXPECT_THAT(status, HasSubstr(R"("label":"l1d_too_small","fix":"double the l1d","source":"llm","recovered":true)"));
  // The same tasks with the same verdicts, in the same iterations.
  for (const char* task : {R"("iteration":1,"task_id":"plain")", R"("iteration":2,"task_id":"bigger")"}) {
    EXPECT_THAT(original, HasSubstr(task));
    EXPECT_THAT(status, HasSubstr(task));
  }
  EXPECT_EQ(query(db(), "SELECT group_concat(passed) FROM (SELECT passed FROM tasks WHERE run_id = '" +
                            replayed + "' ORDER BY iteration)"),
            "0,1");
  // Its LLM calls are the original's, costs included.
  EXPECT_EQ(query(db(), "SELECT group_concat(phase) FROM (SELECT phase FROM llm_calls WHERE run_id = '" +
                            replayed + "' ORDER BY id)"),
            "planning,diagnosis,planning");
  auto compute_cost = [&](const std::string& run) {
    std::string metrics = maced_->mace({"metrics", run, "--json"}).out;
    std::size_t at = metrics.find("\"compute_cost_usd\":");
    return at == std::string::npos ? std::string("none")
                                   : metrics.substr(at, metrics.find_first_of(",}", at) - at);
  };
  EXPECT_EQ(compute_cost(replayed), compute_cost(id));
  EXPECT_NE(compute_cost(id), "\"compute_cost_usd\":0");
  EXPECT_EQ(query(db(), "SELECT total(cost_usd) FROM llm_calls WHERE run_id = '" + replayed + "'"),
            query(db(), "SELECT total(cost_usd) FROM llm_calls WHERE run_id = '" + id + "'"));
  // sims was removed from the checkout, so its fingerprint is not the one the entries
  // recorded: the replay says so.
  auto logs = maced_->mace({"logs", replayed});
  EXPECT_THAT(logs.out, HasSubstr("was made on a checkout with source fingerprint")) << logs.err;

  // A replay of the replay replays the original.
  std::string again = replay(replayed);
  EXPECT_EQ(watch(again), 0);
  EXPECT_THAT(maced_->mace({"status", again, "--json"}).out, HasSubstr("\"replay_of\":\"" + id + "\""));
  EXPECT_FALSE(sims_called());
}

// The developer's case: a recorded reply changed (here, by hand) makes the replay stop at
// the decision it changes, saying what differed.
TEST_F(ReplayRunTest, AChangedRecordedReplyStopsTheReplayWhereItDiverges) {
  std::string id = record_failing_then_passing_run();
  take_away_the_llm_and_sims();
  maced_.reset();
  EXPECT_EQ(execute(db(), "UPDATE llm_calls SET reply_text = 'DIAGNOSIS: clock_too_fast\nFIX: slow it' "
                          "WHERE run_id = '" + id + "' AND phase = 'diagnosis'"),
            1);
  start_maced();

  std::string replayed = replay(id);
  EXPECT_EQ(watch(replayed), 1);
  std::string status = maced_->mace({"status", replayed, "--json"}).out;
  EXPECT_THAT(status, HasSubstr("\"state\":\"error\""));
  EXPECT_THAT(status, HasSubstr(
      R"(replay diverged at iteration 1, task plain: diagnosis: original l1d_too_small (llm), fix \"double the l1d\", replay clock_too_fast (llm), fix \"slow it\")"));
  // It stopped there: no second iteration was planned.
  EXPECT_THAT(status, HasSubstr("\"iterations\":1"));
  EXPECT_THAT(status, Not(HasSubstr("\"task_id\":\"bigger\"")));
}

// --until stops a matching replay after that iteration; a bad request is refused.
TEST_F(ReplayRunTest, UntilStopsAfterTheIterationAndBadRequestsAreRefused) {
  std::string id = record_failing_then_passing_run();
  take_away_the_llm_and_sims();
  auto r = maced_->mace({"replay", id, "--until", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string replayed = r.out.substr(0, r.out.find('\n'));
  EXPECT_EQ(watch(replayed), 1);
  std::string status = maced_->mace({"status", replayed, "--json"}).out;
  EXPECT_THAT(status, HasSubstr("\"state\":\"cancelled\""));
  EXPECT_THAT(status, HasSubstr("stopped after iteration 1 as asked (--until); every decision so far matched"));
  EXPECT_THAT(status, HasSubstr("\"replay_until\":1"));
  EXPECT_THAT(status, HasSubstr(R"("label":"l1d_too_small")"));
  EXPECT_THAT(status, Not(HasSubstr("\"task_id\":\"bigger\"")));

  auto beyond = maced_->mace({"replay", id, "--until", "3"});
  EXPECT_EQ(beyond.exit_code, 2);
  EXPECT_THAT(beyond.err, HasSubstr("untilIteration: run " + id + " has 2 iterations, got 3"));
  auto unknown = maced_->mace({"replay", "no-such-run"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("no run named 'no-such-run'"));
}


// REQ-REPLAY-1..4 through a run spec's `replay` settings: a run with task prompts caches its
// prompt, build and run calls under their tags; a later run naming it in `replay.from`
// bypasses them (no task prompt reaches the LLM, sims does not run), and a call it has no
// entry for fails its task with cache_miss, naming the tag, and runs nothing.
TEST_F(ReplayRunTest, ASpecCachesPromptsBuildsAndRunsAndALaterRunBypassesThem) {
  dir_.write("cached.json", R"({"core": "pico", "workloads": ["add.S"], "objective": "Cache it",
    "options": {"fast_path": false, "task_prompts": true},
    "replay": {"cache": ["prompt", "build", "run"]}})");
  vertex_->push(FakeVertexServer::text("TASK: plain | deps= | kind=config | defaults\n"));
  vertex_->push(FakeVertexServer::text("Building plain with the defaults."));
  auto r = maced_->mace({"submit", dir_.file("cached.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string id = r.out.substr(0, r.out.find('\n'));
  EXPECT_EQ(watch(id), 0);
  ASSERT_EQ(vertex_->requests().size(), 2u);
  EXPECT_EQ(query(db(), "SELECT group_concat(tag, ' ') FROM (SELECT tag FROM call_cache WHERE run_id = '" +
                            id + "' ORDER BY tag)"),
            id + "/iter1/plain/build " + id + "/iter1/plain/prompt " + id + "/iter1/plain/run");
  EXPECT_THAT(query(db(), "SELECT value_json FROM call_cache WHERE tag = '" + id + "/iter1/plain/prompt'"),
              HasSubstr("Building plain with the defaults."));
  int sims_before = checkout_.invocations();

  dir_.write("bypass.json", R"({"core": "pico", "workloads": ["add.S"], "objective": "Cache it",
    "options": {"fast_path": false, "task_prompts": true},
    "replay": {"cache": [], "bypass": ["prompt", "build", "run"], "from": ")" + id + R"("}})");
  vertex_->push(FakeVertexServer::text("TASK: plain | deps= | kind=config | defaults\n"));
  r = maced_->mace({"submit", dir_.file("bypass.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string bypassing = r.out.substr(0, r.out.find('\n'));
  EXPECT_EQ(watch(bypassing), 0);
  EXPECT_EQ(vertex_->requests().size(), 3u) << "the task prompt was served from the cache";
  EXPECT_EQ(checkout_.invocations(), sims_before);
  EXPECT_EQ(query(db(), "SELECT count(*) FROM call_cache WHERE run_id = '" + bypassing + "'"), "0");

  dir_.write("miss.json", R"({"core": "pico", "workloads": ["add.S"], "objective": "Cache it",
    "budget": {"max_iterations": 1},
    "replay": {"bypass": ["build", "run"], "from": ")" + id + R"("}})");
  vertex_->push(FakeVertexServer::text("TASK: other | deps= | kind=config | defaults\n"));
  vertex_->push(FakeVertexServer::text("DIAGNOSIS: not_cached\nFIX: cache it"));
  vertex_->push(FakeVertexServer::text("ASSESSMENT: inconclusive\nEXPLANATION: x\nNEXT_STEPS: y"));
  r = maced_->mace({"submit", dir_.file("miss.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string missing = r.out.substr(0, r.out.find('\n'));
  EXPECT_EQ(watch(missing), 1);
  EXPECT_THAT(maced_->mace({"status", missing, "--json"}).out, HasSubstr(R"("failure_reason":"cache_miss")"));
  EXPECT_THAT(maced_->mace({"logs", missing}).out,
              HasSubstr("cache miss: no cache entry for tag " + id + "/iter1/other/build"));
  EXPECT_EQ(checkout_.invocations(), sims_before);

  // A spec naming a run maced does not have is refused at submit.
  dir_.write("nofrom.json", R"({"core": "pico", "workloads": ["add.S"], "objective": "x",
    "replay": {"bypass": ["build"], "from": "no-such-run"}})");
  auto refused = maced_->mace({"submit", dir_.file("nofrom.json")});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_THAT(refused.err, HasSubstr("replay.from: no run named 'no-such-run'"));
}

}  // namespace
}  // namespace mace::testing
