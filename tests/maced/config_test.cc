// maced's configuration file: every field optional, unknown ones refused, errors named.

#include "maced/config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

namespace mace {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::vector<std::string> errors_of(const std::string& json) {
  std::vector<std::string> out;
  for (const auto& e : parse_maced_config(json).errors) out.push_back(e.to_string());
  return out;
}

TEST(MacedConfig, EmptyObjectGivesTheDefaults) {  // REQ-PLAT-7
  auto parsed = parse_maced_config("{}");
  ASSERT_TRUE(parsed.config);
  EXPECT_EQ(parsed.config->llm_backend, "vertex");
  EXPECT_THAT(parsed.config->checkouts, IsEmpty());
}

TEST(MacedConfig, ReadsCheckoutsPerNodeAndTheLlmDefaults) {
  auto parsed = parse_maced_config(R"({
    "checkouts": [{"path": "/srv/a"}, {"path": "/srv/b", "node": "n2"}],
    "llm": {"backend": "claude", "model": "sonnet",
            "prices": {"gemini-2.5-flash": {"input": 0.5, "output": 3}}}})");
  ASSERT_TRUE(parsed.config) << parsed.errors.front().to_string();
  ASSERT_EQ(parsed.config->checkouts.size(), 2u);
  EXPECT_EQ(parsed.config->checkouts[0].node, "local");
  EXPECT_EQ(parsed.config->checkouts[1].node, "n2");
  EXPECT_EQ(parsed.config->llm_backend, "claude");
  EXPECT_EQ(parsed.config->llm_model, "sonnet");
  EXPECT_EQ(parsed.config->llm_prices_json, R"({"gemini-2.5-flash":{"input":0.5,"output":3}})");
}

TEST(MacedConfig, EveryProblemIsNamedByItsPath) {
  EXPECT_THAT(errors_of(R"({"checkout": []})"),
              ElementsAre("checkout: unknown field; expected one of: checkouts, llm"));
  EXPECT_THAT(errors_of(R"({"checkouts": [{"path": "/a"}, {"path": "/a"}]})"),
              ElementsAre("checkouts[1].path: lists \"/a\" a second time"));
  EXPECT_THAT(errors_of(R"({"checkouts": [{"node": "x"}]})"),
              ElementsAre("checkouts[0].path: is required"));
  EXPECT_THAT(errors_of(R"({"llm": {"prices": {"m": {"input": -1}}}})").size(), 1u);
  EXPECT_EQ(errors_of(R"({"llm": {"prices": {"m": {"input": -1}}}})")[0].rfind("llm.prices.m", 0), 0u);
  EXPECT_THAT(errors_of("[1]"), ElementsAre("must be a JSON object"));
  EXPECT_EQ(errors_of("{").size(), 1u);
}

TEST(MacedConfig, EnvironmentOverridesTheLlmChoice) {  // REQ-PLAT-7, REQ-PLAT-8
  MacedConfig config;
  std::map<std::string, std::string> env = {{"MACE_LLM", "opencode"}, {"MACE_LLM_MODEL", "m"}};
  auto lookup = [&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  EXPECT_THAT(apply_environment(config, lookup), IsEmpty());
  EXPECT_EQ(config.llm_backend, "opencode");
  EXPECT_EQ(config.llm_model, "m");
  env["MACE_LLM"] = "gpt";
  auto errors = apply_environment(config, lookup);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].path, "MACE_LLM");
}

}  // namespace
}  // namespace mace
