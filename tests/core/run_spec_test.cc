// validate_run_spec (the typed form), core names, and run_spec_to_json with its round trip
// through parse_run_spec_json.

#include "core/run_spec.h"

#include <cmath>
#include <limits>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "run_spec_test_support.h"

namespace mace {
namespace {

using spec_test::errors_for;
using spec_test::generic_json;
using spec_test::kDescriptor;
using spec_test::parsed;
using spec_test::spec_json;
using spec_test::valid_spec;
using testing::ElementsAre;
using testing::IsEmpty;

// ---------------------------------------------------------------- core names

TEST(CoreNames, EveryCoreReadsBackFromItsName) {
  // REQ-PLAN-2
  for (Core core : {Core::ariane, Core::sparc, Core::pico, Core::generic})
    EXPECT_EQ(core_from_string(to_string(core)), core);
  EXPECT_EQ(to_string(Core::ariane), "ariane");
  EXPECT_EQ(to_string(Core::sparc), "sparc");
  EXPECT_EQ(to_string(Core::pico), "pico");
  EXPECT_EQ(to_string(Core::generic), "generic");
}

TEST(CoreNames, OtherNamesAreNotCores) {
  // REQ-PLAN-4
  EXPECT_EQ(core_from_string("arm"), std::nullopt);
  EXPECT_EQ(core_from_string(""), std::nullopt);
  EXPECT_EQ(core_from_string("ARIANE"), std::nullopt);
  EXPECT_EQ(core_from_string("ariane "), std::nullopt);
  EXPECT_EQ(to_string(static_cast<Core>(7)), "unknown");
}

// ---------------------------------------------------------------- validate_run_spec

TEST(ValidateRunSpec, DefaultsWithWorkloadsAndObjectiveAreValid) {
  // REQ-PLAN-2, REQ-PLAN-3, REQ-BUD-1
  EXPECT_THAT(validate_run_spec(valid_spec()), IsEmpty());
}

TEST(ValidateRunSpec, EveryFieldSetWithinRangeIsValid) {
  // REQ-PLAN-1
  RunSpec spec = valid_spec();
  spec.core = Core::generic;
  spec.mesh_x = 256;
  spec.mesh_y = 1;
  spec.workloads = {"hello", "mul"};
  spec.budget = {1, 0.01, 1};
  spec.coverage = true;
  spec.rtl_timeout = 1;
  spec.max_cycle = 1;
  spec.workload_args["mul"] = {
      "0123456789abcdefABCDEF", {"-fast_boot", "-midas_args=-DB=c"}, kMaxCycles, 1};
  spec.core_descriptor_json = std::string(kDescriptor);
  spec.options = {true, false, true};
  spec.backend = "direct";
  spec.model = "m";
  spec.checkouts = 1024;
  EXPECT_THAT(validate_run_spec(spec), IsEmpty());
}

TEST(ValidateRunSpec, RejectsCoreValueOutsideTheEnum) {
  // REQ-PLAN-4
  RunSpec spec = valid_spec();
  spec.core = static_cast<Core>(7);
  EXPECT_THAT(validate_run_spec(spec),
              ElementsAre(FieldError{"core", "must be one of ariane, sparc, pico, generic, got 7"}));
}

TEST(ValidateRunSpec, RejectsMeshAxesOutsideOneTo256) {
  // REQ-PLAN-3, REQ-PLAN-4
  RunSpec spec = valid_spec();
  spec.mesh_x = 0;
  spec.mesh_y = 257;
  EXPECT_THAT(validate_run_spec(spec),
              ElementsAre(FieldError{"mesh[0]", "must be an integer from 1 to 256, got 0"},
                          FieldError{"mesh[1]", "must be an integer from 1 to 256, got 257"}));
  spec.mesh_x = -2147483647 - 1;
  spec.mesh_y = 1;
  EXPECT_THAT(validate_run_spec(spec),
              ElementsAre(FieldError{"mesh[0]", "must be an integer from 1 to 256, got -2147483648"}));
}

TEST(ValidateRunSpec, RejectsEmptyWorkloadList) {
  // REQ-PLAN-4
  RunSpec spec = valid_spec();
  spec.workloads.clear();
  EXPECT_THAT(validate_run_spec(spec),
              ElementsAre(FieldError{"workloads", "must be a non-empty array of workload names, got []"}));
}

TEST(ValidateRunSpec, RejectsBadWorkloadNames) {
  // REQ-PLAN-4
  RunSpec spec = valid_spec();
  spec.workloads = {"ok", "", "a\nb", "x/y", "-q", ".", "ok"};
  EXPECT_THAT(
      validate_run_spec(spec),
      ElementsAre(FieldError{"workloads[1]", R"(must be a non-empty string, got "")"},
                  FieldError{"workloads[2]",
                             "must not contain whitespace or control characters (it becomes a simulator "
                             "argument and part of file names), got \"a\\nb\""},
                  FieldError{"workloads[3]", R"(must not contain '/' (it names a program under workloads/), got "x/y")"},
                  FieldError{"workloads[4]",
                             R"(must not start with '-' (the simulator would read it as an option), got "-q")"},
                  FieldError{"workloads[5]", R"(must not be . or .. (it becomes part of file names), got ".")"},
                  FieldError{"workloads[6]", "duplicate of workloads[0]"}));
}

TEST(ValidateRunSpec, RejectsBlankObjective) {
  // REQ-PLAN-4
  RunSpec spec = valid_spec();
  spec.objective = "\t \n ";
  EXPECT_THAT(
      validate_run_spec(spec),
      ElementsAre(FieldError{"objective",
                             R"(must be a non-empty string (not only whitespace), got "\t \n ")"}));
}

TEST(ValidateRunSpec, RejectsNonPositiveBudgetLimits) {
  // REQ-BUD-2
  RunSpec spec = valid_spec();
  spec.budget = {0, -2.5, -1};
  EXPECT_THAT(
      validate_run_spec(spec),
      ElementsAre(
          FieldError{"budget.max_iterations", "must be an integer from 1 to 10000, got 0"},
          FieldError{"budget.max_usd", "must be a number above 0 and at most 1000000, got -2.5"},
          FieldError{"budget.max_wall_s", "must be an integer from 1 to 2592000, got -1"}));
}

TEST(ValidateRunSpec, RejectsCostLimitThatIsNotAFiniteNumber) {
  // REQ-BUD-2
  RunSpec spec = valid_spec();
  spec.budget.max_usd = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THAT(validate_run_spec(spec),
              ElementsAre(FieldError{"budget.max_usd",
                                     "must be a number above 0 and at most 1000000, got nan"}));
  spec.budget.max_usd = std::numeric_limits<double>::infinity();
  EXPECT_THAT(validate_run_spec(spec),
              ElementsAre(FieldError{"budget.max_usd",
                                     "must be a number above 0 and at most 1000000, got inf"}));
  spec.budget.max_usd = 0.1;
  EXPECT_THAT(validate_run_spec(spec), IsEmpty());
}

TEST(ValidateRunSpec, RejectsNonPositiveRtlTimeoutAndMaxCycle) {
  // REQ-PLAN-4, REQ-VER-8, REQ-VER-16
  RunSpec spec = valid_spec();
  spec.rtl_timeout = 0;
  spec.max_cycle = -1;
  EXPECT_THAT(
      validate_run_spec(spec),
      ElementsAre(FieldError{"rtl_timeout", "must be an integer from 1 to 2147483647, got 0"},
                  FieldError{"max_cycle", "must be an integer from 1 to 2147483647, got -1"}));
}

TEST(ValidateRunSpec, RejectsWorkloadArgsForAProgramOutsideTheWorkloads) {
  // REQ-PLAN-4
  RunSpec spec = valid_spec();
  spec.workload_args["mul"] = {};
  EXPECT_THAT(validate_run_spec(spec),
              ElementsAre(FieldError{"workload_args.mul", "not one of the workloads; expected one of: hello"}));
}

TEST(ValidateRunSpec, ProgramListInMessageIsShortAndDistinct) {
  // REQ-PLAN-4
  RunSpec spec = valid_spec();
  spec.workloads.clear();
  for (int i = 0; i < 12; ++i) spec.workloads.push_back("w" + std::to_string(i));
  spec.workloads.push_back("w0");
  spec.workload_args["x"] = {};
  FieldErrors errors = validate_run_spec(spec);
  EXPECT_THAT(errors, ElementsAre(FieldError{"workloads[12]", "duplicate of workloads[0]"},
                                  FieldError{"workload_args.x",
                                             "not one of the workloads; expected one of: w0, w1, w2, w3, w4, "
                                             "w5, w6, w7, w8, w9, and 2 more"}));
}

TEST(ValidateRunSpec, ProgramRuleWithNoWorkloadsSaysSo) {
  RunSpec spec = valid_spec();
  spec.workloads.clear();
  spec.workload_args["x"] = {};
  EXPECT_THAT(validate_run_spec(spec),
              ElementsAre(FieldError{"workloads", "must be a non-empty array of workload names, got []"},
                          FieldError{"workload_args.x", "not one of the workloads; the workload list is empty"}));
}

TEST(ValidateRunSpec, TypedFinishMaskIsBareHexDigits) {
  // REQ-PLAN-4, REQ-VER-7: the typed form carries digits only; 0x is JSON spelling.
  RunSpec spec = valid_spec();
  spec.workload_args["hello"].finish_mask = "0x1f";
  EXPECT_THAT(validate_run_spec(spec),
              ElementsAre(FieldError{"workload_args.hello.finish_mask", R"(must be a string of hex digits, got "0x1f")"}));
  spec.workload_args["hello"].finish_mask = "";
  EXPECT_THAT(validate_run_spec(spec), IsEmpty()) << "empty is the per-tile default";
}

TEST(ValidateRunSpec, RejectsRunOptionNotStartingWithDash) {
  // REQ-PLAN-4
  RunSpec spec = valid_spec();
  spec.workload_args["hello"].options = {"-fast_boot", "bad", ""};
  EXPECT_THAT(validate_run_spec(spec),
              ElementsAre(FieldError{"workload_args.hello.options[1]", R"(must be a string starting with '-', got "bad")"},
                          FieldError{"workload_args.hello.options[2]", R"(must be a string starting with '-', got "")"}));
}

TEST(ValidateRunSpec, DescriptorIsRequiredForGenericAndOnlyForGeneric) {
  RunSpec spec = valid_spec();
  spec.core = Core::generic;
  EXPECT_THAT(validate_run_spec(spec), ElementsAre(FieldError{"core_descriptor", "required when core is generic"}));
  spec.core = Core::sparc;
  spec.core_descriptor_json = "{}";
  EXPECT_THAT(validate_run_spec(spec),
              ElementsAre(FieldError{"core_descriptor", R"(only allowed when core is generic, got core "sparc")"}));
}

TEST(ValidateRunSpec, DescriptorMustBeAJsonObject) {
  RunSpec spec = valid_spec();
  spec.core = Core::generic;
  spec.core_descriptor_json = "[1]";
  EXPECT_THAT(validate_run_spec(spec), ElementsAre(FieldError{"core_descriptor", R"(must be a JSON object, got "[1]")"}));
  spec.core_descriptor_json = "{not json";
  EXPECT_THAT(validate_run_spec(spec),
              ElementsAre(FieldError{"core_descriptor", R"(must be a JSON object, got "{not json")"}));
  spec.core_descriptor_json = "";
  EXPECT_THAT(validate_run_spec(spec), ElementsAre(FieldError{"core_descriptor", R"(must be a JSON object, got "")"}));
}

TEST(ValidateRunSpec, RejectsUnknownBackendEmptyModelAndCheckoutsOutOfRange) {
  RunSpec spec = valid_spec();
  spec.backend = "";
  spec.model = "";
  spec.checkouts = 0;
  EXPECT_THAT(validate_run_spec(spec),
              ElementsAre(FieldError{"backend", R"(must be one of vertex, claude, opencode, antigravity, direct, got "")"},
                          FieldError{"model", R"(must be a non-empty string, got "")"},
                          FieldError{"checkouts", "must be an integer from 1 to 1024, got 0"}));
  spec.backend = "vertex";
  spec.model = "gemini";
  spec.checkouts = 1025;
  EXPECT_THAT(validate_run_spec(spec), ElementsAre(FieldError{"checkouts", "must be an integer from 1 to 1024, got 1025"}));
}

TEST(ValidateRunSpec, ToolNamesFollowTheConfigurationsRuleAndAreUnique) {  // REQ-EXEC-7
  RunSpec spec = valid_spec();
  spec.tools = {"logs", "Logs", "logs", "x_1"};
  EXPECT_THAT(validate_run_spec(spec),
              ElementsAre(FieldError{"tools[1]", "must be a tool name: a lowercase letter, then lowercase "
                                                 R"(letters, digits and _, got "Logs")"},
                          FieldError{"tools[2]", "duplicate of tools[0]"}));
  EXPECT_TRUE(is_tool_name("x_1"));
  EXPECT_TRUE(is_tool_name("a"));
  EXPECT_FALSE(is_tool_name("_a"));
  EXPECT_FALSE(is_tool_name("a.b"));
  EXPECT_FALSE(is_tool_name(""));
}

TEST(ValidateRunSpec, ReportsEveryErrorAtOnce) {
  // REQ-PLAN-4, REQ-BUD-2
  RunSpec spec;
  spec.mesh_y = 300;
  spec.budget.max_wall_s = 0;
  spec.max_cycle = 0;
  EXPECT_THAT(
      validate_run_spec(spec),
      ElementsAre(
          FieldError{"mesh[1]", "must be an integer from 1 to 256, got 300"},
          FieldError{"workloads", "must be a non-empty array of workload names, got []"},
          FieldError{"objective", R"(must be a non-empty string (not only whitespace), got "")"},
          FieldError{"budget.max_wall_s", "must be an integer from 1 to 2592000, got 0"},
          FieldError{"max_cycle", "must be an integer from 1 to 2147483647, got 0"}));
}

TEST(ValidateRunSpec, SaysWhatTheJsonParserSaysForTheSameValue) {
  // REQ-PLAN-4, REQ-BUD-2: one rule, one message, whichever way the spec arrived.
  RunSpec spec = valid_spec();
  spec.mesh_y = 0;
  spec.budget.max_usd = -1;
  spec.checkouts = 2000;
  EXPECT_EQ(validate_run_spec(spec),
            errors_for(spec_json(R"("mesh":[1,0],"budget":{"max_usd":-1},"checkouts":2000)")));
}

// ---------------------------------------------------------------- run_spec_to_json

TEST(RunSpecToJson, WritesEveryFieldWithDefaultsInOrder) {
  // REQ-PLAN-1, REQ-PLAN-2, REQ-PLAN-3, REQ-BUD-1, REQ-VER-8
  EXPECT_EQ(run_spec_to_json(valid_spec()),
            R"({"core":"ariane","mesh":[1,1],"workloads":["hello"],"objective":"boot linux",)"
            R"("budget":{"max_iterations":10,"max_usd":20.0,"max_wall_s":3600},"coverage":false,)"
            R"("monitors":false,"run_every_workload":false,"waveform":true,"waveform_cycles":null,"parallel_workloads":null,"rtl_timeout":1000000,"max_cycle":null,"workload_args":{},"core_descriptor":null,)"
            R"("options":{"rtl_edits":false,"fast_path":true,"task_prompts":false,"build_only":false},)"
            R"("backend":null,"model":null,"checkouts":null,"dispatch":null,"tools":[],)"
            R"("replay":{"cache":null,"bypass":[],"from":null},"designs":[],"sweep":{},"baseline":true})");
}

TEST(RunSpecToJson, WritesSetFields) {
  RunSpec spec = valid_spec();
  spec.core = Core::generic;
  spec.mesh_x = 2;
  spec.mesh_y = 3;
  spec.workloads = {"hello", "mul"};
  spec.budget = {4, 0.5, 60};
  spec.coverage = true;
  spec.run_every_workload = true;
  spec.waveform = false;
  spec.waveform_cycles = 300;
  spec.parallel_workloads = 3;
  spec.rtl_timeout = 77;
  spec.max_cycle = 88;
  spec.workload_args["mul"] = {"f0", {"-fast_boot"}, 5, 6};
  spec.workload_args["hello"] = {"", {}};
  spec.core_descriptor_json = std::string(kDescriptor);
  spec.options = {true, false, true};
  spec.backend = "opencode";
  spec.model = "big";
  spec.checkouts = 8;
  spec.dispatch = Dispatch::batches;
  spec.tools = {"search_logs", "waveforms"};
  spec.replay = {std::vector<std::string>{"build"}, {"run"}, "R1"};
  EXPECT_EQ(
      run_spec_to_json(spec),
      R"({"core":"generic","mesh":[2,3],"workloads":["hello","mul"],"objective":"boot linux",)"
      R"("budget":{"max_iterations":4,"max_usd":0.5,"max_wall_s":60},"coverage":true,)"
      R"("monitors":false,"run_every_workload":true,"waveform":false,"waveform_cycles":300,"parallel_workloads":3,"rtl_timeout":77,"max_cycle":88,)"
      R"("workload_args":{"hello":{"finish_mask":null,"rtl_timeout":null,"max_cycle":null,)"
      R"("options":[]},"mul":{"finish_mask":"f0","rtl_timeout":5,"max_cycle":6,)"
      R"("options":["-fast_boot"]}},)"
      R"("core_descriptor":)" + std::string(kDescriptor) + R"(,"options":{"rtl_edits":true,"fast_path":false,"task_prompts":true,"build_only":false},)"
      R"("backend":"opencode","model":"big","checkouts":8,"dispatch":"batches",)"
      R"("tools":["search_logs","waveforms"],)"
      R"("replay":{"cache":["build"],"bypass":["run"],"from":"R1"},"designs":[],"sweep":{},"baseline":true})");
}

TEST(RunSpecToJson, PrettyFormIsIndentedAndReadsBackTheSame) {
  RunSpec spec = parsed(spec_json(generic_json() + R"(,"mesh":[2,2])"));
  std::string pretty = run_spec_to_json(spec, true);
  EXPECT_THAT(pretty, testing::StartsWith("{\n  \"core\": \"generic\",\n  \"mesh\": [\n    2,\n    2\n  ],"));
  EXPECT_THAT(pretty, testing::HasSubstr("\n  \"core_descriptor\": " + std::string(kDescriptor) + ",\n"));
  EXPECT_EQ(parsed(pretty), spec);
}

// ---------------------------------------------------------------- round trip

TEST(RunSpecRoundTrip, MinimalParsedSpecReadsBackEqual) {
  RunSpec spec = parsed(spec_json());
  EXPECT_EQ(parsed(run_spec_to_json(spec)), spec);
}

TEST(RunSpecRoundTrip, FullParsedSpecReadsBackEqual) {
  // REQ-PLAN-1
  RunSpec spec = parsed(R"({
    "core": "generic", "mesh": [16, 256], "workloads": ["hello", "mul", "h-e.S"],
    "objective": "tab\there \"quoted\" \\ \u00e9\nline two",
    "budget": {"max_iterations": 10000, "max_usd": 0.1, "max_wall_s": 1},
    "coverage": true, "rtl_timeout": 5, "max_cycle": 6,
    "workload_args": {"mul": {"finish_mask": "0xDeadBeef", "options": ["-nofast_boot"],
                              "rtl_timeout": 2147483647, "max_cycle": null},
                      "hello": {"options": ["-sim_run_args=+y", "-midas_args=-DZ"], "max_cycle": 7},
                      "h-e.S": {}},
    "core_descriptor": {"name": "c", "isa": "RV32IM", "top_module": "c", "files": ["piton/design/c.v"],
                        "reset_vector": "0x40000000", "memory_interface": {"protocol": "obi", "ports": 2},
                        "parameters": {"P": "32'h4000_0000", "Q": 1}, "link_script": "SECTIONS {\n}\n"},
    "options": {"rtl_edits": true, "fast_path": false, "task_prompts": true},
    "backend": "antigravity", "model": "m-1", "checkouts": 1024, "tools": ["grep_logs", "t2"]
  })");
  EXPECT_EQ(parsed(run_spec_to_json(spec)), spec);
  EXPECT_EQ(parsed(run_spec_to_json(spec, true)), spec);
  EXPECT_EQ(run_spec_to_json(parsed(run_spec_to_json(spec))), run_spec_to_json(spec));
}

TEST(RunSpecRoundTrip, CostLimitsKeepEveryBit) {
  // REQ-BUD-1
  for (double usd : {20.0, 0.1, 1.0 / 3.0, 1e-300, 999999.999999999, 123456.125, 5e-324}) {
    RunSpec spec = valid_spec();
    spec.budget.max_usd = usd;
    spec.rtl_timeout = kDefaultRtlTimeout;
    EXPECT_EQ(parsed(run_spec_to_json(spec)), spec) << run_spec_to_json(spec);
  }
}

TEST(RunSpecRoundTrip, UnsetRtlTimeoutComesBackAsTheDefault) {
  // REQ-VER-8: the JSON form always states the timeout in force, so a typed spec that
  // left it unset reads back with the default filled in, and the same effective timeout.
  RunSpec typed = valid_spec();
  ASSERT_EQ(typed.rtl_timeout, std::nullopt);
  RunSpec read_back = parsed(run_spec_to_json(typed));
  EXPECT_EQ(read_back.rtl_timeout, kDefaultRtlTimeout);
  EXPECT_EQ(read_back.effective_rtl_timeout(), typed.effective_rtl_timeout());
  typed.rtl_timeout = kDefaultRtlTimeout;
  EXPECT_EQ(read_back, typed);
}

TEST(RunSpecRoundTrip, EmptyFinishMaskTravelsAsNull) {
  // REQ-VER-7
  RunSpec spec = valid_spec();
  spec.rtl_timeout = kDefaultRtlTimeout;
  spec.workload_args["hello"].options = {"-fast_boot"};
  EXPECT_EQ(parsed(run_spec_to_json(spec)), spec);
}

}  // namespace
}  // namespace mace

namespace mace {
namespace {

std::vector<std::string> option_errors(const std::string& option) {
  std::string json = R"({"workloads": ["hello"], "objective": "o",
    "workload_args": {"hello": {"options": [")" + option + R"("]}}})";
  std::vector<std::string> out;
  for (const auto& e : parse_run_spec_json(json).errors) out.push_back(e.to_string());
  return out;
}

TEST(RunSpecOptions, TuningOptionsAreAccepted) {  // REQ-PLAN-4
  EXPECT_TRUE(option_errors("-sim_run_args=+verbose").empty());
  EXPECT_TRUE(option_errors("-nofast_boot").empty());
  EXPECT_TRUE(option_errors("-midas_args=-DTHREAD_COUNT=4").empty());
}

TEST(RunSpecOptions, OptionsThatRunCommandsOrMoveFilesAreRefused) {
  // sims runs these through a shell as maced's user; a run spec may come from any member
  // of the mace group.
  for (const char* option : {"-pre_process_cmd=rm", "-post_process_cmd=x", "-model_dir=/tmp",
                             "-build_id=other", "-x_tiles=4", "-foo_cmd=x"}) {
    auto errors = option_errors(option);
    ASSERT_EQ(errors.size(), 1u) << option;
    EXPECT_NE(errors[0].find("workload_args.hello.options[0]: -"), std::string::npos) << errors[0];
  }
}

TEST(RunSpecOptions, ShellMetacharactersAreRefused) {
  for (const char* option : {"-sim_run_args=$(id)", "-a=b;c", "-a=`x`", "-a=b c", "-a=b|c",
                             "-a=b>c", "-a=b&c", "-a=\\\"q\\\""}) {
    auto errors = option_errors(option);
    ASSERT_EQ(errors.size(), 1u) << option;
    EXPECT_NE(errors[0].find("through a shell"), std::string::npos) << errors[0];
  }
}

}  // namespace
}  // namespace mace
