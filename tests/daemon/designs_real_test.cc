// A spec's own designs on a real patched OpenPiton checkout named by MACE_TEST_PITON_ROOT
// (skipped without one), with the direct planner and no LLM: a pico 1x1 baseline and a
// 4 KiB L1.5 (from the spec, and from --set) compared on hello and memstress; a three-point
// sweep over two checkouts (MACE_TEST_PITON_ROOT_2) with each model built once; and a run
// with OpenPiton's monitors, whose results say what each tile did, in the report in
// chromium. What was measured is printed, for docs/design-results.md.
//
//   MACE_TEST_PITON_ROOT=/path/a MACE_TEST_PITON_ROOT_2=/path/b meson test -C build figures_real
//
// Each test reads only what its own runs did: a model an earlier run left in a checkout is
// reused in place, which changes none of the figures checked here.

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <regex>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/checkout_files.h"
#include "support/headless_browser.h"
#include "support/maced_instance.h"
#include "support/real_checkout.h"

namespace mace::testing {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;

constexpr const char* kDesigns = R"({"core": "pico", "mesh": [1, 1], "workloads": ["hello", "memstress"],
  "objective": "what a 4 KiB L1.5 costs memstress", "backend": "direct",
  "budget": {"max_iterations": 1, "max_usd": 1.0, "max_wall_s": 7200},
  "designs": [{"name": "l15_4k", "caches": {"l15": {"size": "4KiB", "associativity": 4}}}]})";

// Every "key":value of `json` in order ("" values for strings are not read).
std::vector<std::string> values_of(const std::string& json, const std::string& key) {
  std::vector<std::string> out;
  const std::regex pattern("\"" + key + "\":(\"[^\"]*\"|-?[0-9][0-9.e+-]*|null)");
  for (auto it = std::sregex_iterator(json.begin(), json.end(), pattern); it != std::sregex_iterator(); ++it)
    out.push_back((*it)[1]);
  return out;
}

class DesignsRealTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto root = real_checkout_root();
    if (!root)
      GTEST_SKIP() << "MACE_TEST_PITON_ROOT is not set: this test needs a real OpenPiton "
                      "checkout patched with scripts/patch_openpiton.sh";
    roots_ = {*root};
    status_before_ = git_status(*root);
  }
  void TearDown() override {
    maced_.reset();
    if (!roots_.empty()) EXPECT_EQ(git_status(roots_[0]), status_before_) << "the runs left the checkout changed";
  }
  void start() {
    std::string list;
    for (std::size_t i = 0; i < roots_.size(); ++i)
      list += std::string(i ? ", " : "") + R"({"path": ")" + roots_[i] + R"("})";
    dir_.write("maced.json", R"({"checkouts": [)" + list + "]}");
    MacedOptions options;
    options.extra_args = {"--config", dir_.file("maced.json"), "--workloads", source_root() + "/workloads"};
    maced_ = std::make_unique<MacedInstance>(dir_, options);
  }
  std::string run(const std::string& spec, const std::vector<std::string>& extra = {}) {
    dir_.write("spec.json", spec);
    std::vector<std::string> args = {"submit", dir_.file("spec.json")};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto submitted = maced_->mace(args);
    EXPECT_EQ(submitted.exit_code, 0) << submitted.err;
    const std::string id = submitted.out.substr(0, submitted.out.find('\n'));
    ProcessOptions options;
    options.timeout = std::chrono::minutes(60);
    const auto watched = maced_->mace({"watch", id}, options);
    EXPECT_EQ(watched.exit_code, 0) << maced_->mace({"status", id}).out;
    return id;
  }
  // The memstress change of design B against A in `mace --json compare RUN`.
  std::string memstress_change(const std::string& id) {
    const std::string json = maced_->mace({"--json", "compare", id}).out;
    const auto at = json.find(R"("workload":"memstress")");
    if (at == std::string::npos) return "";
    const auto changes = values_of(json.substr(at), "change_percent");
    return changes.size() > 1 ? changes[1] : "";
  }

  std::vector<std::string> roots_;
  std::string status_before_;
  TempDir dir_;
  std::unique_ptr<MacedInstance> maced_;
};

// REQ-PLAN-1: the day-one question without an LLM, from the spec and from the command line.
TEST_F(DesignsRealTest, ABaselineAndA4KiBL15DesignReportTheirCyclesWithoutAnLlm) {
  start();
  const std::string id = run(kDesigns);
  const std::string status = maced_->mace({"status", id}).out;
  EXPECT_THAT(status, HasSubstr("iter1 baseline [config] passed"));
  EXPECT_THAT(status, HasSubstr("iter1 l15_4k [config] passed"));
  EXPECT_THAT(status, HasSubstr("hello      pass 13,886"));
  EXPECT_THAT(status, ContainsRegex("memstress  pass [0-9,]+ +pass [0-9,]+ \\(\\+[0-9.]+%\\)"));
  const std::string change = memstress_change(id);
  EXPECT_THAT(change, ContainsRegex("^[0-9]+\\.[0-9]+$")) << "a smaller L1.5 costs memstress cycles";

  const std::string set = run(R"({"core": "pico", "mesh": [1, 1], "workloads": ["hello", "memstress"],
    "objective": "the same from the command line", "backend": "direct"})", {"--set", "l15=4KiB,4"});
  EXPECT_THAT(maced_->mace({"status", set}).out, HasSubstr("iter1 l15_4k_4w [config] passed"));
  EXPECT_EQ(memstress_change(set), change) << "the same two models, the same cycles";
  std::cout << "[ designs ] " << id << " memstress change " << change << "%\n"
            << maced_->mace({"compare", id}).out;
  RecordProperty("memstress_l15_4k_change_percent", change);
}

// REQ-EXEC-4: a sweep's designs go over both checkouts as a queue, each model built once.
TEST_F(DesignsRealTest, AThreePointSweepRunsOverTwoCheckoutsWithEachModelBuiltOnce) {
  const char* second = std::getenv("MACE_TEST_PITON_ROOT_2");
  if (!second || !*second) GTEST_SKIP() << "MACE_TEST_PITON_ROOT_2 is not set: a second copy of the checkout";
  roots_.push_back(std::filesystem::path(second).lexically_normal().string());
  start();
  const std::string id = run(R"({"core": "pico", "mesh": [1, 1], "workloads": ["hello"], "backend": "direct",
    "objective": "three L1.5 sizes", "baseline": false, "sweep": {"l15": {"size": ["4KiB", "8KiB", "16KiB"]}}})");
  const std::string json = maced_->mace({"status", id, "--json"}).out;
  const auto tasks = values_of(json, "task_id");
  const auto builds = values_of(json, "build_id");
  const auto sources = values_of(json, "build_source");
  const auto checkouts = values_of(json, "checkout");
  ASSERT_EQ(builds.size(), sources.size());
  std::map<std::string, int> built;
  for (std::size_t i = 0; i < builds.size(); ++i)
    if (sources[i] == "\"built\"") ++built[builds[i]];
  for (const auto& [build, n] : built) EXPECT_EQ(n, 1) << build << " was built " << n << " times";
  EXPECT_THAT(json, HasSubstr("\"task_id\":\"l15_16k\""));
  EXPECT_THAT(json, HasSubstr("\"checkout\":\"" + roots_[0] + "\""));
  EXPECT_THAT(json, HasSubstr("\"checkout\":\"" + roots_[1] + "\""));
  std::cout << "[ designs ] sweep " << id << ":";
  for (std::size_t i = 0; i < builds.size() && i < checkouts.size(); ++i)
    std::cout << " " << builds[i] << " " << sources[i] << " on " << checkouts[i] << ";";
  std::cout << "\n";
}

// What each tile did, with OpenPiton's monitors, and what they cost: the same designs and
// workloads without monitors first.
TEST_F(DesignsRealTest, MonitorsSayWhatEachTileDidAndTheReportShowsIt) {
  start();
  const std::string plain = run(kDesigns);
  const std::string monitored =
      run(std::string(kDesigns).insert(std::string(kDesigns).size() - 1, R"(, "monitors": true)"));
  const std::string status = maced_->mace({"status", monitored}).out;
  EXPECT_THAT(status, ContainsRegex("tile 0: core requests [1-9][0-9,]*, L1.5 requests to L2 [1-9][0-9,]*, L2 "
                                    "lookups [0-9,]+ hit / [0-9,]+ miss, NoC1/2/3 flits [1-9]"));
  EXPECT_THAT(status, HasSubstr("what each tile did: each figure, change against A"));
  EXPECT_EQ(memstress_change(monitored), memstress_change(plain)) << "monitors watch, they change no cycle";
  const std::string page = dir_.file("monitored.html");
  ASSERT_EQ(maced_->mace({"report", monitored, "-o", page}).exit_code, 0);
  if (!chromium_binary().empty()) {
    const auto dom = browse(page, {"--dump-dom"}, dir_.path());
    EXPECT_THAT(dom.out, HasSubstr("<pre id=\"script-errors\" hidden=\"\"></pre>"));
    EXPECT_THAT(dom.out, HasSubstr("class=\"designs\" data-designs=\"2\""));
    EXPECT_THAT(dom.out, HasSubstr("class=\"tile-figures\""));
    EXPECT_THAT(dom.out, HasSubstr("id=\"plot-pareto-2\""));
    EXPECT_EQ(browse(page, {"--screenshot=" + dir_.file("monitored.png"), "--window-size=1300,2600"}, dir_.path())
                  .exit_code,
              0);
  }
  // What they cost: each simulation's wall time and the size of its sim.log, both ways.
  for (const std::string& id : {plain, monitored}) {
    std::cout << "[ designs ] " << (id == plain ? "without" : "with") << " monitors " << id << "\n"
              << maced_->mace({"logs", id, "--list"}).out;
    for (const auto& line : {std::string("hello: pass"), std::string("memstress: pass")}) {
      const std::string text = maced_->mace({"status", id}).out;
      for (std::size_t at = text.find(line); at != std::string::npos; at = text.find(line, at + 1))
        std::cout << "  " << text.substr(at, text.find('\n', at) - at) << "\n";
    }
  }
  std::cout << maced_->mace({"compare", monitored}).out;
}

}  // namespace
}  // namespace mace::testing
