// Regressions and coverage on a real, patched OpenPiton checkout named by
// MACE_TEST_PITON_ROOT; skipped without it. A real maced owns the checkout and the real
// `mace` submits direct runs of a 1x1 PicoRV32:
//
// - OpenPiton's pico diag group (pico_tile1 of piton/verif/diag/master_diaglist_princeton,
//   53 diags) with run_every_workload, two of its diags made to fail (a max_cycle far too
//   short for them): every diag's verdict comes back, the two failures as one signature;
// - a coverage run: lines covered per top-level module of the design, the annotated
//   source kept with the run and read back through maced;
// - a reproduction: `mace repro` of a failed C program's simulation, run by hand with
//   /bin/sh outside maced, rebuilds the model and gives the same verdict line.
//
// The checkout is left as it was found (`git status --porcelain` before and after). Run
// it alone on the checkout (`flock` on the checkout's lock where several share it):
//
//   MACE_TEST_PITON_ROOT=/path/to/openpiton meson test -C build real_regression

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "waveform/wave_query.h"
#include "support/checkout_files.h"
#include "support/maced_instance.h"
#include "support/real_checkout.h"

namespace mace::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

// The diags of a group of OpenPiton's master diag list: the lines between `<group ...>`
// and `</group>`, each `<name> <diag>`. A line commented out with `//` is not in the group
// (pico_tile1 leaves out `//pico-simple simple.S`, which sims -group does not run).
std::vector<std::string> diag_group(const std::string& root, const std::string& group) {
  std::ifstream in(root + "/piton/verif/diag/master_diaglist_princeton");
  std::vector<std::string> diags;
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.rfind("<" + group + " ", 0) == 0 || line == "<" + group + ">") {
      inside = true;
      continue;
    }
    if (line.rfind("</" + group + ">", 0) == 0) break;
    if (line.find_first_not_of(" \t") != std::string::npos &&
        line.compare(line.find_first_not_of(" \t"), 2, "//") == 0)
      continue;
    std::smatch m;
    if (inside && std::regex_match(line, m, std::regex(R"(\s*\S+\s+(\S+\.S)\s*)"))) diags.push_back(m[1]);
  }
  return diags;
}

std::string json_list(const std::vector<std::string>& names) {
  std::string out = "[";
  for (const auto& n : names) out += (out.size() > 1 ? ", \"" : "\"") + n + "\"";
  return out + "]";
}

class RealRegressionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto root = real_checkout_root();
    if (!root)
      GTEST_SKIP() << "MACE_TEST_PITON_ROOT is not set: this test needs a real OpenPiton "
                      "checkout patched with scripts/patch_openpiton.sh (Verilator with "
                      "verilator_coverage, the RISC-V GCC and OpenPiton's tools installed)";
    root_ = *root;
    status_before_ = git_status(root_);
    dir_.write("maced.json", R"({"checkouts": [{"path": ")" + root_ + R"("}]})");
    MacedOptions options;
    options.extra_args = {"--config", dir_.file("maced.json"), "--workloads", source_root() + "/workloads"};
    maced_ = std::make_unique<MacedInstance>(dir_, options);
  }
  void TearDown() override {
    maced_.reset();
    if (!root_.empty()) EXPECT_EQ(git_status(root_), status_before_) << "the run left the checkout changed";
  }
  // Submits spec.json and follows the run to its end; its ID.
  std::string run(const std::string& spec) {
    dir_.write("spec.json", spec);
    const auto started = std::chrono::steady_clock::now();
    auto submitted = maced_->mace({"submit", dir_.file("spec.json")});
    EXPECT_EQ(submitted.exit_code, 0) << submitted.err;
    const std::string id = submitted.out.substr(0, submitted.out.find('\n'));
    ProcessOptions options;
    options.timeout = std::chrono::minutes(50);  // a fresh pico build on a loaded machine
    maced_->mace({"watch", id}, options);
    std::cout << "run " << id << ": "
              << std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()
              << " s\n";
    return id;
  }

  std::string root_;
  std::string status_before_;
  TempDir dir_;
  std::unique_ptr<MacedInstance> maced_;
};

TEST_F(RealRegressionTest, ThePicoDiagGroupReportsEveryVerdictAndGroupsTheFailures) {  // REQ-VER-5
  const std::vector<std::string> diags = diag_group(root_, "pico_tile1");
  ASSERT_GE(diags.size(), 40u) << "pico_tile1 not found in master_diaglist_princeton";
  const std::string id = run(R"({"core": "pico", "mesh": [1, 1], "backend": "direct",
      "objective": "OpenPiton's pico_tile1 regression", "run_every_workload": true,
      "workloads": )" + json_list(diags) + R"(,
      "workload_args": {"lw.S": {"max_cycle": 2000}, "sw.S": {"max_cycle": 2000}},
      "budget": {"max_iterations": 1, "max_usd": 1.0, "max_wall_s": 5400}})");

  const std::string status = maced_->mace({"status", id, "--json"}).out;
  EXPECT_THAT(status, HasSubstr(R"("state":"failed")"));
  for (const auto& diag : diags) {
    const std::string verdict = diag == "lw.S" || diag == "sw.S" ? "maxcycles" : "pass";
    EXPECT_THAT(status, HasSubstr("\"workload\":\"" + diag + "\",\"verdict\":\"" + verdict + "\"")) << diag;
  }
  EXPECT_THAT(status, HasSubstr(R"j("failure_groups":[{"signature":"maxcycles: N : Simulation -> (terminated by reaching max cycles = N)","verdict":"maxcycles",)j"));
  EXPECT_THAT(status, HasSubstr(R"("workloads":[{"iteration":1,"task_id":"build","workload":"lw.S"},{"iteration":1,"task_id":"build","workload":"sw.S"}]}])"));
  const std::string human = maced_->mace({"status", id}).out;
  EXPECT_THAT(human, HasSubstr("failures   2 workloads did not pass, 1 signature\n"
                               "  2 x maxcycles: N : Simulation -> (terminated by reaching max cycles = N)\n"
                               "    iter1 build: lw.S sw.S\n"));
  std::cout << human;
}

// REQ-VER-13: the script `mace repro` writes rebuilds the model under its own build ID and
// reproduces the recorded failure by hand: the same verdict at the same time stamp, with
// the C program MACE compiled recreated from what the run kept.
TEST_F(RealRegressionTest, AReproductionScriptRebuildsAndReproducesAFailureByHand) {
  const std::string id = run(R"({"core": "pico", "mesh": [1, 1], "backend": "direct",
      "objective": "a failure to reproduce", "run_every_workload": true, "workloads": ["hello", "add.S"],
      "workload_args": {"hello": {"max_cycle": 3000}},
      "budget": {"max_iterations": 1, "max_usd": 1.0, "max_wall_s": 3600}})");
  const std::string script = dir_.file("repro.sh");
  const auto made = maced_->mace({"repro", id, "-o", script});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  ProcessOptions options;
  options.timeout = std::chrono::minutes(30);
  options.set_env["MACE_REPRO_DIR"] = dir_.file("repro");
  const auto started = std::chrono::steady_clock::now();
  const auto ran = run_process({"/bin/sh", script}, options);
  std::cout << "repro of " << id << ": "
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() << " s\n";
  EXPECT_EQ(ran.exit_code, 0) << ran.out << ran.err;
  EXPECT_THAT(ran.out, HasSubstr("mace repro: verdict maxcycles: 1500250 : Simulation -> (terminated by reaching max cycles = 3000)"));
  EXPECT_THAT(ran.out, HasSubstr("mace repro: reproduced"));
  std::error_code ignored;
  for (const auto& entry : fs::directory_iterator(root_ + "/build/manycore", ignored))
    if (entry.path().filename().string().rfind("repro_", 0) == 0) fs::remove_all(entry.path(), ignored);
}

// The waveform around a failure (docs/failures.md) on the real design: hello stopped at
// 3000 cycles is simulated again on the traced model, and the VCD `mace wave` writes reads
// as one, covers the cycles before the failure and gives a named signal's values there.
TEST_F(RealRegressionTest, AFailuresWaveformIsAVcdOfTheCyclesBeforeItWithReadableSignals) {
  const std::string id = run(R"({"core": "pico", "mesh": [1, 1], "backend": "direct",
      "objective": "a failure to look at", "workloads": ["hello"], "waveform_cycles": 2000,
      "workload_args": {"hello": {"max_cycle": 3000}},
      "budget": {"max_iterations": 1, "max_usd": 1.0, "max_wall_s": 3600}})");
  const std::string human = maced_->mace({"status", id}).out;
  std::cout << human;
  EXPECT_THAT(human, HasSubstr("--workload hello -o hello.vcd"));
  const std::string file = dir_.file("hello.vcd");
  const auto wrote = maced_->mace({"wave", id, "-o", file});
  ASSERT_EQ(wrote.exit_code, 0) << wrote.err;
  const waveform::WaveSummary summary = waveform::summarise(file, std::chrono::minutes(1));
  std::cout << "waveform: " << summary.signals << " signals, " << fs::file_size(file) << " bytes, times "
            << summary.first_time.value_or(0) << " to " << summary.last_time.value_or(0) << "\n";
  EXPECT_GT(summary.signals, 1000u);
  EXPECT_EQ(summary.first_time, 1500250u - 2000 * 500);
  EXPECT_GE(summary.last_time.value_or(0), 1500250u);
  const waveform::ValuesAnswer values = waveform::signal_values(
      file, {.paths = {"TOP.cmp_top.core_ref_clk"}, .from = 1490000, .to = 1500250, .max_changes = 10}, std::chrono::minutes(1));
  ASSERT_EQ(values.signals.size(), 1u);
  EXPECT_EQ(values.signals[0].changes.size(), 10u) << "the clock toggles in the window";
  for (const auto& recent : waveform::changed_last(file, 6, 12, std::chrono::minutes(1)))
    std::cout << "changed last: " << recent.path << " -> " << recent.value << " at " << recent.time << "\n";
}

TEST_F(RealRegressionTest, ACoverageRunReportsLinesPerTopModuleAndKeepsTheAnnotatedSource) {  // REQ-EXEC-6
  const std::string id = run(R"({"core": "pico", "mesh": [1, 1], "backend": "direct",
      "objective": "pico 1x1 line coverage of two diags", "coverage": true,
      "workloads": ["add.S", "lw.S"],
      "budget": {"max_iterations": 1, "max_usd": 1.0, "max_wall_s": 5400}})");
  const std::string status = maced_->mace({"status", id, "--json"}).out;
  EXPECT_THAT(status, HasSubstr(R"("state":"passed")"));
  EXPECT_THAT(status, HasSubstr(R"("coverage":[{"iteration":1,"task_id":"build","workloads":2,"error":"",)"));
  // The tile is a top-level module of the design, with lines covered and not.
  const std::regex tile(R"re("module":"system\.chip\.tile0","lines_covered":(\d+),"lines_total":(\d+))re");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(status, m, tile)) << status;
  EXPECT_GT(std::stoll(m[1]), 0);
  EXPECT_LT(std::stoll(m[1]), std::stoll(m[2]));

  const auto coverage = maced_->mace({"logs", id, "--coverage"});
  ASSERT_EQ(coverage.exit_code, 0) << coverage.err;
  std::cout << coverage.out;
  EXPECT_THAT(coverage.out, HasSubstr("system.chip.tile0"));
  // The annotated source through maced, by the ID the listing gives.
  const std::regex file_line(R"(\n    (\d+)  picorv32\.v\n)");
  ASSERT_TRUE(std::regex_search(coverage.out, m, file_line)) << coverage.out;
  const auto annotated = maced_->mace({"logs", id, "--file", m[1]});
  ASSERT_EQ(annotated.exit_code, 0) << annotated.err;
  EXPECT_THAT(annotated.out, HasSubstr("verilator_coverage annotation"));
  EXPECT_THAT(annotated.out, HasSubstr("module picorv32"));
  // Kept with the run's evidence, not only in the model directory.
  const std::regex dir_field(R"re("annotated_dir":"([^"]+)")re");
  ASSERT_TRUE(std::regex_search(status, m, dir_field));
  EXPECT_THAT(m[1].str(), HasSubstr(dir_.path()));
  EXPECT_TRUE(fs::is_regular_file(fs::path(m[1].str()) / "picorv32.v"));
}

}  // namespace
}  // namespace mace::testing
