// A task's build configuration in an architect's words, with OpenPiton's defaults marked.

#include "core/design_configuration.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace mace {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

DesignConfiguration pico_defaults() {
  DesignConfiguration c;
  c.core = "pico";
  c.caches = {{"l1i", 16384, 4, true}, {"l1d", 8192, 4, true}, {"l15", 8192, 4, true},
              {"l2", 65536, 4, true}};
  return c;
}

TEST(DesignConfiguration, EveryItemInOrderWithTheDefaultsMarked) {
  DesignConfiguration c = pico_defaults();
  c.mesh_x = 2;
  c.caches[1] = {"l1d", 4096, 2, false};
  c.rtl_defines = {"MINIMAL_MONITORING", "PITON_ASIC"};
  c.edited_files = {"piton/design/chip/tile/l15/rtl/l15.v"};
  c.network = "xbar_config";
  EXPECT_THAT(configuration_items(c),
              ElementsAre(ConfigurationItem{"core", "pico", false}, ConfigurationItem{"mesh", "2x1", false},
                          ConfigurationItem{"L1I", "16 KiB, 4-way", true},
                          ConfigurationItem{"L1D", "4 KiB, 2-way", false},
                          ConfigurationItem{"L1.5", "8 KiB, 4-way", true},
                          ConfigurationItem{"L2", "64 KiB, 4-way", true},
                          ConfigurationItem{"network", "crossbar", false},
                          // the define every build carries is no change
                          ConfigurationItem{"RTL defines", "PITON_ASIC", false},
                          ConfigurationItem{"edited files", "piton/design/chip/tile/l15/rtl/l15.v", false}));
  EXPECT_FALSE(is_default_configuration(c));
  EXPECT_EQ(configuration_text(c),
            "pico 2x1; L1I 16 KiB, 4-way (default); L1D 4 KiB, 2-way; L1.5 8 KiB, 4-way (default); "
            "L2 64 KiB, 4-way (default); network crossbar; RTL defines PITON_ASIC; edited files "
            "piton/design/chip/tile/l15/rtl/l15.v");
}

TEST(DesignConfiguration, TheDefaultConfigurationIsTheRunsCoreAndMeshWithOpenPitonsDefaults) {
  DesignConfiguration c = pico_defaults();
  EXPECT_TRUE(is_default_configuration(c));
  c.rtl_defines = {"MINIMAL_MONITORING"};
  c.network = "2dmesh_config";  // sims' own default, named
  EXPECT_TRUE(is_default_configuration(c));
  EXPECT_EQ(configuration_text(c),
            "pico 1x1; L1I 16 KiB, 4-way (default); L1D 8 KiB, 4-way (default); L1.5 8 KiB, 4-way "
            "(default); L2 64 KiB, 4-way (default); network 2D mesh (default); RTL defines none "
            "(default); edited files none (default)");
  c.edited_files = {"x.v"};
  EXPECT_FALSE(is_default_configuration(c));
}

TEST(DesignConfiguration, SizesAsPeopleWriteThem) {
  EXPECT_EQ(size_text(8192), "8 KiB");
  EXPECT_EQ(size_text(1 << 20), "1 MiB");
  EXPECT_EQ(size_text(1536), "1536 B");
  EXPECT_EQ(size_text(0), "0 B");
}

TEST(DesignConfiguration, DifferencesAreTheItemsThatDiffer) {
  DesignConfiguration a = pico_defaults(), b = pico_defaults();
  b.caches[1] = {"l1d", 4096, 4, false};
  const auto diffs = configuration_differences({a, b, a});
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].name, "L1D");
  EXPECT_THAT(diffs[0].values, ElementsAre(ConfigurationItem{"L1D", "8 KiB, 4-way", true},
                                           ConfigurationItem{"L1D", "4 KiB, 4-way", false},
                                           ConfigurationItem{"L1D", "8 KiB, 4-way", true}));
  EXPECT_THAT(configuration_differences({a, a}), IsEmpty());
  DesignConfiguration sparc = a;
  sparc.core = "sparc";
  EXPECT_EQ(configuration_differences({a, sparc}).at(0).name, "core");
}

}  // namespace
}  // namespace mace
