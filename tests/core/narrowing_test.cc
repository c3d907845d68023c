#include "core/narrowing.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace mace {
namespace {

const CacheGeometry kDefaults = {{"l1i", {16384, 4}}, {"l1d", {8192, 4}}, {"l15", {8192, 4}},
                                 {"l2", {65536, 4}}};

CacheGeometry with(std::string name, CacheOverride g) {
  CacheGeometry c = kDefaults;
  c[name] = g;
  return c;
}

// REQ-FAIL-12: each change undone alone, then all together.
TEST(Narrowing, UndoesEachChangeThenAllTogether) {
  CacheGeometry caches = with("l1d", {16384, 8});
  auto variants = narrowing_variants(caches, {"PITON_B", "PITON_A"}, kDefaults);
  ASSERT_EQ(variants.size(), 4u);
  EXPECT_EQ(variants[0].description(), "undo l1d 16384 B 8-way (default 8192 B 4-way)");
  EXPECT_EQ(variants[0].caches, kDefaults);
  EXPECT_EQ(variants[0].defines, (std::vector<std::string>{"PITON_A", "PITON_B"}));
  EXPECT_EQ(variants[1].description(), "undo define PITON_A");
  EXPECT_EQ(variants[1].caches, caches);
  EXPECT_EQ(variants[1].defines, (std::vector<std::string>{"PITON_B"}));
  EXPECT_EQ(variants[2].defines, (std::vector<std::string>{"PITON_A"}));
  EXPECT_EQ(variants[3].undone.size(), 3u);
  EXPECT_EQ(variants[3].caches, kDefaults);
  EXPECT_TRUE(variants[3].defines.empty());
}

TEST(Narrowing, OneChangeHasNoAllTogetherVariantAndNoChangeHasNone) {
  EXPECT_EQ(narrowing_variants(with("l2", {131072, 8}), {}, kDefaults).size(), 1u);
  EXPECT_TRUE(narrowing_variants(kDefaults, {}, kDefaults).empty());
  EXPECT_TRUE(narrowing_variants({}, {}, kDefaults).empty()) << "caches left at default";
}

TEST(Narrowing, DiagnosisNamesTheUndoneChange) {
  auto variants = narrowing_variants(with("l2", {131072, 8}), {"PITON_A"}, kDefaults);
  Diagnosis single = narrowing_diagnosis(variants[0], "ev");
  EXPECT_EQ(single.label, "cache_change_breaks_design");
  EXPECT_EQ(single.source, DiagnosisSource::narrowing);
  EXPECT_THAT(single.fix, ::testing::HasSubstr("l2 131072 B 8-way"));
  EXPECT_EQ(narrowing_diagnosis(variants[1], "").label, "define_breaks_design");
  EXPECT_EQ(narrowing_diagnosis(variants[2], "").label, "combined_changes_break_design");
}

// REQ-PLAN-15: a set of changes narrowing showed breaks the design is refused in any build
// that makes all of them, and only in those.
TEST(Narrowing, BreakingChangesMatchBuildsMakingEveryChangeOfASet) {
  BreakingChanges breaking;
  EXPECT_FALSE(breaking.broken_by(with("l2", {131072, 8}), {}, kDefaults));
  breaking.add(changes_from_default(with("l2", {131072, 8}), {"PITON_A"}, kDefaults));
  EXPECT_TRUE(breaking.broken_by(with("l2", {131072, 8}), {"PITON_A", "PITON_B"}, kDefaults));
  EXPECT_FALSE(breaking.broken_by(with("l2", {131072, 8}), {}, kDefaults));
  EXPECT_FALSE(breaking.broken_by(with("l2", {262144, 8}), {"PITON_A"}, kDefaults))
      << "another geometry is another change";
}

}  // namespace
}  // namespace mace
