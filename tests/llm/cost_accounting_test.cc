// What a call counts toward max_usd, whatever its backend reports (llm/cost_accounting.h).

#include "llm/cost_accounting.h"

#include <gtest/gtest.h>

#include "setup_error_message.h"

namespace mace::llm {
namespace {

Reply answered(Usage usage = {}) {
  Reply r;
  r.ok = true;
  r.usage = usage;
  return r;
}

CostAccounting estimating(double usd) {
  UnreportedCostPolicy policy;
  policy.kind = UnreportedCostPolicy::Kind::estimate;
  policy.usd_per_call = usd;
  return {PriceTable::defaults(), policy};
}

// REQ-BUD-5: the vendor's own cost is what counts, under every policy.
TEST(CostAccounting, AReportedCostIsKept) {
  Usage u;
  u.input_tokens = 1'000'000;
  u.cost_usd = 0.42;
  u.cost_source = CostSource::reported;
  for (const auto& accounting : {CostAccounting{}, estimating(9)}) {
    Reply r = answered(u);
    accounting.settle(r, "gemini-2.5-flash");
    EXPECT_EQ(r.usage.cost_usd, 0.42);
    EXPECT_EQ(r.usage.cost_source, CostSource::reported);
  }
}

// REQ-BUD-5: tokens without a cost are priced from the table, each kind at its rate.
TEST(CostAccounting, TokensWithoutACostArePriced) {
  Usage u;
  u.input_tokens = 1'000'000;
  u.cache_read_tokens = 1'000'000;
  Reply r = answered(u);
  CostAccounting{}.settle(r, "gemini-2.5-flash");
  EXPECT_EQ(r.usage.cost_source, CostSource::priced);
  EXPECT_DOUBLE_EQ(r.usage.cost_usd, 0.30 + 0.03);
  // A CLI on its own default model: the model its vendor named is the one priced.
  Reply named = answered(u);
  named.model = "gemini-2.5-pro";
  CostAccounting{}.settle(named, "");
  EXPECT_DOUBLE_EQ(named.usage.cost_usd, 1.25 + 0.125);
}

// REQ-BUD-5: nothing usable reported (agy; a model nobody prices) is never a silent 0:
// the configured estimate counts, or the cost is marked unknown.
TEST(CostAccounting, NothingReportedCountsTheEstimateOrIsUnknown) {
  Reply agy = answered();
  estimating(0.05).settle(agy, "");
  EXPECT_EQ(agy.usage.cost_source, CostSource::estimated);
  EXPECT_EQ(agy.usage.cost_usd, 0.05);

  Usage tokens;
  tokens.input_tokens = 500;
  Reply unpriced = answered(tokens);
  CostAccounting{}.settle(unpriced, "mystery-model");
  EXPECT_EQ(unpriced.usage.cost_source, CostSource::unknown);
  EXPECT_EQ(unpriced.usage.cost_usd, 0.0);
  Reply estimated = answered(tokens);
  estimating(0.2).settle(estimated, "mystery-model");
  EXPECT_EQ(estimated.usage.cost_source, CostSource::estimated);
  EXPECT_EQ(estimated.usage.cost_usd, 0.2);
}

// REQ-BUD-5, REQ-BUD-14: an attempt the API turned away was not billed, so no estimate.
TEST(CostAccounting, AnAttemptTheApiTurnedAwayCountsNothing) {
  for (ErrorClass c : {ErrorClass::rate_limit, ErrorClass::authentication, ErrorClass::billing,
                       ErrorClass::invalid_request, ErrorClass::server}) {
    Reply r;
    r.error_class = c;
    estimating(0.05).settle(r, "");
    EXPECT_EQ(r.usage.cost_usd, 0.0) << to_string(c);
    EXPECT_EQ(r.usage.cost_source, CostSource::unknown);
  }
  // A call that ran out of time may have spent a great deal.
  Reply timed_out;
  timed_out.error_class = ErrorClass::timeout;
  estimating(0.05).settle(timed_out, "");
  EXPECT_EQ(timed_out.usage.cost_usd, 0.05);
}

// REQ-BUD-5: under `refuse` (the default), submit turns away the runs whose costs cannot
// be counted, saying what to set; under `estimate` they go.
TEST(CostAccounting, RefusePolicyNamesTheRunsWhoseCostCannotBeCounted) {
  CostAccounting refusing;
  auto agy = refusing.unreported_cost_problem("antigravity", "");
  ASSERT_TRUE(agy);
  EXPECT_NE(agy->find("reports neither tokens nor cost"), std::string::npos) << *agy;
  EXPECT_NE(agy->find(R"("unreported_cost": {"policy": "estimate")"), std::string::npos) << *agy;
  auto unpriced = refusing.unreported_cost_problem("vertex", "gemini-9-ultra");
  ASSERT_TRUE(unpriced);
  EXPECT_NE(unpriced->find("no price is known for vertex model 'gemini-9-ultra'"),
            std::string::npos);
  EXPECT_NE(unpriced->find("llm.prices"), std::string::npos);
  EXPECT_FALSE(refusing.unreported_cost_problem("vertex", "gemini-2.5-flash"));
  EXPECT_FALSE(refusing.unreported_cost_problem("claude", ""));
  EXPECT_FALSE(refusing.unreported_cost_problem("opencode", "anthropic/x"));
  EXPECT_FALSE(estimating(0.01).unreported_cost_problem("antigravity", ""));
  EXPECT_FALSE(estimating(0.01).unreported_cost_problem("vertex", "gemini-9-ultra"));
}

TEST(CostAccounting, PolicyFromConfigurationJson) {  // REQ-BUD-5
  auto estimate = UnreportedCostPolicy::from_json(R"({"policy": "estimate", "usd_per_call": 0.05})");
  EXPECT_EQ(estimate.kind, UnreportedCostPolicy::Kind::estimate);
  EXPECT_EQ(estimate.usd_per_call, 0.05);
  EXPECT_EQ(UnreportedCostPolicy::from_json(R"({"policy": "estimate", "usd_per_call": 1})").usd_per_call, 1.0);
  EXPECT_EQ(UnreportedCostPolicy::from_json(R"({"policy": "refuse"})").kind,
            UnreportedCostPolicy::Kind::refuse);
  auto error_of = [](const char* json) {
    return setup_error_of([&] { UnreportedCostPolicy::from_json(json); });
  };
  EXPECT_EQ(error_of(R"({"policy": "estimate"})"),
            "llm.unreported_cost.usd_per_call: required with \"estimate\"");
  EXPECT_EQ(error_of(R"({"policy": "estimate", "usd_per_call": -1})"),
            "llm.unreported_cost.usd_per_call: must be a non-negative number");
  EXPECT_EQ(error_of(R"({"policy": "zero"})"),
            "llm.unreported_cost.policy: must be \"refuse\" or \"estimate\"");
  EXPECT_EQ(error_of(R"({"policy": "refuse", "usd_per_call": 1})"),
            "llm.unreported_cost.usd_per_call: only with \"estimate\"");
  EXPECT_EQ(error_of(R"({"polcy": "refuse"})"),
            "llm.unreported_cost.polcy: unknown field; expected policy and usd_per_call");
}

}  // namespace
}  // namespace mace::llm
