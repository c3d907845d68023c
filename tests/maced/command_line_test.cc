// maced's command line: its options, the defaults systemd's environment gives, and a clear
// refusal (with the usage) of anything else.
#include "maced/command_line.h"

#include <map>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace mace {
namespace {

using ::testing::HasSubstr;

CommandLine parse(const std::vector<std::string>& args, std::map<std::string, std::string> env = {}) {
  return parse_command_line(
      args,
      [env](const char* name) -> const char* {
        auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
      },
      "/usr/share/mace/workloads");
}

TEST(MacedCommandLine, WithoutArgumentsUsesTheInstalledPaths) {
  const CommandLine line = parse({});
  ASSERT_FALSE(line.exit_code);
  EXPECT_EQ(line.options.socket_path, "/run/maced/maced.sock");
  EXPECT_EQ(line.options.state_dir, "/var/lib/maced");
  EXPECT_EQ(line.options.workloads_dir, "/usr/share/mace/workloads");
  EXPECT_EQ(line.options.config_path, "");
}

TEST(MacedCommandLine, SystemdsDirectoriesAreTheDefaultsAndTheFirstOfAListIsTaken) {
  const CommandLine line = parse({}, {{"RUNTIME_DIRECTORY", "/run/maced:/run/other"},
                                      {"STATE_DIRECTORY", "/var/lib/maced2:/var/lib/x"},
                                      {"MACE_WORKLOADS_DIR", "/srv/workloads"}});
  EXPECT_EQ(line.options.socket_path, "/run/maced/maced.sock");
  EXPECT_EQ(line.options.state_dir, "/var/lib/maced2");
  EXPECT_EQ(line.options.workloads_dir, "/srv/workloads");
}

TEST(MacedCommandLine, OptionsWinOverTheEnvironment) {
  const CommandLine line =
      parse({"--socket", "/tmp/s.sock", "--state-dir", "/tmp/state", "--config", "/etc/maced.json",
             "--workloads", "/tmp/w"},
            {{"RUNTIME_DIRECTORY", "/run/maced"}, {"STATE_DIRECTORY", "/var/lib/maced"}});
  ASSERT_FALSE(line.exit_code);
  EXPECT_EQ(line.options.socket_path, "/tmp/s.sock");
  EXPECT_EQ(line.options.state_dir, "/tmp/state");
  EXPECT_EQ(line.options.config_path, "/etc/maced.json");
  EXPECT_EQ(line.options.workloads_dir, "/tmp/w");
}

TEST(MacedCommandLine, AnEmptyWorkloadsVariableIsNoSetting) {
  EXPECT_EQ(parse({}, {{"MACE_WORKLOADS_DIR", ""}}).options.workloads_dir, "/usr/share/mace/workloads");
}

TEST(MacedCommandLine, VersionAndHelpExitAtOnceOnStandardOutput) {
  const CommandLine version = parse({"--version", "--bogus"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out, std::string("maced ") + MACE_VERSION + "\n");
  EXPECT_EQ(version.err, "");
  const CommandLine help = parse({"-h"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("usage: maced"));
  EXPECT_THAT(help.out, HasSubstr("else the installed\n                    /usr/share/mace/workloads)"));
}

TEST(MacedCommandLine, AnUnknownArgumentOrAMissingValueIsRefusedWithTheUsage) {
  const CommandLine unknown = parse({"--sockets", "/tmp/s"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("maced: unknown argument --sockets\nusage: maced"));
  EXPECT_EQ(unknown.out, "");
  const CommandLine missing = parse({"--state-dir", "/tmp/x", "--config"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("maced: --config needs a value\n"));
}

}  // namespace
}  // namespace mace
