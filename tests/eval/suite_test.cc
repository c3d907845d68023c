// The evaluation suite's JSON form: what is accepted, every rejection with the entry's
// index and field (REQ-EVAL-1), and what a fault applies to (REQ-EVAL-11).

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/plan.h"
#include "eval/suite.h"

namespace mace::eval {
namespace {

using ::testing::HasSubstr;

constexpr const char* kTaskSpec =
    R"({"core": "pico", "mesh": [1, 1], "workloads": ["hello"], "objective": "run hello"})";

std::string suite_with(const std::string& tasks, const std::string& faults = "[]") {
  return R"({"suite": "s", "faults": )" + faults + R"(, "tasks": )" + tasks + "}";
}

std::string task(const std::string& extra = "", const std::string& expert = "{}") {
  return R"({"id": "t1", "spec": )" + std::string(kTaskSpec) + R"(, "expert": )" + expert + extra + "}";
}

FieldErrors errors_of(const std::string& json) {
  auto parsed = parse_suite_json(json);
  EXPECT_FALSE(parsed.suite.has_value()) << json;
  return parsed.errors;
}

// The single error's "path: message".
std::string only_error(const std::string& json) {
  auto errors = errors_of(json);
  EXPECT_EQ(errors.size(), 1u) << json;
  std::string all;
  for (const auto& e : errors) all += e.to_string() + "\n";
  return all;
}

constexpr const char* kFaults = R"([
  {"name": "l15_ways", "kind": "config", "cores": ["pico"], "meshes": [[1, 1], [2, 1]],
   "config": {"caches": {"l15": {"size": 8192, "associativity": 3}}},
   "description": "an L1.5 with 3 ways"},
  {"name": "hit", "kind": "source", "cores": ["pico", "sparc"], "meshes": [[1, 1]],
   "edits": [{"path": "piton/design/chip/tile/l15/rtl/l15.v", "old": "a", "new": "b"}]}
])";

TEST(SuiteTest, AcceptsAWholeSuite) {  // REQ-EVAL-1
  auto parsed = parse_suite_json(suite_with(
      "[" + task(R"(, "area_budget": 120.5, "faults": ["l15_ways", "hit"])",
                 R"({"caches": {"l1d": {"size": 16384, "associativity": 4}}, "defines": ["B_DEF", "A_DEF"]})") +
          "]",
      kFaults));
  ASSERT_TRUE(parsed.suite) << (parsed.errors.empty() ? "" : parsed.errors[0].to_string());
  const Suite& suite = *parsed.suite;
  EXPECT_EQ(suite.name, "s");
  ASSERT_EQ(suite.tasks.size(), 1u);
  EXPECT_EQ(suite.tasks[0].spec.core, Core::pico);
  EXPECT_EQ(suite.tasks[0].expert.caches.at("l1d"), (CacheOverride{16384, 4}));
  EXPECT_EQ(suite.tasks[0].expert.defines, (std::vector<std::string>{"A_DEF", "B_DEF"}));
  EXPECT_EQ(suite.tasks[0].area_budget, 120.5);
  ASSERT_EQ(suite.faults.size(), 2u);
  EXPECT_EQ(suite.faults[1].kind, FaultKind::source);
  EXPECT_EQ(suite.faults[1].edits[0].new_text, "b");
}

// REQ-EVAL-1: each malformed entry is refused, naming its index and field.
TEST(SuiteTest, RejectsEachMalformedEntryNamingItsIndexAndField) {
  struct Case {
    std::string json;
    std::string expected;
  };
  const std::string ok = task();
  const std::vector<Case> cases = {
      {"[]", "must be an object, got []"},
      {"{\"suite\": \"s\", \"tasks\": []}", "tasks: must be a list of 1 to 64 tasks"},
      {R"({"tasks": [)" + ok + "]}", "suite: is required"},
      {R"({"suite": "S!", "tasks": [)" + ok + "]}", "suite: must be a name"},
      {suite_with("[" + ok + "]").substr(0, 20), "invalid JSON at line 1, column 16: a string that is never closed starts here"},
      // As a spec is: simdjson stops at a NUL, and a C string, a log or a terminal would too.
      {suite_with("[" + ok + "]") + std::string(1, '\0'), "a suite must not contain a NUL byte"},
      {suite_with("[" + ok + "]") + "\xff", "a suite must be UTF-8 text"},
      {std::string(kMaxSuiteJsonBytes + 1, ' '), "a suite must be at most 1048576 bytes of JSON, got more"},
      {R"({"suite": "s", "extra": 1, "tasks": [)" + ok + "]}", "extra: is not a field of a suite"},
      {suite_with("[" + ok + ", 3]"), "tasks[1]: must be an object"},
      {suite_with(R"([{"spec": )" + std::string(kTaskSpec) + R"(, "expert": {}}])"), "tasks[0].id: is required"},
      {suite_with(R"([{"id": "t", "expert": {}}])"), "tasks[0].spec: is required"},
      {suite_with(R"([{"id": "t", "spec": {"core": "arm", "workloads": ["x"], "objective": "o"}, "expert": {}}])"),
       "tasks[0].spec.core: must be one of"},
      {suite_with(R"([{"id": "t", "spec": )" + std::string(kTaskSpec) + "}]"), "tasks[0].expert: is required"},
      {suite_with("[" + task("", R"({"caches": {"l3": {"size": 1, "associativity": 1}}})") + "]"),
       "tasks[0].expert.caches.l3: is not a field of tasks[0].expert.caches"},
      {suite_with("[" + task("", R"({"caches": {"l1d": {"size": 0, "associativity": 4}}})") + "]"),
       "tasks[0].expert.caches.l1d.size: must be an integer from 1"},
      {suite_with("[" + task("", R"({"caches": {"l1d": {"size": 8192}}})") + "]"),
       "tasks[0].expert.caches.l1d: must give both size and associativity"},
      {suite_with("[" + task("", R"({"caches": {"l1d": {"size": 8192, "associativity": true}}})") + "]"),
       "tasks[0].expert.caches.l1d.associativity: must be an integer"},
      {suite_with("[" + task("", R"({"defines": ["lower"]})") + "]"),
       "tasks[0].expert.defines[0]: must be an UPPER_SNAKE_CASE define"},
      {suite_with("[" + task(R"(, "area_budget": -1)") + "]"), "tasks[0].area_budget: must be a number above 0"},
      {suite_with("[" + task(R"(, "faults": ["nope"])") + "]"), "tasks[0].faults[0]: names no fault of the suite"},
      {suite_with("[" + ok + ", " + ok + "]"), "tasks[1].id: repeats the task \"t1\""},
      {suite_with("[" + ok + "]", R"([{"name": "f", "kind": "wrong", "cores": ["pico"], "meshes": [[1,1]]}])"),
       "faults[0].kind: must be config or source"},
      {suite_with("[" + ok + "]", R"([{"name": "f", "kind": "config", "cores": ["pico"], "meshes": [[1,1]]}])"),
       "faults[0].config: is required for a config fault"},
      {suite_with("[" + ok + "]", R"([{"name": "f", "kind": "config", "cores": ["pico"], "meshes": [[1,1]], "config": {}}])"),
       "faults[0].config: changes nothing"},
      {suite_with("[" + ok + "]", R"([{"name": "f", "kind": "source", "cores": ["pico"], "meshes": [[1,1]]}])"),
       "faults[0].edits: is required for a source fault"},
      {suite_with("[" + ok + "]", R"([{"name": "f", "kind": "source", "cores": ["pico"], "meshes": [[1,1]], "edits": [{"path": "../x", "old": "a", "new": "b"}]}])"),
       "faults[0].edits[0].path: must be a relative path under piton/design/"},
      {suite_with("[" + ok + "]", R"([{"name": "f", "kind": "source", "cores": ["pico"], "meshes": [[1,1]], "edits": [{"path": "piton/design/a.v", "old": "a", "new": "a"}]}])"),
       "faults[0].edits[0].new: must differ from old"},
      {suite_with("[" + ok + "]", R"([{"name": "f", "kind": "config", "cores": ["arm"], "meshes": [[1,1]], "config": {"defines": ["X"]}}])"),
       "faults[0].cores[0]: must be one of"},
      {suite_with("[" + ok + "]", R"([{"name": "f", "kind": "config", "cores": ["pico"], "meshes": [[0,1]], "config": {"defines": ["X"]}}])"),
       "faults[0].meshes[0][0]: must be an integer from 1 to 256"},
      {suite_with("[" + ok + "]", R"([{"name": "f", "kind": "config", "cores": ["pico"], "config": {"defines": ["X"]}}])"),
       "faults[0].meshes: must list"},
      {suite_with("[" + ok + "]", R"([{"name": "f", "kind": "config", "cores": ["pico"], "meshes": [[1,1]], "config": {"defines": ["X"]}},
                                      {"name": "f", "kind": "config", "cores": ["pico"], "meshes": [[1,1]], "config": {"defines": ["Y"]}}])"),
       "faults[1].name: repeats the fault \"f\""},
  };
  for (const auto& c : cases) {
    auto errors = errors_of(c.json);
    std::string all;
    for (const auto& e : errors) all += e.to_string() + "\n";
    EXPECT_THAT(all, HasSubstr(c.expected)) << c.json;
  }
}

// REQ-EVAL-1: an expert configuration the adapter's configuration rules reject (Ariane's
// way rule: an L1D with more ways than the L1.5) is refused before any job.
TEST(SuiteTest, RejectsAnExpertConfigurationTheWayRuleRejects) {
  std::string ariane = R"({"id": "a", "spec": {"core": "ariane", "workloads": ["hello"], "objective": "o"},
    "expert": {"caches": {"l1d": {"size": 8192, "associativity": 8}, "l15": {"size": 8192, "associativity": 4}}}})";
  EXPECT_THAT(only_error(suite_with("[" + ariane + "]")),
              HasSubstr("tasks[0].expert.caches.l1d: l1d has 8 ways, more than the L1.5's 4"));
  // The same geometry is fine on pico, which has no such rule.
  std::string pico = R"({"id": "p", "spec": )" + std::string(kTaskSpec) +
                     R"(, "expert": {"caches": {"l1d": {"size": 8192, "associativity": 8}}}})";
  EXPECT_TRUE(parse_suite_json(suite_with("[" + pico + "]")).suite);
}

// The suite MACE ships parses, and its faults apply where docs/evaluation.md says.
TEST(SuiteTest, TheShippedSuiteIsValid) {  // REQ-EVAL-1
  const char* root = std::getenv("MACE_SOURCE_ROOT");
  ASSERT_NE(root, nullptr);
  std::ifstream in(std::string(root) + "/docs/evaluation/suite.json");
  std::stringstream text;
  text << in.rdbuf();
  auto parsed = parse_suite_json(text.str());
  ASSERT_TRUE(parsed.suite) << (parsed.errors.empty() ? "" : parsed.errors[0].to_string());
  EXPECT_EQ(parsed.suite->tasks.size(), 3u);
  const auto& s = *parsed.suite;
  EXPECT_TRUE(fault_applies(*s.fault("pico_alu_sub_adds"), *s.task("pico1x1-l1d")));
  EXPECT_TRUE(fault_applies(*s.fault("pico_l15_3way"), *s.task("pico1x1-l1d")));
  EXPECT_TRUE(fault_applies(*s.fault("pico_alu_sub_adds"), *s.task("pico2x1-l2")));
  EXPECT_TRUE(fault_applies(*s.fault("pico_l15_3way"), *s.task("pico2x1-l2")));
  EXPECT_TRUE(fault_applies(*s.fault("sparc_alu_sub_adds"), *s.task("sparc1x1-l1d")));
  EXPECT_FALSE(fault_applies(*s.fault("sparc_alu_sub_adds"), *s.task("pico1x1-l1d")));
}

TEST(SuiteTest, BoundsItsSizeAndCounts) {
  EXPECT_THAT(only_error(std::string(kMaxSuiteJsonBytes + 1, ' ')), HasSubstr("at most 1048576 bytes"));
  std::string many = "[";
  for (size_t i = 0; i <= kMaxSuiteTasks; ++i)
    many += (i ? "," : "") + std::string(R"({"id": "t)") + std::to_string(i) + R"(", "spec": )" + kTaskSpec + R"(, "expert": {}})";
  EXPECT_THAT(only_error(suite_with(many + "]")), HasSubstr("tasks: must be a list of 1 to 64 tasks"));
}

TEST(SuiteTest, AFaultAppliesOnlyToTasksNamingItWhoseCoreAndMeshItBreaks) {  // REQ-EVAL-11
  auto parsed = parse_suite_json(suite_with(
      "[" + task(R"(, "faults": ["l15_ways", "hit"])") + "," +
          R"({"id": "t2", "spec": {"core": "pico", "mesh": [2, 2], "workloads": ["hello"], "objective": "o"},
              "expert": {}, "faults": ["l15_ways"]},
             {"id": "t3", "spec": )" + kTaskSpec + R"(, "expert": {}}])",
      kFaults));
  ASSERT_TRUE(parsed.suite);
  const Suite& s = *parsed.suite;
  EXPECT_TRUE(fault_applies(*s.fault("l15_ways"), *s.task("t1")));
  EXPECT_TRUE(fault_applies(*s.fault("hit"), *s.task("t1")));
  EXPECT_FALSE(fault_applies(*s.fault("l15_ways"), *s.task("t2")));  // 2x2 is not a mesh it breaks
  EXPECT_FALSE(fault_applies(*s.fault("l15_ways"), *s.task("t3")));  // t3 does not name it
}

// REQ-EVAL-10, 11: a config fault changes only the configuration, laid over the expert's;
// the plan a fault check runs is what the plan parser reads back.
TEST(SuiteTest, AConfigFaultIsLaidOverTheExpertConfigurationAsOnePlan) {
  auto parsed = parse_suite_json(suite_with(
      "[" + task(R"(, "faults": ["l15_ways"])",
                 R"({"caches": {"l15": {"size": 16384, "associativity": 4}, "l1d": {"size": 8192, "associativity": 4}}, "defines": ["A_DEF"]})") + "]",
      kFaults));
  ASSERT_TRUE(parsed.suite);
  const auto& t = parsed.suite->tasks[0];
  SuiteConfig faulted = with_fault(t.expert, *parsed.suite->fault("l15_ways"));
  EXPECT_EQ(faulted.caches.at("l15"), (CacheOverride{8192, 3}));
  EXPECT_EQ(faulted.caches.at("l1d"), (CacheOverride{8192, 4}));
  Plan plan = parse_plan(config_plan_reply(t.spec, faulted));
  ASSERT_TRUE(plan.usable());
  ASSERT_EQ(plan.tasks.size(), 1u);
  EXPECT_EQ(plan.tasks[0].kind, TaskKind::config);
  EXPECT_EQ(plan.tasks[0].caches.at("l15"), (CacheOverride{8192, 3}));
  EXPECT_EQ(plan.tasks[0].config_rtl, (std::vector<std::string>{"A_DEF"}));
  EXPECT_TRUE(plan.skipped.empty());
  // A source fault changes no configuration.
  EXPECT_EQ(with_fault(t.expert, *parsed.suite->fault("hit")), t.expert);
}

}  // namespace
}  // namespace mace::eval
