// `evidence` in maced's configuration: where each run keeps its logs and how much; every
// problem named by its path.
#include "maced/config.h"
#include "config_errors.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace mace {
namespace {

using ::testing::ElementsAre;

TEST(EvidenceConfig, DefaultsKeepTheRunsLogsUnderTheStateDirectory) {
  auto parsed = parse_maced_config("{}");
  ASSERT_TRUE(parsed.config);
  EXPECT_EQ(parsed.config->evidence.path, "");
  EXPECT_EQ(parsed.config->evidence.max_mb, 10240);
  EXPECT_EQ(parsed.config->evidence.max_log_mb, 64);
  EXPECT_EQ(parsed.config->evidence.keep_recent_hours, 24);
  EXPECT_EQ(parsed.config->evidence.max_sim_output_mb, 4096);
  EXPECT_FALSE(parsed.config->evidence.keep_run_dirs);
}

// What a simulation may write in its checkout, and whether its directory stays there.
TEST(EvidenceConfig, ReadsTheSimulationOutputLimitAndWhetherRunDirectoriesStay) {
  auto parsed = parse_maced_config(R"({"evidence": {"max_sim_output_mb": 100, "keep_run_dirs": true}})");
  ASSERT_TRUE(parsed.config) << parsed.errors.front().to_string();
  EXPECT_EQ(parsed.config->evidence.max_sim_output_mb, 100);
  EXPECT_TRUE(parsed.config->evidence.keep_run_dirs);
  EXPECT_THAT(errors_of(R"({"evidence": {"max_sim_output_mb": 0, "keep_run_dirs": "yes"}})"),
              ElementsAre("evidence.max_sim_output_mb: must be an integer from 1 to 1073741824 (MiB), got 0",
                          "evidence.keep_run_dirs: must be true or false, got \"yes\""));
}

TEST(EvidenceConfig, ReadsAPathAndItsLimits) {
  auto parsed = parse_maced_config(
      R"({"evidence": {"path": "/srv/mace/runs", "max_mb": 2048, "max_log_mb": 16, "keep_recent_hours": 0}})");
  ASSERT_TRUE(parsed.config) << parsed.errors.front().to_string();
  EXPECT_EQ(parsed.config->evidence.path, "/srv/mace/runs");
  EXPECT_EQ(parsed.config->evidence.max_mb, 2048);
  EXPECT_EQ(parsed.config->evidence.max_log_mb, 16);
  EXPECT_EQ(parsed.config->evidence.keep_recent_hours, 0);
  // A total below the default per-log limit lowers it too.
  EXPECT_EQ(parse_maced_config(R"({"evidence": {"max_mb": 8}})").config->evidence.max_log_mb, 8);
}

TEST(EvidenceConfig, EveryProblemIsNamedByItsPath) {
  EXPECT_THAT(errors_of(R"({"evidence": {"path": "runs"}})"),
              ElementsAre("evidence.path: must be an absolute path, got \"runs\""));
  EXPECT_THAT(errors_of(R"({"evidence": {"max_mb": 0}})"),
              ElementsAre("evidence.max_mb: must be an integer from 1 to 1073741824 (MiB), got 0"));
  EXPECT_THAT(errors_of(R"({"evidence": {"keep_recent_hours": -1}})"),
              ElementsAre("evidence.keep_recent_hours: must be an integer from 0 to 87600 (hours), got -1"));
  EXPECT_THAT(errors_of(R"({"evidence": {"max_mb": 10, "max_log_mb": 20}})"),
              ElementsAre("evidence.max_log_mb: must be at most evidence.max_mb (10), got 20"));
  EXPECT_THAT(errors_of(R"({"evidence": {"keep": 1}})"),
              ElementsAre("evidence.keep: unknown field; expected one of: path, max_mb, max_log_mb, "
                          "keep_recent_hours, max_sim_output_mb, keep_run_dirs, waveform, waveform_cycles, "
                          "max_waveform_mb"));
  EXPECT_THAT(errors_of(R"({"evidence": {"waveform_cycles": 0}})"),
              ElementsAre("evidence.waveform_cycles: must be an integer from 1 to 1000000 (cycles), got 0"));
  EXPECT_THAT(errors_of(R"({"evidence": {"max_waveform_mb": 0}})"),
              ElementsAre("evidence.max_waveform_mb: must be an integer from 1 to 1073741824 (MiB), got 0"));
  EXPECT_THAT(errors_of(R"({"evidence": {"waveform": "no"}})"), ::testing::SizeIs(1));
  EXPECT_THAT(errors_of(R"({"evidence": 5})"),
              ElementsAre("evidence: must be an object with \"path\", \"max_mb\", \"max_log_mb\", "
                          "\"keep_recent_hours\", \"max_sim_output_mb\", \"keep_run_dirs\", \"waveform\", "
                          "\"waveform_cycles\" and \"max_waveform_mb\""));
}

TEST(EvidenceConfig, ASyntaxErrorInTheFileSaysItsLineAndColumn) {
  EXPECT_THAT(errors_of("{\n  \"checkouts\": []\n  \"evidence\": {}\n}"),
              ElementsAre("invalid JSON at line 3, column 3: expected ',' or '}' after a member's value, "
                          "found '\"' (a comma missing before it?)"));
}

}  // namespace
}  // namespace mace
