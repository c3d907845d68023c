// REQ-EVAL-9: what a run ran in is recorded when it starts: MACE's version and commit, its
// backend and model, the host, and each checkout's commit, source fingerprint and
// Verilator; a part that cannot be found says why in its place.

#include "run/run_environment.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include "support/fixture_checkout.h"

namespace mace::run {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(RunEnvironment, NamesMaceTheRunsModelAndEachCheckout) {  // REQ-EVAL-9
  mace::testing::FixtureCheckout fixture;
  store::RunRecord run;
  run.backend = "vertex";
  run.model = "gemini-2.5-pro";
  const std::string json = environment_json(run, {openpiton::Checkout(fixture.root())});

  simdjson::dom::parser parser;
  simdjson::dom::element root;
  ASSERT_EQ(parser.parse(json).get(root), simdjson::SUCCESS) << json;
  EXPECT_EQ(std::string_view(root["mace_version"]), MACE_VERSION);
  EXPECT_FALSE(std::string_view(root["mace_commit"]).empty());
  EXPECT_EQ(std::string_view(root["backend"]), "vertex");
  EXPECT_EQ(std::string_view(root["model"]), "gemini-2.5-pro");
  EXPECT_FALSE(std::string_view(root["host"]).empty());
  simdjson::dom::array checkouts = root["checkouts"];
  ASSERT_EQ(checkouts.size(), 1u);
  simdjson::dom::element checkout = checkouts.at(0);
  EXPECT_EQ(std::string_view(checkout["path"]), fixture.root());
  EXPECT_EQ(std::string_view(checkout["commit"]).size(), 40u) << json;
  EXPECT_EQ(std::string_view(checkout["source_fingerprint"]).size(), 64u) << json;
  EXPECT_THAT(std::string(std::string_view(checkout["verilator"])), HasSubstr("Verilator")) << json;
}

TEST(RunEnvironment, ACheckoutWhoseSourcesCannotBeReadSaysWhyInItsPlace) {
  mace::testing::FixtureCheckout fixture;
  openpiton::Checkout checkout(fixture.root());
  std::filesystem::remove_all(std::filesystem::path(fixture.root()) / ".git");
  const std::string json = environment_json(store::RunRecord{}, {checkout});
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  ASSERT_EQ(parser.parse(json).get(root), simdjson::SUCCESS) << json;
  simdjson::dom::element entry = root["checkouts"].at(0);
  EXPECT_THAT(std::string(std::string_view(entry["commit"])), StartsWith("unknown: ")) << json;
  EXPECT_THAT(std::string(std::string_view(entry["source_fingerprint"])), StartsWith("unknown: "));
}

}  // namespace
}  // namespace mace::run
