// maced's configuration file: every field optional, unknown ones refused, errors named.

#include "maced/config.h"
#include "config_errors.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <map>

namespace mace {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(MacedConfig, EmptyObjectGivesTheDefaults) {  // REQ-PLAT-7
  auto parsed = parse_maced_config("{}");
  ASSERT_TRUE(parsed.config);
  EXPECT_EQ(parsed.config->llm_backend, "vertex");
  EXPECT_THAT(parsed.config->checkouts, IsEmpty());
}

TEST(MacedConfig, ReadsCheckoutsAndTheLlmDefaults) {
  auto parsed = parse_maced_config(R"({
    "checkouts": [{"path": "/srv/a"}, {"path": "/srv/b", "node": "local"}],
    "llm": {"backend": "claude", "model": "sonnet",
            "prices": {"gemini-2.5-flash": {"input": 0.5, "output": 3}}}})");
  ASSERT_TRUE(parsed.config) << parsed.errors.front().to_string();
  ASSERT_EQ(parsed.config->checkouts.size(), 2u);
  EXPECT_EQ(parsed.config->checkouts[0].node, "local");
  EXPECT_EQ(parsed.config->checkouts[1].node, "local");
  EXPECT_EQ(parsed.config->llm_backend, "claude");
  EXPECT_EQ(parsed.config->llm_model, "sonnet");
  EXPECT_EQ(parsed.config->llm_prices_json, R"({"gemini-2.5-flash":{"input":0.5,"output":3}})");
}

TEST(MacedConfig, EveryProblemIsNamedByItsPath) {
  EXPECT_THAT(errors_of(R"({"checkout": []})"),
              ElementsAre("checkout: unknown field; expected one of: checkouts, llm, tools, replay, "
                          "access, connections, queue, executor, model_store, compiler_cache, "
                          "evidence"));
  EXPECT_THAT(errors_of(R"({"checkouts": [{"path": "/a"}, {"path": "/a"}]})"),
              ElementsAre("checkouts[1].path: lists \"/a\" a second time"));
  EXPECT_THAT(errors_of(R"({"checkouts": [{"node": "x"}]})"),
              ElementsAre("checkouts[0].path: is required"));
  EXPECT_THAT(errors_of(R"({"llm": {"prices": {"m": {"input": -1}}}})").size(), 1u);
  EXPECT_EQ(errors_of(R"({"llm": {"prices": {"m": {"input": -1}}}})")[0].rfind("llm.prices.m", 0), 0u);
  EXPECT_THAT(errors_of("[1]"), ElementsAre("must be a JSON object"));
  EXPECT_EQ(errors_of("{").size(), 1u);
}

// A node is a Slurm node; without Slurm the checkout's work would run on maced's machine
// while its owner believes it runs there.
TEST(MacedConfig, ACheckoutOnAnotherMachineNeedsTheSlurmExecutor) {
  EXPECT_THAT(errors_of(R"({"checkouts": [{"path": "/srv/a"}, {"path": "/srv/b", "node": "n2"}]})"),
              ElementsAre("checkouts[1].node: names a machine (\"n2\"), but executor.kind is \"local\": every "
                          "checkout's work runs on maced's own machine; leave the node out, or set "
                          "executor.kind to \"slurm\""));
}

// ---------------------------------------------------------------- tools (REQ-EXEC-7)

// A configuration with one tool whose one method has exactly `method_fields`.
std::string with_method(const std::string& method_fields) {
  return R"({"tools": [{"name": "logs", "description": "Reads logs", "methods": [{)" +
         method_fields + R"(}]}]})";
}
const std::string kMethod = R"("name": "grep", "description": "Lines", "command": ["/bin/grep", "-n"])";

TEST(MacedConfig, ReadsToolsWithTheirMethodsAndLimits) {  // REQ-EXEC-7
  auto parsed = parse_maced_config(R"({"tools": [
    {"name": "logs", "description": "Reads the run's logs", "methods": [
      {"name": "grep", "description": "Lines matching a pattern",
       "parameters": {"type": "object", "properties": {"pattern": {"type": "string"}},
                      "required": ["pattern"]},
       "command": ["/usr/local/bin/grep-logs", "--json", ""], "timeout_s": 5,
       "max_output_bytes": 1000},
      {"name": "tail_2", "description": "The end", "command": ["/usr/bin/tail"]}]},
    {"name": "waves", "description": "Waveforms", "methods": [
      {"name": "grep", "description": "Same method name, another tool", "command": ["/bin/true"]}]}]})");
  ASSERT_TRUE(parsed.config) << parsed.errors.front().to_string();
  const auto& tools = parsed.config->tools;
  ASSERT_EQ(tools.size(), 2u);
  EXPECT_EQ(tools[0].name, "logs");
  EXPECT_EQ(tools[0].description, "Reads the run's logs");
  ASSERT_EQ(tools[0].methods.size(), 2u);
  const auto& grep = tools[0].methods[0];
  EXPECT_EQ(grep.name, "grep");
  EXPECT_EQ(grep.description, "Lines matching a pattern");
  EXPECT_EQ(grep.parameters_schema_json,
            R"({"type":"object","properties":{"pattern":{"type":"string"}},"required":["pattern"]})");
  EXPECT_EQ(grep.command, (std::vector<std::string>{"/usr/local/bin/grep-logs", "--json", ""}));
  EXPECT_EQ(grep.timeout, std::chrono::seconds(5));
  EXPECT_EQ(grep.max_output_bytes, 1000u);
  // Left out: no parameters, a minute, 64 KiB.
  const auto& tail = tools[0].methods[1];
  EXPECT_EQ(tail.parameters_schema_json, R"({"type":"object","properties":{}})");
  EXPECT_EQ(tail.timeout, std::chrono::seconds(60));
  EXPECT_EQ(tail.max_output_bytes, 65536u);
  EXPECT_EQ(tools[1].methods[0].name, "grep");
  EXPECT_EQ(tool_names(*parsed.config), (std::vector<std::string>{"logs", "waves"}));
}

TEST(MacedConfig, NoToolsIsNone) {
  auto parsed = parse_maced_config(R"({"tools": []})");
  ASSERT_TRUE(parsed.config);
  EXPECT_THAT(parsed.config->tools, IsEmpty());
  EXPECT_THAT(parse_maced_config("{}").config->tools, IsEmpty());
}

TEST(MacedConfig, EveryBadToolIsNamedByItsPath) {  // REQ-EXEC-7
  const std::string name_rule = "must be a lowercase letter, then lowercase letters, digits and _, got ";
  EXPECT_THAT(errors_of(R"({"tools": {}})"),
              ElementsAre(R"(tools: must be a list of {"name", "description", "methods"})"));
  EXPECT_THAT(errors_of(R"({"tools": [7]})"),
              ElementsAre(R"(tools[0]: must be an object with "name", "description" and "methods")"));
  EXPECT_THAT(errors_of(R"({"tools": [{}]})"),
              ElementsAre("tools[0].name: is required", "tools[0].description: is required",
                          "tools[0].methods: is required"));
  EXPECT_THAT(errors_of(R"({"tools": [{"name": "Logs", "description": "", "methods": [], "x": 1}]})"),
              ElementsAre("tools[0].x: unknown field; expected one of: name, description, methods",
                          "tools[0].name: " + name_rule + R"("Logs")",
                          "tools[0].description: must be a non-empty string",
                          "tools[0].methods: must be a non-empty list of methods, got []"));
  EXPECT_THAT(errors_of(R"({"tools": [{"name": "a-b", "description": "d", "methods": {}}]})"),
              ElementsAre("tools[0].name: " + name_rule + R"("a-b")",
                          "tools[0].methods: must be a non-empty list of methods, got {}"));
  EXPECT_THAT(errors_of(R"({"tools": [{"name": 3, "description": "d", "methods": [1]}]})"),
              ElementsAre("tools[0].name: " + name_rule + "3",
                          R"(tools[0].methods[0]: must be an object with "name", "description", "parameters" and "command")"));
  std::string one = R"({"name": "logs", "description": "d", "methods": [{)" + kMethod + "}]}";
  EXPECT_THAT(errors_of(R"({"tools": [)" + one + "," + one + "]}"),
              ElementsAre(R"(tools[1].name: names tool "logs" a second time)"));
}

TEST(MacedConfig, ToolsMayNotTakeTheNamesOfMacesOwn) {  // REQ-EXEC-7
  for (std::string name : {"diagnostics", "rtl_edit", "ut_edit_0badf00d"}) {
    EXPECT_THAT(errors_of(R"({"tools": [{"name": ")" + name + R"(", "description": "d", "methods": [{)" +
                          kMethod + "}]}]}"),
                ElementsAre("tools[0].name: \"" + name + "\" is the name of one of MACE's own tools "
                            "(diagnostics, rtl_edit, ut_edit_*); choose another"));
  }
}

TEST(MacedConfig, EveryBadMethodIsNamedByItsPath) {  // REQ-EXEC-7
  const std::string at = "tools[0].methods[0].";
  EXPECT_THAT(errors_of(with_method("")),
              ElementsAre(at + "name: is required", at + "description: is required",
                          at + "command: is required"));
  EXPECT_THAT(errors_of(with_method(kMethod + R"(, "timeout": 5)")),
              ElementsAre(at + "timeout: unknown field; expected one of: name, description, "
                               "parameters, command, timeout_s, max_output_bytes"));
  EXPECT_THAT(errors_of(with_method(R"("name": "_x", "description": 1, "command": ["/bin/true"])")),
              ElementsAre(at + R"(name: must be a lowercase letter, then lowercase letters, digits and _, got "_x")",
                          at + "description: must be a non-empty string"));
  EXPECT_THAT(errors_of(R"({"tools": [{"name": "logs", "description": "d", "methods": [{)" + kMethod +
                        "}, {" + kMethod + "}]}]}"),
              ElementsAre(R"(tools[0].methods[1].name: names method "grep" a second time)"));
}

TEST(MacedConfig, ParametersMustBeAnObjectSchema) {  // REQ-EXEC-7
  const std::string at = "tools[0].methods[0].parameters: must be a JSON-schema object with \"type\": \"object\", got ";
  EXPECT_THAT(errors_of(with_method(kMethod + R"(, "parameters": "x")")), ElementsAre(at + R"("x")"));
  EXPECT_THAT(errors_of(with_method(kMethod + R"(, "parameters": {"properties": {}})")),
              ElementsAre(at + R"({"properties":{}})"));
  EXPECT_THAT(errors_of(with_method(kMethod + R"(, "parameters": {"type": "array"})")),
              ElementsAre(at + R"({"type":"array"})"));
  EXPECT_THAT(errors_of(with_method(kMethod + R"(, "parameters": {"type": ["object"]})")),
              ElementsAre(at + R"({"type":["object"]})"));
}

TEST(MacedConfig, CommandMustBeAnArgvStartingWithAnAbsolutePath) {  // REQ-EXEC-7
  const std::string at = "tools[0].methods[0].command";
  const std::string base = R"("name": "grep", "description": "d", "command": )";
  const std::string list_rule = ": must be a non-empty list of strings: the program's absolute path, then its arguments; got ";
  EXPECT_THAT(errors_of(with_method(base + "[]")), ElementsAre(at + list_rule + "[]"));
  EXPECT_THAT(errors_of(with_method(base + R"("/bin/grep -n")")),
              ElementsAre(at + list_rule + R"("/bin/grep -n")"));
  EXPECT_THAT(errors_of(with_method(base + R"(["grep", "-n"])")),
              ElementsAre(at + R"([0]: must be an absolute path, got "grep")"));
  EXPECT_THAT(errors_of(with_method(base + R"([""])")),
              ElementsAre(at + R"([0]: must be an absolute path, got "")"));
  EXPECT_THAT(errors_of(with_method(base + R"(["/bin/grep", 5, "a\u0000b"])")),
              ElementsAre(at + "[1]: must be a string, got 5", at + "[2]: must not contain a NUL character"));
}

TEST(MacedConfig, LimitsMustBePositiveIntegersWithinBounds) {  // REQ-EXEC-7
  const std::string at = "tools[0].methods[0].";
  const std::string seconds = "timeout_s: must be an integer from 1 to 86400 (seconds), got ";
  const std::string bytes = "max_output_bytes: must be an integer from 1 to 16777216 (bytes), got ";
  EXPECT_THAT(errors_of(with_method(kMethod + R"(, "timeout_s": 0, "max_output_bytes": -1)")),
              ElementsAre(at + seconds + "0", at + bytes + "-1"));
  EXPECT_THAT(errors_of(with_method(kMethod + R"(, "timeout_s": 1.5, "max_output_bytes": "10")")),
              ElementsAre(at + seconds + "1.5", at + bytes + R"("10")"));
  EXPECT_THAT(errors_of(with_method(kMethod + R"(, "timeout_s": 86401, "max_output_bytes": 16777217)")),
              ElementsAre(at + seconds + "86401", at + bytes + "16777217"));
  EXPECT_THAT(errors_of(with_method(kMethod + R"(, "timeout_s": true)")), ElementsAre(at + seconds + "true"));
  EXPECT_THAT(errors_of(with_method(kMethod + R"(, "timeout_s": 86400, "max_output_bytes": 16777216)")),
              IsEmpty());
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

// REQ-REPLAY-2: maced's default for runs whose spec leaves `replay.cache` out.
TEST(MacedConfig, ReplayCacheDefaultsToBuildsAndRunsAndNamesEveryMistake) {
  auto defaults = parse_maced_config("{}");
  ASSERT_TRUE(defaults.config);
  EXPECT_THAT(defaults.config->replay_cache, ElementsAre("build", "run"));
  auto all = parse_maced_config(R"({"replay": {"cache": ["prompt", "build", "run"]}})");
  ASSERT_TRUE(all.config);
  EXPECT_THAT(all.config->replay_cache, ElementsAre("prompt", "build", "run"));
  auto none = parse_maced_config(R"({"replay": {"cache": []}})");
  ASSERT_TRUE(none.config);
  EXPECT_THAT(none.config->replay_cache, IsEmpty());
  EXPECT_THAT(errors_of(R"({"replay": {"cache": ["build", "link", "build"], "bypass": ["run"]}})"),
              ElementsAre("replay.bypass: unknown field; expected one of: cache",
                          "replay.cache[1]: must be one of prompt, build, run",
                          "replay.cache[2]: lists \"build\" a second time"));
  EXPECT_THAT(errors_of(R"({"replay": {"cache": "build"}})"),
              ElementsAre("replay.cache: must be a list of prompt, build, run"));
}

// docs/operating-maced.md: how many clients maced serves at once and how long one may sit idle.
TEST(MacedConfig, ConnectionLimitsDefaultAndAreCheckedByPath) {
  auto defaults = parse_maced_config("{}");
  ASSERT_TRUE(defaults.config);
  EXPECT_EQ(defaults.config->connections.max_connections, 256u);
  EXPECT_EQ(defaults.config->connections.idle_timeout, std::chrono::seconds(600));
  auto set = parse_maced_config(R"({"connections": {"max": 3, "idle_timeout_s": 86400}})");
  ASSERT_TRUE(set.config) << set.errors.front().to_string();
  EXPECT_EQ(set.config->connections.max_connections, 3u);
  EXPECT_EQ(set.config->connections.idle_timeout, std::chrono::seconds(86400));
  auto one = parse_maced_config(R"({"connections": {"idle_timeout_s": 1}})");
  ASSERT_TRUE(one.config);
  EXPECT_EQ(one.config->connections.max_connections, 256u);
  EXPECT_EQ(one.config->connections.idle_timeout, std::chrono::seconds(1));

  EXPECT_THAT(errors_of(R"({"connections": {"max": 0, "idle_timeout_s": -5}})"),
              ElementsAre("connections.max: must be an integer from 1 to 65536 (connections), got 0",
                          "connections.idle_timeout_s: must be an integer from 1 to 86400 "
                          "(seconds), got -5"));
  EXPECT_THAT(errors_of(R"({"connections": {"max": 65537, "idle_timeout_s": "10m"}})"),
              ElementsAre("connections.max: must be an integer from 1 to 65536 (connections), got 65537",
                          "connections.idle_timeout_s: must be an integer from 1 to 86400 "
                          "(seconds), got \"10m\""));
  EXPECT_THAT(errors_of(R"({"connections": {"max": 2.5, "idle": 1}})"),
              ElementsAre("connections.idle: unknown field; expected one of: max, idle_timeout_s, max_per_user, "
                          "admin_reserve, max_pending_mb_per_user",
                          "connections.max: must be an integer from 1 to 65536 (connections), got 2.5"));
  EXPECT_THAT(errors_of(R"({"connections": 256})"),
              ElementsAre("connections: must be an object with \"max\", \"idle_timeout_s\", \"max_per_user\", "
                          "\"admin_reserve\" and \"max_pending_mb_per_user\""));
}

// docs/operating-maced.md "Limits": what one user may hold of maced's connections and of
// its memory for messages under way, and the places kept for administrators.
TEST(MacedConfig, PerUserConnectionLimitsDefaultAndAreCheckedByPath) {
  auto defaults = parse_maced_config("{}");
  ASSERT_TRUE(defaults.config);
  EXPECT_EQ(defaults.config->connections.max_per_user, 32u);
  EXPECT_EQ(defaults.config->connections.admin_reserve, 8u);
  EXPECT_EQ(defaults.config->connections.max_pending_bytes_per_user, std::size_t{64} << 20);
  auto set = parse_maced_config(
      R"({"connections": {"max": 100, "max_per_user": 5, "admin_reserve": 10, "max_pending_mb_per_user": 16}})");
  ASSERT_TRUE(set.config) << set.errors.front().to_string();
  EXPECT_EQ(set.config->connections.max_per_user, 5u);
  EXPECT_EQ(set.config->connections.admin_reserve, 10u);
  EXPECT_EQ(set.config->connections.max_pending_bytes_per_user, std::size_t{16} << 20);
  // A small limit takes a small reserve by default, so everyone else still has places.
  EXPECT_EQ(parse_maced_config(R"({"connections": {"max": 4}})").config->connections.admin_reserve, 1u);
  EXPECT_EQ(parse_maced_config(R"({"connections": {"max": 2}})").config->connections.admin_reserve, 0u);

  EXPECT_THAT(errors_of(R"({"connections": {"max": 10, "admin_reserve": 10}})"),
              ElementsAre("connections.admin_reserve: must be below connections.max (10), got 10"));
  EXPECT_THAT(errors_of(R"({"connections": {"max_per_user": 0, "max_pending_mb_per_user": 0}})"),
              ElementsAre("connections.max_per_user: must be an integer from 1 to 65536 (connections), got 0",
                          "connections.max_pending_mb_per_user: must be an integer from 1 to 65536 (MiB), got 0"));
}

// docs/operating-maced.md: how much of the queue one user may hold.
TEST(MacedConfig, QueueLimitsDefaultAndAreCheckedByPath) {
  auto defaults = parse_maced_config("{}");
  ASSERT_TRUE(defaults.config);
  EXPECT_EQ(defaults.config->queue.max_runs_per_user, 100);
  EXPECT_EQ(defaults.config->queue.max_eval_jobs_per_user, 2000);
  auto set = parse_maced_config(R"({"queue": {"max_runs_per_user": 3, "max_eval_jobs_per_user": 7}})");
  ASSERT_TRUE(set.config) << set.errors.front().to_string();
  EXPECT_EQ(set.config->queue.max_runs_per_user, 3);
  EXPECT_EQ(set.config->queue.max_eval_jobs_per_user, 7);
  auto one = parse_maced_config(R"({"queue": {"max_eval_jobs_per_user": 1}})");
  ASSERT_TRUE(one.config);
  EXPECT_EQ(one.config->queue.max_runs_per_user, 100);
  EXPECT_EQ(one.config->queue.max_eval_jobs_per_user, 1);

  EXPECT_THAT(errors_of(R"({"queue": {"max_runs_per_user": 0, "max_eval_jobs_per_user": 1000001}})"),
              ElementsAre("queue.max_runs_per_user: must be an integer from 1 to 100000 (runs), got 0",
                          "queue.max_eval_jobs_per_user: must be an integer from 1 to 1000000 "
                          "(jobs), got 1000001"));
  EXPECT_THAT(errors_of(R"({"queue": {"max_runs": 5}})"),
              ElementsAre("queue.max_runs: unknown field; expected one of: max_runs_per_user, "
                          "max_eval_jobs_per_user"));
  EXPECT_THAT(errors_of(R"({"queue": 100})"),
              ElementsAre("queue: must be an object with \"max_runs_per_user\" and "
                          "\"max_eval_jobs_per_user\""));
}

}  // namespace
}  // namespace mace

namespace mace {
namespace {

TEST(MacedConfigAccess, ReadsTheAdminGroupAndWhatOthersSee) {
  auto parsed = parse_maced_config(R"({"access": {"admin_group": "mace-admin", "others_see": "everything"}})");
  ASSERT_TRUE(parsed.config) << (parsed.errors.empty() ? "" : parsed.errors[0].to_string());
  EXPECT_EQ(parsed.config->admin_group, "mace-admin");
  EXPECT_EQ(parsed.config->others_see, service::OthersSee::everything);
  auto defaults = parse_maced_config("{}");
  EXPECT_EQ(defaults.config->admin_group, "");
  EXPECT_EQ(defaults.config->others_see, service::OthersSee::queue);
}

TEST(MacedConfigAccess, BadAccessFieldsAreNamedByTheirPaths) {
  auto parsed = parse_maced_config(
      R"({"access": {"admin_group": "Mace Admins; rm -rf", "others_see": "all", "admins": []}})");
  EXPECT_FALSE(parsed.config);
  std::vector<std::string> paths;
  for (const auto& e : parsed.errors) paths.push_back(e.path);
  EXPECT_THAT(paths, ::testing::UnorderedElementsAre("access.admin_group", "access.others_see",
                                                     "access.admins"));
}

}  // namespace
}  // namespace mace
