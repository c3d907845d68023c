// A checkout's commands go through its runner, each named for what it does, and what the
// machine or scheduler behind that runner does to a command is reported in the adapter's
// own words (os/command_runner.h): the build's and the simulation's failure reasons.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <mutex>

#include "openpiton/builder.h"
#include "openpiton/cache_defaults.h"
#include "openpiton/checkout.h"
#include "openpiton/simulator.h"
#include "os/environment.h"
#include "support/child_process.h"
#include "support/fixture_checkout.h"

namespace mace::openpiton {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Runs commands here, and ends those of one purpose as a failed node would.
class NodeThatFails final : public os::CommandRunner,
                            public std::enable_shared_from_this<NodeThatFails> {
 public:
  explicit NodeThatFails(os::CommandPurpose fail_purpose) : fail_purpose_(fail_purpose) {}

  os::ProcessResult run(const os::ProcessSpec& spec, const os::CancelToken* cancel) const override {
    {
      std::lock_guard lock(mutex_);
      purposes_.push_back(std::string(os::to_string(spec.purpose)) + (label_.empty() ? "" : "@" + label_));
    }
    if (spec.purpose != fail_purpose_) return os::run_process_group(spec, cancel);
    os::ProcessResult result;
    result.host_stop = os::HostStop::node_failure;
    result.host_stop_detail = "Slurm job 7 on node n1 ended NODE_FAIL (NodeDown)";
    return result;
  }
  std::shared_ptr<const os::CommandRunner> labelled(const std::string& label) const override {
    std::lock_guard lock(mutex_);
    label_ = label;
    return shared_from_this();
  }
  std::shared_ptr<const os::CommandRunner> side_by_side(std::size_t, const os::CancelToken*,
                                                        std::string&) const override {
    return shared_from_this();
  }
  std::vector<std::string> purposes() const {
    std::lock_guard lock(mutex_);
    return purposes_;
  }

 private:
  os::CommandPurpose fail_purpose_;
  mutable std::mutex mutex_;
  mutable std::vector<std::string> purposes_;
  mutable std::string label_;
};

const VerilatorVersion kVerilator5{5, 6, "Verilator 5.006 2023-01-22 rev (Debian 5.006-3)"};

class CheckoutRunnerTest : public ::testing::Test {
 protected:
  BuildConfig pico_1x1(const Checkout& checkout) const {
    BuildConfig config;
    config.core = Core::pico;
    config.caches = read_cache_defaults(checkout, Core::pico).caches.value_or(CacheSet{});
    config.rtl_defines = normalise_defines({});
    return config;
  }
  BuildOptions options() const {
    BuildOptions options;
    options.verilator = kVerilator5;
    options.timeout = std::chrono::seconds(60);
    return options;
  }
  mace::testing::FixtureCheckout fixture_;
};

TEST_F(CheckoutRunnerTest, ABuildTheNodeEndsIsANodeFailureNamingWhatHappened) {
  auto runner = std::make_shared<NodeThatFails>(os::CommandPurpose::build);
  const Checkout checkout(fixture_.root(), runner);
  const BuildResult result = build(checkout.labelled("t1"), pico_1x1(checkout), options());
  EXPECT_FALSE(result.success);
  EXPECT_EQ(result.failure_reason, Failure::node_failure);
  EXPECT_THAT(result.message, HasSubstr("NODE_FAIL"));
  EXPECT_THAT(result.error_lines, ElementsAre(result.message));
  EXPECT_THAT(runner->purposes(), ElementsAre("build@t1"));
  EXPECT_EQ(fixture_.invocations("build"), 0) << "sims never ran here";
}

TEST_F(CheckoutRunnerTest, ASimulationTheNodeEndsFailsTheGateWithTheNodesReason) {
  auto runner = std::make_shared<NodeThatFails>(os::CommandPurpose::simulate);
  const Checkout checkout(fixture_.root(), runner);
  const BuildResult built = build(checkout, pico_1x1(checkout), options());
  ASSERT_TRUE(built.success) << built.message;
  SimulationRequest request{.checkout = checkout, .build_id = built.build_id, .core = Core::pico,
                            .x_tiles = 1, .y_tiles = 1, .workloads = {"add.S", "hello.c"},
                            .workloads_dir = std::filesystem::path(mace::testing::source_root()) /
                                             "workloads"};
  const SimulationResult result = simulate_workloads(request);
  EXPECT_FALSE(result.passed);
  EXPECT_EQ(result.failure_reason, Failure::node_failure);
  ASSERT_EQ(result.runs.size(), 1u) << "the next workload is not started (REQ-VER-1)";
  EXPECT_EQ(result.runs[0].host_stop, os::HostStop::node_failure);
  EXPECT_EQ(result.runs[0].returncode, -1);
  EXPECT_THAT(result.failure_detail, HasSubstr("Slurm job 7 on node n1"));
  EXPECT_THAT(runner->purposes(), ElementsAre("build", "simulate"));
}

TEST_F(CheckoutRunnerTest, VerilatorIsAskedItsVersionWhereTheCheckoutBuilds) {
  // A Verilator of the checkout's own, first on its PATH, that no build has asked yet.
  fixture_.write("piton/tools/bin/verilator", "#!/bin/sh\necho 'Verilator 5.006 2023-01-22'\n");
  std::filesystem::permissions(fixture_.root() + "/piton/tools/bin/verilator",
                               std::filesystem::perms::owner_all);
  auto runner = std::make_shared<NodeThatFails>(os::CommandPurpose::verilator_version);
  const Checkout checkout(fixture_.root(), runner);
  BuildOptions opts = options();
  opts.verilator.reset();
  const BuildResult result = build(checkout, pico_1x1(checkout), opts);
  // The node ended the probe: a node failure, like the build's own, not the build's.
  EXPECT_EQ(result.failure_reason, Failure::node_failure);
  EXPECT_THAT(result.message, HasSubstr("NODE_FAIL"));
  EXPECT_THAT(runner->purposes(), ElementsAre("verilator-version"));
}

TEST_F(CheckoutRunnerTest, AWorkloadCompileTheNodeEndsFailsTheGateAsANodeFailure) {
  auto runner = std::make_shared<NodeThatFails>(os::CommandPurpose::compile_workload);
  const Checkout checkout(fixture_.root(), runner);
  const BuildResult built = build(checkout, pico_1x1(checkout), options());
  ASSERT_TRUE(built.success) << built.message;
  SimulationRequest request{.checkout = checkout, .build_id = built.build_id, .core = Core::pico,
                            .x_tiles = 1, .y_tiles = 1, .workloads = {"hello.c"},
                            .workloads_dir = std::filesystem::path(mace::testing::source_root()) /
                                             "workloads"};
  const SimulationResult result = simulate_workloads(request);
  EXPECT_FALSE(result.passed);
  EXPECT_EQ(result.failure_reason, Failure::node_failure);
  ASSERT_EQ(result.runs.size(), 1u);
  EXPECT_EQ(result.runs[0].host_stop, os::HostStop::node_failure);
  EXPECT_THAT(result.failure_detail, HasSubstr("Slurm job 7 on node n1"));
}

TEST_F(CheckoutRunnerTest, ACheckoutRunsItsCommandsHereUnlessToldOtherwise) {
  const Checkout checkout(fixture_.root());
  EXPECT_EQ(&checkout.runner(), os::local_command_runner().get());
  EXPECT_EQ(&checkout.labelled("t1").runner(), os::local_command_runner().get());
}

}  // namespace
}  // namespace mace::openpiton
