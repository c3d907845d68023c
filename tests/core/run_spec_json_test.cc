// parse_run_spec_json: the JSON form users write (`mace submit FILE`, `mace spec check`).

#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/run_spec.h"
#include "run_spec_test_support.h"

namespace mace {
namespace {

using spec_test::errors_for;
using spec_test::generic_json;
using spec_test::kDescriptor;
using spec_test::parsed;
using spec_test::spec_json;
using testing::ElementsAre;
using testing::HasSubstr;
using testing::StartsWith;

constexpr std::string_view kCoreRule = "must be one of ariane, sparc, pico, generic";
constexpr std::string_view kTopLevelFieldList =
    "core, mesh, workloads, objective, budget, coverage, monitors, run_every_workload, waveform, waveform_cycles, parallel_workloads, rtl_timeout, "
    "max_cycle, workload_args, core_descriptor, options, backend, model, checkouts, dispatch, tools, replay, "
    "designs, sweep, baseline";

std::string with_budget(std::string_view budget_members) {
  return spec_json(R"("budget":{)" + std::string(budget_members) + "}");
}

std::string with_workload_args(std::string_view hello_members) {
  return spec_json(R"("workload_args":{"hello":{)" + std::string(hello_members) + "}}");
}

// ---------------------------------------------------------------- defaults

TEST(ParseRunSpec, MinimalSpecGetsEveryDefault) {
  // REQ-PLAN-2, REQ-PLAN-3, REQ-BUD-1, REQ-VER-8
  RunSpec spec = parsed(spec_json());
  EXPECT_EQ(spec.core, Core::ariane);
  EXPECT_EQ(spec.mesh_x, 1);
  EXPECT_EQ(spec.mesh_y, 1);
  EXPECT_EQ(spec.workloads, std::vector<std::string>{"hello"});
  EXPECT_EQ(spec.objective, "boot linux");
  EXPECT_EQ(spec.budget.max_iterations, 10);
  EXPECT_EQ(spec.budget.max_usd, 20.0);
  EXPECT_EQ(spec.budget.max_wall_s, 3600);
  EXPECT_FALSE(spec.coverage);
  EXPECT_EQ(spec.rtl_timeout, 1'000'000);
  EXPECT_EQ(spec.max_cycle, std::nullopt);
  EXPECT_TRUE(spec.workload_args.empty());
  EXPECT_EQ(spec.core_descriptor_json, std::nullopt);
  EXPECT_FALSE(spec.options.rtl_edits);
  EXPECT_TRUE(spec.options.fast_path);
  EXPECT_FALSE(spec.options.task_prompts);
  EXPECT_EQ(spec.backend, std::nullopt);
  EXPECT_EQ(spec.model, std::nullopt);
  EXPECT_EQ(spec.checkouts, std::nullopt);
  EXPECT_TRUE(spec.tools.empty());
}

TEST(ParseRunSpec, PartialBudgetKeepsDefaultsForTheRest) {
  // REQ-BUD-1
  RunSpec spec = parsed(with_budget(R"("max_usd":1.5)"));
  EXPECT_EQ(spec.budget, (Budget{10, 1.5, 3600}));
}

TEST(ParseRunSpec, PartialOptionsKeepDefaultsForTheRest) {
  RunSpec spec = parsed(spec_json(R"("options":{"task_prompts":true})"));
  EXPECT_EQ(spec.options, (RunOptions{false, true, true, false}));
}

TEST(ParseRunSpec, ABuildOnlyCheckIsAnOption) {
  // REQ-EVAL-7's build-only check: off unless asked for, and written back.
  RunSpec spec = parsed(spec_json(R"("options":{"build_only":true})"));
  EXPECT_TRUE(spec.options.build_only);
  EXPECT_TRUE(spec.options.fast_path);
  EXPECT_THAT(run_spec_to_json(spec), HasSubstr("\"build_only\":true"));
  EXPECT_THAT(errors_for(spec_json(R"("options":{"build_only":"yes"})")),
              ElementsAre(FieldError{"options.build_only", "must be true or false, got \"yes\""}));
}

TEST(ParseRunSpec, NullLeavesOptionalFieldsUnset) {
  // null is how run_spec_to_json writes an unset field, so it must read back as unset.
  RunSpec spec = parsed(spec_json(
      R"("rtl_timeout":null,"max_cycle":null,"core_descriptor":null,"backend":null,)"
      R"("model":null,"checkouts":null)"));
  EXPECT_EQ(spec.rtl_timeout, kDefaultRtlTimeout);
  EXPECT_EQ(spec.max_cycle, std::nullopt);
  EXPECT_EQ(spec.core_descriptor_json, std::nullopt);
  EXPECT_EQ(spec.backend, std::nullopt);
  EXPECT_EQ(spec.model, std::nullopt);
  EXPECT_EQ(spec.checkouts, std::nullopt);
}

// ---------------------------------------------------------------- accepted values

TEST(ParseRunSpec, ReadsEveryField) {
  // REQ-PLAN-1, REQ-VER-7, REQ-VER-8, REQ-VER-16
  RunSpec spec = parsed(R"({
    "core": "generic",
    "mesh": [4, 2],
    "workloads": ["hello", "mul"],
    "objective": "reach 8 tiles",
    "budget": {"max_iterations": 3, "max_usd": 7.25, "max_wall_s": 600},
    "coverage": true,
    "rtl_timeout": 5000,
    "max_cycle": 12345,
    "workload_args": {"mul": {"finish_mask": "0xFF", "options": ["-fast_boot", "-midas_args=-DLONG=1"],
                              "rtl_timeout": 70, "max_cycle": 80}},
    "core_descriptor": { "name" : "c", "isa" : "RV32I", "top_module" : "c", "files" : [ "piton/design/c.v" ],
                         "reset_vector" : "0x0", "memory_interface" : { "protocol" : "obi" } },
    "options": {"rtl_edits": true, "fast_path": false, "task_prompts": true},
    "backend": "claude",
    "model": "opus",
    "checkouts": 4
  })");
  EXPECT_EQ(spec.core, Core::generic);
  EXPECT_EQ(spec.mesh_x, 4);
  EXPECT_EQ(spec.mesh_y, 2);
  EXPECT_EQ(spec.workloads, (std::vector<std::string>{"hello", "mul"}));
  EXPECT_EQ(spec.objective, "reach 8 tiles");
  EXPECT_EQ(spec.budget, (Budget{3, 7.25, 600}));
  EXPECT_TRUE(spec.coverage);
  EXPECT_EQ(spec.rtl_timeout, 5000);
  EXPECT_EQ(spec.max_cycle, 12345);
  ASSERT_EQ(spec.workload_args.size(), 1u);
  EXPECT_EQ(spec.workload_args.at("mul"),
            (WorkloadArgs{"FF", {"-fast_boot", "-midas_args=-DLONG=1"}, 70, 80}));
  EXPECT_EQ(spec.core_descriptor_json, kDescriptor);
  EXPECT_EQ(spec.options, (RunOptions{true, false, true}));
  EXPECT_EQ(spec.backend, "claude");
  EXPECT_EQ(spec.model, "opus");
  EXPECT_EQ(spec.checkouts, 4);
}

TEST(ParseRunSpec, AcceptsEveryCore) {
  // REQ-PLAN-2
  EXPECT_EQ(parsed(spec_json(R"("core":"ariane")")).core, Core::ariane);
  EXPECT_EQ(parsed(spec_json(R"("core":"sparc")")).core, Core::sparc);
  EXPECT_EQ(parsed(spec_json(R"("core":"pico")")).core, Core::pico);
  EXPECT_EQ(parsed(spec_json(generic_json())).core, Core::generic);
}

TEST(ParseRunSpec, AcceptsMeshAxesFromOneTo256) {
  // REQ-PLAN-3
  RunSpec smallest = parsed(spec_json(R"("mesh":[1,1])"));
  EXPECT_EQ(std::pair(smallest.mesh_x, smallest.mesh_y), std::pair(1, 1));
  RunSpec largest = parsed(spec_json(R"("mesh":[256,256])"));
  EXPECT_EQ(std::pair(largest.mesh_x, largest.mesh_y), std::pair(256, 256));
  RunSpec uneven = parsed(spec_json(R"("mesh":[3,256])"));
  EXPECT_EQ(std::pair(uneven.mesh_x, uneven.mesh_y), std::pair(3, 256));
}

TEST(ParseRunSpec, AcceptsIntegerOrFractionalCostLimit) {
  // REQ-BUD-1
  EXPECT_EQ(parsed(with_budget(R"("max_usd":5)")).budget.max_usd, 5.0);
  EXPECT_EQ(parsed(with_budget(R"("max_usd":0.01)")).budget.max_usd, 0.01);
  EXPECT_EQ(parsed(with_budget(R"("max_usd":1e2)")).budget.max_usd, 100.0);
}

TEST(ParseRunSpec, AcceptsEveryBackend) {
  for (std::string_view backend : kBackendNames) {
    RunSpec spec = parsed(spec_json(R"("backend":")" + std::string(backend) + "\""));
    EXPECT_EQ(spec.backend, backend);
  }
}

TEST(ParseRunSpec, AcceptsCheckoutsFromOneTo1024) {
  EXPECT_EQ(parsed(spec_json(R"("checkouts":1)")).checkouts, 1);
  EXPECT_EQ(parsed(spec_json(R"("checkouts":1024)")).checkouts, 1024);
}

TEST(ParseRunSpec, FinishMaskDropsTheHexPrefix) {
  // REQ-VER-7
  EXPECT_EQ(parsed(with_workload_args(R"("finish_mask":"0xff")")).workload_args.at("hello").finish_mask, "ff");
  EXPECT_EQ(parsed(with_workload_args(R"("finish_mask":"0X1F")")).workload_args.at("hello").finish_mask, "1F");
  EXPECT_EQ(parsed(with_workload_args(R"("finish_mask":"3")")).workload_args.at("hello").finish_mask, "3");
  EXPECT_EQ(parsed(with_workload_args(R"("finish_mask":null)")).workload_args.at("hello").finish_mask, "");
}

TEST(ParseRunSpec, EmptyWorkloadArgsEntryIsKept) {
  RunSpec spec = parsed(with_workload_args(""));
  EXPECT_EQ(spec.workload_args.at("hello"), WorkloadArgs{});
}

TEST(ParseRunSpec, KeepsUnicodeAndEscapesInStrings) {
  RunSpec spec = parsed(R"({"workloads":["hello"],"objective":"h\u00e9llo line\nbreak \"quoted\""})");
  EXPECT_EQ(spec.objective, "h\xc3\xa9llo line\nbreak \"quoted\"");
}

// ---------------------------------------------------------------- core (REQ-PLAN-4)

TEST(ParseRunSpec, RejectsUnknownCoreNamingWhatWasGiven) {
  // REQ-PLAN-4
  EXPECT_THAT(errors_for(spec_json(R"("core":"arm")")),
              ElementsAre(FieldError{"core", std::string(kCoreRule) + ", got \"arm\""}));
  EXPECT_EQ(errors_for(spec_json(R"("core":"arm")"))[0].to_string(),
            R"(core: must be one of ariane, sparc, pico, generic, got "arm")");
}

TEST(ParseRunSpec, CoreNamesAreCaseSensitive) {
  // REQ-PLAN-4
  EXPECT_THAT(errors_for(spec_json(R"("core":"Ariane")")),
              ElementsAre(FieldError{"core", std::string(kCoreRule) + ", got \"Ariane\""}));
}

TEST(ParseRunSpec, RejectsNonStringCore) {
  // REQ-PLAN-4
  EXPECT_THAT(errors_for(spec_json(R"("core":1)")),
              ElementsAre(FieldError{"core", std::string(kCoreRule) + ", got 1"}));
  EXPECT_THAT(errors_for(spec_json(R"("core":null)")),
              ElementsAre(FieldError{"core", std::string(kCoreRule) + ", got null"}));
}

// ---------------------------------------------------------------- mesh (REQ-PLAN-4)

TEST(ParseRunSpec, RejectsMeshThatIsNotAPair) {
  // REQ-PLAN-4
  const std::string rule = "must be a pair of integers [x, y], each from 1 to 256, got ";
  EXPECT_THAT(errors_for(spec_json(R"("mesh":4)")), ElementsAre(FieldError{"mesh", rule + "4"}));
  EXPECT_THAT(errors_for(spec_json(R"("mesh":[])")), ElementsAre(FieldError{"mesh", rule + "[]"}));
  EXPECT_THAT(errors_for(spec_json(R"("mesh":[2])")), ElementsAre(FieldError{"mesh", rule + "[2]"}));
  EXPECT_THAT(errors_for(spec_json(R"("mesh":[2,2,2])")),
              ElementsAre(FieldError{"mesh", rule + "[2,2,2]"}));
  EXPECT_THAT(errors_for(spec_json(R"("mesh":{"x":2,"y":2})")),
              ElementsAre(FieldError{"mesh", rule + R"({"x":2,"y":2})"}));
  EXPECT_THAT(errors_for(spec_json(R"("mesh":"2x2")")),
              ElementsAre(FieldError{"mesh", rule + R"("2x2")"}));
}

TEST(ParseRunSpec, RejectsMeshAxisOutOfRange) {
  // REQ-PLAN-4, REQ-PLAN-3
  const std::string rule = "must be an integer from 1 to 256, got ";
  EXPECT_THAT(errors_for(spec_json(R"("mesh":[0,1])")), ElementsAre(FieldError{"mesh[0]", rule + "0"}));
  EXPECT_THAT(errors_for(spec_json(R"("mesh":[1,257])")), ElementsAre(FieldError{"mesh[1]", rule + "257"}));
  EXPECT_THAT(errors_for(spec_json(R"("mesh":[-1,-2])")),
              ElementsAre(FieldError{"mesh[0]", rule + "-1"}, FieldError{"mesh[1]", rule + "-2"}));
  EXPECT_THAT(errors_for(spec_json(R"("mesh":[5000000000,1])")),
              ElementsAre(FieldError{"mesh[0]", rule + "5000000000"}));
  EXPECT_THAT(errors_for(spec_json(R"("mesh":[1,-9223372036854775808])")),
              ElementsAre(FieldError{"mesh[1]", rule + "-9223372036854775808"}));
}

TEST(ParseRunSpec, RejectsNonIntegerMeshAxis) {
  // REQ-PLAN-4
  const std::string rule = "must be an integer from 1 to 256, got ";
  EXPECT_THAT(errors_for(spec_json(R"("mesh":[1.5,2])")), ElementsAre(FieldError{"mesh[0]", rule + "1.5"}));
  EXPECT_THAT(errors_for(spec_json(R"("mesh":[2,2.0])")), ElementsAre(FieldError{"mesh[1]", rule + "2.0"}));
  EXPECT_THAT(errors_for(spec_json(R"("mesh":["2",2])")), ElementsAre(FieldError{"mesh[0]", rule + "\"2\""}));
  EXPECT_THAT(errors_for(spec_json(R"("mesh":[null,2])")), ElementsAre(FieldError{"mesh[0]", rule + "null"}));
  EXPECT_THAT(errors_for(spec_json(R"("mesh":[[2],2])")), ElementsAre(FieldError{"mesh[0]", rule + "[2]"}));
}

TEST(ParseRunSpec, RejectsBooleanMeshAxis) {
  // REQ-PLAN-4
  const std::string rule = "must be an integer from 1 to 256, got ";
  EXPECT_THAT(errors_for(spec_json(R"("mesh":[true,false])")),
              ElementsAre(FieldError{"mesh[0]", rule + "true"}, FieldError{"mesh[1]", rule + "false"}));
}

TEST(ParseRunSpec, RejectsMeshAxisBeyond64Bits) {
  // REQ-PLAN-4
  EXPECT_THAT(errors_for(spec_json(R"("mesh":[18446744073709551615,1])")),
              ElementsAre(FieldError{"mesh[0]",
                                     "must be an integer from 1 to 256, got 18446744073709551615 "
                                     "(more than the largest integer, 9223372036854775807)"}));
}

// ---------------------------------------------------------------- workloads (REQ-PLAN-4)

TEST(ParseRunSpec, RejectsMissingWorkloads) {
  // REQ-PLAN-4
  EXPECT_THAT(errors_for(R"({"objective":"boot"})"),
              ElementsAre(FieldError{"workloads",
                                     "required field is missing; give a non-empty array of workload names"}));
}

TEST(ParseRunSpec, RejectsEmptyWorkloadList) {
  // REQ-PLAN-4
  EXPECT_THAT(errors_for(R"({"workloads":[],"objective":"boot"})"),
              ElementsAre(FieldError{"workloads", "must be a non-empty array of workload names, got []"}));
}

TEST(ParseRunSpec, RejectsWorkloadsThatAreNotAnArray) {
  // REQ-PLAN-4
  EXPECT_THAT(errors_for(R"({"workloads":"hello","objective":"boot"})"),
              ElementsAre(FieldError{"workloads", R"(must be a non-empty array of workload names, got "hello")"}));
  EXPECT_THAT(errors_for(R"({"workloads":null,"objective":"boot"})"),
              ElementsAre(FieldError{"workloads", "must be a non-empty array of workload names, got null"}));
}

TEST(ParseRunSpec, RejectsWorkloadNameThatIsNotAString) {
  // REQ-PLAN-4
  EXPECT_THAT(errors_for(R"({"workloads":[5],"objective":"boot"})"),
              ElementsAre(FieldError{"workloads[0]", "must be a non-empty string, got 5"}));
  EXPECT_THAT(errors_for(R"({"workloads":[null],"objective":"boot"})"),
              ElementsAre(FieldError{"workloads[0]", "must be a non-empty string, got null"}));
  EXPECT_THAT(errors_for(R"({"workloads":[["a"]],"objective":"boot"})"),
              ElementsAre(FieldError{"workloads[0]", R"(must be a non-empty string, got ["a"])"}));
  EXPECT_THAT(errors_for(R"({"workloads":[true],"objective":"boot"})"),
              ElementsAre(FieldError{"workloads[0]", "must be a non-empty string, got true"}));
}

TEST(ParseRunSpec, RejectsEmptyWorkloadName) {
  // REQ-PLAN-4
  EXPECT_THAT(errors_for(R"({"workloads":[""],"objective":"boot"})"),
              ElementsAre(FieldError{"workloads[0]", R"(must be a non-empty string, got "")"}));
}

TEST(ParseRunSpec, BadWorkloadNamesKeepTheirOwnIndex) {
  // REQ-PLAN-4
  EXPECT_THAT(errors_for(R"({"workloads":["ok",5,"",7],"objective":"boot"})"),
              ElementsAre(FieldError{"workloads[1]", "must be a non-empty string, got 5"},
                          FieldError{"workloads[2]", R"(must be a non-empty string, got "")"},
                          FieldError{"workloads[3]", "must be a non-empty string, got 7"}));
}

TEST(ParseRunSpec, RejectsWorkloadNamesUnfitForArgvOrFileNames) {
  EXPECT_THAT(
      errors_for(R"({"workloads":["a b","tab\there","sub/dir","-v","..","nul\u0000"],"objective":"boot"})"),
      ElementsAre(
          FieldError{"workloads[0]",
                     "must not contain whitespace or control characters (it becomes a simulator "
                     "argument and part of file names), got \"a b\""},
          FieldError{"workloads[1]",
                     "must not contain whitespace or control characters (it becomes a simulator "
                     "argument and part of file names), got \"tab\\there\""},
          FieldError{"workloads[2]",
                     "must not contain '/' (it names a program under workloads/), got \"sub/dir\""},
          FieldError{"workloads[3]",
                     "must not start with '-' (the simulator would read it as an option), got \"-v\""},
          FieldError{"workloads[4]", "must not be . or .. (it becomes part of file names), got \"..\""},
          FieldError{"workloads[5]",
                     "must not contain whitespace or control characters (it becomes a simulator "
                     "argument and part of file names), got \"nul\\u0000\""}));
}

// sims pastes a workload's name into a shell command line: what it accepts is an allowlist,
// checked when the spec is, not when the first simulation would start after planning.
TEST(ParseRunSpec, RejectsWorkloadNamesSimsWouldPasteIntoAShell) {
  for (const char* name : {"it's", "a;b", "$HOME", "a`b`", "x|y", "a&b", "h\\u00e9llo", ".hidden",
                           "a..b", "(x)", "a*b"}) {
    const FieldErrors errors =
        errors_for(std::string(R"({"workloads":[")") + name + R"("],"objective":"boot"})");
    ASSERT_EQ(errors.size(), 1u) << name;
    EXPECT_EQ(errors[0].path, "workloads[0]") << name;
  }
  EXPECT_THAT(errors_for(R"({"workloads":["a;b"],"objective":"boot"})")[0].message,
              ::testing::HasSubstr("must be ASCII letters, digits, '_', '.', '+' and '-' only"));
  for (const char* name : {"hello", "add.S", "princeton-test-test.s", "c++_test", "x_1.c"})
    EXPECT_TRUE(parse_run_spec_json(std::string(R"({"workloads":[")") + name + R"("],"objective":"boot"})").spec)
        << name;
}

TEST(ParseRunSpec, RejectsDuplicateWorkloads) {
  EXPECT_THAT(errors_for(R"({"workloads":["a","b","a","b","a"],"objective":"boot"})"),
              ElementsAre(FieldError{"workloads[2]", "duplicate of workloads[0]"},
                          FieldError{"workloads[3]", "duplicate of workloads[1]"},
                          FieldError{"workloads[4]", "duplicate of workloads[0]"}));
}

// ---------------------------------------------------------------- objective (REQ-PLAN-4)

TEST(ParseRunSpec, RejectsEmptyOrBlankObjective) {
  // REQ-PLAN-4
  EXPECT_THAT(errors_for(R"({"workloads":["a"],"objective":""})"),
              ElementsAre(FieldError{"objective", R"(must be a non-empty string (not only whitespace), got "")"}));
  EXPECT_THAT(errors_for(R"({"workloads":["a"],"objective":" \t\n"})"),
              ElementsAre(FieldError{"objective",
                                     R"(must be a non-empty string (not only whitespace), got " \t\n")"}));
}

TEST(ParseRunSpec, RejectsMissingOrNonStringObjective) {
  // REQ-PLAN-4
  EXPECT_THAT(errors_for(R"({"workloads":["a"]})"),
              ElementsAre(FieldError{"objective",
                                     "required field is missing; give a non-empty string saying what "
                                     "the run should achieve"}));
  EXPECT_THAT(errors_for(R"({"workloads":["a"],"objective":42})"),
              ElementsAre(FieldError{"objective", "must be a non-empty string (not only whitespace), got 42"}));
}

// ---------------------------------------------------------------- coverage (REQ-PLAN-4)

TEST(ParseRunSpec, RejectsNonBooleanCoverage) {
  // REQ-PLAN-4
  EXPECT_THAT(errors_for(spec_json(R"("coverage":1)")),
              ElementsAre(FieldError{"coverage", "must be true or false, got 1"}));
  EXPECT_THAT(errors_for(spec_json(R"("coverage":"true")")),
              ElementsAre(FieldError{"coverage", R"(must be true or false, got "true")"}));
  EXPECT_THAT(errors_for(spec_json(R"("coverage":null)")),
              ElementsAre(FieldError{"coverage", "must be true or false, got null"}));
}

TEST(ParseRunSpec, RunEveryWorkloadIsABooleanOffByDefault) {
  EXPECT_FALSE(parse_run_spec_json(spec_json("")).spec->run_every_workload);
  EXPECT_TRUE(parse_run_spec_json(spec_json(R"("run_every_workload":true)")).spec->run_every_workload);
  EXPECT_THAT(errors_for(spec_json(R"("run_every_workload":"yes")")),
              ElementsAre(FieldError{"run_every_workload", R"(must be true or false, got "yes")"}));
  EXPECT_THAT(errors_for(spec_json(R"("run_every_workload":0)")),
              ElementsAre(FieldError{"run_every_workload", "must be true or false, got 0"}));
}

// ---------------------------------------------------------------- budget (REQ-PLAN-4, REQ-BUD-2)

TEST(ParseRunSpec, RejectsBudgetOfTheWrongType) {
  // REQ-PLAN-4, REQ-BUD-2
  const std::string rule = "must be an object with max_iterations, max_usd, max_wall_s, got ";
  EXPECT_THAT(errors_for(spec_json(R"("budget":5)")), ElementsAre(FieldError{"budget", rule + "5"}));
  EXPECT_THAT(errors_for(spec_json(R"("budget":[10,20,3600])")),
              ElementsAre(FieldError{"budget", rule + "[10,20,3600]"}));
  EXPECT_THAT(errors_for(spec_json(R"("budget":"cheap")")),
              ElementsAre(FieldError{"budget", rule + "\"cheap\""}));
  EXPECT_THAT(errors_for(spec_json(R"("budget":true)")), ElementsAre(FieldError{"budget", rule + "true"}));
  EXPECT_THAT(errors_for(spec_json(R"("budget":null)")), ElementsAre(FieldError{"budget", rule + "null"}));
}

TEST(ParseRunSpec, RejectsNonPositiveBudgetLimits) {
  // REQ-BUD-2
  EXPECT_THAT(
      errors_for(with_budget(R"("max_iterations":0,"max_usd":0,"max_wall_s":0)")),
      ElementsAre(
          FieldError{"budget.max_iterations", "must be an integer from 1 to 10000, got 0"},
          FieldError{"budget.max_usd", "must be a number above 0 and at most 1000000, got 0"},
          FieldError{"budget.max_wall_s", "must be an integer from 1 to 2592000, got 0"}));
  EXPECT_THAT(
      errors_for(with_budget(R"("max_iterations":-1,"max_usd":-0.5,"max_wall_s":-3600)")),
      ElementsAre(
          FieldError{"budget.max_iterations", "must be an integer from 1 to 10000, got -1"},
          FieldError{"budget.max_usd", "must be a number above 0 and at most 1000000, got -0.5"},
          FieldError{"budget.max_wall_s", "must be an integer from 1 to 2592000, got -3600"}));
}

TEST(ParseRunSpec, RejectsNegativeZeroCost) {
  // REQ-BUD-2
  EXPECT_THAT(errors_for(with_budget(R"("max_usd":-0.0)")),
              ElementsAre(FieldError{"budget.max_usd",
                                     "must be a number above 0 and at most 1000000, got -0"}));
  EXPECT_THAT(errors_for(with_budget(R"("max_usd":-0)")),
              ElementsAre(FieldError{"budget.max_usd",
                                     "must be a number above 0 and at most 1000000, got 0"}));
}

TEST(ParseRunSpec, RejectsFractionalIterationAndTimeLimits) {
  // REQ-BUD-2
  EXPECT_THAT(errors_for(with_budget(R"("max_wall_s":10.5)")),
              ElementsAre(FieldError{"budget.max_wall_s",
                                     "must be an integer from 1 to 2592000, got 10.5"}));
  EXPECT_EQ(errors_for(with_budget(R"("max_wall_s":10.5)"))[0].to_string(),
            "budget.max_wall_s: must be an integer from 1 to 2592000, got 10.5");
  EXPECT_THAT(errors_for(with_budget(R"("max_iterations":10.5)")),
              ElementsAre(FieldError{"budget.max_iterations",
                                     "must be an integer from 1 to 10000, got 10.5"}));
  // A whole number written as a float is still not an integer in JSON's eyes.
  EXPECT_THAT(
      errors_for(with_budget(R"("max_iterations":10.0,"max_wall_s":1e3)")),
      ElementsAre(
          FieldError{"budget.max_iterations", "must be an integer from 1 to 10000, got 10.0"},
          FieldError{"budget.max_wall_s", "must be an integer from 1 to 2592000, got 1000.0"}));
}

TEST(ParseRunSpec, RejectsCostLimitThatIsNotANumber) {
  // REQ-BUD-2
  EXPECT_THAT(errors_for(with_budget(R"("max_usd":"5")")),
              ElementsAre(FieldError{"budget.max_usd",
                                     R"(must be a number above 0 and at most 1000000, got "5")"}));
  EXPECT_THAT(errors_for(with_budget(R"("max_usd":null)")),
              ElementsAre(FieldError{"budget.max_usd",
                                     "must be a number above 0 and at most 1000000, got null"}));
  EXPECT_THAT(errors_for(with_budget(R"("max_usd":[5])")),
              ElementsAre(FieldError{"budget.max_usd",
                                     "must be a number above 0 and at most 1000000, got [5]"}));
}

TEST(ParseRunSpec, RejectsStringIterationAndTimeLimits) {
  // REQ-BUD-2
  EXPECT_THAT(
      errors_for(with_budget(R"("max_iterations":"10","max_wall_s":"1h")")),
      ElementsAre(
          FieldError{"budget.max_iterations", R"(must be an integer from 1 to 10000, got "10")"},
          FieldError{"budget.max_wall_s", R"(must be an integer from 1 to 2592000, got "1h")"}));
}

TEST(ParseRunSpec, RejectsBooleanInEveryBudgetField) {
  // REQ-BUD-2
  EXPECT_THAT(
      errors_for(with_budget(R"("max_iterations":true,"max_usd":true,"max_wall_s":false)")),
      ElementsAre(
          FieldError{"budget.max_iterations", "must be an integer from 1 to 10000, got true"},
          FieldError{"budget.max_usd", "must be a number above 0 and at most 1000000, got true"},
          FieldError{"budget.max_wall_s", "must be an integer from 1 to 2592000, got false"}));
  EXPECT_EQ(errors_for(with_budget(R"("max_iterations":true)"))[0].to_string(),
            "budget.max_iterations: must be an integer from 1 to 10000, got true");
}

TEST(ParseRunSpec, RejectsBooleanInEveryOtherNumericField) {
  // REQ-BUD-2, REQ-PLAN-4
  EXPECT_THAT(
      errors_for(
          spec_json(R"("mesh":[true,1],"rtl_timeout":true,"max_cycle":false,"checkouts":true)")),
      ElementsAre(FieldError{"mesh[0]", "must be an integer from 1 to 256, got true"},
                  FieldError{"rtl_timeout", "must be an integer from 1 to 2147483647, got true"},
                  FieldError{"max_cycle", "must be an integer from 1 to 2147483647, got false"},
                  FieldError{"checkouts", "must be an integer from 1 to 1024, got true"}));
}

TEST(ParseRunSpec, RejectsBudgetLimitsBeyond64Bits) {
  // REQ-BUD-2
  EXPECT_THAT(errors_for(with_budget(R"("max_wall_s":9223372036854775808)")),
              ElementsAre(FieldError{
                  "budget.max_wall_s",
                  "must be an integer from 1 to 2592000, got 9223372036854775808 (more than the "
                  "largest integer, 9223372036854775807)"}));
}

TEST(ParseRunSpec, AcceptsLargestBudgetLimits) {
  // REQ-BUD-1, spec-hardening finding 2: the limits themselves are accepted.
  RunSpec spec =
      parsed(with_budget(R"("max_iterations":10000,"max_usd":1e6,"max_wall_s":2592000)"));
  EXPECT_EQ(spec.budget, (Budget{kMaxIterations, kMaxUsd, kMaxWallSeconds}));
}

// ---------------------------------------------------------------- rtl_timeout, max_cycle

TEST(ParseRunSpec, RejectsRtlTimeoutAndMaxCycleThatAreNotPositiveIntegers) {
  // REQ-PLAN-4, REQ-VER-8, REQ-VER-16
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"0", "0"}, {"-5", "-5"}, {"1.5", "1.5"}, {"100.0", "100.0"}, {"\"100\"", "\"100\""},
      {"[1]", "[1]"}, {"{}", "{}"}};
  for (const std::string field : {"rtl_timeout", "max_cycle"}) {
    for (const auto& [given, echoed] : cases) {
      SCOPED_TRACE(field + " = " + given);
      EXPECT_THAT(
          errors_for(spec_json("\"" + field + "\":" + given)),
          ElementsAre(FieldError{field, "must be an integer from 1 to 2147483647, got " + echoed}));
    }
  }
}

TEST(ParseRunSpec, ReadsRtlTimeoutAndMaxCycle) {
  // REQ-VER-8, REQ-VER-16
  RunSpec spec = parsed(spec_json(R"("rtl_timeout":1,"max_cycle":2147483647)"));
  EXPECT_EQ(spec.rtl_timeout, 1);
  EXPECT_EQ(spec.effective_rtl_timeout(), 1);
  EXPECT_EQ(spec.max_cycle, kMaxCycles);
}

// ---------------------------------------------------------------- workload_args (REQ-PLAN-4)

TEST(ParseRunSpec, RejectsWorkloadArgsNamingAProgramOutsideTheWorkloads) {
  // REQ-PLAN-4
  EXPECT_THAT(errors_for(R"({"workloads":["hello","mul"],"objective":"boot",
                             "workload_args":{"hello":{},"nope":{"finish_mask":"1"}}})"),
              ElementsAre(FieldError{"workload_args.nope",
                                     "not one of the workloads; expected one of: hello, mul"}));
}

TEST(ParseRunSpec, RejectsFinishMaskThatIsNotHexDigits) {
  // REQ-PLAN-4
  const std::string rule = "must be a string of hex digits, optionally prefixed 0x, got ";
  for (const std::string given : {R"("xyz")", R"("0x")", R"("")", R"("0xg1")", R"("0x 1")", R"("-1")",
                                  R"("0x0x1")", "5", "true", "[1]"}) {
    SCOPED_TRACE(given);
    EXPECT_THAT(errors_for(with_workload_args(R"("finish_mask":)" + given)),
                ElementsAre(FieldError{"workload_args.hello.finish_mask", rule + given}));
  }
}

TEST(ParseRunSpec, RejectsRunOptionNotStartingWithDash) {
  // REQ-PLAN-4
  EXPECT_THAT(errors_for(with_workload_args(R"("options":["-fast_boot","x","",5,"-nofast_boot"])")),
              ElementsAre(FieldError{"workload_args.hello.options[1]",
                                     R"(must be a string starting with '-', got "x")"},
                          FieldError{"workload_args.hello.options[2]",
                                     R"(must be a string starting with '-', got "")"},
                          FieldError{"workload_args.hello.options[3]",
                                     "must be a string starting with '-', got 5"}));
}

TEST(ParseRunSpec, RejectsRunOptionsThatAreNotAnArray) {
  // REQ-PLAN-4
  EXPECT_THAT(errors_for(with_workload_args(R"("options":"-x")")),
              ElementsAre(FieldError{"workload_args.hello.options",
                                     R"(must be an array of strings each starting with '-', got "-x")"}));
}

TEST(ParseRunSpec, RejectsWorkloadArgsOfTheWrongShape) {
  // REQ-PLAN-4
  EXPECT_THAT(errors_for(spec_json(R"("workload_args":["hello"])")),
              ElementsAre(FieldError{"workload_args",
                                     "must be an object mapping each workload to {finish_mask, "
                                     "rtl_timeout, max_cycle, options}, "
                                     R"(got ["hello"])"}));
  EXPECT_THAT(
      errors_for(spec_json(R"("workload_args":{"hello":"0xff"})")),
      ElementsAre(FieldError{
          "workload_args.hello",
          R"(must be an object with finish_mask, rtl_timeout, max_cycle, options, got "0xff")"}));
}

TEST(ParseRunSpec, RejectsUnknownKeyInsideWorkloadArgs) {
  EXPECT_THAT(errors_for(with_workload_args(R"("finishmask":"ff")")),
              ElementsAre(FieldError{
                  "workload_args.hello.finishmask",
                  "unknown field; expected one of: finish_mask, rtl_timeout, max_cycle, options"}));
}

// spec-hardening finding 1: OpenPiton's diag lists give single diags their own -max_cycle and
// -rtl_timeout (tile1_mini: "simple_br ifu_simple_br.s -max_cycle=400000"); a spec gives
// them as fields of the workload, checked like the spec's own.
TEST(ParseRunSpec, ReadsAWorkloadsOwnRtlTimeoutAndMaxCycle) {
  RunSpec spec = parsed(with_workload_args(R"("rtl_timeout":50000,"max_cycle":500000)"));
  const WorkloadArgs& hello = spec.workload_args.at("hello");
  EXPECT_EQ(hello.rtl_timeout, 50000);
  EXPECT_EQ(hello.max_cycle, 500000);
  EXPECT_EQ(spec.effective_rtl_timeout("hello"), 50000);
  EXPECT_EQ(spec.effective_max_cycle("hello"), 500000);
  // Null is unset: the spec's own values apply.
  RunSpec unset =
      parsed(spec_json(R"("rtl_timeout":7,"max_cycle":8,)"
                       R"("workload_args":{"hello":{"rtl_timeout":null,"max_cycle":null}})"));
  EXPECT_EQ(unset.workload_args.at("hello").rtl_timeout, std::nullopt);
  EXPECT_EQ(unset.effective_rtl_timeout("hello"), 7);
  EXPECT_EQ(unset.effective_max_cycle("hello"), 8);
  EXPECT_EQ(unset.effective_max_cycle("other"), 8);
  // They survive the normalised form.
  EXPECT_EQ(parsed(run_spec_to_json(spec)), spec);
}

TEST(ParseRunSpec, RejectsAWorkloadsLimitsOutsideOneToTheTestbenchsInteger) {
  // spec-hardening finding 1, finding 2: positive, and within the testbench's 32-bit `integer`.
  const std::string rule = "must be an integer from 1 to 2147483647, got ";
  for (const std::string field : {"rtl_timeout", "max_cycle"}) {
    for (const std::string given :
         {"0", "-1", "2147483648", "4294967297", "1.5", "\"5\"", "true"}) {
      SCOPED_TRACE(field + " = " + given);
      EXPECT_THAT(errors_for(with_workload_args("\"" + field + "\":" + given)),
                  ElementsAre(FieldError{"workload_args.hello." + field, rule + given}));
    }
  }
  RunSpec typed = spec_test::valid_spec();
  typed.workload_args["hello"].rtl_timeout = 0;
  typed.workload_args["hello"].max_cycle = kMaxCycles + 1;
  EXPECT_THAT(validate_run_spec(typed),
              ElementsAre(FieldError{"workload_args.hello.rtl_timeout", rule + "0"},
                          FieldError{"workload_args.hello.max_cycle", rule + "2147483648"}));
}

// ---------------------------------------------------------------- core_descriptor

TEST(ParseRunSpec, GenericCoreRequiresADescriptor) {
  EXPECT_THAT(errors_for(spec_json(R"("core":"generic")")),
              ElementsAre(FieldError{"core_descriptor", "required when core is generic"}));
  EXPECT_THAT(errors_for(spec_json(R"("core":"generic","core_descriptor":null)")),
              ElementsAre(FieldError{"core_descriptor", "required when core is generic"}));
}

TEST(ParseRunSpec, RejectsDescriptorForAnyOtherCore) {
  EXPECT_THAT(errors_for(spec_json(R"("core_descriptor":{"isa":"rv64"})")),
              ElementsAre(FieldError{"core_descriptor", R"(only allowed when core is generic, got core "ariane")"}));
  EXPECT_THAT(errors_for(spec_json(R"("core":"pico","core_descriptor":{})")),
              ElementsAre(FieldError{"core_descriptor", R"(only allowed when core is generic, got core "pico")"}));
}

TEST(ParseRunSpec, RejectsDescriptorThatIsNotAnObject) {
  EXPECT_THAT(errors_for(spec_json(R"("core":"generic","core_descriptor":[1,2])")),
              ElementsAre(FieldError{"core_descriptor", "must be a JSON object, got [1,2]"}));
  EXPECT_THAT(errors_for(spec_json(R"("core":"generic","core_descriptor":"{}")")),
              ElementsAre(FieldError{"core_descriptor", R"(must be a JSON object, got "{}")"}));
}

TEST(ParseRunSpec, DescriptorRuleIsSilentWhenTheCoreItselfIsWrong) {
  // Whether a descriptor belongs depends on the core; with no readable core, only the
  // core is wrong.
  EXPECT_THAT(errors_for(spec_json(R"("core":"Generic","core_descriptor":{})")),
              ElementsAre(FieldError{"core", std::string(kCoreRule) + ", got \"Generic\""}));
}

// ---------------------------------------------------------------- options, backend, model, checkouts

TEST(ParseRunSpec, RejectsNonBooleanRunOptions) {
  EXPECT_THAT(errors_for(spec_json(R"("options":{"rtl_edits":1,"fast_path":"no","task_prompts":null})")),
              ElementsAre(FieldError{"options.rtl_edits", "must be true or false, got 1"},
                          FieldError{"options.fast_path", R"(must be true or false, got "no")"},
                          FieldError{"options.task_prompts", "must be true or false, got null"}));
  EXPECT_THAT(errors_for(spec_json(R"("options":[])")),
              ElementsAre(FieldError{"options", "must be an object with rtl_edits, fast_path, task_prompts, build_only, got []"}));
}

TEST(ParseRunSpec, RejectsUnknownBackend) {
  const std::string rule = "must be one of vertex, claude, opencode, antigravity, direct, got ";
  EXPECT_THAT(errors_for(spec_json(R"("backend":"gpt")")), ElementsAre(FieldError{"backend", rule + "\"gpt\""}));
  EXPECT_THAT(errors_for(spec_json(R"("backend":"Claude")")),
              ElementsAre(FieldError{"backend", rule + "\"Claude\""}));
  EXPECT_THAT(errors_for(spec_json(R"("backend":3)")), ElementsAre(FieldError{"backend", rule + "3"}));
}

TEST(ParseRunSpec, RejectsEmptyOrNonStringModel) {
  EXPECT_THAT(errors_for(spec_json(R"("model":"")")),
              ElementsAre(FieldError{"model", R"(must be a non-empty string, got "")"}));
  EXPECT_THAT(errors_for(spec_json(R"("model":{})")),
              ElementsAre(FieldError{"model", "must be a non-empty string, got {}"}));
}

TEST(ParseRunSpec, RejectsCheckoutsOutsideOneTo1024) {
  const std::string rule = "must be an integer from 1 to 1024, got ";
  EXPECT_THAT(errors_for(spec_json(R"("checkouts":0)")), ElementsAre(FieldError{"checkouts", rule + "0"}));
  EXPECT_THAT(errors_for(spec_json(R"("checkouts":1025)")), ElementsAre(FieldError{"checkouts", rule + "1025"}));
  EXPECT_THAT(errors_for(spec_json(R"("checkouts":2.5)")), ElementsAre(FieldError{"checkouts", rule + "2.5"}));
  EXPECT_THAT(errors_for(spec_json(R"("checkouts":"4")")), ElementsAre(FieldError{"checkouts", rule + "\"4\""}));
}

// ---------------------------------------------------------------- tools (REQ-EXEC-7)

TEST(ParseRunSpec, ReadsToolNamesInOrder) {  // REQ-EXEC-7
  RunSpec spec = parsed(spec_json(R"("tools":["search_logs","w2","a_b_c"])"));
  EXPECT_EQ(spec.tools, (std::vector<std::string>{"search_logs", "w2", "a_b_c"}));
  EXPECT_TRUE(parsed(spec_json(R"("tools":[])")).tools.empty());
}

TEST(ParseRunSpec, RejectsToolsThatAreNotAnArrayOfStrings) {  // REQ-EXEC-7
  EXPECT_THAT(errors_for(spec_json(R"("tools":"search_logs")")),
              ElementsAre(FieldError{"tools", R"(must be an array of tool names, got "search_logs")"}));
  EXPECT_THAT(errors_for(spec_json(R"("tools":null)")),
              ElementsAre(FieldError{"tools", "must be an array of tool names, got null"}));
  // The bad element keeps its own index, and the good ones around it say nothing.
  EXPECT_THAT(errors_for(spec_json(R"("tools":["a",7,"b"])")),
              ElementsAre(FieldError{"tools[1]", "must be a tool name (a string), got 7"}));
}

TEST(ParseRunSpec, RejectsToolNamesNoConfigurationCouldDeclare) {  // REQ-EXEC-7
  const std::string rule = "must be a tool name: a lowercase letter, then lowercase letters, digits and _, got ";
  EXPECT_THAT(errors_for(spec_json(R"("tools":["ok","","Grep","9lives","a-b","a b"])")),
              ElementsAre(FieldError{"tools[1]", rule + R"("")"}, FieldError{"tools[2]", rule + R"("Grep")"},
                          FieldError{"tools[3]", rule + R"("9lives")"}, FieldError{"tools[4]", rule + R"("a-b")"},
                          FieldError{"tools[5]", rule + R"("a b")"}));
}

TEST(ParseRunSpec, RejectsARepeatedToolNamingTheFirst) {  // REQ-EXEC-7
  EXPECT_THAT(errors_for(spec_json(R"("tools":["a","b","a","a"])")),
              ElementsAre(FieldError{"tools[2]", "duplicate of tools[0]"},
                          FieldError{"tools[3]", "duplicate of tools[0]"}));
}

// ---------------------------------------------------------------- unknown and repeated keys

TEST(ParseRunSpec, RejectsUnknownTopLevelFieldListingTheKnownOnes) {
  EXPECT_THAT(errors_for(spec_json(R"("cores":"sparc")")),
              ElementsAre(FieldError{"cores", "unknown field; expected one of: " + std::string(kTopLevelFieldList)}));
  EXPECT_EQ(errors_for(spec_json(R"("cores":"sparc")"))[0].to_string(),
            "cores: unknown field; expected one of: core, mesh, workloads, objective, budget, coverage, "
            "monitors, run_every_workload, waveform, waveform_cycles, parallel_workloads, rtl_timeout, max_cycle, workload_args, core_descriptor, options, backend, model, checkouts, "
            "dispatch, tools, replay, designs, sweep, baseline");
}

TEST(ParseRunSpec, RejectsUnknownNestedFields) {
  EXPECT_THAT(errors_for(with_budget(R"("max_iteration":5)")),
              ElementsAre(FieldError{"budget.max_iteration",
                                     "unknown field; expected one of: max_iterations, max_usd, max_wall_s"}));
  EXPECT_THAT(errors_for(spec_json(R"("options":{"rtl_edit":true})")),
              ElementsAre(FieldError{"options.rtl_edit",
                                     "unknown field; expected one of: rtl_edits, fast_path, task_prompts, build_only"}));
}

TEST(ParseRunSpec, RejectsRepeatedKeys) {
  const std::string message = "duplicate key; each key may appear only once";
  EXPECT_THAT(errors_for(spec_json(R"("core":"sparc","core":"pico")")),
              ElementsAre(FieldError{"core", message}));
  EXPECT_THAT(errors_for(with_budget(R"("max_usd":1,"max_usd":2)")),
              ElementsAre(FieldError{"budget.max_usd", message}));
  EXPECT_THAT(errors_for(spec_json(R"("workload_args":{"hello":{},"hello":{}})")),
              ElementsAre(FieldError{"workload_args.hello", message}));
  EXPECT_THAT(errors_for(with_workload_args(R"("options":[],"options":["-x"])")),
              ElementsAre(FieldError{"workload_args.hello.options", message}));
  EXPECT_THAT(errors_for(spec_json(R"("options":{"fast_path":true,"fast_path":false})")),
              ElementsAre(FieldError{"options.fast_path", message}));
  EXPECT_THAT(errors_for(R"({"workloads":["a"],"objective":"x","objective":"y"})"),
              ElementsAre(FieldError{"objective", message}));
}

TEST(ParseRunSpec, RepeatedKeyDoesNotHideErrorsInTheFirstOne) {
  EXPECT_THAT(
      errors_for(spec_json(R"("budget":{"max_wall_s":0},"budget":{})")),
      ElementsAre(FieldError{"budget", "duplicate key; each key may appear only once"},
                  FieldError{"budget.max_wall_s", "must be an integer from 1 to 2592000, got 0"}));
}

// ---------------------------------------------------------------- many errors at once

TEST(ParseRunSpec, ReportsEveryErrorInFieldOrder) {
  // REQ-PLAN-4, REQ-BUD-2
  EXPECT_THAT(
      errors_for(R"({
    "checkouts": 0,
    "core": "arm",
    "mesh": [0, 1.5],
    "workloads": ["hello", 7, "hello"],
    "objective": "",
    "budget": {"max_iterations": 0, "max_usd": "5", "max_wall_s": 10.5, "extra": 1},
    "coverage": "yes",
    "waveform": 1,
    "waveform_cycles": 0,
    "parallel_workloads": 0,
    "rtl_timeout": -1,
    "max_cycle": 0,
    "workload_args": {"zz": {"finish_mask": "q"}, "hello": {"options": ["v"]}},
    "options": {"fast_path": 0},
    "backend": "gpt",
    "model": "",
    "colour": "blue"
  })"),
      ElementsAre(
          FieldError{"core", std::string(kCoreRule) + ", got \"arm\""},
          FieldError{"mesh[0]", "must be an integer from 1 to 256, got 0"},
          FieldError{"mesh[1]", "must be an integer from 1 to 256, got 1.5"},
          FieldError{"workloads[1]", "must be a non-empty string, got 7"},
          FieldError{"workloads[2]", "duplicate of workloads[0]"},
          FieldError{"objective", R"(must be a non-empty string (not only whitespace), got "")"},
          FieldError{"budget.max_iterations", "must be an integer from 1 to 10000, got 0"},
          FieldError{"budget.max_usd", R"(must be a number above 0 and at most 1000000, got "5")"},
          FieldError{"budget.max_wall_s", "must be an integer from 1 to 2592000, got 10.5"},
          FieldError{"budget.extra",
                     "unknown field; expected one of: max_iterations, max_usd, max_wall_s"},
          FieldError{"coverage", R"(must be true or false, got "yes")"},
          FieldError{"waveform", "must be true or false, got 1"},
          FieldError{"waveform_cycles", "must be an integer from 1 to 1000000, got 0"},
          FieldError{"parallel_workloads", "must be an integer from 1 to 256, got 0"},
          FieldError{"rtl_timeout", "must be an integer from 1 to 2147483647, got -1"},
          FieldError{"max_cycle", "must be an integer from 1 to 2147483647, got 0"},
          FieldError{"workload_args.hello.options[0]",
                     R"(must be a string starting with '-', got "v")"},
          FieldError{"workload_args.zz", "not one of the workloads; expected one of: hello"},
          FieldError{"workload_args.zz.finish_mask",
                     R"(must be a string of hex digits, optionally prefixed 0x, got "q")"},
          FieldError{"options.fast_path", "must be true or false, got 0"},
          FieldError{"backend",
                     R"(must be one of vertex, claude, opencode, antigravity, direct, got "gpt")"},
          FieldError{"model", R"(must be a non-empty string, got "")"},
          FieldError{"checkouts", "must be an integer from 1 to 1024, got 0"},
          FieldError{"colour",
                     "unknown field; expected one of: " + std::string(kTopLevelFieldList)}));
}

TEST(ParseRunSpec, DispatchIsQueueOrBatchesOrUnset) {  // REQ-EXEC-2
  EXPECT_EQ(parsed(spec_json(R"("dispatch":"batches")")).dispatch, Dispatch::batches);
  EXPECT_EQ(parsed(spec_json(R"("dispatch":"queue")")).dispatch, Dispatch::queue);
  EXPECT_EQ(parsed(spec_json(R"("dispatch":null)")).dispatch, std::nullopt);
  EXPECT_EQ(parsed(spec_json()).dispatch, std::nullopt);
  EXPECT_THAT(errors_for(spec_json(R"("dispatch":"fifo")")),
              ElementsAre(FieldError{"dispatch", R"(must be "queue" or "batches", got "fifo")"}));
  EXPECT_THAT(errors_for(spec_json(R"("dispatch":2)")),
              ElementsAre(FieldError{"dispatch", R"(must be "queue" or "batches", got 2)"}));
}

TEST(ParseRunSpec, MissingRequiredFieldsAreBothReported) {
  EXPECT_THAT(errors_for("{}"),
              ElementsAre(FieldError{"workloads", "required field is missing; give a non-empty array of workload names"},
                          FieldError{"objective",
                                     "required field is missing; give a non-empty string saying what the run "
                                     "should achieve"}));
}

TEST(ParseRunSpec, ProgramRuleIsSilentWhenWorkloadsAreUnreadable) {
  // With no readable workload list, "not one of the workloads" would blame the wrong field.
  EXPECT_THAT(errors_for(R"({"workloads":"hello","objective":"x","workload_args":{"hello":{"finish_mask":"z"}}})"),
              ElementsAre(FieldError{"workloads", R"(must be a non-empty array of workload names, got "hello")"},
                          FieldError{"workload_args.hello.finish_mask",
                                     R"(must be a string of hex digits, optionally prefixed 0x, got "z")"}));
}

// ---------------------------------------------------------------- hostile input

TEST(ParseRunSpec, InvalidJsonIsOneErrorSayingWhereAndWhatWasExpected) {
  const std::pair<std::string_view, std::string_view> cases[] = {
      {R"({"workloads": [})", "invalid JSON at line 1, column 16: expected a value, found '}'"},
      {R"({"workloads":["a"],"objective":"x"} trailing)",
       "invalid JSON at line 1, column 37: more text after the JSON value, from 'trailing'"},
      {R"({'workloads': ['a']})",
       "invalid JSON at line 1, column 2: expected a member's name in double quotes, found '''"},
      {R"({"workloads":["a"],"objective":"x",})",
       "invalid JSON at line 1, column 36: expected a member's name in double quotes, found '}' (the comma "
       "before it is one too many)"}};
  for (const auto& [json, message] : cases) {
    SpecParseResult result = parse_run_spec_json(json);
    EXPECT_FALSE(result.spec.has_value()) << json;
    EXPECT_THAT(result.errors, ElementsAre(FieldError{"", std::string(message)})) << json;
  }
}

TEST(ParseRunSpec, ASyntaxErrorIsPlacedByLineAndColumnAsAnEditorCountsThem) {
  const std::string json =
      "{\n  \"core\": \"pico\",\n  \"objective\": \"h\xc3\xa9llo\"\n  \"workloads\": [\"hello\"]\n}\n";
  EXPECT_THAT(parse_run_spec_json(json).errors,
              ElementsAre(FieldError{"", "invalid JSON at line 4, column 3: expected ',' or '}' after a "
                                         "member's value, found '\"' (a comma missing before it?)"}));
}

TEST(ParseRunSpec, EmptyInputIsInvalidJson) {
  const FieldError empty{"", "invalid JSON at line 1, column 1: expected a JSON value, found the end of the text"};
  EXPECT_THAT(parse_run_spec_json("").errors, ElementsAre(empty));
  EXPECT_THAT(parse_run_spec_json(std::string_view()).errors, ElementsAre(empty));
  EXPECT_THAT(parse_run_spec_json(" \n\t").errors,
              ElementsAre(FieldError{"", "invalid JSON at line 2, column 2: expected a JSON value, found the end "
                                         "of the text"}));
}

TEST(ParseRunSpec, TopLevelMustBeAnObject) {
  const std::string rule = "must be a JSON object holding the run specification, got ";
  EXPECT_THAT(errors_for("[]"), ElementsAre(FieldError{"", rule + "[]"}));
  EXPECT_THAT(errors_for("null"), ElementsAre(FieldError{"", rule + "null"}));
  EXPECT_THAT(errors_for(R"("{}")"), ElementsAre(FieldError{"", rule + R"("{}")"}));
  EXPECT_THAT(errors_for("42"), ElementsAre(FieldError{"", rule + "42"}));
}

// A number the parser cannot hold is named with its line and column, like a syntax error.
TEST(ParseRunSpec, NumberOutOfDoubleRangeIsInvalidJsonAtItsPlace) {
  const auto errors = parse_run_spec_json(with_budget(R"("max_usd":1e400)")).errors;
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0].message, ::testing::MatchesRegex(
                                     "invalid JSON at line [0-9]+, column [0-9]+: the number 1e400 is too large for a "
                                     "double \\(at most about 1.8e308\\)"));
}

TEST(ParseRunSpec, IntegerBeyond64BitsIsInvalidJsonAtItsPlace) {
  const auto errors = parse_run_spec_json(spec_json(R"("max_cycle":123456789012345678901234567890)")).errors;
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0].message, ::testing::MatchesRegex(
                                     "invalid JSON at line [0-9]+, column [0-9]+: the integer 12345678901234567890\\.\\.\\. "
                                     "is too large: integers go from .*"));
}

TEST(ParseRunSpec, NegativeZeroIsNotAPositiveInteger) {
  EXPECT_THAT(
      errors_for(spec_json(R"("max_cycle":-0)")),
      ElementsAre(FieldError{"max_cycle", "must be an integer from 1 to 2147483647, got 0"}));
  EXPECT_THAT(
      errors_for(spec_json(R"("max_cycle":-0.0)")),
      ElementsAre(FieldError{"max_cycle", "must be an integer from 1 to 2147483647, got -0.0"}));
}

TEST(ParseRunSpec, DeeplyNestedArraysAreRejectedWithoutCrashing) {
  std::string deep = R"({"workloads":)" + std::string(100'000, '[') + std::string(100'000, ']') +
                     R"(,"objective":"x"})";
  SpecParseResult result = parse_run_spec_json(deep);
  EXPECT_FALSE(result.spec.has_value());
  ASSERT_EQ(result.errors.size(), 1u);
  EXPECT_EQ(result.errors[0].path, "");
  EXPECT_THAT(result.errors[0].message, StartsWith("invalid JSON at line 1, column "));
  EXPECT_THAT(result.errors[0].message, HasSubstr(": nested deeper than 1024 objects and arrays"));
}

TEST(ParseRunSpec, NestingWithinTheParserLimitIsReadAndClipped) {
  std::string nested = std::string(500, '[') + std::string(500, ']');
  EXPECT_THAT(errors_for(R"({"workloads":)" + nested + R"(,"objective":"x"})"),
              ElementsAre(FieldError{"workloads[0]", "must be a non-empty string, got " + std::string(60, '[') + "..."}));
  // The descriptor's own reader meets the same nesting and names the field it does not know.
  EXPECT_THAT(errors_for(spec_json(R"("core":"generic","options":{"rtl_edits":true},"core_descriptor":{"deep":)" + nested + "}")),
              ::testing::Contains(FieldError{"core_descriptor.deep", "unknown field"}));
}

TEST(ParseRunSpec, LongValuesAreClippedInMessages) {
  std::string huge(kMaxWorkloadNameBytes, 'a');
  huge[10] = ' ';
  FieldErrors errors = errors_for(R"({"workloads":[")" + huge + R"("],"objective":"x"})");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].path, "workloads[0]");
  EXPECT_THAT(errors[0].message, HasSubstr(R"(got "aaaaaaaaaa aaaa)"));
  EXPECT_LT(errors[0].message.size(), 250u);
  EXPECT_TRUE(errors[0].message.ends_with("\"...")) << errors[0].message;
}

TEST(ParseRunSpec, ClippingNeverSplitsAUtf8Character) {
  // 30 two-byte characters are 60 bytes; one more crosses the limit mid-character.
  std::string name = " ";
  for (int i = 0; i < 31; ++i) name += "\xc3\xa9";
  FieldErrors errors = errors_for(R"({"workloads":[")" + name + R"("],"objective":"x"})");
  ASSERT_EQ(errors.size(), 1u);
  std::string shown = " ";
  for (int i = 0; i < 29; ++i) shown += "\xc3\xa9";
  EXPECT_THAT(errors[0].message, HasSubstr("got \"" + shown + "\"..."));
}

TEST(ParseRunSpec, ManyErrorsInOneHugeSpecAreAllReported) {
  std::string workloads;
  for (size_t i = 0; i < kMaxWorkloads; ++i) workloads += (i ? ",\"w\"" : "\"w\"");
  FieldErrors errors = errors_for(R"({"workloads":[)" + workloads + R"(],"objective":"x"})");
  ASSERT_EQ(errors.size(), kMaxWorkloads - 1);
  EXPECT_EQ(errors.front(), (FieldError{"workloads[1]", "duplicate of workloads[0]"}));
  EXPECT_EQ(errors.back(), (FieldError{"workloads[255]", "duplicate of workloads[0]"}));
}

TEST(ParseRunSpec, EveryBadElementOfListsAtTheirLimitIsReported) {
  // Each bad element is one error, in order; longer lists are one error each (finding 2,
  // run_spec_limits_test.cc).
  constexpr int kCount = static_cast<int>(kMaxWorkloads);
  std::string workloads = "1";
  for (int i = 1; i < kCount; ++i) workloads += ",1";
  std::string programs;
  for (int i = 0; i < kCount; ++i) programs += (i ? ",\"p" : "\"p") + std::to_string(i) + "\":{}";
  FieldErrors errors = errors_for(R"({"workloads":[)" + workloads + R"(],"objective":"x","workload_args":{)" +
                                  programs + "}}");
  ASSERT_EQ(errors.size(), static_cast<size_t>(2 * kCount));
  EXPECT_EQ(errors[kCount - 1],
            (FieldError{"workloads[255]", "must be a non-empty string, got 1"}));
  EXPECT_EQ(errors[kCount].path, "workload_args.p0");
}

}  // namespace
}  // namespace mace
