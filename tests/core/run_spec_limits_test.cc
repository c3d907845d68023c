// spec-hardening finding 2: every string and list of a spec has a limit
// (run_spec_limits.h), and so has every number. At the limit a spec is accepted; one past
// it, it is refused with the field path and the limit, the same way from JSON and from the
// typed (structured) form.

#include "core/run_spec_limits.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/run_spec.h"
#include "run_spec_test_support.h"

namespace mace {
namespace {

using spec_test::errors_for;
using spec_test::parsed;
using spec_test::spec_json;
using spec_test::valid_spec;
using testing::ElementsAre;
using testing::IsEmpty;

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

std::string json_list(size_t n, const std::string& (*element)(size_t)) {
  std::string out = "[";
  for (size_t i = 0; i < n; ++i) out += (i ? "," : "") + quoted(element(i));
  return out + "]";
}

// Distinct names, so only the limit is wrong with a list of them.
const std::string& name_number(size_t i) {
  static std::vector<std::string> names;
  while (names.size() <= i) names.push_back("w" + std::to_string(names.size()));
  return names[i];
}

const std::string& fast_boot(size_t) {
  static const std::string option = "-fast_boot";
  return option;
}

const std::string& tool_number(size_t i) {
  static std::vector<std::string> names;
  while (names.size() <= i) names.push_back("t" + std::to_string(names.size()));
  return names[i];
}

// The JSON form and the typed form refuse `typed` alike, with exactly `expected`.
void expect_refused_in_both_forms(const RunSpec& typed, const FieldError& expected) {
  EXPECT_THAT(validate_run_spec(typed), ElementsAre(expected));
  EXPECT_THAT(errors_for(run_spec_to_json(typed)), ElementsAre(expected));
}

TEST(RunSpecLimits, StringsAtTheirLimitAreAcceptedAndOnePastAreRefused) {
  // spec-hardening finding 2
  struct Case {
    std::string path;
    size_t limit;
    void (*set)(RunSpec&, std::string);
  };
  const std::vector<Case> cases = {
      {"objective", kMaxObjectiveBytes, [](RunSpec& s, std::string v) { s.objective = v; }},
      {"model", kMaxModelBytes, [](RunSpec& s, std::string v) { s.model = v; }},
      {"workloads[0]", kMaxWorkloadNameBytes, [](RunSpec& s, std::string v) { s.workloads = {v}; }},
      {"tools[0]", kMaxToolNameBytes, [](RunSpec& s, std::string v) { s.tools = {v}; }},
      {"replay.from", kMaxRunIdBytes, [](RunSpec& s, std::string v) { s.replay.from = v; }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.path);
    RunSpec at = valid_spec();
    c.set(at, std::string(c.limit, 'a'));
    EXPECT_THAT(validate_run_spec(at), IsEmpty());
    EXPECT_EQ(parsed(run_spec_to_json(at)).objective, at.objective);
    RunSpec over = valid_spec();
    c.set(over, std::string(c.limit + 1, 'a'));
    expect_refused_in_both_forms(
        over, {c.path, "must be at most " + std::to_string(c.limit) + " bytes, got " +
                           std::to_string(c.limit + 1)});
  }
}

TEST(RunSpecLimits, TheObjectiveIs16KiB) {
  // spec-hardening finding 2
  EXPECT_EQ(kMaxObjectiveBytes, 16u * 1024);
  RunSpec spec = valid_spec();
  spec.objective = std::string(16 * 1024 + 1, 'x');
  EXPECT_THAT(validate_run_spec(spec),
              ElementsAre(FieldError{"objective", "must be at most 16384 bytes, got 16385"}));
}

TEST(RunSpecLimits, BackendLengthIsCheckedBeforeItsName) {
  // spec-hardening finding 2
  RunSpec spec = valid_spec();
  spec.backend = std::string(kMaxBackendBytes + 1, 'v');
  expect_refused_in_both_forms(spec, {"backend", "must be at most 32 bytes, got 33"});
}

TEST(RunSpecLimits, ListsPastTheirLimitAreOneErrorEach) {
  // spec-hardening finding 2
  RunSpec at = valid_spec();
  at.workloads.clear();
  for (size_t i = 0; i < kMaxWorkloads; ++i) at.workloads.push_back(name_number(i));
  at.workload_args["w0"].options.assign(kMaxOptionsPerWorkload, "-fast_boot");
  for (size_t i = 0; i < kMaxTools; ++i) at.tools.push_back(tool_number(i));
  EXPECT_THAT(validate_run_spec(at), IsEmpty());
  EXPECT_EQ(parsed(run_spec_to_json(at)).workloads.size(), kMaxWorkloads);

  RunSpec over = valid_spec();
  over.workloads.clear();
  for (size_t i = 0; i <= kMaxWorkloads; ++i) over.workloads.push_back(name_number(i));
  expect_refused_in_both_forms(over, {"workloads", "must hold at most 256 names, got 257"});

  over = valid_spec();
  over.workload_args["hello"].options.assign(kMaxOptionsPerWorkload + 1, "-fast_boot");
  expect_refused_in_both_forms(
      over, {"workload_args.hello.options", "must hold at most 64 options, got 65"});

  over = valid_spec();
  for (size_t i = 0; i <= kMaxTools; ++i) over.tools.push_back(tool_number(i));
  expect_refused_in_both_forms(over, {"tools", "must hold at most 64 tool names, got 65"});

  over = valid_spec();
  over.replay.bypass = {"build", "run", "prompt", "build"};
  over.replay.from = "R";
  expect_refused_in_both_forms(over, {"replay.bypass", "must hold at most 3 functions, got 4"});
}

TEST(RunSpecLimits, ListsPastTheirLimitInJsonAreNotReadElementByElement) {
  // spec-hardening finding 2
  // A JSON list past its limit is refused before its elements are read, however wrong each
  // of them is: one message, not one per element.
  std::string workloads = "[1";
  for (size_t i = 1; i <= kMaxWorkloads; ++i) workloads += ",1";
  workloads += "]";
  EXPECT_THAT(errors_for(R"({"objective":"o","workloads":)" + workloads + "}"),
              ElementsAre(FieldError{"workloads", "must hold at most 256 names, got 257"}));
  std::string programs;
  for (size_t i = 0; i <= kMaxWorkloadArgs; ++i)
    programs += (i ? "," : "") + quoted(name_number(i)) + ":{}";
  EXPECT_THAT(errors_for(spec_json(R"("workload_args":{)" + programs + "}")),
              ElementsAre(FieldError{"workload_args", "must hold at most 256 programs, got 257"}));
  EXPECT_THAT(errors_for(spec_json(R"("tools":)" + json_list(kMaxTools + 1, tool_number))),
              ElementsAre(FieldError{"tools", "must hold at most 64 tool names, got 65"}));
  EXPECT_THAT(
      errors_for(spec_json(R"("workload_args":{"hello":{"options":)" +
                           json_list(kMaxOptionsPerWorkload + 1, fast_boot) + "}}")),
      ElementsAre(
          FieldError{"workload_args.hello.options", "must hold at most 64 options, got 65"}));
}

TEST(RunSpecLimits, OptionsHaveALengthLimit) {
  // spec-hardening finding 2
  RunSpec spec = valid_spec();
  std::string option = "-midas_args=-D" + std::string(kMaxOptionBytes, 'A');
  spec.workload_args["hello"].options = {option};
  expect_refused_in_both_forms(
      spec, {"workload_args.hello.options[0]",
             "must be at most 256 bytes, got " + std::to_string(option.size())});
}

TEST(RunSpecLimits, FinishMaskHasOneDigitPerTileOfTheLargestMesh) {
  // spec-hardening finding 2
  RunSpec spec = valid_spec();
  spec.workload_args["hello"].finish_mask = std::string(kMaxFinishMaskDigits, '1');
  EXPECT_THAT(validate_run_spec(spec), IsEmpty());
  spec.workload_args["hello"].finish_mask += "1";
  EXPECT_THAT(validate_run_spec(spec),
              ElementsAre(FieldError{"workload_args.hello.finish_mask",
                                     "must be at most 65536 hex digits (one per tile of a 256x256 "
                                     "mesh), got 65537"}));
}

TEST(RunSpecLimits, CoreDescriptorIs64KiB) {
  // spec-hardening finding 2
  RunSpec spec = valid_spec();
  spec.core = Core::generic;
  spec.options.rtl_edits = true;
  // A valid descriptor of exactly the limit, minified as the JSON form keeps it: long file
  // names fill it.
  auto descriptor_of = [](std::size_t bytes) {
    const std::string head = R"({"name":"c","isa":"RV32I","top_module":"c","files":[)";
    const std::string tail = R"(],"reset_vector":"0x0","memory_interface":{"protocol":"obi"}})";
    std::string files;
    for (int i = 0;; ++i) {
      const std::string name = "piton/design/" + std::to_string(i) + "_";
      const std::size_t used = head.size() + files.size() + tail.size() + (files.empty() ? 0 : 1);
      const std::size_t room = bytes - used - 2;  // the quotes
      const std::size_t take = std::min<std::size_t>(room, 500);
      files += (files.empty() ? "\"" : ",\"") + name + std::string(take - name.size() - 2, 'x') + ".v\"";
      if (take == room) break;
    }
    return head + files + tail;
  };
  std::string at = descriptor_of(kMaxCoreDescriptorBytes);
  ASSERT_EQ(at.size(), kMaxCoreDescriptorBytes);
  spec.core_descriptor_json = at;
  EXPECT_THAT(validate_run_spec(spec), IsEmpty());
  spec.core_descriptor_json = descriptor_of(kMaxCoreDescriptorBytes + 1);
  expect_refused_in_both_forms(spec, {"core_descriptor", "must be at most 65536 bytes, got 65537"});
}

TEST(RunSpecLimits, TheWholeSpecIs256KiBOfJson) {
  // spec-hardening finding 2
  // The text is refused before it is parsed, as `mace spec check` and maced read it.
  std::string at = spec_json();
  at.insert(at.size() - 1, std::string(kMaxSpecJsonBytes - at.size(), ' '));
  ASSERT_EQ(at.size(), 256u * 1024);
  EXPECT_TRUE(parse_run_spec_json(at).spec.has_value());
  at.insert(at.size() - 1, " ");
  EXPECT_THAT(parse_run_spec_json(at).errors,
              ElementsAre(FieldError{
                  "", "a run spec must be at most 262144 bytes of JSON, got more"}));
}

TEST(RunSpecLimits, BudgetNumbersAreBounded) {
  // spec-hardening finding 2
  // 4294967297 does not fit the wire's 32 bits, and 9.2e18 seconds or dollars is no budget.
  EXPECT_THAT(errors_for(spec_json(R"("budget":{"max_iterations":4294967297})")),
              ElementsAre(FieldError{"budget.max_iterations",
                                     "must be an integer from 1 to 10000, got 4294967297"}));
  EXPECT_THAT(errors_for(spec_json(R"("budget":{"max_wall_s":9200000000000000000})")),
              ElementsAre(FieldError{"budget.max_wall_s", "must be an integer from 1 to 2592000, "
                                                          "got 9200000000000000000"}));
  EXPECT_THAT(errors_for(spec_json(R"("budget":{"max_usd":9.2e18})")),
              ElementsAre(FieldError{"budget.max_usd",
                                     "must be a number above 0 and at most 1000000, got 9.2e+18"}));
  RunSpec typed = valid_spec();
  typed.budget = {kMaxIterations + 1, kMaxUsd * 1.5, kMaxWallSeconds + 1};
  EXPECT_THAT(validate_run_spec(typed),
              ElementsAre(FieldError{"budget.max_iterations",
                                     "must be an integer from 1 to 10000, got 10001"},
                          FieldError{"budget.max_usd",
                                     "must be a number above 0 and at most 1000000, got 1.5e+06"},
                          FieldError{"budget.max_wall_s",
                                     "must be an integer from 1 to 2592000, got 2592001"}));
  typed.budget = {kMaxIterations, kMaxUsd, kMaxWallSeconds};
  EXPECT_THAT(validate_run_spec(typed), IsEmpty());
  EXPECT_EQ(kMaxWallSeconds, 30 * 24 * 3600);
}

TEST(RunSpecLimits, CyclesMeshAndCheckoutsAreBounded) {
  // spec-hardening finding 2
  RunSpec spec = valid_spec();
  spec.rtl_timeout = kMaxCycles + 1;
  spec.max_cycle = kMaxCycles + 1;
  spec.mesh_x = kMaxMeshAxis + 1;
  spec.checkouts = kMaxCheckouts + 1;
  const std::string cycles = "must be an integer from 1 to 2147483647, got 2147483648";
  EXPECT_THAT(validate_run_spec(spec),
              ElementsAre(FieldError{"mesh[0]", "must be an integer from 1 to 256, got 257"},
                          FieldError{"rtl_timeout", cycles}, FieldError{"max_cycle", cycles},
                          FieldError{"checkouts", "must be an integer from 1 to 1024, got 1025"}));
  EXPECT_EQ(validate_run_spec(spec), errors_for(run_spec_to_json(spec)));
}

}  // namespace
}  // namespace mace
