// What a design did and cost, end to end on the fixture checkout: each simulation's cycles
// (read from its sim.log as OpenPiton prints them) and each build's figures in status,
// --json, watch and the report; each task's configuration in words with OpenPiton's
// defaults marked; and `mace compare` of designs with different L1.5 sizes.

#include <regex>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "llm/fake_vertex_server.h"  // tests/llm/
#include "support/fixture_checkout.h"
#include "support/headless_browser.h"
#include "support/maced_instance.h"

namespace mace::testing {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;
using mace::llm::testing::FakeVertexServer;

// The fixture's cycles (tests/fixtures/openpiton/README.md): hello ends where it does on a
// real pico 1x1; memstress takes the longer the smaller the first cache its loads meet,
// the L1.5 on pico (the tile has no L1).
constexpr int64_t kHelloCycles = 13886;
constexpr int64_t kMemstressCyclesDefaultL15 = 52000 + (16384 - 8192) / 16 * 4 * 40;
constexpr int64_t kMemstressCyclesL15of4k = 52000 + (16384 - 4096) / 16 * 4 * 40;

class FiguresTest : public ::testing::Test {
 protected:
  void SetUp() override {
    MacedOptions options = options_for_checkout(dir_, checkout_.root());
    options.process.set_env["MACE_VERTEX_ENDPOINT"] = vertex_.base_url();
    maced_ = std::make_unique<MacedInstance>(dir_, options);
  }

  // Submits `spec` and follows it to its end; the run's ID and what watch printed.
  std::pair<std::string, std::string> run(const std::string& spec) {
    dir_.write("spec.json", spec);
    auto submitted = maced_->mace({"submit", dir_.file("spec.json")});
    EXPECT_EQ(submitted.exit_code, 0) << submitted.err;
    const std::string id = submitted.out.substr(0, submitted.out.find('\n'));
    ProcessOptions options;
    options.timeout = std::chrono::seconds(120);
    auto watched = maced_->mace({"watch", id}, options);
    EXPECT_EQ(watched.exit_code, 0) << watched.out << maced_->mace({"logs", id}).out;
    return {id, watched.out};
  }

  std::string direct_spec() const {
    return R"({"core": "pico", "mesh": [1, 1], "workloads": ["hello", "memstress"],
      "objective": "hello and memstress on OpenPiton's defaults", "backend": "direct"})";
  }

  // One iteration of two designs: OpenPiton's defaults, and a 4 KiB L1.5.
  std::string two_designs() {
    vertex_.push(FakeVertexServer::text(
        "TASK: plain | deps= | kind=config | OpenPiton's defaults\n"
        "TASK: small | deps= | kind=config | a 4 KiB L1.5\nCACHES: small | l15=4096,4\n"));
    auto [id, events] = run(R"({"core": "pico", "mesh": [1, 1], "workloads": ["hello", "memstress"],
      "objective": "Compare a 4 KiB L1.5 with the default", "budget": {"max_iterations": 1}})");
    return id;
  }

  TempDir dir_;
  FixtureCheckout checkout_;
  FakeVertexServer vertex_;
  std::unique_ptr<MacedInstance> maced_;
};

// REQ-VER-13: each workload's cycles beside its verdict, the build's figures and its
// configuration, in status --json, status and watch.
TEST_F(FiguresTest, EachSimulationsCyclesAndEachBuildsFiguresAreRecordedAndShown) {
  auto [id, events] = run(direct_spec());
  const std::string json = maced_->mace({"status", id, "--json"}).out;
  EXPECT_THAT(json, HasSubstr(R"("workload":"hello","verdict":"pass",)"));
  EXPECT_THAT(json, HasSubstr(R"("verdict_time":6943250,"cycles":13886,)"));
  EXPECT_THAT(json, HasSubstr(R"("cycles":)" + std::to_string(kMemstressCyclesDefaultL15) + ","));
  // The build ran sims here: its wall time, CPU time and peak memory are real numbers.
  EXPECT_THAT(json, HasSubstr(R"("build_source":"built")"));
  EXPECT_THAT(json, ContainsRegex(R"("build_wall_s":[0-9][0-9.e+-]*,"build_cpu_s":[0-9][0-9.e+-]*,"build_peak_rss_bytes":[1-9][0-9]+)"));
  // The configuration: OpenPiton's defaults read from the checkout, marked so.
  EXPECT_THAT(json, HasSubstr(R"({"name":"l1d","size_bytes":8192,"associativity":4,"default":true})"));
  EXPECT_THAT(json, HasSubstr(R"({"name":"L1D","value":"8 KiB, 4-way","default":true})"));
  EXPECT_THAT(json, HasSubstr(R"("default_configuration":true)"));
  EXPECT_THAT(json, HasSubstr(R"("default_caches":[{"name":"l1i","size_bytes":16384)"));

  const std::string human = maced_->mace({"status", id}).out;
  EXPECT_THAT(human, HasSubstr("    hello: pass at 13,886 cycles, "));
  EXPECT_THAT(human, HasSubstr("config: pico 1x1; L1I 16 KiB, 4-way (default); L1D 8 KiB, 4-way (default)"));
  EXPECT_THAT(human, ContainsRegex("build:  mace_[0-9a-f]+ built in [0-9.]+ s, CPU [0-9.]+ s, peak [0-9]+ MiB"));

  // A verdict event carries its cycles (watch on a pipe: JSON Lines).
  EXPECT_THAT(events, HasSubstr(R"("workload":"hello","verdict":"pass","verdict_time":6943250,"cycles":13886)"));
  EXPECT_THAT(maced_->mace({"logs", id}).out, ContainsRegex(R"(hello pass \([0-9.]+ s, 13886 cycles\))"));

  // The same run again finds its model: reused in place, nothing of sims to measure.
  auto [again, _] = run(direct_spec());
  const std::string reused = maced_->mace({"status", again, "--json"}).out;
  EXPECT_THAT(reused, HasSubstr(R"("build_source":"checkout")"));
  EXPECT_THAT(reused, ContainsRegex(R"("build_wall_s":[0-9][0-9.e+-]*,"build_cpu_s":null,"build_peak_rss_bytes":null)"));
  EXPECT_THAT(maced_->mace({"status", again}).out, ContainsRegex("build:  mace_[0-9a-f]+ reused in place in "));
}

// Designs side by side: the configuration items that differ, and each gate workload's
// verdict and cycles with the change against the first.
TEST_F(FiguresTest, CompareShowsTheL15DifferenceAndTheChangeInCycles) {
  const std::string id = two_designs();
  auto text = maced_->mace({"compare", id + ":plain", id + ":small"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("configuration differences\n  L1.5          A 8 KiB, 4-way (default)"));
  EXPECT_THAT(text.out, HasSubstr("B 4 KiB, 4-way"));
  char change[32];
  std::snprintf(change, sizeof change, "%+.1f%%",
                100.0 * (kMemstressCyclesL15of4k - kMemstressCyclesDefaultL15) / kMemstressCyclesDefaultL15);
  EXPECT_THAT(text.out, ContainsRegex(std::string("  memstress +pass [0-9,]+ +pass [0-9,]+ \\(\\") + change + "\\)"))
      << text.out;
  EXPECT_THAT(text.out, ContainsRegex(R"(  hello +pass 13,886 +pass 13,886 \(\+0\.0%\))"));

  auto json = maced_->mace({"--json", "compare", id + ":plain", id + ":small"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr(R"("differences":[{"name":"L1.5","values":[{"value":"8 KiB, 4-way","default":true},{"value":"4 KiB, 4-way","default":false}]}])"));
  EXPECT_THAT(json.out, HasSubstr(R"({"verdict":"pass","cycles":)" + std::to_string(kMemstressCyclesL15of4k)));
  EXPECT_THAT(json.out, ContainsRegex(R"("change_percent":[1-9][0-9.]*)"));

  auto csv = maced_->mace({"compare", id + ":plain", id + ":small", "--csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_THAT(csv.out, HasSubstr("run_id,task_id,iteration,workload,verdict,cycles,change_percent,area,L1.5\n"));
  EXPECT_THAT(csv.out, HasSubstr(id + ",small,1,memstress,pass," + std::to_string(kMemstressCyclesL15of4k) + ","));
  EXPECT_THAT(csv.out, HasSubstr(id + ",plain,1,hello,pass,13886,0.00,113.3,\"8 KiB, 4-way\"\n"));

  // Bad names are refused, saying why; nothing is compared.
  auto unknown_task = maced_->mace({"compare", id + ":plain", id + ":nosuch"});
  EXPECT_EQ(unknown_task.exit_code, 2);
  EXPECT_THAT(unknown_task.err, HasSubstr("has no task nosuch (its tasks: plain, small)"));
  // One run alone: its own designs, the one of OpenPiton's defaults first.
  const auto own = maced_->mace({"compare", id});
  EXPECT_EQ(own.exit_code, 0) << own.err;
  EXPECT_THAT(own.out, HasSubstr("A  " + id + ":plain"));
  EXPECT_EQ(maced_->mace({"compare", id + ":plain"}).exit_code, 2);
  EXPECT_EQ(maced_->mace({"compare", id + ":", id}).exit_code, 2);
  EXPECT_EQ(maced_->mace({"compare", "no-such-run", id}).exit_code, 2);
}

// Across runs: a RUN alone names the design it accepted.
TEST_F(FiguresTest, CompareAcrossRunsNamesEachRunsAcceptedDesign) {
  auto [a, ea] = run(direct_spec());
  const std::string b = two_designs();
  auto text = maced_->mace({"compare", a, b + ":small"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("  A  " + a + ":build (iteration 1, run passed)"));
  EXPECT_THAT(text.out, HasSubstr("  L1.5 "));
}

// The report's verdict table: cycles, and the change against the run's task of the default
// configuration; its build table: time, CPU, memory and source; each task's configuration.
TEST_F(FiguresTest, TheReportShowsConfigurationsCyclesAndTheChangeAgainstTheDefault) {
  if (chromium_binary().empty()) GTEST_SKIP() << "chromium is not installed (Debian: chromium)";
  const std::string id = two_designs();
  const std::string page = dir_.file("report.html");
  auto made = maced_->mace({"report", id, "-o", page});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const ProcessResult dom = browse(page, {"--dump-dom"}, dir_.path());
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  EXPECT_THAT(dom.out, HasSubstr("<pre id=\"script-errors\" hidden=\"\"></pre>")) << dom.out;
  EXPECT_THAT(dom.out, HasSubstr("data-rendered=\"yes\""));
  EXPECT_THAT(dom.out, HasSubstr("<td class=\"default\">8 KiB, 4-way (default)</td>"));
  EXPECT_THAT(dom.out, HasSubstr("<td class=\"changed\">4 KiB, 4-way</td>"));
  EXPECT_THAT(dom.out, HasSubstr("change against iter1 plain (default configuration)"));
  EXPECT_THAT(dom.out, HasSubstr("<td class=\"num\">13,886</td>"));
  EXPECT_THAT(dom.out, HasSubstr("<td class=\"num\">baseline</td>"));
  char change[32];
  std::snprintf(change, sizeof change, "%+.1f%%",
                100.0 * (kMemstressCyclesL15of4k - kMemstressCyclesDefaultL15) / kMemstressCyclesDefaultL15);
  EXPECT_THAT(dom.out, HasSubstr(std::string("<td class=\"num\">") + change + "</td>"));
  EXPECT_THAT(dom.out, HasSubstr("<td>built</td>"));
  EXPECT_THAT(dom.out, ContainsRegex("<td class=\"num\">[0-9]+ MiB</td>"));
}

}  // namespace
}  // namespace mace::testing
