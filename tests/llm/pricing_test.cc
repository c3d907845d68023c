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

TEST(Pricing, CostIsTokensTimesPricePerMillion) {  // REQ-BUD-5
  PriceTable table;
  table.set("m", {1.0, 10.0, 5.0, 0.1, 1.25});
  Usage u;
  u.input_tokens = 2'000'000;
  u.output_tokens = 100'000;
  u.thinking_tokens = 200'000;
  u.cache_read_tokens = 3'000'000;
  u.cache_write_tokens = 400'000;
  // Each kind at its own rate: cached input at a tenth, cache writes at 1.25.
  EXPECT_DOUBLE_EQ(*table.price("m", u), 2.0 + 1.0 + 1.0 + 0.3 + 0.5);
}

// REQ-BUD-5: cached input is billed at Vertex's cached-input price, a tenth of the input
// price on the 2.5 models and a quarter on 2.0, never as fresh input.
TEST(Pricing, CachedTokensOfTheDefaultModelsCostTheCachedInputPrice) {
  auto table = PriceTable::defaults();
  auto flash = table.find("gemini-2.5-flash");
  ASSERT_TRUE(flash);
  EXPECT_DOUBLE_EQ(flash->cache_read, 0.03);
  EXPECT_DOUBLE_EQ(table.find("gemini-2.5-pro")->cache_read, 0.125);
  EXPECT_DOUBLE_EQ(table.find("gemini-2.0-flash")->cache_read, 0.0375);
  Usage cached;
  cached.cache_read_tokens = 1'000'000;
  Usage fresh;
  fresh.input_tokens = 1'000'000;
  EXPECT_DOUBLE_EQ(*table.price("gemini-2.5-flash", cached), 0.03);
  EXPECT_DOUBLE_EQ(*table.price("gemini-2.5-flash", fresh), 0.30);
}

TEST(Pricing, UnknownModelHasNoPrice) {  // REQ-BUD-5: unknown, not 0
  Usage u;
  u.input_tokens = 1000;
  EXPECT_FALSE(PriceTable::defaults().price("mystery-model", u));
}

TEST(Pricing, VersionedNamesUseTheirModelsPriceButLiteIsItsOwn) {
  auto table = PriceTable::defaults();
  EXPECT_EQ(table.find("gemini-2.5-flash-001")->input, table.find("gemini-2.5-flash")->input);
  EXPECT_EQ(table.find("gemini-2.5-pro@20250601")->output, table.find("gemini-2.5-pro")->output);
  EXPECT_LT(table.find("gemini-2.5-flash-lite")->input, table.find("gemini-2.5-flash")->input);
  EXPECT_FALSE(table.find("gemini-2.5-flashy"));
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
  // No discount assumed for a new model's cached input unless given.
  EXPECT_EQ(mine->cache_read, 0.5);
  EXPECT_EQ(mine->cache_write, 0.5);
  ASSERT_NO_THROW(table.apply_overrides_json(
      R"({"prices": {"gemini-2.5-flash": {"cache_read": 0.07}}})"));
  EXPECT_EQ(table.find("gemini-2.5-flash")->cache_read, 0.07);
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
