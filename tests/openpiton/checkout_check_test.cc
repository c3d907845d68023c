// Whether a directory can be one of maced's checkouts (openpiton/checkout_check.h), on the
// fixture checkout: what `mace doctor` reports and maced refuses a checkout for at start.

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "openpiton/checkout_check.h"
#include "support/child_process.h"
#include "support/fixture_checkout.h"

namespace mace::openpiton {
namespace {

namespace fs = std::filesystem;
using mace::testing::FixtureCheckout;
using mace::testing::FixtureState;
using mace::testing::TempDir;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Optional;

std::vector<CheckoutProblem> problems_of(const std::vector<CheckoutFinding>& findings) {
  std::vector<CheckoutProblem> out;
  for (const auto& f : findings) out.push_back(f.problem);
  return out;
}

const CheckoutFinding* find(const std::vector<CheckoutFinding>& findings, CheckoutProblem problem) {
  auto it = std::find_if(findings.begin(), findings.end(),
                         [&](const CheckoutFinding& f) { return f.problem == problem; });
  return it == findings.end() ? nullptr : &*it;
}

// REQ-PLAT-6: what the fixture holds once patched for Verilator 5 passes; the steps only
// some runs need are named one by one.
TEST(CheckoutCheckTest, ATestbenchPatchedForVerilator5IsAllAFixtureCheckoutNeedsToBeTaken) {
  FixtureCheckout checkout;
  const auto findings = check_checkout(checkout.root(), 5);
  EXPECT_EQ(problems_of(findings), (std::vector{CheckoutProblem::tile_unpatched,
                                                CheckoutProblem::coverage_unpatched}));
}

TEST(CheckoutCheckTest, EveryStepOfThePatchScriptAppliedLeavesNothingToSay) {
  FixtureCheckout checkout;
  auto r = mace::testing::run_process({mace::testing::source_root() + "/scripts/patch_openpiton.sh", checkout.root()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(check_checkout(checkout.root(), 5), IsEmpty());
}

// REQ-PLAT-6: with Verilator 5 every diag of an unpatched testbench ends at max cycles; an
// older Verilator needs no fix.
TEST(CheckoutCheckTest, AnUnpatchedTestbenchIsAProblemWithVerilator5Only) {
  FixtureCheckout checkout(FixtureState::as_in_openpiton);
  const auto with5 = check_checkout(checkout.root(), 5);
  ASSERT_NE(find(with5, CheckoutProblem::testbench_unpatched), nullptr);
  EXPECT_THAT(find(with5, CheckoutProblem::testbench_unpatched)->detail, HasSubstr("ciop_iob.v.pyv"));
  const auto with4 = check_checkout(checkout.root(), 4);
  EXPECT_EQ(find(with4, CheckoutProblem::testbench_unpatched), nullptr);
  const auto unknown = check_checkout(checkout.root(), std::nullopt);
  EXPECT_NE(find(unknown, CheckoutProblem::testbench_unpatched), nullptr)
      << "an unknown Verilator is taken to be the current one";
}

TEST(CheckoutCheckTest, ATestbenchNeitherKnownNorPatchedIsNamedAsUnknown) {
  FixtureCheckout checkout;
  checkout.write("piton/verif/env/manycore/ciop_iob.v.pyv", "module ciop_fake_iob; endmodule\n");
  const auto findings = check_checkout(checkout.root(), 5);
  EXPECT_NE(find(findings, CheckoutProblem::testbench_unknown), nullptr);
}

TEST(CheckoutCheckTest, APathThatIsNotACheckoutIsNamedAndNothingElseIsLookedAt) {
  TempDir dir;
  const auto empty = check_checkout(dir.path(), 5);
  ASSERT_EQ(problems_of(empty), std::vector{CheckoutProblem::not_openpiton});
  EXPECT_THAT(empty[0].detail, HasSubstr("piton/piton_settings.bash"));

  EXPECT_EQ(problems_of(check_checkout(dir.file("nothing"), 5)), std::vector{CheckoutProblem::missing});
  dir.write("file", "x");
  EXPECT_EQ(problems_of(check_checkout(dir.file("file"), 5)), std::vector{CheckoutProblem::not_a_directory});
}

// OpenPiton's bw_cpp deletes every "-B" from its arguments: under such a directory sims
// dies with "could not find manycore in sims.config".
TEST(CheckoutCheckTest, ACheckoutUnderADirectoryNamedWithDashBCannotBeUsed) {
  FixtureCheckout checkout;
  TempDir dir;
  fs::create_directories(dir.file("build-B2"));
  const std::string under = dir.file("build-B2/openpiton");
  fs::create_directory_symlink(checkout.root(), under);
  const auto findings = check_checkout(under, 5);
  const auto* problem = find(findings, CheckoutProblem::unusable_path);
  ASSERT_NE(problem, nullptr);
  EXPECT_THAT(problem->detail, HasSubstr("\"-B\""));
  EXPECT_THAT(problem->detail, HasSubstr("could not find manycore in sims.config"));
}

TEST(CheckoutCheckTest, APathThatResolvesUnderADashBDirectoryIsNamedWithWhereItResolves) {
  TempDir dir;
  fs::create_directories(dir.file("x-By"));
  FixtureCheckout checkout;
  fs::rename(checkout.root(), dir.file("x-By/piton"));
  fs::create_directory_symlink(dir.file("x-By/piton"), checkout.root());  // so it is removed
  // Kept while the pointer into it is read.
  const auto findings = check_checkout(checkout.root(), 5);
  const auto* problem = find(findings, CheckoutProblem::unusable_path);
  ASSERT_NE(problem, nullptr);
  EXPECT_THAT(problem->detail, HasSubstr("resolves to " + dir.file("x-By/piton")));
}

TEST(CheckoutCheckTest, OnlyLettersDigitsAndAFewMarksAreTakenInAPath) {
  EXPECT_EQ(unusable_path_reason("/srv/openpiton/a_1.2-x@y"), std::nullopt);
  EXPECT_THAT(unusable_path_reason("/srv/my checkout"), Optional(HasSubstr("a space")));
  EXPECT_THAT(unusable_path_reason("/srv/a$b"), Optional(HasSubstr("\"$\"")));
  EXPECT_THAT(unusable_path_reason("/srv/caf\xc3\xa9"), Optional(HasSubstr("byte 0xc3")));
  EXPECT_THAT(unusable_path_reason("/srv/a\nb"), Optional(HasSubstr("byte 0x0a")));
  EXPECT_THAT(unusable_path_reason("/home/x/sim-Build"), Optional(HasSubstr("-B")));
}

// What maced's user may do is what counts: checked as another user, in a child process.
TEST(CheckoutCheckTest, ACheckoutMacedsUserCannotWriteOrReachIsNamed) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root, to look at the checkout as another user";
  FixtureCheckout checkout;
  const auto as_nobody = [&](mode_t mode) {
    ::chmod(checkout.root().c_str(), mode);
    const pid_t child = ::fork();
    if (child == 0) {
      if (::setresgid(65534, 65534, 65534) != 0 || ::setresuid(65534, 65534, 65534) != 0) ::_exit(100);
      const auto found = check_checkout(checkout.root(), 5);
      ::_exit(found.empty() ? 0 : 1 + static_cast<int>(found.front().problem));
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  // Readable and searchable, not writable: the first problem is that.
  EXPECT_EQ(as_nobody(0755), 1 + static_cast<int>(CheckoutProblem::not_writable));
  EXPECT_EQ(as_nobody(0700), 1 + static_cast<int>(CheckoutProblem::inaccessible));
  ::chmod(checkout.root().c_str(), 0700);
}

}  // namespace
}  // namespace mace::openpiton
