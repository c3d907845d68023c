// The build configuration, its ID, the checkout's cache defaults and environment.

#include "openpiton/build_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <set>

#include "openpiton/cache_defaults.h"
#include "openpiton/checkout.h"
#include "openpiton/sims_command.h"
#include "os/sha256.h"
#include "support/child_process.h"

namespace mace::openpiton {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

CacheSet openpiton_defaults() {
  CacheSet caches;
  caches.l1i = {16384, 4};
  caches.l1d = {8192, 4};
  caches.l15 = {8192, 4};
  caches.l2 = {65536, 4};
  return caches;
}

BuildConfig pico_2x1() {
  BuildConfig config;
  config.core = Core::pico;
  config.x_tiles = 2;
  config.y_tiles = 1;
  config.caches = openpiton_defaults();
  config.rtl_defines = normalise_defines({"PITON_FAKE_KNOWN_DEFINE"});
  return config;
}

TEST(BuildConfigNames, CoresAndCachesRoundTrip) {
  for (Core core : {Core::ariane, Core::sparc, Core::pico, Core::generic}) {
    EXPECT_EQ(core_from_string(to_string(core)), core);
  }
  EXPECT_EQ(to_string(Core::sparc), "sparc");
  EXPECT_EQ(core_from_string("Ariane"), std::nullopt);
  EXPECT_EQ(core_from_string("opensparc"), std::nullopt);
  EXPECT_EQ(to_string(Cache::l15), "l15");
  CacheSet caches = openpiton_defaults();
  caches[Cache::l2].associativity = 8;
  EXPECT_EQ(caches.l2.associativity, 8);
  EXPECT_EQ(std::as_const(caches)[Cache::l1i].size_bytes, 16384);
}

TEST(BuildConfigDefines, SortedUniqueWithDefault) {
  EXPECT_THAT(normalise_defines({}), ElementsAre("MINIMAL_MONITORING"));
  EXPECT_THAT(normalise_defines({"ZED", "ALPHA", "ZED", "MINIMAL_MONITORING"}),
              ElementsAre("ALPHA", "MINIMAL_MONITORING", "ZED"));
}

// REQ-EXEC-5, REQ-VER-12
TEST(BuildConfigId, IsPinnedSoAHashingChangeIsCaught) {
  // Changing this value invalidates every model on every machine: only on purpose.
  EXPECT_EQ(build_id(pico_2x1()), "mace_23c47eade300bf58");
}

// A model with OpenPiton's monitors is another model, built without MINIMAL_MONITORING;
// every other model keeps the ID it had before monitors existed (the pinned one above).
TEST(BuildConfigId, MonitorsMakeAnotherModelWithoutMinimalMonitoring) {
  BuildConfig config = pico_2x1();
  config.rtl_defines = {"FOO", "MINIMAL_MONITORING"};
  EXPECT_THAT(build_defines(config), ElementsAre("FOO", "MINIMAL_MONITORING"));
  const std::string without = build_id(config);
  config.monitors = true;
  EXPECT_THAT(build_defines(config), ElementsAre("FOO"));
  EXPECT_NE(build_id(config), without);
  EXPECT_THAT(canonical_text(config), HasSubstr("monitors=1\n"));
  EXPECT_THAT(sims_build_argv(config, {5, 6, "Verilator 5.006"}), Not(Contains("-config_rtl=MINIMAL_MONITORING")));
  EXPECT_THAT(sims_build_argv(config, {5, 6, "Verilator 5.006"}), Contains("-config_rtl=FOO"));
}

TEST(BuildConfigId, IsTheHashOfTheCanonicalText) {
  const BuildConfig config = pico_2x1();
  EXPECT_EQ(build_id(config), "mace_" + os::sha256_hex(canonical_text(config)).substr(0, 16));
  EXPECT_THAT(build_id(config), StartsWith("mace_"));
  EXPECT_EQ(build_id(config).size(), 5u + 16u);
  EXPECT_EQ(build_id(config), build_id(pico_2x1()));
}

TEST(BuildConfigId, CanonicalTextNamesEveryField) {
  BuildConfig config = pico_2x1();
  config.network = "xbar_config";
  config.rtl_edits_hash = "abc123";
  config.extra_flags = {"-vlt_build_args=--coverage-line"};
  EXPECT_EQ(canonical_text(config),
            "mace-build-config 1\n"
            "core=pico\n"
            "x_tiles=2\n"
            "y_tiles=1\n"
            "l1i=16384/4\n"
            "l1d=8192/4\n"
            "l15=8192/4\n"
            "l2=65536/4\n"
            "network=xbar_config\n"
            "defines=2\n"
            "define=MINIMAL_MONITORING\n"
            "define=PITON_FAKE_KNOWN_DEFINE\n"
            "rtl_edits=abc123\n"
            "flags=1\n"
            "flag=-vlt_build_args=--coverage-line\n");
}

TEST(BuildConfigId, DefinesAreNormalisedBeforeHashing) {
  BuildConfig unsorted = pico_2x1();
  unsorted.rtl_defines = {"PITON_FAKE_KNOWN_DEFINE", "PITON_FAKE_KNOWN_DEFINE"};
  EXPECT_EQ(build_id(unsorted), build_id(pico_2x1()));
}

// REQ-EXEC-5, REQ-VER-12: every field the build depends on changes the ID.
TEST(BuildConfigId, DiffersForEveryField) {
  const std::vector<std::pair<std::string, std::function<void(BuildConfig&)>>> changes = {
      {"core", [](BuildConfig& c) { c.core = Core::sparc; }},
      {"core generic", [](BuildConfig& c) { c.core = Core::generic; }},
      {"x_tiles", [](BuildConfig& c) { c.x_tiles = 3; }},
      {"y_tiles", [](BuildConfig& c) { c.y_tiles = 2; }},
      {"mesh transposed", [](BuildConfig& c) { std::swap(c.x_tiles, c.y_tiles); }},
      {"l1i size", [](BuildConfig& c) { c.caches.l1i.size_bytes = 8192; }},
      {"l1i ways", [](BuildConfig& c) { c.caches.l1i.associativity = 2; }},
      {"l1d size", [](BuildConfig& c) { c.caches.l1d.size_bytes = 4096; }},
      {"l1d ways", [](BuildConfig& c) { c.caches.l1d.associativity = 2; }},
      {"l15 size", [](BuildConfig& c) { c.caches.l15.size_bytes = 16384; }},
      {"l15 ways", [](BuildConfig& c) { c.caches.l15.associativity = 8; }},
      {"l2 size", [](BuildConfig& c) { c.caches.l2.size_bytes = 131072; }},
      {"l2 ways", [](BuildConfig& c) { c.caches.l2.associativity = 8; }},
      {"network", [](BuildConfig& c) { c.network = "xbar_config"; }},
      {"define added",
       [](BuildConfig& c) {
         c.rtl_defines = normalise_defines({"A", "PITON_FAKE_KNOWN_DEFINE"});
       }},
      {"define removed", [](BuildConfig& c) { c.rtl_defines = normalise_defines({}); }},
      {"rtl edits", [](BuildConfig& c) { c.rtl_edits_hash = "0123abcd"; }},
      {"coverage flag",
       [](BuildConfig& c) { c.extra_flags = {"-vlt_build_args=--coverage-line"}; }},
  };
  std::set<std::string> ids = {build_id(pico_2x1())};
  for (const auto& [name, change] : changes) {
    BuildConfig config = pico_2x1();
    change(config);
    EXPECT_TRUE(ids.insert(build_id(config)).second) << name << " did not change the ID";
  }
}

TEST(BuildConfigId, FlagOrderMatters) {
  BuildConfig ab = pico_2x1(), ba = pico_2x1();
  ab.extra_flags = {"-vlt_build_args=-a", "-vlt_build_args=-b"};
  ba.extra_flags = {"-vlt_build_args=-b", "-vlt_build_args=-a"};
  EXPECT_NE(build_id(ab), build_id(ba));
}

TEST(BuildConfigId, ANewlineCannotPoseAsAnotherField) {
  BuildConfig sneaky = pico_2x1();
  sneaky.network = "x\nrtl_edits=abc";
  BuildConfig honest = pico_2x1();
  honest.network = "x";
  honest.rtl_edits_hash = "abc";
  EXPECT_NE(canonical_text(sneaky), canonical_text(honest));
  EXPECT_NE(build_id(sneaky), build_id(honest));
}

// REQ-EXEC-13
TEST(BuildConfigWayRule, ArianeL1dWithMoreWaysThanL15) {
  BuildConfig config = pico_2x1();
  config.core = Core::ariane;
  EXPECT_EQ(way_rule_violation(config), std::nullopt);
  config.caches.l1d.associativity = 8;
  EXPECT_EQ(way_rule_violation(config), Cache::l1d);
  EXPECT_EQ(way_rule_message(config, Cache::l1d), "l1d has 8 ways, more than the L1.5's 4");
}

// REQ-EXEC-13
TEST(BuildConfigWayRule, ArianeL1iWithMoreWaysThanL15) {
  BuildConfig config = pico_2x1();
  config.core = Core::ariane;
  config.caches.l1i.associativity = 8;
  EXPECT_EQ(way_rule_violation(config), Cache::l1i);
  EXPECT_EQ(way_rule_message(config, Cache::l1i), "l1i has 8 ways, more than the L1.5's 4");
  config.caches.l1d.associativity = 16;
  EXPECT_EQ(way_rule_violation(config), Cache::l1d) << "l1d is checked first";
  config.caches.l15.associativity = 16;
  EXPECT_EQ(way_rule_violation(config), std::nullopt) << "equal ways are allowed";
}

// REQ-EXEC-13: the rule is Ariane's alone.
TEST(BuildConfigWayRule, OtherCoresAreExempt) {
  for (Core core : {Core::sparc, Core::pico, Core::generic}) {
    BuildConfig config = pico_2x1();
    config.core = core;
    config.caches.l1d.associativity = 8;
    config.caches.l1i.associativity = 8;
    EXPECT_EQ(way_rule_violation(config), std::nullopt) << to_string(core);
  }
}

// A checkout skeleton: just what Checkout and read_cache_defaults look at.
class BuildConfigCheckout : public ::testing::Test {
 protected:
  void SetUp() override {
    write("piton/piton_settings.bash", "export DV_ROOT=$PITON_ROOT/piton\n");
    write("piton/tools/bin/sims", "#!/bin/sh\n");
  }
  void write(const std::string& relative, const std::string& text) {
    const auto path = std::filesystem::path(dir_.path()) / relative;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  Checkout checkout() const { return Checkout(dir_.path()); }

  mace::testing::TempDir dir_;
};

TEST_F(BuildConfigCheckout, RejectsADirectoryThatIsNotACheckout) {
  mace::testing::TempDir empty;
  try {
    Checkout{empty.path()};
    FAIL() << "accepted an empty directory";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("piton/piton_settings.bash"));
  }
  std::filesystem::remove(std::filesystem::path(dir_.path()) / "piton/tools/bin/sims");
  EXPECT_THROW(checkout(), std::invalid_argument);
}

TEST_F(BuildConfigCheckout, PathsOfAModel) {
  const Checkout c(dir_.path() + "/");
  EXPECT_EQ(c.root(), std::filesystem::path(dir_.path()));
  EXPECT_EQ(c.model_dir("mace_x"), std::filesystem::path(dir_.path()) / "build/manycore/mace_x");
  EXPECT_EQ(c.model_binary("mace_x"),
            std::filesystem::path(dir_.path()) / "build/manycore/mace_x/obj_dir/Vcmp_top");
}

// Reproduces piton_settings.bash; nothing of the daemon's environment but the basics.
TEST_F(BuildConfigCheckout, EnvironmentReproducesPitonSettings) {
  const std::string r = checkout().root().string();
  const auto env = checkout().environment({{"PATH", "/usr/bin:/bin"},
                                           {"HOME", "/home/u"},
                                           {"USER", "u"},
                                           {"LANG", "C.UTF-8"},
                                           {"CONFIG_L1D_SIZE", "1"},
                                           {"LD_LIBRARY_PATH", "/evil"},
                                           {"MODEL_DIR", "/elsewhere"}});
  EXPECT_EQ(env.at("PITON_ROOT"), r);
  EXPECT_EQ(env.at("DV_ROOT"), r + "/piton");
  EXPECT_EQ(env.at("MODEL_DIR"), r + "/build");
  EXPECT_EQ(env.at("CC_BIN"), "/usr/bin");
  EXPECT_EQ(env.at("TRE_ENTRY"), "/");
  EXPECT_EQ(env.at("TRE_LOG"), "nobody");
  EXPECT_EQ(env.at("TRE_SEARCH"), r + "/piton/tools/env/tools.iver");
  EXPECT_EQ(env.at("ENVDIR"), r + "/piton/tools/env");
  EXPECT_EQ(env.at("PERL_MODULE_BASE"), r + "/piton/tools/perlmod");
  EXPECT_EQ(env.at("PERL_CMD"), "/usr/bin/perl");
  EXPECT_EQ(env.at("PATH"), r + "/piton/tools/bin:/usr/bin:/usr/bin:/bin");
  EXPECT_THAT(env.at("M4PATH"), StartsWith(r + "/piton/tools/Linux/"));
  EXPECT_EQ(env.at("LD_LIBRARY_PATH"), r + "/piton/tools/src/goldfinger/lib");
  EXPECT_EQ(env.at("HOME"), "/home/u");
  EXPECT_EQ(env.at("USER"), "u");
  EXPECT_EQ(env.at("LANG"), "C.UTF-8");
  EXPECT_EQ(env.count("CONFIG_L1D_SIZE"), 0u);
  EXPECT_EQ(env.count("TMPDIR"), 0u);
}

TEST_F(BuildConfigCheckout, EnvironmentWithoutAnInheritedPath) {
  const auto env = checkout().environment({});
  EXPECT_EQ(env.at("PATH"),
            checkout().root().string() + "/piton/tools/bin:/usr/bin:/usr/local/bin:/usr/bin:/bin");
}

// The real file's structure (lines 37-41, 116-126): core blocks, then the defaults.
constexpr const char* kManycoreConfig = R"(// header
<manycore>
    -model=manycore
#ifdef FLIST_PICO
    -flist=$DV_ROOT/design/chip/tile/pico/rtl/Flist.pico
    -config_rtl=PITON_PICO
#endif
#ifdef FLIST_ARIANE
    -config_rtl=PITON_ARIANE
#endif
    -config_l1i_size=16384       // default
    -config_l1i_associativity=4     // default

    -config_l1d_size=8192           // default
    -config_l1d_associativity=4     // default

    -config_l15_size=8192           // default
    -config_l15_associativity=4     // default

    -config_l2_size=65536           // default
    -config_l2_associativity=4      // default
</manycore>
)";

TEST_F(BuildConfigCheckout, DefaultsFromManycoreConfig) {
  write("piton/tools/src/sims/manycore.config", kManycoreConfig);
  for (Core core : {Core::ariane, Core::sparc, Core::pico, Core::generic}) {
    const auto defaults = read_cache_defaults(checkout(), core);
    ASSERT_TRUE(defaults.caches) << defaults.error;
    EXPECT_EQ(*defaults.caches, openpiton_defaults()) << to_string(core);
  }
}

TEST_F(BuildConfigCheckout, DefaultsHonourTheCoresOwnBlock) {
  write("piton/tools/src/sims/manycore.config", R"(<manycore>
    -config_l1d_size=8192
    -config_l1d_associativity=4
#ifdef FLIST_ARIANE
    -config_l1d_associativity=8
#else
    -config_l1d_size=4096
#endif
#ifdef FLIST_ORAM
    -config_l2_size=1
#endif
    -config_l1i_size=16384
    -config_l1i_associativity=4
    -config_l15_size=8192
    -config_l15_associativity=4
    -config_l2_size=65536
    -config_l2_associativity=4
</manycore>
<other>
    -config_l2_size=2
</other>
)");
  const auto ariane = read_cache_defaults(checkout(), Core::ariane);
  ASSERT_TRUE(ariane.caches) << ariane.error;
  EXPECT_EQ(ariane.caches->l1d, (CacheGeometry{8192, 8}));
  EXPECT_EQ(ariane.caches->l2, (CacheGeometry{65536, 4}));
  const auto pico = read_cache_defaults(checkout(), Core::pico);
  ASSERT_TRUE(pico.caches) << pico.error;
  EXPECT_EQ(pico.caches->l1d, (CacheGeometry{4096, 4}));
}

TEST_F(BuildConfigCheckout, DefaultsFallBackToPyhplib) {
  write("piton/tools/src/sims/manycore.config",
        "<manycore>\n    -config_l1i_size=32768\n</manycore>\n");
  write("piton/tools/bin/pyhplib.py",
        "CONFIG_L15_SIZE = int(os.environ.get('CONFIG_L15_SIZE', '8192'))\n"
        "CONFIG_L15_ASSOCIATIVITY = int(os.environ.get('CONFIG_L15_ASSOCIATIVITY', '4'))\n"
        "CONFIG_L1D_SIZE = int(os.environ.get('CONFIG_L1D_SIZE', '8192'))\n"
        "CONFIG_L1D_ASSOCIATIVITY = int(os.environ.get('CONFIG_L1D_ASSOCIATIVITY', '4'))\n"
        "CONFIG_L1I_SIZE = int(os.environ.get('CONFIG_L1I_SIZE', '16384'))\n"
        "CONFIG_L1I_ASSOCIATIVITY = int(os.environ.get('CONFIG_L1I_ASSOCIATIVITY', '4'))\n"
        "CONFIG_L2_SIZE = int(os.environ.get('CONFIG_L2_SIZE', '65536'))\n"
        "# CONFIG_L2_SIZE = 65536*2 # test, make L2 128KB\n"
        "CONFIG_L2_ASSOCIATIVITY = int(os.environ.get('CONFIG_L2_ASSOCIATIVITY', '4'))\n");
  const auto defaults = read_cache_defaults(checkout(), Core::sparc);
  ASSERT_TRUE(defaults.caches) << defaults.error;
  CacheSet expected = openpiton_defaults();
  expected.l1i.size_bytes = 32768;
  EXPECT_EQ(*defaults.caches, expected);
}

TEST_F(BuildConfigCheckout, MissingDefaultIsNamed) {
  write("piton/tools/src/sims/manycore.config",
        "<manycore>\n    -config_l1i_size=32768\n</manycore>\n");
  const auto defaults = read_cache_defaults(checkout(), Core::pico);
  EXPECT_FALSE(defaults.caches);
  EXPECT_THAT(defaults.error, HasSubstr("-config_l1i_associativity"));
  EXPECT_THAT(defaults.error, HasSubstr("manycore.config"));
  EXPECT_THAT(defaults.error, HasSubstr("pyhplib.py"));
}

TEST(BuildConfigDefaults, OverridesReplaceOnlyTheirCache) {
  CacheOverrides overrides;
  overrides.l1d = CacheGeometry{4096, 2};
  const CacheSet caches = with_defaults(openpiton_defaults(), overrides);
  EXPECT_EQ(caches.l1d, (CacheGeometry{4096, 2}));
  EXPECT_EQ(caches.l1i, openpiton_defaults().l1i);
  EXPECT_EQ(caches.l15, openpiton_defaults().l15);
  EXPECT_EQ(caches.l2, openpiton_defaults().l2);
}

}  // namespace
}  // namespace mace::openpiton
