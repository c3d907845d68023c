// A whole run on a real, patched OpenPiton checkout, named by
// MACE_TEST_PITON_ROOT; skipped without it. A real maced owns the checkout, the real `mace`
// submits a direct-planner run of a 2x1 PicoRV32 mesh with the `hello` gate workload, the
// run builds the model with Verilator (about 85 s on 2 cores when nothing is built yet),
// simulates hello on both tiles and ends passed; an identical second run finds the model
// built and reuses it. Both wall times (submit to the end of `watch`) are printed, as the
// table "A run on a real checkout" of docs/openpiton.md reports them.
//
// The checkout is left as it was found: `git status --porcelain` is compared before and
// after (the model lands under build/, which git ignores).
//
//   MACE_TEST_PITON_ROOT=/path/to/openpiton meson test -C build real_run

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include <regex>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/checkout_files.h"
#include "support/maced_instance.h"
#include "support/real_checkout.h"

namespace mace::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// Every model directory MACE built in the checkout (REQ-EVAL-4's clean-up, by hand).
void remove_mace_models(const std::string& root) {
  const std::filesystem::path models = root + "/build/manycore";
  if (!std::filesystem::is_directory(models)) return;
  for (const auto& entry : std::filesystem::directory_iterator(models))
    if (entry.path().filename().string().rfind("mace_", 0) == 0) std::filesystem::remove_all(entry.path());
}

// The value of the first `"key":"..."` in a JSON text ("" when there is none).
std::string first_string_field(const std::string& json, const std::string& key) {
  std::string head = "\"" + key + "\":\"";
  auto at = json.find(head);
  if (at == std::string::npos) return "";
  at += head.size();
  return json.substr(at, json.find('"', at) - at);
}

class RealRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto root = real_checkout_root();
    if (!root)
      GTEST_SKIP() << "MACE_TEST_PITON_ROOT is not set: this test needs a real OpenPiton "
                      "checkout patched with scripts/patch_openpiton.sh (Verilator, the "
                      "RISC-V GCC and OpenPiton's tools installed)";
    root_ = *root;
    status_before_ = git_status(root_);
    dir_.write("maced.json", R"({"checkouts": [{"path": ")" + root_ + R"("}]})");
    MacedOptions options;
    options.extra_args = {"--config", dir_.file("maced.json"), "--workloads",
                          source_root() + "/workloads"};
    maced_ = std::make_unique<MacedInstance>(dir_, options);
  }

  void TearDown() override {
    maced_.reset();  // maced stops before the checkout is looked at
    if (!root_.empty()) {
      EXPECT_EQ(git_status(root_), status_before_) << "the run left the checkout changed";
    }
  }


  struct Finished {
    std::string id;
    int watch_exit = -1;
    double wall_s = 0;
    std::string status;
    std::string events;  // `mace watch` on a pipe: JSON Lines
  };

  // Submits the spec and follows the run to its end with `mace watch`.
  Finished run_once() {
    Finished f;
    auto started = std::chrono::steady_clock::now();
    auto submitted = maced_->mace({"submit", dir_.file("spec.json")});
    EXPECT_EQ(submitted.exit_code, 0) << submitted.err;
    f.id = submitted.out.substr(0, submitted.out.find('\n'));
    ProcessOptions options;
    // A fresh Verilator build of 2x1 pico takes ~85 s here; leave room for a loaded machine.
    options.timeout = std::chrono::minutes(30);
    auto watched = maced_->mace({"watch", f.id}, options);
    f.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    f.watch_exit = watched.exit_code;
    f.events = watched.out;
    f.status = maced_->mace({"status", f.id, "--json"}).out;
    EXPECT_EQ(f.watch_exit, 0) << watched.out << watched.err << "\n"
                               << maced_->mace({"logs", f.id}).out;
    return f;
  }

  std::string root_;
  std::string status_before_;
  TempDir dir_;
  std::unique_ptr<MacedInstance> maced_;
};

// REQ-VER-1, REQ-VER-7, REQ-VER-10, REQ-VER-12, REQ-PLAT-6: a direct run of 2x1 pico with
// hello on every tile passes on the real checkout; the identical second run reuses the model.
TEST_F(RealRunTest, ADirectRunOfTwoPicoTilesPassesAndTheSecondReusesTheBuild) {
  dir_.write("spec.json", R"({"core": "pico", "mesh": [2, 1], "workloads": ["hello"],
    "objective": "Build a 2x1 PicoRV32 mesh and run hello on both tiles",
    "backend": "direct", "budget": {"max_iterations": 1, "max_usd": 1.0, "max_wall_s": 3600}})");

  Finished first = run_once();
  EXPECT_THAT(first.status, HasSubstr(R"("state":"passed")"));
  EXPECT_THAT(first.status, HasSubstr(R"("workload":"hello","verdict":"pass")"));
  EXPECT_THAT(first.status, HasSubstr(R"("checkout":")" + root_ + "\""));
  std::string first_build = first_string_field(first.status, "build_id");
  EXPECT_THAT(first_build, StartsWith("mace_"));
  // The first run builds, unless an earlier run on this checkout built the same model.
  std::string first_outcome = first_string_field(first.status, "build_outcome");
  EXPECT_TRUE(first_outcome == "succeeded" || first_outcome == "reused") << first_outcome;
  EXPECT_TRUE(std::filesystem::exists(root_ + "/build/manycore/" + first_build + "/obj_dir/Vcmp_top"));
  if (first_outcome == "succeeded") {
    // Build progress: Verilator's make reported object by object, up to all of them, then the link.
    EXPECT_THAT(first.events, HasSubstr(R"("kind":"build_progress")"));
    std::smatch linking;
    ASSERT_TRUE(std::regex_search(first.events, linking,
                                  std::regex(R"("message":"linking ([0-9]+)/([0-9]+) objects")")))
        << first.events;
    EXPECT_EQ(linking[1], linking[2]) << "every object make had to build was counted";
    EXPECT_GT(std::stoi(linking[2]), 10);
    EXPECT_THAT(first.events, HasSubstr(R"("workload":"hello","verdict":"pass")"));
  }

  Finished second = run_once();
  EXPECT_THAT(second.status, HasSubstr(R"("state":"passed")"));
  EXPECT_THAT(second.status, HasSubstr(R"("build_outcome":"reused")"));
  EXPECT_EQ(first_string_field(second.status, "build_id"), first_build);
  EXPECT_THAT(second.status, HasSubstr(R"("workload":"hello","verdict":"pass")"));

  std::cout << "[ real run ] first:  " << first.wall_s << " s, build " << first_outcome << " ("
            << first_build << ")\n"
            << "[ real run ] second: " << second.wall_s << " s, build "
            << first_string_field(second.status, "build_outcome") << "\n";
  RecordProperty("first_wall_s", std::to_string(first.wall_s));
  RecordProperty("first_build_outcome", first_outcome);
  RecordProperty("second_wall_s", std::to_string(second.wall_s));
}

// A run owns its evidence on a real checkout: run A (pico 1x1, hello), then run B on the
// same model with memstress, then every mace_* model directory removed: A's build log is
// still A's own build transcript, and its sim.log of hello A's own, ending at its PASS line.
TEST_F(RealRunTest, ARunsLogsStayItsOwnAfterAnotherRunOnItsModelAndEveryModelsRemoval) {
  remove_mace_models(root_);  // A builds, so its transcript is a build's
  dir_.write("spec.json", R"({"core": "pico", "mesh": [1, 1], "workloads": ["hello"],
    "objective": "Build a 1x1 PicoRV32 and run hello", "backend": "direct",
    "budget": {"max_iterations": 1, "max_usd": 1.0, "max_wall_s": 3600}})");
  const Finished a = run_once();
  ASSERT_THAT(a.status, HasSubstr(R"("state":"passed")"));
  const auto a_build = maced_->mace({"logs", a.id, "--build"});
  const auto a_hello = maced_->mace({"logs", a.id, "--sim", "hello"});
  ASSERT_EQ(a_build.exit_code, 0) << a_build.err;
  ASSERT_EQ(a_hello.exit_code, 0) << a_hello.err;
  EXPECT_THAT(a_build.out, HasSubstr("-vlt_build"));
  EXPECT_THAT(a_build.out, Not(HasSubstr("reused in place")));

  dir_.write("spec.json", R"({"core": "pico", "mesh": [1, 1], "workloads": ["memstress"],
    "objective": "Run memstress on the same 1x1 PicoRV32", "backend": "direct",
    "budget": {"max_iterations": 1, "max_usd": 1.0, "max_wall_s": 3600}})");
  const Finished b = run_once();
  EXPECT_EQ(first_string_field(b.status, "build_outcome"), "reused");
  EXPECT_EQ(first_string_field(b.status, "build_id"), first_string_field(a.status, "build_id"));
  EXPECT_THAT(maced_->mace({"logs", b.id, "--build"}).out, HasSubstr("reused in place"));

  remove_mace_models(root_);
  const auto build_after = maced_->mace({"logs", a.id, "--build"});
  const auto hello_after = maced_->mace({"logs", a.id, "--sim", "hello"});
  EXPECT_EQ(build_after.out, a_build.out) << "A's build log is A's own";
  EXPECT_EQ(hello_after.out, a_hello.out) << "A's sim.log is A's own";
  // It ends at its verdict: the PASS line, then at most the $finish that printed it.
  const auto last_lines = maced_->mace({"logs", a.id, "--sim", "hello", "--tail", "3"}).out;
  EXPECT_THAT(last_lines, HasSubstr("Simulation -> PASS (HIT GOOD TRAP)")) << last_lines;
  std::cout << "A " << a.id << " " << a.wall_s << " s, B " << b.id << " " << b.wall_s << " s\n"
            << maced_->mace({"logs", a.id, "--list"}).out;
}

}  // namespace
}  // namespace mace::testing
