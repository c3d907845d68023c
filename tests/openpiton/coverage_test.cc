// Line coverage merged over a task's workloads (openpiton/coverage.h), REQ-EXEC-6: the
// summary read from Verilator's coverage.dat, and merging and annotating with Debian's
// verilator_coverage what the fixture's coverage models write.

#include "openpiton/coverage.h"

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "openpiton/builder.h"
#include "openpiton/cache_defaults.h"
#include "openpiton/simulator.h"
#include "os/environment.h"
#include "os/program_search.h"
#include "support/checkout_files.h"
#include "support/child_process.h"
#include "support/fixture_checkout.h"

namespace mace::openpiton {
namespace {

namespace fs = std::filesystem;
using ::testing::Contains;
using ::testing::HasSubstr;

std::string point(const std::string& file, int line, const std::string& page, const std::string& spans,
                  const std::string& hierarchy, int count) {
  return "C '\x01" "f\x02" + file + "\x01" "l\x02" + std::to_string(line) + "\x01" "n\x02" "0\x01" "page\x02" + page +
         "\x01" "o\x02" "block" + (spans.empty() ? "" : "\x01" "S\x02" + spans) + "\x01" "h\x02" + hierarchy + "' " +
         std::to_string(count) + "\n";
}

const ModuleCoverage& module_named(const CoverageSummary& s, const std::string& name) {
  auto it = std::find_if(s.modules.begin(), s.modules.end(), [&](const auto& m) { return m.module == name; });
  if (it == s.modules.end()) throw std::runtime_error("no module " + name);
  return *it;
}

TEST(CoverageSummaryTest, LinesAndPointsPerTopLevelModule) {  // REQ-EXEC-6
  std::istringstream in(
      "# SystemC::Coverage-3\n" +
      point("/p/l15.v", 10, "v_line/l15", "10-12", "TOP.cmp_top.system.chip.tile0.l15", 5) +
      // A branch not taken on lines 11-12, which the block above reached: they stay covered.
      point("/p/l15.v", 11, "v_branch/l15", "11-12", "TOP.cmp_top.system.chip.tile0.l15", 0) +
      point("/p/l15.v", 20, "v_line/l15", "20", "TOP.cmp_top.system.chip.tile0.l15", 0) +
      // No span: the point's own line.
      point("/p/core.v", 7, "v_branch/pico", "", "TOP.cmp_top.system.chip.tile0.core", 3) +
      point("/p/bridge.v", 3, "v_line/b", "3,5-6", "TOP.cmp_top.system.chipset.fpga_bridge.rcv", 1) +
      // Instances folded by Verilator count to the level above the '*'.
      point("/p/ff.v", 1, "v_line/ff", "1", "TOP.cmp_top.system.chip.*_ff", 0) +
      point("/p/pc_cmp.v", 9, "v_line/pc_cmp", "9", "TOP.cmp_top.monitor.pc_cmp", 2) +
      // Toggle coverage and junk are not line coverage.
      point("/p/l15.v", 1, "v_toggle/l15", "1", "TOP.cmp_top.system.chip.tile0.l15", 9) +
      "C 'broken\nnot a point\n");
  const CoverageSummary s = summarise_coverage_data(in);
  ASSERT_EQ(s.modules.size(), 4u);
  const auto& tile = module_named(s, "system.chip.tile0");
  EXPECT_EQ(tile.points_total, 4);
  EXPECT_EQ(tile.points_covered, 2);
  EXPECT_EQ(tile.lines_total, 5);  // l15.v 10, 11, 12, 20; core.v 7
  EXPECT_EQ(tile.lines_covered, 4);
  const auto& bridge = module_named(s, "system.chipset.fpga_bridge");
  EXPECT_EQ(bridge.lines_total, 3);
  EXPECT_EQ(bridge.lines_covered, 3);
  const auto& chip = module_named(s, "system.chip");
  EXPECT_EQ(chip.lines_total, 1);
  EXPECT_EQ(chip.lines_covered, 0);
  EXPECT_EQ(module_named(s, "monitor").lines_covered, 1);
  EXPECT_EQ(s.total.points_total, 7);
  EXPECT_EQ(s.total.points_covered, 4);
  EXPECT_EQ(s.total.lines_total, 10);
  EXPECT_EQ(s.total.lines_covered, 8);
}

class CoverageFixtureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!os::find_program("verilator_coverage", os::inherited_environment()["PATH"]))
      GTEST_SKIP() << "verilator_coverage is not installed (Debian: verilator)";
  }
  // A model of the fixture checkout, built as the builder builds it, with `flags`.
  std::string build(const std::vector<std::string>& flags) {
    BuildConfig config;
    config.core = Core::pico;
    const auto defaults = read_cache_defaults(checkout, Core::pico);
    config.caches = defaults.caches.value_or(CacheSet{});
    config.rtl_defines = normalise_defines({});
    config.extra_flags = flags;
    BuildOptions options;
    options.verilator = VerilatorVersion{5, 6, "Verilator 5.006 2023-01-22 rev (Debian 5.006-3)"};
    options.timeout = std::chrono::seconds(60);
    BuildResult built = openpiton::build(checkout, config, options);
    EXPECT_TRUE(built.success) << built.message;
    return built.build_id;
  }
  SimulationResult simulate(const std::string& build_id, std::vector<std::string> workloads) {
    return simulate_workloads(SimulationRequest{
        .checkout = checkout, .build_id = build_id, .core = Core::pico,
        .workloads = std::move(workloads),
        .workloads_dir = fs::path(mace::testing::source_root()) / "workloads"});
  }
  static std::vector<fs::path> run_dirs(const SimulationResult& r) {
    std::vector<fs::path> dirs;
    for (const auto& run : r.runs) dirs.push_back(run.run_dir);
    return dirs;
  }
  void add_stock_diag(const std::string& name) {
    fx.write("piton/verif/diag/assembly/riscv/pico/" + name, fx.read("piton/verif/diag/assembly/riscv/pico/add.S"));
  }
  void patch() {
    auto r = mace::testing::run_process({mace::testing::source_root() + "/scripts/patch_openpiton.sh", fx.root()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  mace::testing::FixtureCheckout fx;
  Checkout checkout{fx.root()};
};

TEST_F(CoverageFixtureTest, MergesEveryWorkloadsCountsAnnotatesAndSummarises) {  // REQ-EXEC-6
  patch();
  add_stock_diag("lw.S");
  const std::string id = build({"-vlt_build_args=--coverage-line"});
  const SimulationResult one = simulate(id, {"add.S"});
  const SimulationResult both = simulate(id, {"add.S", "lw.S"});
  ASSERT_TRUE(both.passed);

  const CoverageResult single = merge_coverage({.checkout = checkout, .build_id = id, .run_dirs = run_dirs(one)});
  const CoverageResult merged = merge_coverage({.checkout = checkout, .build_id = id, .run_dirs = run_dirs(both)});
  ASSERT_TRUE(merged.merged) << merged.error;
  EXPECT_EQ(merged.runs_merged, 2u);
  EXPECT_TRUE(merged.runs_without_data.empty());
  // Each merge in a directory of its own under the model.
  EXPECT_EQ(single.directory, checkout.model_dir(id) / "coverage" / "1");
  EXPECT_EQ(merged.directory, checkout.model_dir(id) / "coverage" / "2");
  EXPECT_TRUE(fs::is_regular_file(merged.data));
  EXPECT_THAT(merged.annotated_files, Contains(fs::path("l15.v")));
  EXPECT_THAT(mace::testing::read_file(merged.annotated / "l15.v"), HasSubstr("verilator_coverage annotation"));

  // Two diags reach more than one; the totals are the modules' sums.
  EXPECT_GT(merged.summary.total.lines_covered, single.summary.total.lines_covered);
  EXPECT_EQ(merged.summary.total.points_total, 28);  // the fixture's line and branch points
  int64_t lines = 0;
  for (const auto& m : merged.summary.modules) lines += m.lines_total;
  EXPECT_EQ(lines, merged.summary.total.lines_total);
  std::vector<std::string> names;
  for (const auto& m : merged.summary.modules) names.push_back(m.module);
  EXPECT_THAT(names, ::testing::ElementsAre("monitor", "system.chip.tile0", "system.chipset.ciop_fake_iob"));
}

TEST_F(CoverageFixtureTest, AnUnpatchedTestbenchWritesNothingAndMergingSaysWhy) {
  const std::string id = build({"-vlt_build_args=--coverage-line"});
  const SimulationResult r = simulate(id, {"add.S"});
  ASSERT_TRUE(r.passed);
  EXPECT_FALSE(fs::exists(r.runs[0].run_dir / "coverage.dat"));
  const CoverageResult c = merge_coverage({.checkout = checkout, .build_id = id, .run_dirs = run_dirs(r)});
  EXPECT_FALSE(c.merged);
  EXPECT_THAT(c.error, HasSubstr("scripts/patch_openpiton.sh"));
  EXPECT_TRUE(c.directory.empty());
}

TEST_F(CoverageFixtureTest, AModelBuiltWithoutCoverageWritesNothing) {
  patch();
  const std::string id = build({});
  const SimulationResult r = simulate(id, {"add.S"});
  EXPECT_FALSE(fs::exists(r.runs[0].run_dir / "coverage.dat"));
}

}  // namespace
}  // namespace mace::openpiton
