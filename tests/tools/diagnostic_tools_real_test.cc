// The diagnostic tools over run directories a real OpenPiton checkout's simulations left
// (`<checkout>/build/manycore/<build id>/runs/<workload>-<n>`): the files, transcripts and
// symbol tables sims really writes, not our test's idea of them.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "tools/diagnostic_tools.h"

namespace mace::tools {
namespace {

namespace fs = std::filesystem;

// Pico run directories (they hold diag.exe and symbol.tbl) of the checkout, sorted.
std::vector<fs::path> real_run_dirs(const fs::path& checkout) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& model : fs::directory_iterator(checkout / "build/manycore", ec)) {
    std::error_code ec2;
    for (const auto& run : fs::directory_iterator(model.path() / "runs", ec2))
      if (fs::exists(run.path() / "sim.log") && fs::exists(run.path() / "diag.exe") &&
          fs::exists(run.path() / "symbol.tbl"))
        out.push_back(run.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(DiagnosticToolsRealCheckout, ReadsWhatSimsLeftInARunDirectory) {  // REQ-FAIL-5
  const char* root = std::getenv("MACE_TEST_PITON_ROOT");
  if (root == nullptr || *root == '\0')
    GTEST_SKIP() << "MACE_TEST_PITON_ROOT is not set: this test needs a real OpenPiton checkout "
                    "with simulated pico runs";
  const auto runs = real_run_dirs(root);
  if (runs.size() < 2)
    GTEST_SKIP() << "the checkout at " << root << " has fewer than two pico run directories";

  DiagnosticScope scope;
  scope.checkout_root = root;
  scope.run_dirs = {runs.back()};
  scope.reference_run_dirs = {runs.front()};
  const llm::Tool tool = make_diagnostic_tool(scope);
  const std::string failed = "failed/" + runs.back().filename().string();

  auto r = tool.call("search_logs", R"({"pattern":"Simulation ->"})");
  ASSERT_TRUE(r.ok) << r.content;
  EXPECT_NE(r.content.find(failed + "/sim.log:"), std::string::npos) << r.content;

  r = tool.call("list_files", "{}");
  ASSERT_TRUE(r.ok) << r.content;
  EXPECT_NE(r.content.find(failed + "/diag.exe"), std::string::npos) << r.content;
  EXPECT_NE(r.content.find("(ELF program"), std::string::npos);

  r = tool.call("read_file", R"({"path":")" + failed + R"(/status.log"})");
  ASSERT_TRUE(r.ok) << r.content;
  EXPECT_NE(r.content.find("1: Diag: "), std::string::npos) << r.content;

  r = tool.call("compare_transcript", R"({"reference":"reference"})");
  // "reference" alone names every reference run; one must be named.
  EXPECT_FALSE(r.ok);
  r = tool.call("compare_transcript", R"({"reference":"reference/)" + runs.front().filename().string() + R"("})");
  ASSERT_TRUE(r.ok) << r.content;
  EXPECT_NE(r.content.find(failed + "/sim.log: "), std::string::npos) << r.content;
  EXPECT_NE(r.content.find("verdict "), std::string::npos);

  // sims writes good_trap and bad_trap from the program's pass and fail labels.
  r = tool.call("symbols", "{}");
  ASSERT_TRUE(r.ok) << r.content;
  EXPECT_NE(r.content.find("good_trap: "), std::string::npos) << r.content;
  EXPECT_NE(r.content.find(" -> pass ("), std::string::npos) << r.content;
  EXPECT_NE(r.content.find(" -> fail ("), std::string::npos) << r.content;
}

}  // namespace
}  // namespace mace::tools
