// REQ-EVAL-8: which of a co-design search's feasible designs are on the Pareto front of
// cache area against cycles.

#include "core/pareto.h"

#include <gtest/gtest.h>

namespace mace {
namespace {

ParetoPoint at(double area, int64_t cycles) { return {"d", "", area, cycles}; }

TEST(ParetoTest, ADesignNoOtherBeatsInAreaWithoutLosingInCyclesIsOnTheFront) {
  // Larger caches, fewer cycles: every one a trade-off, all on the front.
  EXPECT_EQ(pareto_front({at(20, 300), at(40, 200), at(80, 100)}), (std::vector<bool>{true, true, true}));
  // (50, 250) is beaten by (40, 200): larger and slower.
  EXPECT_EQ(pareto_front({at(20, 300), at(50, 250), at(40, 200), at(80, 100)}),
            (std::vector<bool>{true, false, true, true}));
}

TEST(ParetoTest, EqualAreaKeepsTheFasterAndEqualDesignsBothStay) {
  EXPECT_EQ(pareto_front({at(40, 200), at(40, 150)}), (std::vector<bool>{false, true}));
  EXPECT_EQ(pareto_front({at(40, 150), at(40, 150)}), (std::vector<bool>{true, true}));
  // Equal cycles: the smaller design wins.
  EXPECT_EQ(pareto_front({at(60, 150), at(40, 150)}), (std::vector<bool>{false, true}));
}

TEST(ParetoTest, TheFrontAgreesWithDominanceOnEveryPair) {
  std::vector<ParetoPoint> points;
  for (int i = 0; i < 200; ++i) points.push_back(at((i * 37) % 23, (i * 101) % 31));
  const auto front = pareto_front(points);
  for (std::size_t i = 0; i < points.size(); ++i) {
    bool dominated = false;
    for (std::size_t j = 0; j < points.size(); ++j) dominated = dominated || dominates(points[j], points[i]);
    EXPECT_EQ(front[i], !dominated) << i;
  }
  EXPECT_TRUE(pareto_front({}).empty());
}

}  // namespace
}  // namespace mace
