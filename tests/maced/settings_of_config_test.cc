// What maced's configuration makes of its parts' settings: paths default under the state
// directory, Slurm never compiles through a cache only maced's machine sees, and a submit
// is checked against what maced has.
#include "maced/settings_of_config.h"

#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/child_process.h"

namespace mace {
namespace {

using ::testing::HasSubstr;

MacedConfig config_of(const std::string& json) {
  auto parsed = parse_maced_config(json);
  if (!parsed.config) throw std::runtime_error(parsed.errors.front().to_string());
  return *parsed.config;
}

MacedOptions options_in(const std::string& state_dir, const std::string& workloads_dir = "/nowhere") {
  MacedOptions options;
  options.state_dir = state_dir;
  options.workloads_dir = workloads_dir;
  return options;
}

TEST(SettingsOfConfig, CachesAndEvidenceLiveUnderTheStateDirectoryUnlessConfigured) {
  llm::ToolSessions sessions;
  const MacedOptions options = options_in("/var/lib/maced");
  const run::RunSettings runs = run_settings(config_of("{}"), options, "/run/maced.sock", sessions);
  EXPECT_EQ(runs.compiler_cache_dir, "/var/lib/maced/ccache");
  ASSERT_TRUE(runs.model_store);
  EXPECT_EQ(runs.model_store->settings().directory, "/var/lib/maced/models");
  EXPECT_EQ(evidence_archive(config_of("{}"), options)->settings().root, "/var/lib/maced/runs");

  const MacedConfig configured = config_of(
      R"({"compiler_cache": {"path": "/srv/cc", "max_mb": 100}, "model_store": {"enabled": false},
          "evidence": {"path": "/srv/runs", "max_mb": 20, "max_log_mb": 2, "keep_recent_hours": 1}})");
  const run::RunSettings custom = run_settings(configured, options, "/run/maced.sock", sessions);
  EXPECT_EQ(custom.compiler_cache_dir, "/srv/cc");
  EXPECT_EQ(custom.compiler_cache_max_mb, 100);
  EXPECT_FALSE(custom.model_store);
  const auto evidence = evidence_archive(configured, options);
  EXPECT_EQ(evidence->settings().root, "/srv/runs");
  EXPECT_EQ(evidence->settings().keep.max_log_bytes, 2u << 20);
  EXPECT_EQ(evidence->settings().retention.max_total_bytes, 20u << 20);
  EXPECT_EQ(evidence->settings().retention.protect_recent_ms, 3600 * 1000);
}

TEST(SettingsOfConfig, ARelativeStateDirectoryGivesAnAbsoluteEvidenceRoot) {
  const auto root = evidence_archive(config_of("{}"), options_in("state"))->settings().root;
  EXPECT_TRUE(root.is_absolute()) << root;
  EXPECT_EQ(root, std::filesystem::absolute("state/runs"));
}

// Under Slurm the builds run on other nodes: a cache in maced's state directory is not
// theirs to see.
TEST(SettingsOfConfig, OnSlurmOnlyAConfiguredCompilerCacheIsUsed) {
  llm::ToolSessions sessions;
  const std::string slurm = R"("executor": {"kind": "slurm", "slurm": {"partition": "p"}})";
  const auto without = run_settings(config_of("{" + slurm + "}"), options_in("/var/lib/maced"), "s", sessions);
  EXPECT_EQ(without.compiler_cache_dir, "");
  const auto with = run_settings(config_of(R"({"compiler_cache": {"path": "/shared/cc"}, )" + slurm + "}"),
                                 options_in("/var/lib/maced"), "s", sessions);
  EXPECT_EQ(with.compiler_cache_dir, "/shared/cc");
}

TEST(SettingsOfConfig, TheCliAgentsReachThisMacedAndItsToolSessions) {
  llm::ToolSessions sessions;
  const auto runs = run_settings(config_of("{}"), options_in("/s", "/w"), "/run/m.sock", sessions);
  EXPECT_EQ(runs.backend_options.cli.maced_socket, "/run/m.sock");
  EXPECT_EQ(runs.backend_options.cli.sessions, &sessions);
  EXPECT_EQ(runs.workloads_dir, "/w");
  EXPECT_FALSE(runs.backend_options.cli.mace_binary.empty());
}

TEST(SettingsOfConfig, ASlurmInstanceIsTheSameForOneStateDirectoryAndDiffersForAnother) {
  EXPECT_EQ(slurm_instance_of("/var/lib/maced"), slurm_instance_of("/var/lib/../lib/maced"));
  EXPECT_NE(slurm_instance_of("/var/lib/maced"), slurm_instance_of("/var/lib/maced2"));
  EXPECT_EQ(slurm_instance_of("/var/lib/maced").size(), 12u);
}

// REQ-EXEC-7: a spec may name only the tools maced declares; a misspelt gate workload is
// refused at submit, naming where it was looked for.
TEST(SettingsOfConfig, ASubmitIsCheckedAgainstMacedsToolsAndWorkloads) {
  testing::TempDir workloads;
  workloads.write("hello.c", "int main() { return 0; }\n");
  const MacedConfig config = config_of(R"({"llm": {"backend": "direct"}, "tools": [{"name": "logs",
      "description": "d", "methods": [{"name": "grep", "description": "d",
      "parameters": {"type": "object", "properties": {}}, "command": ["/bin/true"]}]}]})");
  const service::ServiceSettings settings = service_settings(config, options_in("/s", workloads.path()));
  EXPECT_EQ(settings.backend, "direct");
  EXPECT_EQ(settings.tool_names, std::vector<std::string>{"logs"});
  ASSERT_TRUE(settings.check_workloads);
  RunSpec spec;
  spec.workloads = {"hello", "helo"};
  const FieldErrors errors = settings.check_workloads(spec);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].path, "workloads[1]");
  EXPECT_THAT(errors[0].message, HasSubstr(workloads.path()));
  ASSERT_TRUE(settings.check_backend);
  EXPECT_THAT(settings.check_backend("no-such-backend", "").value_or(""), HasSubstr("no-such-backend"));
}

}  // namespace
}  // namespace mace
