// Builds on a real, patched OpenPiton checkout (scripts/patch_openpiton.sh), named by
// MACE_TEST_PITON_ROOT; skipped without it. Each build takes about a minute (pico 1x1).
//
// Every test leaves the checkout as it found it: `git status --porcelain` is compared before
// and after, and design files are changed only through ScopedDesignEdit, which puts the
// original bytes back however the test ends. Model directories are `mace_*` ones (the
// harness removes them, REQ-EVAL-4); the checkout's own (pico1x1, rel-0.1...) are never
// touched.
//
// To add simulation tests: derive from RealCheckoutTest, get a model with
// ensure_model(pico_config(1, 1)) (built once, then reused while the checkout is unchanged),
// and run it in a directory of your own.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "openpiton/builder.h"
#include "openpiton/checkout_pin.h"
#include "openpiton/cache_defaults.h"
#include "openpiton/checkout.h"
#include "openpiton/model_store.h"
#include "openpiton/sims_command.h"
#include "openpiton/simulator.h"
#include "openpiton/source_fingerprint.h"
#include "os/environment.h"
#include "os/temp_dir.h"
#include "support/checkout_files.h"
#include "support/child_process.h"

namespace mace::openpiton {
namespace {

namespace fs = std::filesystem;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// A design file changed for the length of a test; its original bytes and permissions come
// back on destruction (not `git checkout`, which would also drop a patch the checkout
// carries).
class ScopedDesignEdit {
 public:
  ScopedDesignEdit(fs::path path, const std::string& appended) : path_(std::move(path)) {
    std::ifstream in(path_, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path_.string());
    original_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    permissions_ = fs::status(path_).permissions();
    std::ofstream(path_, std::ios::binary | std::ios::app) << appended;
  }
  ~ScopedDesignEdit() {
    std::ofstream(path_, std::ios::binary | std::ios::trunc) << original_;
    std::error_code ignored;
    fs::permissions(path_, permissions_, ignored);
  }
  ScopedDesignEdit(const ScopedDesignEdit&) = delete;
  ScopedDesignEdit& operator=(const ScopedDesignEdit&) = delete;

 private:
  fs::path path_;
  std::string original_;
  fs::perms permissions_{};
};

class RealCheckoutTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* root = std::getenv("MACE_TEST_PITON_ROOT");
    if (root == nullptr || *root == '\0') {
      GTEST_SKIP() << "MACE_TEST_PITON_ROOT is not set: these tests need a real, patched "
                      "OpenPiton checkout";
    }
    checkout_.emplace(root);
    status_before_ = git_status();
  }

  void TearDown() override {
    if (checkout_) {
      EXPECT_EQ(git_status(), status_before_) << "the test left the checkout changed";
    }
  }

  const Checkout& checkout() const { return *checkout_; }

  std::string git_status() const {
    const std::string root = checkout().root().string();
    const auto result = mace::testing::run_process({"git", "-C", root, "status", "--porcelain"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return result.out;
  }

  // pico on an x-by-y mesh with the checkout's own cache defaults.
  BuildConfig pico_config(int x, int y, const std::vector<std::string>& defines = {}) const {
    BuildConfig config;
    config.core = Core::pico;
    config.x_tiles = x;
    config.y_tiles = y;
    const auto defaults = read_cache_defaults(checkout(), Core::pico);
    EXPECT_TRUE(defaults.caches) << defaults.error;
    config.caches = defaults.caches.value_or(CacheSet{});
    config.rtl_defines = normalise_defines(defines);
    return config;
  }

  // Polite on a shared machine (sims' own make -j is unbounded), and it exercises the make
  // wrapper on a real build.
  BuildOptions build_options() const {
    BuildOptions options;
    options.timeout = std::chrono::minutes(30);
    options.max_parallelism = 2;
    return options;
  }

  BuildResult build_model(const BuildConfig& config) const {
    const auto result = build(checkout(), config, build_options());
    std::cout << "[ build    ] " << result.build_id << (result.reused ? " reused" : " built")
              << " in " << result.wall_seconds << " s"
              << (result.success ? "" : ", failed: " + std::string(to_string(result.failure_reason))) << "\n";
    return result;
  }

  // A model of `config`, built if need be; fails the test when it cannot be.
  BuildResult ensure_model(const BuildConfig& config) const {
    auto result = build_model(config);
    EXPECT_TRUE(result.success) << result.failure_reason << ": " << result.message << "\n"
                                << result.tail;
    return result;
  }

  SourceFingerprint fingerprint() const {
    const auto env = checkout().environment(os::inherited_environment());
    return source_fingerprint(checkout(), detect_verilator_version(env).text);
  }

  std::optional<Checkout> checkout_;
  std::string status_before_;
};

TEST_F(RealCheckoutTest, ReadsTheCheckoutsCacheDefaults) {
  for (Core core : {Core::ariane, Core::sparc, Core::pico}) {
    const auto defaults = read_cache_defaults(checkout(), core);
    ASSERT_TRUE(defaults.caches) << defaults.error;
    EXPECT_EQ(defaults.caches->l1i, (CacheGeometry{16384, 4}));
    EXPECT_EQ(defaults.caches->l1d, (CacheGeometry{8192, 4}));
    EXPECT_EQ(defaults.caches->l15, (CacheGeometry{8192, 4}));
    EXPECT_EQ(defaults.caches->l2, (CacheGeometry{65536, 4}));
  }
}

// REQ-TOOL-8 (this version's commit): a clone of the commit MACE was verified on is not
// named for its commit; the Ariane submodule is, when it is not checked out.
TEST_F(RealCheckoutTest, IsTheCommitMaceWasVerifiedOn) {
  for (const auto& note : checkout_pin_notes(checkout().root()))
    EXPECT_EQ(note.difference, PinDifference::no_ariane) << note.text;
}

TEST_F(RealCheckoutTest, FindsVerilatorThroughTheCheckoutsEnvironment) {
  const auto version = detect_verilator_version(checkout().environment(os::inherited_environment()));
  EXPECT_GE(version.major, 4);
  EXPECT_THAT(version.text, StartsWith("Verilator "));
}

// REQ-EXEC-5, REQ-VER-12: a fresh build, a marker, and then reuse; the build's own output
// (ignored *.tmp.v, flist, sims.log) leaves the fingerprint as it was.
TEST_F(RealCheckoutTest, BuildsPico1x1ThenReusesIt) {
  const BuildConfig config = pico_config(1, 1);
  fs::remove_all(checkout().model_dir(build_id(config)));
  const auto before = fingerprint();

  const auto built = ensure_model(config);
  ASSERT_TRUE(built.success);
  EXPECT_FALSE(built.reused);
  EXPECT_THAT(built.build_id, StartsWith("mace_"));
  EXPECT_TRUE(fs::exists(checkout().model_binary(built.build_id)));
  EXPECT_TRUE(fs::exists(fs::path(built.model_dir) / std::string(kBuildMarkerName)));
  EXPECT_TRUE(fs::exists(built.log_path));
  EXPECT_EQ(built.fingerprint.digest, before.digest);
  EXPECT_EQ(fingerprint().digest, before.digest) << "the build changed the fingerprint";

  const auto again = build_model(config);
  EXPECT_TRUE(again.success);
  EXPECT_TRUE(again.reused);
  EXPECT_LT(again.wall_seconds, 10);
}

// REQ-VER-12: an edit under piton/design makes the same configuration build again.
TEST_F(RealCheckoutTest, AnEditUnderDesignForcesARebuild) {
  const BuildConfig config = pico_config(1, 1);
  ASSERT_TRUE(ensure_model(config).success);
  const auto clean = fingerprint();
  {
    ScopedDesignEdit edit(checkout().dv_root() / "design/chip/tile/pico/rtl/picorv32.v",
                          "// MACE real-checkout test: a comment that changes nothing\n");
    const auto edited = fingerprint();
    EXPECT_NE(edited.digest, clean.digest);
    const auto rebuilt = ensure_model(config);
    EXPECT_FALSE(rebuilt.reused);
    EXPECT_EQ(rebuilt.fingerprint.digest, edited.digest);
  }
  EXPECT_EQ(fingerprint().digest, clean.digest) << "restoring the file restores the fingerprint";
}

// A design that does not compile fails with Verilator's error line, file and line included.
TEST_F(RealCheckoutTest, ABrokenDesignFailsWithItsErrorLine) {
  // Its own define, so the good pico 1x1 model above stays as it is.
  const BuildConfig config = pico_config(1, 1, {"MACE_REAL_CHECKOUT_BROKEN_BUILD"});
  ScopedDesignEdit edit(checkout().dv_root() / "design/chip/tile/pico/rtl/picorv32.v",
                        "this is not verilog at all ;\n");
  const auto result = build_model(config);
  EXPECT_FALSE(result.success);
  EXPECT_EQ(result.failure_reason, Failure::build_failed);
  ASSERT_FALSE(result.error_lines.empty()) << result.tail;
  EXPECT_THAT(result.error_lines[0], ContainsRegex(R"(^%Error: \S*picorv32\.v:[0-9]+:[0-9]+: )"));
  EXPECT_FALSE(fs::exists(fs::path(result.model_dir) / std::string(kBuildMarkerName)));
}

TEST_F(RealCheckoutTest, ABrokenDefineFailsWithItsErrorLine) {
  // PITON_FPGA_SYNTH selects the FPGA clocking the simulation testbench does not wire up:
  // Verilator stops at elaboration with PINNOTFOUND in manycore_top (measured: 8 s).
  const BuildConfig config = pico_config(1, 1, {"PITON_FPGA_SYNTH"});
  const auto result = build_model(config);
  EXPECT_FALSE(result.success);
  EXPECT_EQ(result.failure_reason, Failure::build_failed);
  ASSERT_FALSE(result.error_lines.empty()) << result.tail;
  EXPECT_THAT(result.error_lines[0], ContainsRegex(R"(^%Error\S*: \S*\.v:[0-9]+:[0-9]+: )"));
  EXPECT_FALSE(fs::exists(fs::path(result.model_dir) / std::string(kBuildMarkerName)));
}

// --- Simulation (simulator.h) -------------------------------------------------------------

// The project's gate workloads on a model of this checkout, each reported with its wall
// time and verdict line; fails the test with the runs' errors when the result is not a pass.
SimulationResult simulate_on(const Checkout& checkout, const BuildResult& model, int x, int y,
                             const std::vector<std::string>& workloads) {
  SimulationRequest request{.checkout = checkout, .build_id = model.build_id,
                            .core = Core::pico, .x_tiles = x, .y_tiles = y,
                            .workloads = workloads,
                            .workloads_dir = fs::path(mace::testing::source_root()) / "workloads",
                            .time_limit = std::chrono::minutes(10)};
  const std::string mesh = "pico " + std::to_string(x) + "x" + std::to_string(y);
  request.on_workload_finished = [&mesh](const WorkloadRunResult& run) {
    std::cout << "[ simulate ] " << run.workload << " on " << mesh << ": "
              << to_string(run.verdict) << " in " << run.wall_seconds << " s"
              << (run.marker_line.empty() ? "" : ": " + run.marker_line)
              << (run.error.empty() ? "" : " (" + run.error + ")") << "\n";
  };
  auto result = simulate_workloads(request);
  EXPECT_TRUE(result.passed) << result.failure_reason << ": " << result.failure_detail;
  for (const auto& run : result.runs) {
    EXPECT_TRUE(run.passed) << run.workload << " in " << run.run_dir << ": " << run.error
                            << "\n" << run.sim_log_tail;
  }
  return result;
}

// REQ-VER-1, REQ-VER-2, REQ-VER-5: MACE's gate workloads pass on a real pico 1x1 model,
// each in its own run directory under the model, with OpenPiton's own status agreeing.
TEST_F(RealCheckoutTest, RunsHelloAndMemstressOnPico1x1) {
  const auto model = ensure_model(pico_config(1, 1));
  ASSERT_TRUE(model.success);
  const auto result = simulate_on(checkout(), model, 1, 1, {"hello", "memstress"});
  ASSERT_EQ(result.runs.size(), 2u);
  for (const auto& run : result.runs) {
    EXPECT_EQ(run.verdict, Verdict::pass);
    EXPECT_THAT(run.marker_line, HasSubstr("Simulation -> PASS"));
    EXPECT_THAT(run.status_line, HasSubstr("PASS"));
    EXPECT_EQ(run.run_dir.parent_path(), fs::path(model.model_dir) / "runs");
    EXPECT_THAT(run.argv, ::testing::Contains("-finish_mask=1"));
  }
}

// REQ-VER-7: on a 2x1 mesh the default finish mask (11) makes both tiles reach the good
// trap; the workloads wake tile 1 (prepare_workload's diag.ev) and run on every tile.
TEST_F(RealCheckoutTest, RunsHelloAndMemstressOnEveryTileOfPico2x1) {
  const auto model = ensure_model(pico_config(2, 1));
  ASSERT_TRUE(model.success);
  const auto result = simulate_on(checkout(), model, 2, 1, {"hello", "memstress"});
  ASSERT_EQ(result.runs.size(), 2u);
  for (const auto& run : result.runs) {
    EXPECT_EQ(run.verdict, Verdict::pass);
    EXPECT_THAT(run.argv, ::testing::Contains("-finish_mask=11"));
    EXPECT_THAT(run.status_line, HasSubstr("PASS"));
  }
}

// The model store, REQ-VER-12: a second checkout (MACE_TEST_PITON_ROOT_2, with the same sources
// and no model) takes the pico 1x1 model from the store instead of building, and it
// simulates exactly as the model built in place: the same verdicts at the same cycles.
TEST_F(RealCheckoutTest, ASecondCheckoutTakesThePicoModelFromTheStoreAndSimulatesAlike) {
  const char* second_root = std::getenv("MACE_TEST_PITON_ROOT_2");
  if (second_root == nullptr || *second_root == '\0') {
    GTEST_SKIP() << "MACE_TEST_PITON_ROOT_2 is not set: this test needs a second copy of the "
                    "checkout, with the same sources";
  }
  const Checkout second(second_root);
  const auto second_status = mace::testing::run_process(
      {"git", "-C", second.root().string(), "status", "--porcelain"});
  os::TempDir store_dir(os::default_temp_parent(), "mace-model-store.");
  const ModelStore store({.directory = store_dir.path()});
  const BuildConfig config = pico_config(1, 1);
  BuildOptions options = build_options();
  options.model_store = &store;

  // Built here, or reused here and published then.
  const BuildResult here = build(checkout(), config, options);
  ASSERT_TRUE(here.success) << here.failure_reason << ": " << here.message << "\n" << here.tail;
  ASSERT_THAT(here.store_notes, ::testing::IsEmpty());

  fs::remove_all(second.model_dir(here.build_id));
  auto sims_log_time = [&second] {
    std::error_code missing;
    return fs::last_write_time(second.root() / "sims.log", missing);
  };
  const auto sims_log_before = sims_log_time();
  const BuildResult taken = build(second, config, options);
  std::cout << "[ build    ] " << taken.build_id << " on the second checkout: "
            << (taken.reused_from.empty() ? "built" : taken.reused_from) << " in "
            << taken.wall_seconds << " s (" << taken.origin << ")\n";
  ASSERT_TRUE(taken.success) << taken.failure_reason << ": " << taken.message;
  EXPECT_EQ(taken.reused_from, "store");
  EXPECT_EQ(taken.fingerprint.digest, here.fingerprint.digest);
  // Where the model was built: this checkout, or the one it was copied from with its models.
  EXPECT_THAT(taken.origin, HasSubstr(" built in /"));
  // Nothing was built: sims never ran there (it rewrites sims.log in the checkout root).
  const std::string log = mace::testing::read_file(taken.log_path);
  EXPECT_THAT(log.substr(0, log.find('\n')), StartsWith("mace: model taken from the store"));
  EXPECT_EQ(sims_log_time(), sims_log_before);
  const std::string flist = mace::testing::read_file(taken.model_dir + "/flist");
  auto count = [&flist](const std::string& what) {
    std::size_t n = 0;
    for (auto at = flist.find(what); at != std::string::npos; at = flist.find(what, at + 1)) ++n;
    return n;
  };
  // Every source the flist names is the second checkout's.
  EXPECT_GT(count("/piton/design/"), 100u);
  EXPECT_EQ(count(second.root().string() + "/piton/design/"), count("/piton/design/"));

  const auto in_place = simulate_on(checkout(), here, 1, 1, {"hello"});
  const auto from_store = simulate_on(second, taken, 1, 1, {"hello"});
  ASSERT_EQ(in_place.runs.size(), 1u);
  ASSERT_EQ(from_store.runs.size(), 1u);
  EXPECT_EQ(from_store.runs[0].verdict, Verdict::pass);
  EXPECT_EQ(from_store.runs[0].verdict, in_place.runs[0].verdict);
  // "<cycle>: Simulation -> PASS (HIT GOOD TRAP)": the same cycle count.
  EXPECT_EQ(from_store.runs[0].marker_line, in_place.runs[0].marker_line);
  EXPECT_THAT(from_store.runs[0].run_dir, StartsWith(second.root().string() + "/"));

  const auto second_after = mace::testing::run_process(
      {"git", "-C", second.root().string(), "status", "--porcelain"});
  EXPECT_EQ(second_after.out, second_status.out) << "the test left the second checkout changed";
}

}  // namespace
}  // namespace mace::openpiton
