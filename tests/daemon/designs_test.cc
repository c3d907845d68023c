// A spec's own designs through a real maced on the fixture (docs/run-specs.md#designs): the
// direct planner builds each and the baseline, --set and --sweep add them from the command
// line, status, compare and the report show them side by side against the baseline, and a
// sweep is dispatched over two checkouts with each model built once.

#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/fixture_checkout.h"
#include "support/headless_browser.h"
#include "support/maced_instance.h"
#include "submit_spec.h"

namespace mace::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kSpec = R"({"core": "pico", "workloads": ["hello", "memstress"], "backend": "direct",
    "objective": "compare a 4 KiB L1.5 with the default",
    "designs": [{"name": "l15_4k", "caches": {"l15": {"size": "4KiB", "associativity": 4}}}]})";

class DesignsTest : public ::testing::Test {
 protected:
  void start(std::size_t checkouts = 1) {
    std::string list;
    for (std::size_t i = 0; i < checkouts; ++i) {
      checkouts_.push_back(std::make_unique<FixtureCheckout>());
      list += std::string(i ? ", " : "") + R"({"path": ")" + checkouts_.back()->root() + R"("})";
    }
    dir_.write("maced.json", R"({"checkouts": [)" + list + "]}");
    MacedOptions options;
    options.extra_args = {"--config", dir_.file("maced.json"), "--workloads", source_root() + "/workloads"};
    maced_ = std::make_unique<MacedInstance>(dir_, options);
  }
  std::string submit(const std::string& spec, const std::vector<std::string>& extra = {}) {
    dir_.write("spec.json", spec);
    std::vector<std::string> args = {"submit", dir_.file("spec.json")};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = maced_->mace(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out.substr(0, r.out.find('\n'));
  }
  ProcessResult finish(const std::string& id) {
    ProcessOptions options;
    options.timeout = std::chrono::seconds(90);
    return maced_->mace({"watch", id}, options);
  }
  int builds() const {
    int n = 0;
    for (const auto& c : checkouts_) n += c->invocations("build");
    return n;
  }

  TempDir dir_;
  std::vector<std::unique_ptr<FixtureCheckout>> checkouts_;
  std::unique_ptr<MacedInstance> maced_;
};

// REQ-PLAN-1, REQ-VER-1: the baseline and the named design, each built and simulated, and
// what the design did against the baseline, without an LLM.
TEST_F(DesignsTest, TheDirectPlannerBuildsEachDesignAndTheBaselineAndStatusComparesThem) {
  start();
  const std::string id = submit(kSpec);
  const auto watched = finish(id);
  EXPECT_EQ(watched.exit_code, 0) << watched.out << watched.err;
  const std::string status = maced_->mace({"status", id}).out;
  EXPECT_THAT(status, HasSubstr("iter1 baseline [config] passed"));
  EXPECT_THAT(status, HasSubstr("iter1 l15_4k [config] passed"));
  EXPECT_THAT(status, HasSubstr("L1.5          A 8 KiB, 4-way (default)        B 4 KiB, 4-way"));
  // The fixture's memstress grows with a smaller L1.5 (tests/fixtures/openpiton/README.md).
  EXPECT_THAT(status, HasSubstr("memstress  pass 133,920              pass 174,880 (+30.6%)"));
  EXPECT_THAT(status, HasSubstr("cache area per tile: 108.6"));
  const std::string json = maced_->mace({"status", id, "--json"}).out;
  EXPECT_THAT(json, HasSubstr(R"("designs":{"designs":[{"run_id":")" + id + R"(","task_id":"baseline")"));
  EXPECT_THAT(json, HasSubstr(R"("area":108.56)"));
  EXPECT_THAT(json, HasSubstr(R"("change_percent":30.58)"));
  EXPECT_EQ(builds(), 2);
}

TEST_F(DesignsTest, WithoutTheBaselineOnlyTheNamedDesignsAreBuilt) {
  start();
  const std::string spec = std::string(kSpec).insert(std::string(kSpec).size() - 1, R"(, "baseline": false)");
  const std::string id = submit(spec);
  EXPECT_EQ(finish(id).exit_code, 0);
  const std::string status = maced_->mace({"status", id}).out;
  EXPECT_THAT(status, Not(HasSubstr("baseline [config]")));
  EXPECT_THAT(status, HasSubstr("iter1 l15_4k [config] passed"));
  EXPECT_EQ(builds(), 1);
}

// --set and --sweep: designs from the command line, the file as it was.
TEST_F(DesignsTest, SetAndSweepAddDesignsFromTheCommandLine) {
  start();
  const std::string id = submit(R"({"core": "pico", "workloads": ["memstress"], "backend": "direct",
      "objective": "o"})", {"--set", "l15=4KiB,4", "--sweep", "l2=32KiB,128KiB"});
  EXPECT_EQ(finish(id).exit_code, 0);
  const std::string status = maced_->mace({"status", id}).out;
  for (const char* task : {"baseline", "l15_4k_4w", "l2_32k", "l2_128k"})
    EXPECT_THAT(status, HasSubstr(std::string("iter1 ") + task + " [config] passed")) << task;

  const auto checked = maced_->mace({"spec", "check", dir_.file("spec.json"), "--sweep", "l15=4KiB,8KiB"});
  EXPECT_EQ(checked.exit_code, 0) << checked.err;
  EXPECT_THAT(checked.out, HasSubstr("\"sweep\": {\n    \"l15\": {\n      \"size\": [\n        4096,\n        8192"));

  const auto bad = maced_->mace({"submit", dir_.file("spec.json"), "--set", "l15=3KiB,4"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("the command line: --set: \"l15=3KiB,4\": L1.5 size must be a power of two"));
  const auto unknown = maced_->mace({"submit", dir_.file("spec.json"), "--sweep", "l3=4KiB"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("--sweep: \"l3=4KiB\": must be CACHE=SIZE,SIZE,..."));
  EXPECT_EQ(maced_->mace({"list"}).out.find("queued"), std::string::npos) << "nothing refused was queued";
}

// REQ-EXEC-4: a sweep's designs are one level, dispatched as a queue over the checkouts;
// each model is built once, however many checkouts.
TEST_F(DesignsTest, ASweepRunsOverTwoCheckoutsWithEachModelBuiltOnce) {
  start(2);
  const std::string id = submit(R"({"core": "pico", "workloads": ["hello"], "backend": "direct",
      "objective": "o", "sweep": {"l15": {"size": ["4KiB", "8KiB", "16KiB"]}}})");
  EXPECT_EQ(finish(id).exit_code, 0);
  const std::string json = maced_->mace({"status", id, "--json"}).out;
  for (const auto& c : checkouts_)
    EXPECT_THAT(json, HasSubstr("\"checkout\":\"" + c->root() + "\"")) << "both checkouts took designs";
  // The baseline and the 8 KiB point are one model: four tasks, three models.
  EXPECT_EQ(builds(), 3);
}

// `mace compare` in its three forms: a run's own designs, two designs of one run, and two runs.
TEST_F(DesignsTest, CompareTakesARunTwoOfItsDesignsOrTwoRuns) {
  start();
  const std::string id = submit(kSpec);
  ASSERT_EQ(finish(id).exit_code, 0);
  const auto own = maced_->mace({"compare", id});
  EXPECT_EQ(own.exit_code, 0) << own.err;
  EXPECT_THAT(own.out, HasSubstr("A  " + id + ":baseline"));
  EXPECT_THAT(own.out, HasSubstr("B  " + id + ":l15_4k"));
  const auto two = maced_->mace({"compare", id + ":l15_4k", id + ":baseline", "--csv"});
  EXPECT_EQ(two.exit_code, 0) << two.err;
  EXPECT_THAT(two.out, HasSubstr("run_id,task_id,iteration,workload,verdict,cycles,change_percent,area,L1.5"));
  EXPECT_THAT(two.out, HasSubstr(id + ",baseline,1,memstress,pass,133920,-23.42,113.3,\"8 KiB, 4-way\""));

  const std::string other = submit(R"({"core": "pico", "workloads": ["hello", "memstress"], "backend": "direct",
      "objective": "the default alone"})");
  ASSERT_EQ(finish(other).exit_code, 0);
  const auto runs = maced_->mace({"--json", "compare", other, id + ":l15_4k"});
  EXPECT_EQ(runs.exit_code, 0) << runs.err;
  EXPECT_THAT(runs.out, HasSubstr(R"("change_percent":30.58)"));
  const auto alone = maced_->mace({"compare", other});
  EXPECT_EQ(alone.exit_code, 2);
  EXPECT_THAT(alone.err, HasSubstr("built fewer than two designs"));
}

// With monitors, each design is another model built without MINIMAL_MONITORING, and each
// workload's result says what each tile did, compared against the baseline.
TEST_F(DesignsTest, WithMonitorsEachResultSaysWhatEachTileDidAgainstTheBaseline) {
  start();
  const std::string spec = std::string(kSpec).insert(std::string(kSpec).size() - 1, R"(, "monitors": true)");
  const std::string id = submit(spec);
  ASSERT_EQ(finish(id).exit_code, 0);
  for (const auto& args : checkouts_[0]->invocation_args()) {
    const bool build = std::find(args.begin(), args.end(), "-vlt_build") != args.end();
    if (build) EXPECT_THAT(args, Not(::testing::Contains("-config_rtl=MINIMAL_MONITORING")));
  }
  const std::string status = maced_->mace({"status", id}).out;
  // The fixture's monitors (tests/fixtures/openpiton/README.md): 10 requests to the L2, one
  // more per L1.5 miss of memstress.
  EXPECT_THAT(status, HasSubstr("tile 0: core requests 116, L1.5 requests to L2 2,058, L2 lookups 1,029 hit / "
                                "1,029 miss, NoC1/2/3 flits 6,174 / 10,290 / 4,116"));
  EXPECT_THAT(status, HasSubstr("what each tile did: each figure, change against A"));
  EXPECT_THAT(status, HasSubstr("L1.5 requests to L2   A 2,058                   B 3,082 (+49.8%)"));
  const std::string json = maced_->mace({"status", id, "--json"}).out;
  EXPECT_THAT(json, HasSubstr(R"("tiles":[{"tile":0,"core_requests":116,"l15_requests_to_l2":2058,)"));

  // Without monitors, none: another model (the first two builds are not reused).
  const std::string plain = submit(kSpec);
  ASSERT_EQ(finish(plain).exit_code, 0);
  EXPECT_EQ(builds(), 4);
  EXPECT_THAT(maced_->mace({"status", plain, "--json"}).out, Not(HasSubstr(R"("tiles":[{)")));
}

// The report: a row per design against the baseline and cycles against cache area per
// workload, drawn in a real browser without a script error.
TEST_F(DesignsTest, TheReportShowsEachDesignAndTheChartOfCyclesAgainstArea) {
  if (chromium_binary().empty()) GTEST_SKIP() << "chromium is not installed (scripts/install-deps.sh test)";
  start();
  const std::string spec = std::string(kSpec).insert(std::string(kSpec).size() - 1, R"(, "monitors": true)");
  const std::string id = submit(spec, {"--sweep", "l15=2KiB,16KiB"});
  ASSERT_EQ(finish(id).exit_code, 0);
  const std::string page = dir_.file("run.html");
  ASSERT_EQ(maced_->mace({"report", id, "-o", page}).exit_code, 0);
  const auto dom = browse(page, {"--dump-dom"}, dir_.path());
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  EXPECT_THAT(dom.out, HasSubstr("data-rendered=\"yes\""));
  EXPECT_THAT(dom.out, HasSubstr("<pre id=\"script-errors\" hidden=\"\"></pre>"));
  EXPECT_THAT(dom.out, HasSubstr("class=\"designs\" data-designs=\"4\""));
  EXPECT_THAT(dom.out, HasSubstr("<td>L1.5 4 KiB, 4-way</td>"));
  EXPECT_THAT(dom.out, HasSubstr("id=\"plot-pareto-2\""));
  EXPECT_THAT(dom.out, HasSubstr("data-workload=\"memstress\""));
  EXPECT_THAT(dom.out, Not(HasSubstr("id=\"design-charts\" hidden")));
  EXPECT_THAT(dom.out, HasSubstr("class=\"tile-figures\"")) << "the spec asked for monitors";
  const std::string shot = dir_.file("run.png");
  EXPECT_EQ(browse(page, {"--screenshot=" + shot, "--window-size=1300,2400"}, dir_.path()).exit_code, 0);
  EXPECT_TRUE(std::filesystem::exists(shot));
}

}  // namespace
}  // namespace mace::testing
