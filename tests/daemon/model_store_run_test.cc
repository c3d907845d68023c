// The model store end to end: two maced processes, each with a checkout of its own, share one model
// store. A run on the first builds the model; the same configuration on the second takes
// it from the store, builds nothing, passes, and `mace status` says where the model came
// from.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/fixture_checkout.h"
#include "support/maced_instance.h"

namespace mace::testing {
namespace {

using ::testing::HasSubstr;

const char* kSpec = R"({"core": "pico", "mesh": [1, 1], "workloads": ["add.S"],
  "backend": "direct", "objective": "build the tile and run add"})";

struct Maced {
  Maced(const FixtureCheckout& checkout, const std::string& store) {
    dir.write("maced.json", R"({"checkouts": [{"path": ")" + checkout.root() +
                                R"("}], "model_store": {"path": ")" + store + R"("}})");
    MacedOptions options;
    options.extra_args = {"--config", dir.file("maced.json"), "--workloads",
                          source_root() + "/workloads"};
    instance = std::make_unique<MacedInstance>(dir, options);
  }
  // Submits the spec, waits for the run's end and returns its `mace status` text.
  std::string run(bool json) {
    dir.write("spec.json", kSpec);
    auto submitted = instance->mace({"submit", dir.file("spec.json")});
    EXPECT_EQ(submitted.exit_code, 0) << submitted.err;
    const std::string id = submitted.out.substr(0, submitted.out.find('\n'));
    ProcessOptions wait;
    wait.timeout = std::chrono::seconds(60);
    EXPECT_EQ(instance->mace({"watch", id}, wait).exit_code, 0);
    return instance->mace(json ? std::vector<std::string>{"status", id, "--json"}
                               : std::vector<std::string>{"status", id})
        .out;
  }
  TempDir dir;
  std::unique_ptr<MacedInstance> instance;
};

TEST(ModelStoreRun, ASecondMacedTakesTheModelFromTheSharedStore) {
  TempDir shared;
  FixtureCheckout a, b;
  Maced first(a, shared.file("models"));
  Maced second(b, shared.file("models"));

  const std::string built = first.run(true);
  EXPECT_THAT(built, HasSubstr(R"("state":"passed")"));
  EXPECT_THAT(built, HasSubstr(R"("build_outcome":"succeeded","build_source":"built")"));
  EXPECT_EQ(a.invocations("build"), 1);

  const std::string taken = second.run(true);
  EXPECT_THAT(taken, HasSubstr(R"("state":"passed")"));
  EXPECT_THAT(taken, HasSubstr(R"("build_outcome":"reused","build_source":"store")"));
  EXPECT_THAT(taken, HasSubstr("built in " + a.root() + " on "));
  EXPECT_EQ(b.invocations("build"), 0);
  EXPECT_EQ(b.invocations("run"), 1);

  const std::string text = second.run(false);  // now the model is the checkout's own
  EXPECT_THAT(text, HasSubstr("reused in place"));
  EXPECT_EQ(b.invocations("build"), 0);
}

TEST(ModelStoreRun, StatusSaysTheModelCameFromTheStore) {
  TempDir shared;
  FixtureCheckout a, b;
  Maced first(a, shared.file("models"));
  Maced second(b, shared.file("models"));
  EXPECT_THAT(first.run(false), HasSubstr(" built"));
  const std::string text = second.run(false);
  EXPECT_THAT(text, HasSubstr("model from store"));
  EXPECT_THAT(text, HasSubstr("    model: " + shared.file("models") + "/entries/mace_"));
}

}  // namespace
}  // namespace mace::testing
