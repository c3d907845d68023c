// The sims command line of a build, and the Verilator version it depends on.

#include "openpiton/sims_command.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "os/process_group.h"
#include "support/child_process.h"

namespace mace::openpiton {
namespace {

using ::testing::Contains;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::Not;

const VerilatorVersion kVerilator5{5, 6, "Verilator 5.006 2023-01-22 rev (Debian 5.006-3)"};
const VerilatorVersion kVerilator4{4, 228, "Verilator 4.228 2022-10-29 rev v4.228"};

BuildConfig config_for(Core core) {
  BuildConfig config;
  config.core = core;
  config.caches.l1i = {16384, 4};
  config.caches.l1d = {8192, 4};
  config.caches.l15 = {8192, 4};
  config.caches.l2 = {65536, 4};
  config.rtl_defines = normalise_defines({});
  return config;
}

std::vector<std::string> cache_flags() {
  return {"-config_l1i_size=16384", "-config_l1i_associativity=4",
          "-config_l1d_size=8192",  "-config_l1d_associativity=4",
          "-config_l15_size=8192",  "-config_l15_associativity=4",
          "-config_l2_size=65536",  "-config_l2_associativity=4"};
}

// REQ-EXEC-5, REQ-EXEC-6
TEST(SimsCommand, Pico2x1WithADefineAndCoverage) {
  BuildConfig config = config_for(Core::pico);
  config.x_tiles = 2;
  config.rtl_defines = normalise_defines({"PITON_FAKE_KNOWN_DEFINE"});
  config.extra_flags = {"-vlt_build_args=--coverage-line"};
  std::vector<std::string> expected = {"sims",       "-sys=manycore",
                                       "-x_tiles=2", "-y_tiles=1",
                                       "-vlt_build", "-build_id=" + build_id(config),
                                       "-pico"};
  for (const auto& flag : cache_flags()) expected.push_back(flag);
  expected.push_back("-config_rtl=MINIMAL_MONITORING");
  expected.push_back("-config_rtl=PITON_FAKE_KNOWN_DEFINE");
  expected.push_back("-vlt_build_args=--no-timing");
  expected.push_back("-vlt_build_args=--coverage-line");
  EXPECT_THAT(sims_build_argv(config, kVerilator5), ElementsAreArray(expected));
}

TEST(SimsCommand, SparcHasNoCoreFlag) {
  const auto argv = sims_build_argv(config_for(Core::sparc), kVerilator5);
  EXPECT_THAT(argv, Not(Contains("-pico")));
  EXPECT_THAT(argv, Not(Contains("-ariane")));
  EXPECT_EQ(argv[6], "-config_l1i_size=16384");
}

TEST(SimsCommand, ArianeAndGenericCoreFlags) {
  EXPECT_EQ(sims_build_argv(config_for(Core::ariane), kVerilator5)[6], "-ariane");
  EXPECT_EQ(sims_build_argv(config_for(Core::generic), kVerilator5)[6], "-pico");
}

TEST(SimsCommand, DefinesAreNormalised) {
  BuildConfig config = config_for(Core::pico);
  config.rtl_defines = {"ZED", "ALPHA", "ZED"};
  const auto argv = sims_build_argv(config, kVerilator5);
  const std::vector<std::string> defines(argv.end() - 4, argv.end() - 1);
  EXPECT_THAT(defines, ElementsAreArray({"-config_rtl=ALPHA", "-config_rtl=MINIMAL_MONITORING",
                                         "-config_rtl=ZED"}));
}

// REQ-TOOL-4: Verilator 5 builds this RTL only with --no-timing.
TEST(SimsCommand, NoTimingOnlyForVerilator5AndLater) {
  const auto v5 = sims_build_argv(config_for(Core::pico), kVerilator5);
  const auto v4 = sims_build_argv(config_for(Core::pico), kVerilator4);
  EXPECT_THAT(v5, Contains("-vlt_build_args=--no-timing"));
  EXPECT_THAT(v4, Not(Contains("-vlt_build_args=--no-timing")));
  EXPECT_EQ(v5.size(), v4.size() + 1);
}

TEST(SimsCommand, NetworkUsesSimsOwnOption) {
  BuildConfig config = config_for(Core::pico);
  EXPECT_THAT(sims_build_argv(config, kVerilator5), Not(Contains(HasSubstr("network"))));
  config.network = "xbar_config";
  EXPECT_THAT(sims_build_argv(config, kVerilator5), Contains("-network_config=xbar_config"));
}

TEST(SimsCommand, InjectionAttemptsAreRejected) {
  const std::vector<std::string> bad_defines = {"",         "lower_case", "FOO BAR", "FOO;rm -rf /",
                                                "-vlt_run", "FOO=1",      "1FOO",    "FOO$(id)",
                                                "FOO\nBAR"};
  for (const auto& define : bad_defines) {
    BuildConfig config = config_for(Core::pico);
    config.rtl_defines = {define};
    EXPECT_THROW(sims_build_argv(config, kVerilator5), std::invalid_argument) << define;
  }
  const std::vector<std::string> bad_flags = {
      "vlt_build_args=--coverage-line",  // not a flag: would be a second diag name
      "",
      "-",
      "--vlt_build_args=x",
      "-vlt_build_args=--coverage-line; rm -rf ~",
      "-vlt_build_args=$(id)",
      "-vlt_build_args=`id`",
      "-vlt_build_args=a b",
      "-vlt_build_args=x|y",
      "-build_id=rel-0.1",  // would redirect the model
      "-model_dir=/tmp",
      "-pre_process_cmd=touch /tmp/x",  // runs a shell command
      "-post_process_cmd=id",
      "-config_rtl=EXTRA",  // defines go through rtl_defines
      "-config_l1d_size=1",
      "-vlt_run",
      "-nobuild",
  };
  for (const auto& flag : bad_flags) {
    BuildConfig config = config_for(Core::pico);
    config.extra_flags = {flag};
    EXPECT_THROW(sims_build_argv(config, kVerilator5), std::invalid_argument) << flag;
  }
  for (const auto& network : {"xbar config", "-vlt_run", "a;b", "a=b"}) {
    BuildConfig config = config_for(Core::pico);
    config.network = network;
    EXPECT_THROW(sims_build_argv(config, kVerilator5), std::invalid_argument) << network;
  }
}

TEST(SimsCommand, ImpossibleMeshesAndCachesAreRejected) {
  BuildConfig config = config_for(Core::pico);
  config.x_tiles = 0;
  EXPECT_THROW(sims_build_argv(config, kVerilator5), std::invalid_argument);
  config = config_for(Core::pico);
  config.caches.l2 = {};
  EXPECT_THROW(sims_build_argv(config, kVerilator5), std::invalid_argument);
}

TEST(SimsCommandVerilator, ParsesVersionLines) {
  auto v = parse_verilator_version("Verilator 5.006 2023-01-22 rev (Debian 5.006-3)\n");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->major, 5);
  EXPECT_EQ(v->minor, 6);
  EXPECT_EQ(v->text, "Verilator 5.006 2023-01-22 rev (Debian 5.006-3)");
  EXPECT_TRUE(v->needs_timing_option());
  v = parse_verilator_version("warning: setlocale\nVerilator 4.228 2022-10-29 rev v4.228\r\n");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->major, 4);
  EXPECT_EQ(v->minor, 228);
  EXPECT_FALSE(v->needs_timing_option());
  EXPECT_FALSE(parse_verilator_version("verilator: command not found"));
  EXPECT_FALSE(parse_verilator_version(""));
}

TEST(SimsCommandVerilator, DetectsAFakeVerilatorOnThePath) {
  mace::testing::TempDir dir;
  dir.write("verilator", "#!/bin/sh\necho 'Verilator 4.210 2021-07-07 rev v4.210'\n");
  ASSERT_EQ(chmod(dir.file("verilator").c_str(), 0755), 0);
  const auto version = detect_verilator_version({{"PATH", dir.path() + ":/usr/bin:/bin"}});
  EXPECT_EQ(version.major, 4);
  EXPECT_EQ(version.minor, 210);
  EXPECT_EQ(version.text, "Verilator 4.210 2021-07-07 rev v4.210");
}

TEST(SimsCommandVerilator, NoVerilatorIsAnError) {
  mace::testing::TempDir dir;
  EXPECT_THROW(detect_verilator_version({{"PATH", dir.path()}}), std::runtime_error);
  dir.write("verilator", "#!/bin/sh\necho nonsense\n");
  ASSERT_EQ(chmod(dir.file("verilator").c_str(), 0755), 0);
  EXPECT_THROW(detect_verilator_version({{"PATH", dir.path()}}), std::runtime_error);
}

}  // namespace
}  // namespace mace::openpiton
