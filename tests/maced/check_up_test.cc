// maced's check-up (maced/check_up.h): each configured checkout judged as at start, the
// refused ones by path with why, and the whole check-up `mace doctor` shows, each finding
// that is not ok with a fix, never a credential.

#include "maced/check_up.h"

#include <stdlib.h>

#include <algorithm>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/child_process.h"
#include "support/fixture_checkout.h"

namespace mace {
namespace {

using mace::testing::FixtureCheckout;
using mace::testing::FixtureState;
using mace::testing::TempDir;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

MacedConfig config_with(const std::vector<std::string>& paths) {
  MacedConfig config;
  for (const auto& path : paths) config.checkouts.push_back({path, "local"});
  return config;
}

std::vector<CheckFinding> of(const std::vector<CheckFinding>& findings, CheckTopic topic,
                             const std::string& subject) {
  std::vector<CheckFinding> out;
  std::copy_if(findings.begin(), findings.end(), std::back_inserter(out),
               [&](const CheckFinding& f) { return f.topic == topic && f.subject == subject; });
  return out;
}

bool has_level(const std::vector<CheckFinding>& findings, CheckLevel level) {
  return std::any_of(findings.begin(), findings.end(), [&](const CheckFinding& f) { return f.level == level; });
}

// REQ-PLAT-2, REQ-PLAT-6: a patched checkout is taken; one that is missing, is not a
// checkout or is not patched for Verilator 5 is refused, each with why and its fix.
TEST(CheckUpTest, CheckoutsThatCannotWorkAreRefusedByPathWithWhyAndAFix) {
  FixtureCheckout patched;
  FixtureCheckout unpatched(FixtureState::as_in_openpiton);
  TempDir not_a_checkout;
  const auto findings = check_checkouts(
      config_with({patched.root(), unpatched.root(), not_a_checkout.path(), "/no/such/checkout"}));

  const auto good = of(findings, CheckTopic::checkout, patched.root());
  EXPECT_TRUE(has_level(good, CheckLevel::ok));
  EXPECT_FALSE(has_level(good, CheckLevel::failure));

  const auto refused = refused_checkouts(findings);
  EXPECT_EQ(refused.size(), 3u);
  EXPECT_EQ(refused.count(patched.root()), 0u);
  EXPECT_THAT(refused.at(unpatched.root()), HasSubstr("not patched for Verilator 5"));
  EXPECT_THAT(refused.at(not_a_checkout.path()), HasSubstr("not an OpenPiton checkout"));
  EXPECT_THAT(refused.at("/no/such/checkout"), HasSubstr("nothing is there"));

  for (const auto& f : findings) {
    if (f.level == CheckLevel::ok) continue;
    EXPECT_THAT(f.fix, Not(IsEmpty())) << f.subject << ": " << f.what;
  }
  const auto unpatched_fix = of(findings, CheckTopic::checkout, unpatched.root());
  ASSERT_TRUE(has_level(unpatched_fix, CheckLevel::failure));
  EXPECT_THAT(unpatched_fix.front().fix, HasSubstr("patch_openpiton.sh " + unpatched.root()));
}

// The whole check-up: maced, every program, the workloads, the disk, each backend. A
// credential's value is never part of it.
TEST(CheckUpTest, TheWholeCheckUpNamesEachPartAndNeverACredential) {
  FixtureCheckout checkout;
  TempDir state;
  MacedOptions options;
  options.state_dir = state.path();
  options.workloads_dir = mace::testing::source_root() + "/workloads";
  ::setenv("MACE_VERTEX_ACCESS_TOKEN", "ya29.secret-token-never-shown", 1);
  ::setenv("GOOGLE_CLOUD_PROJECT", "a-project", 1);
  const auto findings = check_up(config_with({checkout.root()}), options);
  ::unsetenv("MACE_VERTEX_ACCESS_TOKEN");
  ::unsetenv("GOOGLE_CLOUD_PROJECT");

  std::vector<CheckTopic> topics;
  for (const auto& f : findings) {
    topics.push_back(f.topic);
    EXPECT_THAT(f.what + f.fix, Not(HasSubstr("secret-token"))) << f.subject;
  }
  for (CheckTopic topic : {CheckTopic::maced, CheckTopic::tool, CheckTopic::checkout, CheckTopic::workloads,
                           CheckTopic::disk, CheckTopic::llm_backend})
    EXPECT_THAT(topics, Contains(topic)) << to_string(topic);
  EXPECT_THAT(topics, Not(Contains(CheckTopic::slurm_node))) << "no Slurm node without the Slurm executor";

  const auto vertex = of(findings, CheckTopic::llm_backend, "vertex");
  ASSERT_EQ(vertex.size(), 1u);
  EXPECT_EQ(vertex.front().level, CheckLevel::ok) << vertex.front().what;
  EXPECT_THAT(vertex.front().what, HasSubstr("maced's default backend"));
  const auto workloads = of(findings, CheckTopic::workloads, options.workloads_dir);
  ASSERT_EQ(workloads.size(), 1u);
  EXPECT_EQ(workloads.front().level, CheckLevel::ok) << workloads.front().what;
}

TEST(CheckUpTest, NoCheckoutAtAllAndNoWorkloadsAreFailuresWithTheirFixes) {
  TempDir state;
  MacedOptions options;
  options.state_dir = state.path();
  options.workloads_dir = state.file("no-workloads");
  const auto findings = check_up(MacedConfig{}, options);
  const auto none = of(findings, CheckTopic::checkout, "");
  ASSERT_EQ(none.size(), 1u);
  EXPECT_EQ(none.front().level, CheckLevel::failure);
  EXPECT_THAT(none.front().fix, HasSubstr("checkouts"));
  const auto workloads = of(findings, CheckTopic::workloads, options.workloads_dir);
  ASSERT_EQ(workloads.size(), 1u);
  EXPECT_EQ(workloads.front().level, CheckLevel::failure);
  EXPECT_THAT(workloads.front().fix, HasSubstr("--workloads DIR"));
  EXPECT_EQ(worst_level(findings), CheckLevel::failure);
}

}  // namespace
}  // namespace mace
