#include "llm/pricing.h"

#include <gtest/gtest.h>

#include "setup_error_message.h"

namespace mace::llm {
namespace {

// REQ-BUD-5, REQ-BUD-12
TEST(Pricing, DefaultsPriceTheGeminiModels) {
  auto table = PriceTable::defaults();
  for (const char* model : {"gemini-2.5-flash", "gemini-2.5-pro", "gemini-2.0-flash"}) {
    auto price = table.find(model);
    ASSERT_TRUE(price) << model;
    EXPECT_GT(price->input, 0) << model;
    EXPECT_GT(price->output, price->input) << model;
    EXPECT_GT(price->thinking, 0) << model;
  }
}

TEST(Pricing, CostIsTokensTimesPricePerMillion) {
  PriceTable table;
  table.set("m", {1.0, 10.0, 5.0});
  Usage u;
  u.input_tokens = 2'000'000;
  u.output_tokens = 100'000;
  u.thinking_tokens = 200'000;
  EXPECT_DOUBLE_EQ(table.cost("m", u), 2.0 + 1.0 + 1.0);
}

TEST(Pricing, VersionedNamesUseTheirModelsPriceButLiteIsItsOwn) {
  auto table = PriceTable::defaults();
  EXPECT_EQ(table.find("gemini-2.5-flash-001")->input, table.find("gemini-2.5-flash")->input);
  EXPECT_EQ(table.find("gemini-2.5-pro@20250601")->output, table.find("gemini-2.5-pro")->output);
  EXPECT_LT(table.find("gemini-2.5-flash-lite")->input, table.find("gemini-2.5-flash")->input);
  EXPECT_FALSE(table.find("gemini-2.5-flashy"));
}

TEST(Pricing, UnknownModelCostsNothing) {
  Usage u;
  u.input_tokens = 1000;
  EXPECT_EQ(PriceTable::defaults().cost("mystery-model", u), 0.0);
}

TEST(Pricing, OverridesFromConfigurationJson) {
  auto table = PriceTable::defaults();
  ASSERT_NO_THROW(table.apply_overrides_json(
      R"({"prices": {"gemini-2.5-flash": {"input": 1, "output": 2, "thinking": 3},
                     "gemini-2.5-pro": {"output": 20},
                     "my-model": {"input": 0.5, "output": 4}}})"));
  auto flash = table.find("gemini-2.5-flash");
  EXPECT_EQ(flash->input, 1.0);
  EXPECT_EQ(flash->output, 2.0);
  EXPECT_EQ(flash->thinking, 3.0);
  auto pro = table.find("gemini-2.5-pro");
  EXPECT_EQ(pro->input, 1.25);  // kept
  EXPECT_EQ(pro->output, 20.0);
  auto mine = table.find("my-model");
  ASSERT_TRUE(mine);
  EXPECT_EQ(mine->thinking, 4.0);  // thinking billed as output unless given
  EXPECT_NO_THROW(table.apply_overrides_json(R"({"other": 1})"));
}

TEST(Pricing, BadOverridesNameThePlaceAndChangeNothing) {
  auto table = PriceTable::defaults();
  auto error_of = [&](const char* json) {
    return setup_error_of([&] { table.apply_overrides_json(json); });
  };
  EXPECT_EQ(error_of(R"({"prices": {"gemini-2.0-flash": {"input": 9},
                                    "gemini-2.5-pro": {"input": -1}}})"),
            "prices.gemini-2.5-pro.input: must be a non-negative number");
  EXPECT_EQ(table.find("gemini-2.0-flash")->input, 0.15);
  EXPECT_NE(error_of(R"({"prices": {"m": {"inptu": 1}}})").find("prices.m.inptu: unknown field"),
            std::string::npos);
  EXPECT_THROW(table.apply_overrides_json(R"({"prices": {"m": {"input": "cheap"}}})"), SetupError);
  EXPECT_NE(error_of("{not json").find("not valid JSON"), std::string::npos);
}

}  // namespace
}  // namespace mace::llm
