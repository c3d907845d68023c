// Designs side by side (`mace compare`): the items that differ, the change in cycles against
// the first design, and the text, JSON and CSV it is written as.

#include "client/design_comparison.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace mace::client {
namespace {

using ::testing::HasSubstr;

DesignConfiguration pico(int64_t l1d, bool l1d_default) {
  DesignConfiguration c;
  c.core = "pico";
  c.caches = {{"l1i", 16384, 4, true}, {"l1d", l1d, 4, l1d_default}, {"l15", 8192, 4, true},
              {"l2", 65536, 4, true}};
  return c;
}

ComparedDesign design(const std::string& task, int64_t l1d, bool l1d_default,
                      std::vector<ComparedResult> results) {
  ComparedDesign d;
  d.run_id = "r1";
  d.task_id = task;
  d.iteration = 1;
  d.run_state = "passed";
  d.configuration = pico(l1d, l1d_default);
  d.gate_workloads = {"hello", "memstress"};
  d.results = std::move(results);
  return d;
}

Comparison two_l1d_sizes() {
  return compare_designs(
      {design("plain", 8192, true, {{"hello", "pass", 13886, 6943250, 1.5}, {"memstress", "pass", 80000, 40000250, 2}}),
       design("small", 4096, false, {{"hello", "pass", 13886, 6943250, 1.5}, {"memstress", "pass", 90000, 45000250, 2}})});
}

TEST(ChangePercent, OnlyWhenBothAreKnownAndTheBaseIsNotZero) {
  EXPECT_DOUBLE_EQ(*change_percent(80000, 90000), 12.5);
  EXPECT_DOUBLE_EQ(*change_percent(80000, 60000), -25.0);
  EXPECT_FALSE(change_percent(std::nullopt, 5).has_value());
  EXPECT_FALSE(change_percent(5, std::nullopt).has_value());
  EXPECT_FALSE(change_percent(0, 5).has_value());
}

TEST(DesignComparison, TheDifferingItemsAndTheChangeAgainstTheFirst) {
  const Comparison c = two_l1d_sizes();
  ASSERT_EQ(c.differences.size(), 1u);
  EXPECT_EQ(c.differences[0].name, "L1D");
  EXPECT_EQ(c.workloads, (std::vector<std::string>{"hello", "memstress"}));
  const std::string text = comparison_text(c);
  EXPECT_THAT(text, HasSubstr("  A  r1:plain (iteration 1, run passed)\n"));
  EXPECT_THAT(text, HasSubstr("  L1D           A 8 KiB, 4-way (default)        B 4 KiB, 4-way\n"));
  EXPECT_THAT(text, HasSubstr("  memstress  pass 80,000               pass 90,000 (+12.5%)\n"));
  EXPECT_THAT(text, HasSubstr("  hello      pass 13,886               pass 13,886 (+0.0%)\n"));
}

TEST(DesignComparison, AWorkloadWithoutCyclesOrNotSimulatedHasNoChange) {
  const Comparison c = compare_designs(
      {design("plain", 8192, true, {{"hello", "pass", 13886, 6943250, 1}}),
       design("small", 4096, false, {{"hello", "timeout", std::nullopt, std::nullopt, 60}})});
  const std::string text = comparison_text(c);
  EXPECT_THAT(text, HasSubstr("  hello      pass 13,886               timeout\n"));
  EXPECT_THAT(text, HasSubstr("  memstress  -                         -\n"));
  const std::string json = comparison_json(c);
  EXPECT_THAT(json, HasSubstr(R"({"verdict":"timeout","cycles":null,"verdict_time":null,"wall_s":60.0,"change_percent":null,"tiles":[]})"));
  EXPECT_THAT(json, HasSubstr(R"({"workload":"memstress","results":[null,null]})"));
}

TEST(DesignComparison, JsonHasEveryDesignTheDifferencesAndEachChange) {
  const std::string json = comparison_json(two_l1d_sizes());
  EXPECT_THAT(json, HasSubstr(R"("designs":[{"run_id":"r1","task_id":"plain","iteration":1,"run_state":"passed","configuration":[)"));
  EXPECT_THAT(json, HasSubstr(R"("default_configuration":true)"));
  EXPECT_THAT(json, HasSubstr(R"("differences":[{"name":"L1D","values":[{"value":"8 KiB, 4-way","default":true},{"value":"4 KiB, 4-way","default":false}]}])"));
  EXPECT_THAT(json, HasSubstr(R"({"verdict":"pass","cycles":90000,"verdict_time":45000250,"wall_s":2.0,"change_percent":12.5,"tiles":[]})"));
}

TEST(DesignComparison, CsvHasARowPerDesignAndWorkloadWithTheDifferingItems) {
  EXPECT_EQ(comparison_csv(two_l1d_sizes()),
            "run_id,task_id,iteration,workload,verdict,cycles,change_percent,area,L1D\n"
            "r1,plain,1,hello,pass,13886,0.00,,\"8 KiB, 4-way\"\n"
            "r1,plain,1,memstress,pass,80000,0.00,,\"8 KiB, 4-way\"\n"
            "r1,small,1,hello,pass,13886,0.00,,\"4 KiB, 4-way\"\n"
            "r1,small,1,memstress,pass,90000,12.50,,\"4 KiB, 4-way\"\n");
}

}  // namespace
}  // namespace mace::client
