// Two steps of a build on their own: what the end of sims says of the build (each way a
// build ends, in the order they are told apart), and the reuse marker it leaves.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "openpiton/build_classification.h"
#include "openpiton/build_marker.h"
#include "openpiton/builder.h"
#include "support/child_process.h"

namespace mace::openpiton {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;

os::ProcessResult exited(int code, int signal = 0) {
  os::ProcessResult run;
  run.exit_code = code;
  run.term_signal = signal;
  return run;
}

class BuildClassificationTest : public ::testing::Test {
 protected:
  BuildClassificationTest() : binary_(fs::path(dir_.path()) / "Vcmp_top") {}
  BuildClassification classify(const os::ProcessResult& run) {
    return classify_build(run, std::chrono::milliseconds(90'000), binary_);
  }
  void make_binary() { dir_.write("Vcmp_top", "model"); }

  testing::TempDir dir_;
  fs::path binary_;
};

TEST_F(BuildClassificationTest, ASimsThatExitedZeroWithItsModelPassed) {
  make_binary();
  const BuildClassification passed = classify(exited(0));
  EXPECT_EQ(passed.failure_reason, Failure::none);
  EXPECT_EQ(passed.message, "");
}

TEST_F(BuildClassificationTest, ASimsThatExitedZeroWithoutAModelDidNot) {
  const BuildClassification missing = classify(exited(0));
  EXPECT_EQ(missing.failure_reason, Failure::no_model_binary);
  EXPECT_EQ(missing.message, "sims exited 0 but left no " + binary_.string());
}

TEST_F(BuildClassificationTest, AFailedSimsSaysItsStatusOrSignal) {
  make_binary();  // an old model must not pass for this build's
  EXPECT_EQ(classify(exited(2)).message, "sims exited with status 2");
  EXPECT_EQ(classify(exited(2)).failure_reason, Failure::build_failed);
  EXPECT_EQ(classify(exited(-1, 9)).message,
            "sims was killed by signal 9");
}

TEST_F(BuildClassificationTest, TimeCancelHostAndLaunchAreToldApartInThatOrderFromTheLast) {
  os::ProcessResult run = exited(-1);
  run.timed_out = true;
  EXPECT_EQ(classify(run).failure_reason, Failure::timeout);
  EXPECT_EQ(classify(run).message, "the build did not finish within 90.0 s");
  run.cancelled = true;
  run.wall_seconds = 12.34;
  EXPECT_EQ(classify(run).failure_reason, Failure::cancelled) << "a cancel is not a timeout";
  EXPECT_EQ(classify(run).message, "the build was cancelled after 12.3 s");
  run.host_stop = os::HostStop::node_failure;
  run.host_stop_detail = "node n2 went down";
  EXPECT_EQ(classify(run).failure_reason, Failure::node_failure) << "the machine, not the design";
  EXPECT_EQ(classify(run).message, "node n2 went down");
  run.launch_failed = true;
  run.error = "cannot execute sims";
  EXPECT_EQ(classify(run).failure_reason, Failure::launch_failed);
  EXPECT_EQ(classify(run).message, "cannot execute sims");
}

TEST(BuildMarker, RecordsTheFingerprintItWasBuiltFromAndNothingElseReadsAsOne) {
  testing::TempDir dir;
  const fs::path marker = fs::path(dir.path()) / ".mace_build_ok";
  EXPECT_FALSE(marker_digest(marker)) << "no marker: nothing to reuse";
  SourceFingerprint fingerprint;
  fingerprint.digest = std::string(64, 'a');
  fingerprint.head = "41a14a05";
  fingerprint.verilator_version = "Verilator 5.006";
  BuildConfig config;
  ASSERT_EQ(write_marker(marker, config, fingerprint), "");
  EXPECT_EQ(marker_digest(marker), fingerprint.digest);
  std::ifstream in(marker);
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_THAT(text, StartsWith(fingerprint.digest + "\n# The source fingerprint"));
  EXPECT_THAT(text, HasSubstr("head=41a14a05"));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1)
      << "no temporary file left beside it";
  dir.write(".mace_build_ok", "");
  EXPECT_FALSE(marker_digest(marker)) << "an empty marker is none";
}

TEST(BuildMarker, AMarkerThatCannotBeWrittenSaysSoAndLeavesNothing) {
  testing::TempDir dir;
  const fs::path marker = fs::path(dir.path()) / "missing-dir" / ".mace_build_ok";
  EXPECT_THAT(write_marker(marker, BuildConfig{}, SourceFingerprint{}), StartsWith("cannot write "));
  EXPECT_FALSE(fs::exists(marker.parent_path()));
}

}  // namespace
}  // namespace mace::openpiton
