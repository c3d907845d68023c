// The jobs of a batch and their order (REQ-EVAL-2), a job's recorded instructions, and the
// results table's renderings.

#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/plan.h"
#include "eval/batch_plan.h"
#include "eval/html_report.h"
#include "eval/job_instructions.h"
#include "eval/results.h"

namespace mace::eval {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Suite two_task_suite() {
  auto parsed = parse_suite_json(R"({"suite": "s",
    "faults": [{"name": "f", "kind": "config", "cores": ["pico"], "meshes": [[1, 1]],
                "config": {"defines": ["X"]}},
               {"name": "g", "kind": "config", "cores": ["sparc"], "meshes": [[1, 1]],
                "config": {"defines": ["Y"]}}],
    "tasks": [{"id": "a", "spec": {"core": "pico", "workloads": ["hello"], "objective": "o"},
               "expert": {}, "faults": ["f", "g"]},
              {"id": "b", "spec": {"core": "pico", "mesh": [2, 1], "workloads": ["hello"], "objective": "o"},
               "expert": {}, "faults": ["f"]}]})");
  EXPECT_TRUE(parsed.suite);
  return *parsed.suite;
}

std::vector<std::string> describe(const std::vector<Job>& jobs) {
  std::vector<std::string> out;
  for (const auto& j : jobs)
    out.push_back(std::string(to_string(j.method)) + "/" + j.task_id + "/" + j.fault + "/" +
                  std::to_string(j.repeat));
  return out;
}

// REQ-EVAL-2: every method on every task it applies to, for every repeat; the order a
// function of the seed alone.
TEST(BatchPlanTest, EachMethodRunsOnEveryTaskItAppliesToForEachRepeatShuffledBySeed) {
  BatchRequest request;
  request.methods = {Method::mace, Method::fault_check};
  request.repeats = 3;
  request.seed = 42;
  auto jobs = plan_jobs(two_task_suite(), request);
  // mace: 2 tasks x 3 repeats; fault_check: only f on a (g breaks sparc, b is 2x1) x 3.
  ASSERT_EQ(jobs.size(), 9u);
  auto all = describe(jobs);
  std::multiset<std::string> set(all.begin(), all.end());
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(set.count("mace/a//" + std::to_string(r)), 1u);
    EXPECT_EQ(set.count("mace/b//" + std::to_string(r)), 1u);
    EXPECT_EQ(set.count("fault_check/a/f/" + std::to_string(r)), 1u);
  }
  for (size_t i = 0; i < jobs.size(); ++i) EXPECT_EQ(jobs[i].position, static_cast<int64_t>(i));
  // The same seed: the same order and job seeds; another seed: another order.
  auto again = plan_jobs(two_task_suite(), request);
  EXPECT_EQ(describe(again), all);
  for (size_t i = 0; i < jobs.size(); ++i) EXPECT_EQ(again[i].seed, jobs[i].seed);
  request.seed = 43;
  EXPECT_NE(describe(plan_jobs(two_task_suite(), request)), all);
}

TEST(BatchPlanTest, ShuffleIsFixedByTheSeedOnEveryMachine) {  // REQ-EVAL-2
  std::vector<int> items{0, 1, 2, 3, 4, 5, 6, 7};
  shuffle_by_seed(items, 1);
  // splitmix64 and Fisher-Yates as specified: this exact order everywhere.
  std::vector<int> again{0, 1, 2, 3, 4, 5, 6, 7};
  shuffle_by_seed(again, 1);
  EXPECT_EQ(items, again);
  EXPECT_NE(items, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  std::vector<int> sorted = items;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(BatchPlanTest, RequestsAreCheckedAndRoundTrip) {
  BatchRequest bad;
  bad.repeats = 0;
  bad.baseline_retries = 11;
  std::string all;
  for (const auto& e : check_request(bad)) all += e.to_string() + "\n";
  EXPECT_THAT(all, HasSubstr("methods: must name at least one method"));
  EXPECT_THAT(all, HasSubstr("repeats: must be an integer from 1 to 100, got 0"));
  EXPECT_THAT(all, HasSubstr("baseline_retries: must be an integer from 1 to 10, got 11"));
  BatchRequest good;
  good.methods = {Method::baseline_retry, Method::mace};
  good.seed = 18446744073709551615ull;
  good.keep_models = true;
  good.backend = "vertex";
  auto back = request_from_json(to_json(good));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->methods, good.methods);
  EXPECT_EQ(back->seed, good.seed);
  EXPECT_TRUE(back->keep_models);
  EXPECT_EQ(back->backend, "vertex");
}

TEST(BatchPlanTest, JobInstructionsRoundTrip) {
  JobInstructions in;
  in.method = Method::fault_check;
  in.plan_reply = "TASK: build | deps= | kind=config | x\n";
  in.fault = "f";
  in.fault_kind = FaultKind::source;
  in.fault_edits = {{"piton/design/a.v", "old \"text\"\n", "new"}};
  in.fault_config.caches["l15"] = {8192, 3};
  in.fault_config.defines = {"BREAK_IT"};
  auto back = instructions_from_json(to_json(in));
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, in);
  EXPECT_FALSE(instructions_from_json("{}"));
}

BatchView sample_batch() {
  BatchView b;
  b.id = "eval-1";
  b.suite = "s<script>";
  b.state = EvalBatchState::done;
  auto job = [](EvalMethod method, std::string task, std::string fault, std::string state,
                double cost, double wall) {
    JobOutcome j;
    j.method = method;
    j.task_id = task;
    j.fault = fault;
    j.job_state = EvalJobState::done;
    j.run_state = state;
    j.iterations = 2;
    j.cost_usd = cost;
    j.wall_s = wall;
    j.designs = 1;
    return j;
  };
  b.jobs = {job(EvalMethod::mace, "a", "", "passed", 0.5, 10), job(EvalMethod::mace, "a", "", "failed", 0.25, 20),
            job(EvalMethod::fault_check, "a", "f", "failed", 0, 5),
            job(EvalMethod::baseline, "a,\"x\"", "", "passed", 0.1, 3)};
  b.jobs[2].outcome = "caught";
  JobOutcome pending;
  pending.method = EvalMethod::mace;
  pending.task_id = "b";
  pending.job_state = EvalJobState::pending;
  b.jobs.push_back(pending);
  return b;
}

// Success rate over repeats, iterations, cost, wall time and designs per task and method;
// a fault check succeeds when it catches its fault.
TEST(ResultsTest, TheTableCountsSuccessesPerTaskAndMethod) {
  auto rows = result_rows(sample_batch());
  auto find = [&](const std::string& task, const std::string& method) {
    for (const auto& r : rows)
      if (r.task_id == task && r.method == method) return r;
    ADD_FAILURE() << task << "/" << method;
    return ResultRow{};
  };
  auto mace = find("a", "mace");
  EXPECT_EQ(mace.runs, 2);
  EXPECT_EQ(mace.successes, 1);
  EXPECT_DOUBLE_EQ(mace.success_rate, 0.5);
  EXPECT_DOUBLE_EQ(mace.mean_cost_usd, 0.375);
  EXPECT_DOUBLE_EQ(mace.mean_wall_s, 15);
  EXPECT_EQ(find("a", "fault_check").successes, 1);
  EXPECT_EQ(find("b", "mace").runs, 0);
  auto progress_rows = progress(sample_batch());
  ASSERT_EQ(progress_rows.size(), 3u);
  EXPECT_EQ(progress_rows[2].method, "mace");
  EXPECT_EQ(progress_rows[2].done, 2);
  EXPECT_EQ(progress_rows[2].total, 3);
  EXPECT_THAT(render_status_text(sample_batch()), HasSubstr("4/5 jobs done"));
}

// A mace job of the direct planner built the task's defaults: counted apart, its passes
// are of the gates, not of the objective.
TEST(ResultsTest, TheDirectPlannersMaceJobsAreCountedApartAndNotAsSuccesses) {
  BatchView b = sample_batch();
  JobOutcome direct = b.jobs[0];
  direct.planner = "direct";
  b.jobs.push_back(direct);
  EXPECT_FALSE(attempts_objective(direct));
  EXPECT_EQ(method_label(direct), "mace (direct)");
  const auto rows = result_rows(b);
  bool seen = false;
  for (const auto& r : rows) {
    if (r.method != "mace (direct)") continue;
    seen = true;
    EXPECT_FALSE(r.objective_attempted);
    EXPECT_EQ(r.runs, 1);
  }
  EXPECT_TRUE(seen);
  EXPECT_THAT(render_results_text(b), ::testing::ContainsRegex("mace \\(direct\\) +- +gates 1/1\\*"));
  EXPECT_THAT(render_results_csv(b), HasSubstr("a,mace (direct),,1,1,,"));
  EXPECT_THAT(render_results_json(b), HasSubstr("\"objective_attempted\": false"));
  EXPECT_THAT(render_results_json(b), HasSubstr("\"success_rate\": null"));
}

// A fault check's success is its run's outcome; a run that could not tell is no success.
TEST(ResultsTest, AFaultCheckSucceedsWhenItsRunCaughtTheFault) {
  JobOutcome check;
  check.method = EvalMethod::fault_check;
  check.job_state = EvalJobState::done;
  check.run_state = "failed";
  check.outcome = "caught";
  EXPECT_TRUE(job_succeeded(check));
  check.outcome = "missed";
  check.run_state = "passed";
  EXPECT_FALSE(job_succeeded(check));
  check.outcome = "";
  check.run_state = "failed";  // it could not tell: its workload could not run, say
  EXPECT_FALSE(job_succeeded(check));
}

// What each job's designs were and did: configuration in words, verdicts and cycles.
TEST(ResultsTest, EachJobsDesignsComeWithTheirConfigurationAndCycles) {
  BatchView b;
  b.id = "b1";
  JobOutcome job;
  job.position = 3;
  job.method = EvalMethod::mace;
  job.task_id = "memstress";
  job.repeat = 1;
  job.job_state = EvalJobState::done;
  job.run_id = "r7";
  job.run_state = "passed";
  job.planner = "llm";
  job.design_results = {{"small", 1, "mace_ab", true,
                         "pico 1x1; L1D 4 KiB, 4-way", false, 45.76,
                         {{"hello", "pass", 13886}, {"memstress", "timeout", std::nullopt}}}};
  job.resimulated = {{"small", "mace_ab", {{"hello", "pass"}}, {13886}}};
  b.jobs = {job};
  const std::string text = render_results_text(b);
  EXPECT_THAT(text, HasSubstr("designs (configuration, cache area per tile, and verdict and simulated cycles per "
                              "gate workload)\n"
                              "  job 3 mace memstress repeat 1, run r7\n"
                              "    iter1 small: pico 1x1; L1D 4 KiB, 4-way; area 45.8\n"
                              "      hello pass 13886 cycles memstress timeout\n"));
  const std::string json = render_results_json(b);
  EXPECT_THAT(json, HasSubstr("\"configuration\": \"pico 1x1; L1D 4 KiB, 4-way\""));
  EXPECT_THAT(json, HasSubstr("\"default_configuration\": false"));
  EXPECT_THAT(json, HasSubstr("\"area\": 45.76"));
  EXPECT_THAT(json, ::testing::ContainsRegex("\"workload\": \"hello\",\\s*\"verdict\": \"pass\",\\s*\"cycles\": 13886"));
  EXPECT_THAT(json, ::testing::ContainsRegex("\"verdict\": \"timeout\",\\s*\"cycles\": null"));
  EXPECT_THAT(json, ::testing::ContainsRegex("\"cycles\": \\{\\s*\"hello\": 13886\\s*\\}"));
}

TEST(ResultsTest, CsvQuotesWhatNeedsQuotingAndHtmlEscapesEverything) {
  std::string csv = render_results_csv(sample_batch());
  EXPECT_THAT(csv, HasSubstr("task,method,fault,runs,successes,success_rate"));
  EXPECT_THAT(csv, HasSubstr("\"a,\"\"x\"\"\",baseline,,1,1,1.0000"));
  std::string html = render_html_report(sample_batch());
  EXPECT_THAT(html, HasSubstr("s&lt;script&gt;"));
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_THAT(html, HasSubstr("<td>a,&quot;x&quot;</td>")) << "a task's quotes";
  BatchView hostile = sample_batch();
  hostile.id = "e<!--'\"&";
  const std::string page = render_html_report(hostile);
  EXPECT_THAT(page, HasSubstr("<title>MACE evaluation e&lt;!--&#39;&quot;&amp;</title>"));
  EXPECT_EQ(page.find("<!--"), std::string::npos);
  EXPECT_THAT(html, HasSubstr("<table id=\"results\">"));
  EXPECT_THAT(html, HasSubstr("id=\"plot-success\""));
  EXPECT_THAT(render_results_json(sample_batch()), HasSubstr("\"success_rate\": 0.5"));
}

// One row per job below the summary table: run, method, task, repeat, verdicts, what
// caught a fault; and no chart of zeros.
TEST(ResultsTest, TheHtmlReportHasARowPerJobAndDrawsNoChartOfZeros) {
  BatchView b = sample_batch();
  for (auto& j : b.jobs) j.cost_usd = 0;
  b.jobs[0].verdicts = {{1, "t1", {{"add.S", "pass"}, {"lw.S", "fail"}}, {14221, std::nullopt}}};
  b.jobs[0].caught_by = "lw.S (verdict fail)";
  const std::string html = render_html_report(b);
  EXPECT_THAT(html, HasSubstr("<table id=\"jobs\">"));
  std::size_t rows = 0;
  for (auto at = html.find("<tr class=\"job\">"); at != std::string::npos; at = html.find("<tr class=\"job\">", at + 1))
    ++rows;
  EXPECT_EQ(rows, b.jobs.size());
  // Cycles where the transcript gave them, nothing where it did not.
  EXPECT_THAT(html, HasSubstr("add.S <span class=\"pass\">pass</span> 14,221 cycles, lw.S <span class=\"fail\">fail</span><"));
  EXPECT_THAT(html, HasSubstr("<td>lw.S (verdict fail)</td>"));
  EXPECT_THAT(html, Not(HasSubstr("id=\"plot-cost\"")));
  EXPECT_THAT(html, HasSubstr("No run cost anything"));
  EXPECT_THAT(html, HasSubstr("id=\"plot-success\""));
  EXPECT_THAT(render_results_json(b), HasSubstr("\"caught_by\": \"lw.S (verdict fail)\""));
  const std::string json = render_results_json(b);
  EXPECT_THAT(json, HasSubstr("\"add.S\": 14221,"));
  EXPECT_THAT(json, HasSubstr("\"lw.S\": null\n"));
}

}  // namespace
}  // namespace mace::eval
