// The evaluation report's co-design section (REQ-EVAL-8): each feasible design of the
// searches drawn as cache area against each gate workload's cycles, the Pareto front
// marked and listed.

#include "eval/html_report.h"
#include "support/count_of.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace mace::eval {
namespace {

using mace::testing::count_of;

using ::testing::HasSubstr;
using ::testing::Not;

JobDesign design(const std::string& task, double area, int64_t memstress_cycles, bool passed = true) {
  return {task, 1, "mace_" + task, passed, "pico 1x1; L1.5 " + task, false, area,
          {{"hello", "pass", 13886}, {"memstress", passed ? "pass" : "fail", memstress_cycles}}};
}

BatchView search(std::vector<JobDesign> designs) {
  BatchView b;
  b.id = "e1";
  b.suite = "s";
  b.state = EvalBatchState::done;
  JobOutcome job;
  job.position = 0;
  job.method = EvalMethod::codesign;
  job.task_id = "t";
  job.job_state = EvalJobState::done;
  job.run_id = "r1";
  job.run_state = "passed";
  job.design_results = std::move(designs);
  b.jobs = {job};
  return b;
}

TEST(HtmlReportTest, ACodesignSearchIsDrawnAsAreaAgainstCyclesWithItsParetoFront) {
  // d3 is larger than d2 and slower: dominated. d4 failed: not feasible, not drawn.
  const std::string html = render_html_report(search(
      {design("d1", 30, 200000), design("d2", 45, 150000), design("d3", 60, 170000), design("d4", 20, 1, false)}));
  EXPECT_THAT(html, HasSubstr("<h2>Co-design: area against cycles</h2>"));
  // One chart per gate workload.
  EXPECT_THAT(html, HasSubstr("<svg id=\"plot-pareto-1\" class=\"plot pareto\" data-workload=\"hello\""));
  EXPECT_THAT(html, HasSubstr("<svg id=\"plot-pareto-2\" class=\"plot pareto\" data-workload=\"memstress\""));
  const std::string memstress = html.substr(html.find("data-workload=\"memstress\""));
  EXPECT_EQ(count_of(memstress.substr(0, memstress.find("</svg>")), "<circle class=\"front\""), 2u);
  EXPECT_EQ(count_of(memstress.substr(0, memstress.find("</svg>")), "<circle class=\"dominated\""), 1u);
  EXPECT_THAT(memstress, HasSubstr("<path class=\"front-line\""));
  EXPECT_THAT(memstress, HasSubstr("<title>job 0 iter1 d3: pico 1x1; L1.5 d3; area 60.0, 170,000 cycles</title>"));
  // The front, listed: d1 and d2, not d3 or the failed d4.
  const std::string table = memstress.substr(memstress.find("<table class=\"pareto-front\""));
  EXPECT_THAT(table.substr(0, table.find("</table>")), HasSubstr("<td>job 0 iter1 d2</td>"));
  EXPECT_THAT(table.substr(0, table.find("</table>")), Not(HasSubstr("d3")));
  EXPECT_THAT(html, Not(HasSubstr("iter1 d4")));
  // hello takes the same cycles on every design: the smallest is the whole front.
  const std::string hello = html.substr(html.find("data-workload=\"hello\""));
  EXPECT_EQ(count_of(hello.substr(0, hello.find("</svg>")), "<circle class=\"front\""), 1u);
}

TEST(HtmlReportTest, NoSearchNoSectionAndASearchWithoutFeasibleDesignsSaysSo) {
  BatchView plain = search({design("d1", 30, 200000)});
  plain.jobs[0].method = EvalMethod::mace;
  EXPECT_THAT(render_html_report(plain), Not(HasSubstr("Co-design")));
  const std::string none = render_html_report(search({design("d1", 30, 5, false)}));
  EXPECT_THAT(none, HasSubstr("No co-design search has a feasible design with cycles yet."));
  EXPECT_THAT(none, Not(HasSubstr("plot-pareto")));
}

TEST(HtmlReportTest, AChartDrawsAtMostFiveHundredDesignsTheFrontFirst) {
  std::vector<JobDesign> many;
  for (int i = 0; i < 700; ++i) many.push_back(design("d" + std::to_string(i), 10 + i, 500000 + (i % 7) * 1000));
  const std::string html = render_html_report(search(many));
  const std::string memstress = html.substr(html.find("data-workload=\"memstress\""));
  const std::string svg = memstress.substr(0, memstress.find("</svg>"));
  EXPECT_EQ(count_of(svg, "<circle "), 500u);
  EXPECT_EQ(count_of(svg, "<circle class=\"front\""), 1u);  // d0: smallest and fastest
  EXPECT_THAT(memstress, HasSubstr("200 of 700 designs not drawn"));
}

TEST(HtmlReportTest, DesignTextInTheChartIsEscaped) {
  JobDesign hostile = design("d<1>", 30, 200000);
  hostile.configuration = "</svg><script>x</script>";
  const std::string html = render_html_report(search({hostile}));
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_THAT(html, HasSubstr("&lt;/svg&gt;&lt;script&gt;"));
}

}  // namespace
}  // namespace mace::eval
