// A coverage run end to end with a real maced and mace on the fixture checkout (REQ-EXEC-6):
// the task's coverage merged over its workloads with Debian's verilator_coverage, its lines
// per top-level module in `mace status` and its JSON, the merged data and the annotated
// source kept with the run's evidence and read back through maced.

#include <filesystem>
#include <regex>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/checkout_files.h"
#include "support/fixture_checkout.h"
#include "support/maced_instance.h"

namespace mace::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

class CoverageRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (run_process({"sh", "-c", "command -v verilator_coverage"}).exit_code != 0)
      GTEST_SKIP() << "verilator_coverage is not installed (Debian: verilator)";
    dir_.write("maced.json", R"({"checkouts": [{"path": ")" + checkout_.root() + R"("}]})");
    MacedOptions options;
    options.extra_args = {"--config", dir_.file("maced.json"), "--workloads", source_root() + "/workloads"};
    maced_ = std::make_unique<MacedInstance>(dir_, options);
    checkout_.write("piton/verif/diag/assembly/riscv/pico/lw.S",
                    checkout_.read("piton/verif/diag/assembly/riscv/pico/add.S"));
  }
  void patch() {
    auto r = run_process({source_root() + "/scripts/patch_openpiton.sh", checkout_.root()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  std::string run(const std::string& workloads) {
    dir_.write("spec.json", R"({"core": "pico", "mesh": [1, 1], "backend": "direct", "coverage": true,
        "objective": "line coverage", "workloads": )" + workloads + "}");
    auto submitted = maced_->mace({"submit", dir_.file("spec.json"), "--watch"});
    EXPECT_EQ(submitted.exit_code, 0) << submitted.out << submitted.err;
    return submitted.out.substr(0, submitted.out.find('\n'));
  }

  TempDir dir_;
  FixtureCheckout checkout_;
  std::unique_ptr<MacedInstance> maced_;
};

TEST_F(CoverageRunTest, LinesPerTopModuleAndTheAnnotatedSourceKeptAndServed) {  // REQ-EXEC-6
  patch();
  const std::string id = run(R"(["add.S", "lw.S"])");

  const auto json = maced_->mace({"status", id, "--json"});
  EXPECT_THAT(json.out, HasSubstr(R"("coverage":[{"iteration":1,"task_id":"build","workloads":2,"error":"",)"));
  EXPECT_THAT(json.out, HasSubstr(R"({"module":"system.chip.tile0","lines_covered":)"));
  EXPECT_THAT(json.out, HasSubstr(R"("points_total":28,)"));
  std::smatch m;
  const std::string status = json.out;
  ASSERT_TRUE(std::regex_search(status, m, std::regex(R"re("annotated_dir":"([^"]+)")re")));
  const fs::path annotated = m[1].str();
  // Kept with the run's evidence under maced's state directory, not only in the model.
  EXPECT_EQ(annotated, fs::path(maced_->state_dir()) / "runs" / id / "iter1" / "build" / "coverage" / "annotated")
      << status;
  EXPECT_THAT(read_file((annotated / "l15.v").string()), HasSubstr("verilator_coverage annotation"));
  EXPECT_TRUE(fs::is_regular_file(annotated.parent_path() / "coverage.dat"));

  const auto human = maced_->mace({"status", id});
  EXPECT_THAT(human.out, HasSubstr("coverage   (mace logs " + id + " --coverage)\n  iter1 build: lines "));
  EXPECT_THAT(human.out, HasSubstr(" over 2 workloads\n    monitor  "));

  const auto listed = maced_->mace({"logs", id, "--coverage"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_THAT(listed.out, HasSubstr("system.chip.tile0"));
  ASSERT_TRUE(std::regex_search(listed.out, m, std::regex(R"(\n    (\d+)  l15\.v\n)"))) << listed.out;
  const auto file = maced_->mace({"logs", id, "--file", m[1].str()});
  ASSERT_EQ(file.exit_code, 0) << file.err;
  EXPECT_THAT(file.out, HasSubstr("verilator_coverage annotation"));
  EXPECT_THAT(file.out, HasSubstr("module l15 ("));
  const auto list = maced_->mace({"logs", id, "--list"});
  EXPECT_THAT(list.out, HasSubstr("  merged coverage  "));
  EXPECT_THAT(list.out, HasSubstr("  annotated l15.v  "));
  // The build log is still the build log.
  EXPECT_THAT(maced_->mace({"logs", id, "--build"}).out, HasSubstr("Building rtl model"));
}

TEST_F(CoverageRunTest, AnUnpatchedCheckoutSaysWhyThereIsNoCoverage) {
  const std::string id = run(R"(["add.S"])");
  const auto human = maced_->mace({"status", id});
  EXPECT_THAT(human.out, HasSubstr("  iter1 build: none: no simulation wrote coverage.dat"));
  const auto listed = maced_->mace({"logs", id, "--coverage"});
  EXPECT_THAT(listed.out, HasSubstr("scripts/patch_openpiton.sh"));
}

TEST_F(CoverageRunTest, ARunWithoutCoverageHasNone) {
  patch();
  dir_.write("spec.json", R"({"core": "pico", "mesh": [1, 1], "backend": "direct",
      "objective": "no coverage", "workloads": ["add.S"]})");
  auto submitted = maced_->mace({"submit", dir_.file("spec.json"), "--watch"});
  const std::string id = submitted.out.substr(0, submitted.out.find('\n'));
  EXPECT_THAT(maced_->mace({"status", id, "--json"}).out, HasSubstr(R"("coverage":[])"));
  const auto listed = maced_->mace({"logs", id, "--coverage"});
  EXPECT_NE(listed.exit_code, 0);
  EXPECT_THAT(listed.err, HasSubstr("its spec does not ask for it"));
}

}  // namespace
}  // namespace mace::testing
