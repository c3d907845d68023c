// Evaluation batches end to end: a real maced with the fixture checkout, batches submitted
// with `mace eval submit`, executed as runs, read back with `mace eval status/results/
// report` and from the store; maced killed with SIGKILL mid-batch; the LLM baselines
// against the fake Vertex server; the HTML report opened in headless chromium.

#include <signal.h>

#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "llm/fake_vertex_server.h"  // tests/llm/
#include "support/fixture_checkout.h"
#include "support/headless_browser.h"
#include "support/maced_instance.h"
#include "support/count_of.h"

namespace mace::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using mace::llm::testing::FakeVertexServer;

constexpr const char* kL15 = "piton/design/chip/tile/l15/rtl/l15.v";

// Two pico tasks; three faults, of which sparc_only breaks no task's core (REQ-EVAL-11).
std::string fixture_suite(const std::string& backend = "\"direct\"") {
  return R"({"suite": "fixture",
  "faults": [
    {"name": "break_run", "kind": "config", "cores": ["pico"], "meshes": [[1, 1]],
     "config": {"defines": ["FAKE_BREAK_RUN"]}, "description": "the testbench's failing trap"},
    {"name": "l15_syntax", "kind": "source", "cores": ["pico"], "meshes": [[1, 1]],
     "edits": [{"path": "piton/design/chip/tile/l15/rtl/l15.v", "old": "wire  hit_s2 = val_s2;",
                "new": "wire  hit_s2 = val_s2; FAKE_SYNTAX_ERROR"}]},
    {"name": "sparc_only", "kind": "config", "cores": ["sparc"], "meshes": [[1, 1]],
     "config": {"defines": ["FAKE_BREAK_RUN"]}}],
  "tasks": [
    {"id": "add", "spec": {"core": "pico", "mesh": [1, 1], "workloads": ["add.S"],
       "objective": "Build the tile and run add", "backend": )" + backend + R"(},
     "expert": {"caches": {"l1d": {"size": 16384, "associativity": 4}}},
     "area_budget": 100, "faults": ["break_run", "l15_syntax", "sparc_only"]},
    {"id": "add_again", "spec": {"core": "pico", "mesh": [1, 1], "workloads": ["add.S"],
       "objective": "Run add once more", "backend": )" + backend + R"(},
     "expert": {}}]})";
}

// Rows of one query on the store, each column as text.
std::vector<std::vector<std::string>> query(const std::string& db_path, const std::string& sql) {
  std::vector<std::vector<std::string>> rows;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << "cannot open " << db_path;
    sqlite3_close(db);
    return rows;
  }
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << sql << ": " << sqlite3_errmsg(db);
  } else {
    while (sqlite3_step(stmt) == SQLITE_ROW) {
      std::vector<std::string> row;
      for (int i = 0; i < sqlite3_column_count(stmt); ++i) {
        const unsigned char* t = sqlite3_column_text(stmt, i);
        row.emplace_back(t ? reinterpret_cast<const char*>(t) : "");
      }
      rows.push_back(std::move(row));
    }
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return rows;
}

class EvalTest : public ::testing::Test {
 protected:
  void start(std::map<std::string, std::string> env = {}) {
    dir_.write("maced.json", R"({"checkouts": [{"path": ")" + checkout_.root() + R"("}]})");
    MacedOptions options;
    options.extra_args = {"--config", dir_.file("maced.json"), "--workloads",
                          source_root() + "/workloads"};
    options.process.set_env = std::move(env);
    maced_.reset();
    maced_ = std::make_unique<MacedInstance>(dir_, options);
  }
  std::string submit(const std::string& suite, std::vector<std::string> args) {
    dir_.write("suite.json", suite);
    std::vector<std::string> argv = {"eval", "submit", dir_.file("suite.json")};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = maced_->mace(argv);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out.substr(0, r.out.find('\n'));
  }
  bool wait_done(const std::string& batch, std::chrono::seconds timeout = std::chrono::seconds(120)) {
    return eventually(
        [&] {
          return maced_->mace({"eval", "status", batch}).out.find("): done, ") != std::string::npos;
        },
        timeout);
  }
  std::string db() const { return maced_->state_dir() + "/mace.db"; }

  TempDir dir_;
  FixtureCheckout checkout_;
  std::unique_ptr<MacedInstance> maced_;
};

// REQ-EVAL-2, 4, 9, 10, 11, 12: the mace method and the fault checks on every task they
// apply to; every job's run recorded with its method, task, repeat, seed, fault and
// environment; stale models removed first; the faulted file back as it was.
TEST_F(EvalTest, RunsTheMaceMethodAndTheFaultChecksAndRecordsEveryRun) {
  checkout_.write("build/manycore/mace_stale/marker", "left by an earlier batch");
  checkout_.write("build/manycore/rel-0.1/marker", "not MACE's");
  const std::string original_l15 = checkout_.read(kL15);
  start();
  std::string batch = submit(fixture_suite(), {"--methods", "mace,fault_check", "--seed", "7"});
  ASSERT_THAT(batch, HasSubstr("eval-"));
  ASSERT_TRUE(wait_done(batch)) << maced_->mace({"eval", "status", batch}).out;

  // REQ-EVAL-11: sparc_only breaks no pico task, so four jobs: two mace, two fault checks.
  auto jobs = query(db(), "SELECT position, method, task_id, fault, state, attempts FROM eval_jobs "
                          "WHERE batch_id = '" + batch + "' ORDER BY position");
  ASSERT_EQ(jobs.size(), 4u);
  std::set<std::string> kinds;
  for (const auto& j : jobs) {
    kinds.insert(j[1] + "/" + j[2] + "/" + j[3]);
    EXPECT_EQ(j[4], "done");
    EXPECT_EQ(j[5], "1");
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"mace/add/", "mace/add_again/", "fault_check/add/break_run",
                                          "fault_check/add/l15_syntax"}));
  // REQ-EVAL-2: the runs were made in the batch's (shuffled) job order.
  auto order = query(db(), "SELECT e.position FROM eval_runs e JOIN runs r ON r.id = e.run_id "
                           "WHERE e.batch_id = '" + batch + "' ORDER BY r.submitted_at_ms, r.id");
  ASSERT_EQ(order.size(), 4u);
  for (size_t i = 0; i < order.size(); ++i) EXPECT_EQ(order[i][0], std::to_string(i));

  // The mace runs passed; each fault check caught its fault (its run failed).
  auto runs = query(db(), "SELECT e.method, e.fault, r.state, r.backend, e.env_json, e.run_id, e.seed, "
                          "r.planner, r.outcome, r.reason "
                          "FROM eval_runs e JOIN runs r ON r.id = e.run_id WHERE e.batch_id = '" + batch + "'");
  for (const auto& r : runs) {
    // A fault check has one iteration: a caught fault ends it failed, saying what caught it.
    if (r[0] == "mace") {
      EXPECT_EQ(r[2], "passed");
      EXPECT_EQ(r[7], "direct");
    } else {
      EXPECT_EQ(r[2], "failed") << r[1];
      EXPECT_EQ(r[7], "fault_check");
      EXPECT_EQ(r[8], "caught");
      EXPECT_EQ(r[9], r[1] == "l15_syntax" ? "caught by the build (build_failed): the source fault l15_syntax"
                                           : "caught by add.S (verdict fail): the config fault break_run");
      const auto status = maced_->mace({"status", r[5]}).out;
      EXPECT_THAT(status, HasSubstr("outcome    caught\n"));
      EXPECT_THAT(status, HasSubstr("fault " + r[1]));
      EXPECT_THAT(maced_->mace({"list"}).out, ::testing::ContainsRegex(r[5] + " caught "));
    }
    // REQ-EVAL-9: MACE's commit, the checkout's fingerprint and Verilator, model, host.
    EXPECT_THAT(r[4], HasSubstr("\"mace_commit\":\""));
    EXPECT_THAT(r[4], ::testing::ContainsRegex("\"source_fingerprint\":\"[0-9a-f]{64}\""));
    EXPECT_THAT(r[4], HasSubstr("\"verilator\":\"Verilator "));
    EXPECT_THAT(r[4], HasSubstr("\"host\":\""));
    EXPECT_THAT(r[4], HasSubstr("\"model\":"));
    EXPECT_NE(r[6], "0");
    if (r[0] == "fault_check") {
      // REQ-EVAL-11: no LLM, one iteration, the fault's name in the run's log.
      EXPECT_EQ(r[3], "direct");
      EXPECT_TRUE(query(db(), "SELECT 1 FROM llm_calls WHERE run_id = '" + r[5] + "'").empty());
      EXPECT_THAT(maced_->mace({"logs", r[5]}).out, HasSubstr("fault " + r[1]));
      // Caught by the design failing, not by the fault failing to apply.
      auto reasons = query(db(), "SELECT failure_reason FROM tasks WHERE run_id = '" + r[5] + "'");
      ASSERT_EQ(reasons.size(), 1u);
      EXPECT_EQ(reasons[0][0], r[1] == "l15_syntax" ? "build_failed" : "workload_failed");
    }
  }
  // REQ-EVAL-10, 11: the config fault changed the build's configuration, the expert's
  // caches kept; exactly one build with it (no narrowing rebuilds in a fault check).
  int fault_builds = 0;
  for (const auto& args : checkout_.invocation_args()) {
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    if (joined.find("-config_rtl=FAKE_BREAK_RUN") != std::string::npos) {
      ++fault_builds;
      EXPECT_THAT(joined, HasSubstr("-config_l1d_size=16384"));
    }
  }
  EXPECT_EQ(fault_builds, 1);
  // REQ-EVAL-12: the source fault is gone from the checkout.
  EXPECT_EQ(checkout_.read(kL15), original_l15);
  EXPECT_FALSE(std::filesystem::exists(checkout_.root() + "/build/.mace_edit_journal"));
  // REQ-EVAL-4: MACE's stale model went before the first job; sims' own did not.
  EXPECT_FALSE(std::filesystem::exists(checkout_.root() + "/build/manycore/mace_stale"));
  EXPECT_TRUE(std::filesystem::exists(checkout_.root() + "/build/manycore/rel-0.1/marker"));

  // The results table in its three forms.
  auto text = maced_->mace({"eval", "results", batch});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, ::testing::ContainsRegex("add +fault_check +l15_syntax +1/1"));
  // The direct planner's mace jobs did not try the objective: counted apart, not as successes.
  EXPECT_THAT(text.out, ::testing::ContainsRegex("add_again +mace \\(direct\\) +- +gates 1/1\\*"));
  EXPECT_THAT(text.out, HasSubstr("* mace (direct): the direct planner built each task's core and mesh"));
  auto csv = maced_->mace({"eval", "results", batch, "--csv"});
  EXPECT_THAT(csv.out, HasSubstr("add,fault_check,break_run,1,1,1.0000,1.000,"));
  auto json = maced_->mace({"eval", "results", batch, "--json"});
  EXPECT_THAT(json.out, HasSubstr("\"environment\": {"));
  EXPECT_THAT(json.out, HasSubstr("\"caught_by\": \"add.S (verdict fail)\""));
  auto status = maced_->mace({"eval", "status", batch});
  EXPECT_THAT(status.out, HasSubstr("done, 4/4 jobs done"));
  EXPECT_THAT(status.out, ::testing::ContainsRegex("fault_check +2/2"));

  // The HTML report in a real browser: it loads, shows the table and the plots, no errors.
  auto report = maced_->mace({"eval", "report", batch, "-o", dir_.file("report.html")});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  if (chromium_binary().empty())
    GTEST_SKIP() << "chromium is not installed (scripts/install-deps.sh installs it)";
  auto dom = browse(dir_.file("report.html"), {"--dump-dom"}, dir_.path());
  EXPECT_EQ(dom.exit_code, 0) << dom.err;
  EXPECT_THAT(dom.out, HasSubstr("<table id=\"results\">"));
  EXPECT_THAT(dom.out, HasSubstr("l15_syntax"));
  for (const char* plot : {"plot-success", "plot-wall"})
    EXPECT_THAT(dom.out, HasSubstr(std::string("id=\"") + plot + "\"")) << plot;
  // No job called an LLM: a chart of zeros is a sentence instead.
  EXPECT_THAT(dom.out, Not(HasSubstr("id=\"plot-cost\"")));
  EXPECT_THAT(dom.out, HasSubstr("No run cost anything"));
  // One row per job below the summary: its run, method, task, verdicts, what caught a fault.
  EXPECT_THAT(dom.out, HasSubstr("<table id=\"jobs\">"));
  EXPECT_EQ(count_of(dom.out, "<tr class=\"job\">"), 4);
  EXPECT_THAT(dom.out, HasSubstr("<td>add.S (verdict fail)</td>"));
  EXPECT_THAT(dom.out, HasSubstr("<td>the build (build_failed)</td>"));
  EXPECT_THAT(dom.out, HasSubstr("add.S <span class=\"pass\">pass</span>"));
  EXPECT_THAT(dom.out, HasSubstr("add.S <span class=\"fail\">fail</span>"));
  EXPECT_THAT(dom.out, HasSubstr("<rect class=\"bar\""));
  EXPECT_THAT(dom.out, HasSubstr("<circle class=\"dot\""));
  EXPECT_THAT(dom.err, Not(HasSubstr("Uncaught")));
  EXPECT_THAT(dom.err, Not(HasSubstr(":CONSOLE(")));
  EXPECT_THAT(dom.err, Not(HasSubstr("Refused to")));
}

// REQ-EVAL-4: with --keep-models the checkouts' mace_* models stay.
TEST_F(EvalTest, KeepModelsLeavesTheModelDirectories) {
  checkout_.write("build/manycore/mace_stale/marker", "kept");
  start();
  std::string batch = submit(fixture_suite(), {"--methods", "mace", "--keep-models"});
  ASSERT_TRUE(wait_done(batch));
  EXPECT_TRUE(std::filesystem::exists(checkout_.root() + "/build/manycore/mace_stale/marker"));
}

// REQ-EVAL-1: a malformed suite is refused whole with the entry's index and field, and
// nothing is recorded; so is a request no method of which applies.
TEST_F(EvalTest, AMalformedSuiteIsRefusedBeforeAnyJob) {
  start();
  std::string bad = fixture_suite();
  bad.replace(bad.find("\"size\": 16384"), 13, "\"size\": -4");
  dir_.write("bad.json", bad);
  auto r = maced_->mace({"eval", "submit", dir_.file("bad.json"), "--methods", "mace"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("suite.tasks[0].expert.caches.l1d.size: must be an integer from 1"));
  r = maced_->mace({"eval", "submit", dir_.file("bad.json"), "--methods", "mace,guess"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("methods[1]: must be one of mace, baseline"));
  // A method's name is echoed escaped and cut short, as a spec's values are.
  r = maced_->mace({"eval", "submit", dir_.file("bad.json"), "--methods", "mace,gu\x7f" + std::string(100, 'e')});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("got \"gu\\u007f" + std::string(61, 'e') + "\"..."));
  dir_.write("good.json", fixture_suite());
  r = maced_->mace({"eval", "submit", dir_.file("good.json"), "--methods", "baseline"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("baseline calls an LLM, but task add would run with the direct backend"));
  r = maced_->mace({"eval", "submit", dir_.file("good.json"), "--methods", "mace", "--repeats", "0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("repeats: must be an integer from 1 to 100, got 0"));
  EXPECT_TRUE(query(db(), "SELECT id FROM eval_batches").empty());
  EXPECT_TRUE(query(db(), "SELECT id FROM runs").empty());
  EXPECT_EQ(maced_->mace({"eval", "status", "eval-nope"}).exit_code, 2);
}

// REQ-EVAL-3, 12: maced killed with SIGKILL while a source fault is applied; the next
// maced puts the file back, records the interrupted run as error, runs that job again and
// every other job exactly once: none run twice, none lost.
TEST_F(EvalTest, ABatchResumesAfterMacedIsKilledWithNoJobRunTwiceOrLost) {
  checkout_.set_control("build_sleep", "2");
  const std::string original_l15 = checkout_.read(kL15);
  start();
  std::string batch = submit(fixture_suite(), {"--methods", "mace,fault_check", "--seed", "3"});
  // Wait until the source fault's build is under way: its edit is in the checkout.
  ASSERT_TRUE(eventually([&] { return checkout_.read(kL15).find("FAKE_SYNTAX_ERROR") != std::string::npos; },
                         std::chrono::seconds(60)))
      << [&] {
           std::string out;
           for (const auto& r : query(db(), "SELECT run_id FROM eval_runs WHERE fault = 'l15_syntax'"))
             out += maced_->mace({"status", r[0], "--json"}).out + maced_->mace({"logs", r[0]}).out;
           return out;
         }();
  auto before = query(db(), "SELECT e.run_id, e.position FROM eval_runs e WHERE e.batch_id = '" + batch + "'");
  maced_->process().signal(SIGKILL);
  ASSERT_TRUE(maced_->process().wait(std::chrono::milliseconds(10000)).has_value());
  ASSERT_THAT(checkout_.read(kL15), HasSubstr("FAKE_SYNTAX_ERROR"));

  checkout_.clear_control();
  start();
  // The next maced restored the checkout before anything else ran on it.
  ASSERT_TRUE(wait_done(batch));
  EXPECT_EQ(checkout_.read(kL15), original_l15);
  EXPECT_FALSE(std::filesystem::exists(checkout_.root() + "/build/.mace_edit_journal"));

  auto jobs = query(db(), "SELECT position, state, attempts, fault FROM eval_jobs WHERE batch_id = '" +
                              batch + "' ORDER BY position");
  ASSERT_EQ(jobs.size(), 4u);
  int retried = 0;
  for (const auto& j : jobs) {
    EXPECT_EQ(j[1], "done") << "job " << j[0] << " was lost";
    // Each job has exactly one run that did not end in error.
    auto finished = query(db(), "SELECT r.state FROM eval_runs e JOIN runs r ON r.id = e.run_id "
                                "WHERE e.batch_id = '" + batch + "' AND e.position = " + j[0] +
                                " AND r.state != 'error'");
    EXPECT_EQ(finished.size(), 1u) << "job " << j[0] << " ran " << finished.size() << " times";
    if (j[2] == "2") {
      ++retried;
      EXPECT_EQ(j[3], "l15_syntax");
      auto first = query(db(), "SELECT r.reason FROM eval_runs e JOIN runs r ON r.id = e.run_id "
                               "WHERE e.batch_id = '" + batch + "' AND e.position = " + j[0] +
                               " AND r.state = 'error'");
      ASSERT_EQ(first.size(), 1u);
      EXPECT_THAT(first[0][0], HasSubstr("maced restarted during the run"));
    } else {
      EXPECT_EQ(j[2], "1");
    }
  }
  EXPECT_EQ(retried, 1);
  // Jobs finished before the kill were not run again.
  for (const auto& run : before) {
    auto state = query(db(), "SELECT state FROM runs WHERE id = '" + run[0] + "'");
    ASSERT_EQ(state.size(), 1u);
  }
}

// REQ-EVAL-8: a co-design search builds and checks every design it proposes within the
// task's area budget through the loop, records each, and counts the feasible ones.
TEST_F(EvalTest, ACodesignSearchRecordsEveryDesignItEvaluates) {
  start();
  std::string batch = submit(fixture_suite(), {"--methods", "codesign"});
  ASSERT_TRUE(wait_done(batch)) << maced_->mace({"eval", "status", batch}).out;
  // Only "add" has an area budget (100 KiB-equivalents).
  auto runs = query(db(), "SELECT e.run_id, e.task_id, r.backend FROM eval_runs e JOIN runs r ON r.id = e.run_id");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0][1], "add");
  EXPECT_EQ(runs[0][2], "direct");
  auto designs = query(db(), "SELECT task_id, l1d_size, l15_size, l2_size, passed FROM tasks WHERE run_id = '" +
                                 runs[0][0] + "' ORDER BY task_id");
  ASSERT_EQ(designs.size(), 6u);
  std::set<std::string> distinct;
  for (const auto& d : designs) {
    distinct.insert(d[1] + "/" + d[2] + "/" + d[3]);
    EXPECT_EQ(d[4], "1");
  }
  EXPECT_EQ(distinct.size(), 6u);
  auto json = maced_->mace({"eval", "results", batch, "--json"}).out;
  EXPECT_THAT(json, HasSubstr("\"feasible_designs\": 6"));
  EXPECT_THAT(maced_->mace({"eval", "results", batch, "--csv"}).out, HasSubstr("add,codesign,,1,1,1.0000,1.000,0.000000,0.000000,"));
  EXPECT_TRUE(query(db(), "SELECT 1 FROM llm_calls").empty());
}

// REQ-EVAL-8: the search's feasible designs with their area and each gate workload's
// cycles, in the results and drawn in the report as area against cycles with the Pareto
// front marked (in a real browser). On the fixture a pico memstress is faster the larger
// the L1.5: of the six designs within 100 KiB-equivalents, the smallest with a 16 KiB
// L1.5 beats every other.
TEST_F(EvalTest, ACodesignSearchsDesignsAreDrawnAsAreaAgainstCyclesWithTheirParetoFront) {
  start();
  std::string batch = submit(R"({"suite": "pareto", "tasks": [
    {"id": "mem", "spec": {"core": "pico", "mesh": [1, 1], "workloads": ["hello", "memstress"],
       "objective": "Fastest memstress within the area budget", "backend": "direct"},
     "expert": {}, "area_budget": 100}]})", {"--methods", "codesign"});
  ASSERT_TRUE(wait_done(batch)) << maced_->mace({"eval", "status", batch}).out;
  const std::string json = maced_->mace({"eval", "results", batch, "--json"}).out;
  EXPECT_THAT(json, HasSubstr("\"feasible_designs\": 6"));
  EXPECT_THAT(json, ::testing::ContainsRegex("\"area\": [0-9]+\\.[0-9]+"));
  EXPECT_THAT(maced_->mace({"eval", "results", batch}).out, ::testing::ContainsRegex("L1.5 16 KiB, 4-way; .*; area 80.2"));

  auto report = maced_->mace({"eval", "report", batch, "-o", dir_.file("report.html")});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  if (chromium_binary().empty())
    GTEST_SKIP() << "chromium is not installed (scripts/install-deps.sh installs it)";
  auto dom = browse(dir_.file("report.html"), {"--dump-dom"}, dir_.path());
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  EXPECT_THAT(dom.out, HasSubstr("<h2>Co-design: area against cycles</h2>"));
  const std::size_t chart = dom.out.find("data-workload=\"memstress\"");
  ASSERT_NE(chart, std::string::npos) << dom.out;
  const std::string svg = dom.out.substr(chart, dom.out.find("</svg>", chart) - chart);
  EXPECT_EQ(count_of(svg, "<circle class=\"front\""), 1u) << svg;
  EXPECT_EQ(count_of(svg, "<circle class=\"dominated\""), 5u) << svg;
  const std::size_t table = dom.out.find("<table class=\"pareto-front\" data-workload=\"memstress\"", chart);
  ASSERT_NE(table, std::string::npos);
  const std::string front = dom.out.substr(table, dom.out.find("</table>", table) - table);
  EXPECT_THAT(front, HasSubstr("L1D 4 KiB, 4-way; L1.5 16 KiB, 4-way; L2 32 KiB, 4-way"));
  EXPECT_THAT(front, HasSubstr("<td class=\"num\">80.2</td><td class=\"num\">52,000</td>"));
}

// REQ-EVAL-8, REQ-EXEC-5: on a pico mesh the search builds each geometry on the 2D mesh and
// on the crossbar; the crossbar's build gets sims's -network_config, its own model, and
// its task row records the network.
TEST_F(EvalTest, ACodesignSearchOnAPicoMeshAlsoBuildsTheCrossbar) {
  start();
  std::string batch = submit(R"({"suite": "mesh", "tasks": [
    {"id": "mesh", "spec": {"core": "pico", "mesh": [2, 1], "workloads": ["hello"],
       "objective": "Smallest caches", "backend": "direct"},
     "expert": {}, "area_budget": 67}]})", {"--methods", "codesign"});
  ASSERT_TRUE(wait_done(batch)) << maced_->mace({"eval", "status", batch}).out;
  auto designs = query(db(), "SELECT task_id, COALESCE(network, ''), build_id, passed, l2_size FROM tasks "
                             "ORDER BY task_id");
  const std::string run = query(db(), "SELECT run_id FROM eval_runs")[0][0];
  ASSERT_EQ(designs.size(), 2u) << maced_->mace({"logs", run}).out;
  EXPECT_EQ(designs[0][1], "");
  EXPECT_EQ(designs[1][1], "xbar_config");
  EXPECT_NE(designs[0][2], designs[1][2]);  // a model of its own (REQ-VER-12)
  EXPECT_EQ(designs[0][4], designs[1][4]);  // the same caches
  for (const auto& d : designs) EXPECT_EQ(d[3], "1");
  auto xbar_log = maced_->mace({"logs", run, "--build", "--task", "d2"});
  EXPECT_EQ(xbar_log.exit_code, 0) << xbar_log.err;
  EXPECT_THAT(xbar_log.out, Not(HasSubstr("network_config not specified")));
  auto mesh_log = maced_->mace({"logs", run, "--build", "--task", "d1"});
  EXPECT_THAT(mesh_log.out, HasSubstr("network_config not specified, assuming 2dmesh"));
  EXPECT_THAT(maced_->mace({"eval", "results", batch, "--json"}).out, HasSubstr("\"feasible_designs\": 2"));
}

// REQ-EVAL-7: a run whose check is build-only passes on its build; afterwards the harness
// simulates each design it accepted and records each gate workload's verdict, which decide
// the job: the plain design passes, the fault the build let through is caught.
TEST_F(EvalTest, ABuildOnlyRunsAcceptedDesignsAreSimulatedAfterItPasses) {
  start();
  std::string batch = submit(R"({"suite": "build-only",
  "faults": [{"name": "break_run", "kind": "config", "cores": ["pico"], "meshes": [[1, 1]],
              "config": {"defines": ["FAKE_BREAK_RUN"]}}],
  "tasks": [{"id": "add", "spec": {"core": "pico", "mesh": [1, 1], "workloads": ["add.S"],
       "objective": "Build the tile", "backend": "direct", "options": {"build_only": true}},
     "expert": {}, "faults": ["break_run"]}]})", {"--methods", "mace,fault_check"});
  ASSERT_TRUE(wait_done(batch)) << maced_->mace({"eval", "status", batch}).out;
  auto runs = query(db(), "SELECT e.method, r.id, r.state, r.outcome, r.reason FROM eval_runs e "
                          "JOIN runs r ON r.id = e.run_id ORDER BY e.method");
  ASSERT_EQ(runs.size(), 2u);
  for (const auto& run : runs) {
    // The check was the build, which both passed; the fault check's design then failed
    // its simulation: it caught the fault, and says so.
    EXPECT_EQ(run[2], run[0] == "mace" ? "passed" : "failed") << run[0];
    EXPECT_EQ(run[3], run[0] == "mace" ? "" : "caught") << run[0];
    if (run[0] == "fault_check")
      EXPECT_THAT(run[4], HasSubstr("caught by add.S (verdict fail): the config fault break_run passed its "
                                    "build-only check"));
    // Nothing was simulated inside the loop ...
    EXPECT_TRUE(query(db(), "SELECT 1 FROM task_results r JOIN tasks t ON t.id = r.task_row "
                            "WHERE t.run_id = '" + run[1] + "'").empty());
    // ... and the accepted design was simulated afterwards, on the model the run built.
    auto simulated = query(db(), "SELECT s.workload, s.verdict, s.build_id = t.build_id FROM eval_resimulations s "
                                 "JOIN tasks t ON t.run_id = s.run_id AND t.task_id = s.task_id "
                                 "WHERE s.run_id = '" + run[1] + "'");
    ASSERT_EQ(simulated.size(), 1u) << run[0];
    EXPECT_EQ(simulated[0][0], "add.S");
    EXPECT_EQ(simulated[0][1], run[0] == "mace" ? "pass" : "fail") << run[0];
    EXPECT_EQ(simulated[0][2], "1") << "the design was rebuilt instead of simulated on its model";
    EXPECT_THAT(maced_->mace({"logs", run[1]}).out, HasSubstr("simulating the 1 design it accepted (REQ-EVAL-7)"));
  }
  auto csv = maced_->mace({"eval", "results", batch, "--csv"}).out;
  EXPECT_THAT(csv, HasSubstr("add,fault_check,break_run,1,1,1.0000"));  // caught by the simulation
  EXPECT_THAT(csv, HasSubstr("add,mace (direct),,1,1,,"));
  auto json = maced_->mace({"eval", "results", batch, "--json"}).out;
  EXPECT_THAT(json, ::testing::ContainsRegex("\"verdicts\": \\{\\s*\"add.S\": \"fail\""));
}

// REQ-EVAL-10: a seeded-fault run changes only its first plan's config and workload tasks
// and records the fault; the loop notices the broken design and its next plan, the
// planner's own, passes.
TEST_F(EvalTest, ASeededFaultChangesOnlyTheFirstPlanAndTheLoopRecovers) {
  start();
  std::string batch = submit(fixture_suite(), {"--methods", "seeded_fault"});
  ASSERT_TRUE(wait_done(batch)) << maced_->mace({"eval", "status", batch}).out;
  // Config faults only, on tasks whose core and mesh they break: break_run on add.
  auto runs = query(db(), "SELECT e.run_id, e.task_id, e.fault, r.state FROM eval_runs e JOIN runs r ON r.id = e.run_id");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0][1], "add");
  EXPECT_EQ(runs[0][2], "break_run");
  EXPECT_EQ(runs[0][3], "passed");
  auto tasks = query(db(), "SELECT iteration, rtl_defines, passed FROM tasks WHERE run_id = '" + runs[0][0] +
                               "' ORDER BY iteration");
  ASSERT_EQ(tasks.size(), 2u);
  EXPECT_EQ(tasks[0][0], "1");
  EXPECT_THAT(tasks[0][1], HasSubstr("FAKE_BREAK_RUN"));
  EXPECT_EQ(tasks[0][2], "0");
  EXPECT_EQ(tasks[1][0], "2");
  EXPECT_THAT(tasks[1][1], Not(HasSubstr("FAKE_BREAK_RUN")));
  EXPECT_EQ(tasks[1][2], "1");
  EXPECT_THAT(maced_->mace({"logs", runs[0][0]}).out, HasSubstr("with the config fault break_run"));
}

// `mace eval cancel`: the run under way is cancelled and no further job starts.
TEST_F(EvalTest, ACancelledBatchStartsNoFurtherJob) {
  checkout_.set_control("build_sleep", "30");
  start();
  std::string batch = submit(fixture_suite(), {"--methods", "mace"});
  ASSERT_TRUE(eventually([&] { return checkout_.invocations("build") > 0; }, std::chrono::seconds(30)));
  auto r = maced_->mace({"eval", "cancel", batch});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(eventually(
      [&] { return !query(db(), "SELECT 1 FROM runs WHERE state = 'cancelled'").empty(); },
      std::chrono::seconds(30)));
  std::this_thread::sleep_for(std::chrono::seconds(1));
  EXPECT_EQ(query(db(), "SELECT id FROM runs").size(), 1u);
  EXPECT_THAT(maced_->mace({"eval", "status", batch}).out, HasSubstr("): cancelled, "));
}

class EvalLlmTest : public EvalTest {
 protected:
  void SetUp() override { start({{"MACE_VERTEX_ENDPOINT", vertex_.base_url()}}); }
  FakeVertexServer vertex_;
};

// REQ-EVAL-5, 6: the baseline asks once with the planner's own prompt, keeps one
// configuration of the reply and checks it once through the loop's build and simulation.
TEST_F(EvalLlmTest, TheBaselineProposesOneConfigurationCheckedOnce) {
  vertex_.push(FakeVertexServer::text(
      "TASK: c | deps= | kind=config | the bigger L1D\nCACHES: c | l1d=16384,4\n"
      "TASK: w | deps=c | kind=workload | and another\n",
      {1000, 100, 0}));
  vertex_.push(FakeVertexServer::text("TASK: c | deps= | kind=config | defaults\n", {1000, 100, 0}));
  std::string suite = fixture_suite("\"vertex\"");
  // Only the first task: one job.
  suite = suite.substr(0, suite.find(",\n    {\"id\": \"add_again\"")) + "]}";
  std::string batch = submit(suite, {"--methods", "baseline"});
  ASSERT_TRUE(wait_done(batch)) << maced_->mace({"eval", "status", batch}).out;
  auto requests = vertex_.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_THAT(requests[0].body, HasSubstr("BASELINE MODE"));
  EXPECT_THAT(requests[0].body, HasSubstr("Build the tile and run add"));  // the planner's rendering
  auto runs = query(db(), "SELECT r.id, r.state FROM eval_runs e JOIN runs r ON r.id = e.run_id");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0][1], "passed");
  auto tasks = query(db(), "SELECT task_id, kind FROM tasks WHERE run_id = '" + runs[0][0] + "'");
  ASSERT_EQ(tasks.size(), 1u);  // one configuration, the workload task dropped
  EXPECT_EQ(tasks[0][1], "config");
  EXPECT_THAT(maced_->mace({"eval", "results", batch, "--csv"}).out,
              HasSubstr("add,baseline,,1,1,1.0000,1.000,"));
}

// The mace method with an LLM planner: the loop as it is, its planning call recorded with
// the job's run; the fault checks of the same batch call no LLM (REQ-EVAL-11).
TEST_F(EvalLlmTest, TheMaceMethodPlansWithTheLlmAndFaultChecksDoNot) {
  vertex_.push(FakeVertexServer::text("TASK: c | deps= | kind=config | defaults\n", {1000, 100, 0}));
  std::string suite = fixture_suite("\"vertex\"");
  suite = suite.substr(0, suite.find(",\n    {\"id\": \"add_again\"")) + "]}";
  std::string batch = submit(suite, {"--methods", "mace,fault_check", "--seed", "11"});
  ASSERT_TRUE(wait_done(batch)) << maced_->mace({"eval", "status", batch}).out;
  EXPECT_EQ(vertex_.requests().size(), 1u);
  auto runs = query(db(), "SELECT e.method, r.state, r.backend, (SELECT count(*) FROM llm_calls c WHERE c.run_id = r.id) "
                          "FROM eval_runs e JOIN runs r ON r.id = e.run_id ORDER BY e.method");
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[2][0], "mace");
  EXPECT_EQ(runs[2][1], "passed");
  EXPECT_EQ(runs[2][2], "vertex");
  EXPECT_EQ(runs[2][3], "1");
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(runs[i][0], "fault_check");
    EXPECT_EQ(runs[i][2], "direct");
    EXPECT_EQ(runs[i][3], "0");
  }
}

// REQ-EVAL-6, 8: the LLM co-design proposer is asked with the planner's own prompt, the
// area model and the budget; of its designs those over the budget are not built, the
// others are each built and checked and recorded.
TEST_F(EvalLlmTest, TheLlmCodesignProposerBuildsItsDesignsThatFitTheBudget) {
  vertex_.push(FakeVertexServer::text(
      "TASK: a | deps= | kind=config | small\nCACHES: a | l1d=4096,4 l2=32768,4\n"
      "TASK: b | deps= | kind=config | too big\nCACHES: b | l2=131072,4\n"
      "TASK: c | deps= | kind=config | two ways\nCACHES: c | l1d=8192,2 l2=32768,4\n",
      {1000, 100, 0}));
  std::string suite = fixture_suite("\"vertex\"");
  suite = suite.substr(0, suite.find(",\n    {\"id\": \"add_again\"")) + "]}";
  std::string batch = submit(suite, {"--methods", "codesign_llm"});
  ASSERT_TRUE(wait_done(batch)) << maced_->mace({"eval", "status", batch}).out;
  auto requests = vertex_.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_THAT(requests[0].body, HasSubstr("CO-DESIGN MODE"));
  EXPECT_THAT(requests[0].body, HasSubstr("budget of 100.0"));
  EXPECT_THAT(requests[0].body, HasSubstr("Build the tile and run add"));
  auto runs = query(db(), "SELECT r.id, r.state FROM eval_runs e JOIN runs r ON r.id = e.run_id");
  ASSERT_EQ(runs.size(), 1u);
  auto designs = query(db(), "SELECT l1d_size, l1d_assoc, l2_size, passed FROM tasks WHERE run_id = '" +
                                 runs[0][0] + "' ORDER BY task_id");
  ASSERT_EQ(designs.size(), 2u);  // b's area (188.8) is over the budget: not built
  EXPECT_EQ(designs[0], (std::vector<std::string>{"4096", "4", "32768", "1"}));
  EXPECT_EQ(designs[1], (std::vector<std::string>{"8192", "2", "32768", "1"}));
  EXPECT_THAT(maced_->mace({"eval", "results", batch, "--json"}).out, HasSubstr("\"feasible_designs\": 2"));
}

// REQ-EVAL-5: the retrying baseline sees its failure in the next planning prompt, a fixed
// number of times, and makes no diagnosis call.
TEST_F(EvalLlmTest, TheRetryingBaselineSeesItsFailureAndTriesAgain) {
  vertex_.push(FakeVertexServer::text(
      "TASK: c | deps= | kind=config | break it\nCONFIG_RTL: c | FAKE_BREAK_BUILD\n", {1000, 100, 0}));
  vertex_.push(FakeVertexServer::text("TASK: c | deps= | kind=config | defaults\n", {1000, 100, 0}));
  std::string suite = fixture_suite("\"vertex\"");
  suite = suite.substr(0, suite.find(",\n    {\"id\": \"add_again\"")) + "]}";
  std::string batch = submit(suite, {"--methods", "baseline_retry", "--baseline-retries", "1"});
  ASSERT_TRUE(wait_done(batch)) << maced_->mace({"eval", "status", batch}).out;
  auto requests = vertex_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_THAT(requests[1].body, HasSubstr("syntax error"));
  auto runs = query(db(), "SELECT r.state, r.max_iterations FROM eval_runs e JOIN runs r ON r.id = e.run_id");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0][0], "passed");
  EXPECT_EQ(runs[0][1], "2");
}

}  // namespace
}  // namespace mace::testing
