// `executor` in maced's configuration: local by default; Slurm with its settings, every
// problem named by its path (docs/slurm.md).
#include "maced/config.h"
#include "config_errors.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace mace {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const char* kCluster = R"({
  "checkouts": [{"path": "/scratch/a", "node": "n1"}, {"path": "/scratch/b", "node": "n2"}],
  "executor": {"kind": "slurm", "slurm": {
    "partition": "piton", "account": "arch", "qos": "normal", "gres": "openpiton:1",
    "build": {"cpus": 4, "memory_mb": 12000, "time_limit_min": 240},
    "simulate": {"cpus": 1, "memory_mb": 2000},
    "cores": {"sparc": {"build": {"cpus": 8, "memory_mb": 24000}}},
    "srun_options": ["--exclusive", "--constraint=avx2"],
    "pending_limit_s": 300, "cleanup_limit_s": 60,
    "bin_dir": "/opt/slurm/bin", "environment": {"SLURM_CONF": "/etc/slurm/slurm.conf"}}}})";

TEST(ExecutorConfig, LocalUnlessToldOtherwise) {
  auto parsed = parse_maced_config("{}");
  ASSERT_TRUE(parsed.config);
  EXPECT_EQ(parsed.config->executor.kind, ExecutorConfig::Kind::local);
}

TEST(ExecutorConfig, DispatchIsTheQueueAndThreeRetriesUnlessToldOtherwise) {  // REQ-EXEC-2
  auto defaults = parse_maced_config("{}");
  ASSERT_TRUE(defaults.config);
  EXPECT_EQ(defaults.config->executor.dispatch, Dispatch::queue);
  EXPECT_EQ(defaults.config->executor.infrastructure_retries, 3);
  auto set = parse_maced_config(
      R"({"executor": {"kind": "local", "dispatch": "batches", "infrastructure_retries": 0}})");
  ASSERT_TRUE(set.config) << set.errors.front().to_string();
  EXPECT_EQ(set.config->executor.dispatch, Dispatch::batches);
  EXPECT_EQ(set.config->executor.infrastructure_retries, 0);
  EXPECT_THAT(errors_of(R"({"executor": {"dispatch": "fifo", "infrastructure_retries": 21}})"),
              ElementsAre(R"(executor.dispatch: must be "queue" or "batches", got "fifo")",
                          "executor.infrastructure_retries: must be an integer from 0 to 20, got 21"));
  EXPECT_THAT(errors_of(R"({"executor": {"infrastructure_retries": "3"}})"),
              ElementsAre(R"(executor.infrastructure_retries: must be an integer from 0 to 20, got "3")"));
}

TEST(ExecutorConfig, ReadsEverySlurmSetting) {  // REQ-EXEC-4
  auto parsed = parse_maced_config(kCluster);
  ASSERT_TRUE(parsed.config) << parsed.errors.front().to_string();
  const auto& executor = parsed.config->executor;
  EXPECT_EQ(executor.kind, ExecutorConfig::Kind::slurm);
  const auto& s = executor.slurm;
  EXPECT_EQ(s.partition, "piton");
  EXPECT_EQ(s.account, "arch");
  EXPECT_EQ(s.qos, "normal");
  EXPECT_EQ(s.gres, "openpiton:1");
  EXPECT_EQ(s.build.cpus, 4);
  EXPECT_EQ(s.build.memory_mb, 12000);
  EXPECT_EQ(s.build.time_limit_min, 240);
  EXPECT_EQ(s.simulate.cpus, 1);
  EXPECT_EQ(s.simulate.memory_mb, 2000);
  EXPECT_EQ(s.simulate.time_limit_min, 0);
  // A core's resources start from the step's and change only what it gives.
  const auto& sparc = slurm::resources_for(s, slurm::StepKind::build, "sparc");
  EXPECT_EQ(sparc.cpus, 8);
  EXPECT_EQ(sparc.memory_mb, 24000);
  EXPECT_EQ(sparc.time_limit_min, 240);
  EXPECT_EQ(slurm::resources_for(s, slurm::StepKind::build, "pico").cpus, 4);
  EXPECT_THAT(s.srun_options, ElementsAre("--exclusive", "--constraint=avx2"));
  EXPECT_EQ(s.pending_limit, std::chrono::seconds(300));
  EXPECT_EQ(s.cleanup_limit, std::chrono::seconds(60));
  EXPECT_EQ(s.bin_dir, "/opt/slurm/bin");
  EXPECT_EQ(s.environment.at("SLURM_CONF"), "/etc/slurm/slurm.conf");
}

TEST(ExecutorConfig, EveryCheckoutMustNameItsSlurmNode) {
  EXPECT_THAT(errors_of(R"({"checkouts": [{"path": "/a"}, {"path": "/b", "node": "n 2"}],
                            "executor": {"kind": "slurm"}})"),
              ElementsAre(HasSubstr("checkouts[0].node: is \"local\""),
                          HasSubstr("checkouts[1].node: must be a Slurm node name")));
}

TEST(ExecutorConfig, BadSettingsAreNamedByTheirPath) {
  EXPECT_THAT(errors_of(R"({"executor": {"kind": "pbs"}})"),
              ElementsAre("executor.kind: must be \"local\" or \"slurm\", got \"pbs\""));
  EXPECT_THAT(errors_of(R"({"executor": {"kind": "local", "slurm": {}}})"),
              ElementsAre("executor.slurm: is only read with \"kind\": \"slurm\""));
  EXPECT_THAT(errors_of(R"({"executor": {"kind": "slurm", "slurm": {"partition": "a;b"}}})"),
              ElementsAre(HasSubstr("executor.slurm.partition: must be a Slurm name")));
  EXPECT_THAT(errors_of(R"({"executor": {"kind": "slurm", "slurm": {"gres": "openpiton"}}})"),
              ElementsAre(HasSubstr("executor.slurm.gres: must be name[:type]:count")));
  EXPECT_THAT(errors_of(R"({"executor": {"kind": "slurm", "slurm": {"build": {"cpus": 0}}}})"),
              ElementsAre(HasSubstr("executor.slurm.build.cpus: must be an integer from 1")));
  EXPECT_THAT(errors_of(R"({"executor": {"kind": "slurm", "slurm": {"cores": {"z80": {}}}}})"),
              ElementsAre(HasSubstr("executor.slurm.cores.z80: unknown field")));
  EXPECT_THAT(errors_of(R"({"executor": {"kind": "slurm", "slurm": {"bin_dir": "bin"}}})"),
              ElementsAre(HasSubstr("executor.slurm.bin_dir: must be an absolute path")));
  EXPECT_THAT(errors_of(R"({"executor": {"kind": "slurm", "slurm": {"environment": {"a b": "x"}}}})"),
              ElementsAre(HasSubstr("executor.slurm.environment.a b: must be an upper-case")));
  EXPECT_THAT(errors_of(R"({"executor": {"kind": "slurm", "slurm": {"pending": 1}}})"),
              ElementsAre(HasSubstr("executor.slurm.pending: unknown field")));
}

TEST(ExecutorConfig, SrunOptionsAreWholeLongOptionsMaceDoesNotOwn) {
  EXPECT_THAT(errors_of(R"J({"executor": {"kind": "slurm", "slurm": {"srun_options":
                  ["-w", "--x=$(id)", "--nodelist=n9", "--job-name=x", "--export=ALL", "--ok"]}}})J"),
              ElementsAre(HasSubstr("srun_options[0]: must be one whole long option"),
                          HasSubstr("srun_options[1]: must be one whole long option"),
                          HasSubstr("srun_options[2]: --nodelist is set by MACE itself"),
                          HasSubstr("srun_options[3]: --job-name is set by MACE itself"),
                          HasSubstr("srun_options[4]: --export is set by MACE itself")));
  auto parsed = parse_maced_config(R"({"executor": {"kind": "slurm", "slurm": {"srun_options": []}}})");
  ASSERT_TRUE(parsed.config);
  EXPECT_THAT(parsed.config->executor.slurm.srun_options, IsEmpty());
}

}  // namespace
}  // namespace mace
