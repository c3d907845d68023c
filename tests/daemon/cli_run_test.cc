// Whole runs planned by the command-line agents (REQ-PLAT-7): a real maced, with the fixture
// checkout in its pool, whose claude / opencode / agy is the scripted stand-in of
// tests/llm/standins/ (MACE_CLAUDE_CLI and friends), driven by the real `mace`. Where
// tests/llm/cli_backend_test.cc checks one backend call against an in-process server, these
// check what only a whole run shows: the spec's backend and model reach the CLI, the run
// loop takes the agent's plan and ends passed, every attempt lands in llm_calls, a tool of
// maced's configuration reaches the agent through the real `mace mcp` talking to this
// maced, and a rate-limited agent is waited out and tried again.
//
// The stand-ins need jq; without it these tests say so and are skipped.

#include <sqlite3.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/fixture_checkout.h"
#include "support/maced_instance.h"

namespace mace::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

bool have_jq() { return std::system("command -v jq >/dev/null 2>&1") == 0; }

constexpr const char* kPlan = "TASK: t | deps= | kind=config | build it";

// One row of llm_calls, read straight from maced's store (the client does not show them).
struct LlmCallRow {
  int iteration = 0;
  std::string phase, backend, model, error_class, reply_text, cost_source;
  int64_t input_tokens = 0, output_tokens = 0, thinking_tokens = 0, cache_read_tokens = 0,
          cache_write_tokens = 0;
  double cost_usd = 0;
  bool success = false;
};

std::vector<LlmCallRow> llm_calls(const std::string& state_dir, const std::string& run_id) {
  std::vector<LlmCallRow> rows;
  sqlite3* db = nullptr;
  // Read-only: maced owns the database and is still running.
  if (sqlite3_open_v2((state_dir + "/mace.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr) !=
      SQLITE_OK) {
    ADD_FAILURE() << "cannot open the store: " << sqlite3_errmsg(db);
    sqlite3_close(db);
    return rows;
  }
  sqlite3_busy_timeout(db, 5000);
  sqlite3_stmt* stmt = nullptr;
  const char* sql =
      "SELECT coalesce(iteration, -1), phase, backend, model, input_tokens, output_tokens, "
      "cost_usd, success, error_class, reply_text, thinking_tokens, cache_read_tokens, "
      "cache_write_tokens, cost_source FROM llm_calls WHERE run_id = ?1 ORDER BY id";
  if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << sqlite3_errmsg(db);
    sqlite3_close(db);
    return rows;
  }
  sqlite3_bind_text(stmt, 1, run_id.c_str(), -1, SQLITE_TRANSIENT);
  auto text = [&](int col) {
    const unsigned char* t = sqlite3_column_text(stmt, col);
    return t ? std::string(reinterpret_cast<const char*>(t)) : std::string();
  };
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    LlmCallRow r;
    r.iteration = sqlite3_column_int(stmt, 0);
    r.phase = text(1);
    r.backend = text(2);
    r.model = text(3);
    r.input_tokens = sqlite3_column_int64(stmt, 4);
    r.output_tokens = sqlite3_column_int64(stmt, 5);
    r.cost_usd = sqlite3_column_double(stmt, 6);
    r.success = sqlite3_column_int(stmt, 7) != 0;
    r.error_class = text(8);
    r.reply_text = text(9);
    r.thinking_tokens = sqlite3_column_int64(stmt, 10);
    r.cache_read_tokens = sqlite3_column_int64(stmt, 11);
    r.cache_write_tokens = sqlite3_column_int64(stmt, 12);
    r.cost_source = text(13);
    rows.push_back(r);
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return rows;
}

// What the stand-in recorded of one invocation (tests/llm/standins/common.sh).
struct StandinCall {
  std::vector<std::string> argv;
  std::string stdin_text, config, mcp;
};

std::vector<StandinCall> standin_calls(const std::string& record) {
  std::ifstream in(record);
  std::vector<StandinCall> calls;
  std::string line;
  std::string* section = nullptr;
  bool in_argv = false;
  while (std::getline(in, line)) {
    if (line == "---argv---") {
      calls.emplace_back();
      in_argv = true;
      section = nullptr;
      continue;
    }
    if (calls.empty()) continue;
    if (line == "---stdin---" || line == "---config---" || line == "---mcp---") {
      in_argv = false;
      section = line == "---stdin---"    ? &calls.back().stdin_text
                : line == "---config---" ? &calls.back().config
                                         : &calls.back().mcp;
      continue;
    }
    if (in_argv) calls.back().argv.push_back(line);
    else if (section) *section += line + "\n";
  }
  return calls;
}

bool has_arg_pair(const std::vector<std::string>& argv, const std::string& flag,
                  const std::string& value) {
  for (size_t i = 0; i + 1 < argv.size(); ++i)
    if (argv[i] == flag && argv[i + 1] == value) return true;
  return false;
}

std::string canonical(const std::string& path) {
  return std::filesystem::weakly_canonical(path).string();
}

struct Cli {
  const char* backend;     // the spec's "backend"
  const char* standin;     // tests/llm/standins/<standin>
  const char* override_var;
};

constexpr Cli kClaude{"claude", "claude", "MACE_CLAUDE_CLI"};
constexpr Cli kOpencode{"opencode", "opencode", "MACE_OPENCODE_CLI"};
constexpr Cli kAntigravity{"antigravity", "agy", "MACE_ANTIGRAVITY_CLI"};

class CliRunBase : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_jq()) GTEST_SKIP() << "the LLM CLI stand-ins need jq";
    write_config("");
  }

  // agy reports no cost: these runs count a flat estimate per call (REQ-BUD-5).
  void write_config(const std::string& tools_json,
                    const std::string& unreported_cost =
                        R"({"policy": "estimate", "usd_per_call": 0.01})") {
    dir_.write("maced.json", R"({"checkouts": [{"path": ")" + checkout_.root() + "\"}]" +
                                 ", \"llm\": {\"unreported_cost\": " + unreported_cost + "}" +
                                 (tools_json.empty() ? "" : ", \"tools\": " + tools_json) + "}");
  }

  // maced with the stand-in as its CLI; `env` scripts the stand-in (it inherits maced's
  // environment, as the real CLIs do).
  void start(const Cli& cli, std::map<std::string, std::string> env) {
    MacedOptions options;
    options.extra_args = {"--config", dir_.file("maced.json"), "--workloads",
                          source_root() + "/workloads"};
    options.process.set_env = std::move(env);
    options.process.set_env[cli.override_var] =
        source_root() + "/tests/llm/standins/" + cli.standin;
    options.process.set_env["MACE_STANDIN_RECORD"] = record();
    // The client maced hands the agent must be the one under test, found next to maced
    // (find_mace_client), not one an outer MACE_CLIENT names.
    options.process.unset_env.push_back("MACE_CLIENT");
    // Whether claude can authenticate is the test's to say, not the host's.
    options.process.unset_env.push_back("ANTHROPIC_API_KEY");
    maced_ = std::make_unique<MacedInstance>(dir_, options);
  }

  std::string spec(const Cli& cli, const std::string& extra = "",
                   const std::string& budget = R"({"max_iterations": 2})") const {
    return std::string(R"({"core": "pico", "mesh": [1, 1], "workloads": ["add.S"],
      "objective": "Plan the tile with an agent", "backend": ")") +
           cli.backend + R"(", "model": "agent-model-7", "budget": )" + budget + extra + "}";
  }

  std::string submit(const std::string& spec_text) {
    dir_.write("spec.json", spec_text);
    auto r = maced_->mace({"submit", dir_.file("spec.json")});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out.substr(0, r.out.find('\n'));
  }

  int watch(const std::string& id) {
    ProcessOptions options;
    options.timeout = std::chrono::seconds(90);
    auto r = maced_->mace({"watch", id}, options);
    EXPECT_NE(r.exit_code, -1) << "watch did not end: " << r.out << r.err;
    return r.exit_code;
  }

  std::string status(const std::string& id) { return maced_->mace({"status", id, "--json"}).out; }
  std::string record() const { return dir_.file("standin-record.txt"); }

  TempDir dir_;
  FixtureCheckout checkout_;
  std::unique_ptr<MacedInstance> maced_;
};

// The same for each of the three agents.
class CliRunTest : public CliRunBase, public ::testing::WithParamInterface<Cli> {};

// REQ-PLAT-7, REQ-PLAN-5, REQ-BUD-12, REQ-EXEC-18: the spec's CLI backend plans the run;
// its plan is built and run to passed; the one planning call is in llm_calls with the
// backend, model and reply; the fast path makes no call for the config task.
TEST_P(CliRunTest, TheAgentPlansTheRunAndItPasses) {
  const Cli cli = GetParam();
  start(cli, {{"MACE_STANDIN_REPLY", kPlan}});
  std::string id = submit(spec(cli));
  EXPECT_EQ(watch(id), 0) << maced_->mace({"logs", id}).out;
  std::string s = status(id);
  EXPECT_THAT(s, HasSubstr(R"("state":"passed")"));
  EXPECT_THAT(s, HasSubstr(R"("task_id":"t")"));
  EXPECT_THAT(s, HasSubstr(R"("instruction":"build it")"));
  EXPECT_EQ(checkout_.invocations("build"), 1);
  EXPECT_EQ(checkout_.invocations("run"), 1);

  auto calls = standin_calls(record());
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_TRUE(has_arg_pair(calls[0].argv, "--model", "agent-model-7"))
      << ::testing::PrintToString(calls[0].argv);
  // The planning prompt (argv for opencode and agy, standard input for claude).
  std::ostringstream all;
  for (const auto& a : calls[0].argv) all << a << "\n";
  all << calls[0].stdin_text;
  EXPECT_THAT(all.str(), HasSubstr("Plan the tile with an agent"));
  EXPECT_THAT(all.str(), HasSubstr("add.S"));
  // No tools in the spec: the agent is given no MCP server.
  EXPECT_EQ(calls[0].config.find("\"mcp"), std::string::npos) << calls[0].config;

  auto rows = llm_calls(maced_->state_dir(), id);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].phase, "planning");
  EXPECT_EQ(rows[0].iteration, 1);
  EXPECT_EQ(rows[0].backend, cli.backend);
  EXPECT_EQ(rows[0].model, "agent-model-7");
  EXPECT_TRUE(rows[0].success);
  EXPECT_EQ(rows[0].error_class, "");
  EXPECT_THAT(rows[0].reply_text, HasSubstr(kPlan));
  // REQ-BUD-5, REQ-BUD-12: what each vendor reports, kind by kind, and its cost.
  if (std::string(cli.backend) == "claude") {
    EXPECT_EQ(rows[0].input_tokens, 12);
    EXPECT_EQ(rows[0].cache_read_tokens, 50);
    EXPECT_EQ(rows[0].cache_write_tokens, 100);
    EXPECT_EQ(rows[0].output_tokens, 3);
    EXPECT_EQ(rows[0].thinking_tokens, 2);
    EXPECT_DOUBLE_EQ(rows[0].cost_usd, 0.0123);
    EXPECT_EQ(rows[0].cost_source, "reported");
  } else if (std::string(cli.backend) == "opencode") {
    EXPECT_EQ(rows[0].input_tokens, 120);
    EXPECT_EQ(rows[0].cache_read_tokens, 40);
    EXPECT_DOUBLE_EQ(rows[0].cost_usd, 0.00042);
    EXPECT_EQ(rows[0].cost_source, "reported");
    EXPECT_THAT(maced_->mace({"metrics", id, "--json"}).out,
                HasSubstr(R"("compute_cost_usd":0.00042)"));
  } else {
    EXPECT_EQ(rows[0].cost_source, "estimated");
    EXPECT_DOUBLE_EQ(rows[0].cost_usd, 0.01);
  }
}

// REQ-EXEC-7: a tool of maced's configuration that the spec names reaches the agent as an
// MCP server: maced writes a configuration that starts the real `mace` with this maced's
// socket and a session token; the agent calls the tool through it during planning; the
// program runs and its output comes back to the agent, whose reply (with the plan) is the
// planning call's. The session ends with the call.
TEST_P(CliRunTest, AConfiguredToolIsCalledThroughMaceMcpDuringPlanning) {
  const Cli cli = GetParam();
  std::string script = dir_.file("notes_tool.sh");
  dir_.write("notes_tool.sh",
             "#!/bin/sh\necho \"notes $MACE_TOOL_NAME.$MACE_TOOL_METHOD for $MACE_RUN_ID: $(cat)\"\n");
  ASSERT_EQ(::chmod(script.c_str(), 0755), 0);
  write_config(R"([{"name": "lab", "description": "The lab's notes",
    "methods": [{"name": "notes", "description": "Read the notes on a core",
                 "parameters": {"type": "object", "properties": {"core": {"type": "string"}}},
                 "command": [")" + script + R"("]}]}])");
  start(cli, {{"MACE_STANDIN_SCENARIO", "tool"},
              {"MACE_STANDIN_TOOL", "lab_notes"},
              {"MACE_STANDIN_TOOL_ARGS", R"({"core":"pico"})"},
              {"MACE_STANDIN_REPLY", kPlan}});
  std::string id = submit(spec(cli, R"(, "tools": ["lab"])"));
  EXPECT_EQ(watch(id), 0) << maced_->mace({"logs", id}).out;
  EXPECT_THAT(status(id), HasSubstr(R"("state":"passed")"));

  auto calls = standin_calls(record());
  ASSERT_EQ(calls.size(), 1u);
  const StandinCall& call = calls[0];
  // The MCP server maced configured: the real client, this maced's socket, a session.
  const std::string client = canonical(mace_binary());
  std::string token;
  if (std::string(cli.backend) == "opencode") {
    std::string head = R"("command":[")" + client + R"(","--socket",")" +
                       maced_->socket_path() + R"(","mcp","--session",")";
    auto at = call.config.find(head);
    ASSERT_NE(at, std::string::npos) << call.config;
    token = call.config.substr(at + head.size(), call.config.find('"', at + head.size()) - at - head.size());
  } else {
    std::string command = R"("command":")" + client + R"(","args":["--socket",")" +
                          maced_->socket_path() + R"(","mcp","--session",")";
    auto at = call.config.find(command);
    ASSERT_NE(at, std::string::npos) << call.config;
    token = call.config.substr(at + command.size(), call.config.find('"', at + command.size()) - at - command.size());
  }
  EXPECT_FALSE(token.empty());
  if (std::string(cli.backend) == "claude") {
    // Only maced's server, none of the user's own.
    EXPECT_THAT(call.argv, ::testing::Contains("--strict-mcp-config"));
  }
  // The exchange over `mace mcp`: the tool was listed and its output came back.
  EXPECT_THAT(call.mcp, HasSubstr(R"("name":"lab_notes")"));
  const std::string said = "notes lab.notes for " + id + R"(: {\"core\":\"pico\"})";
  EXPECT_THAT(call.mcp, HasSubstr(said));

  auto rows = llm_calls(maced_->state_dir(), id);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_TRUE(rows[0].success);
  EXPECT_THAT(rows[0].reply_text,
              HasSubstr("The tool answered: notes lab.notes for " + id + R"(: {"core":"pico"})"));

  // The session lived only as long as the call: its token opens nothing now.
  ProcessOptions mcp;
  mcp.stdin_text =
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})"
      "\n"
      R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})"
      "\n";
  auto stale = maced_->mace({"mcp", "--session", token}, mcp);
  EXPECT_THAT(stale.out + stale.err, HasSubstr("no such tool session"));
  EXPECT_THAT(stale.out, Not(HasSubstr("lab_notes")));
}

INSTANTIATE_TEST_SUITE_P(Agents, CliRunTest, ::testing::Values(kClaude, kOpencode, kAntigravity),
                         [](const auto& info) { return std::string(info.param.standin); });

// REQ-BUD-14, REQ-BUD-12: claude says its limit is hit ("resets 4pm (zone)"); maced waits
// (the reset time, capped at 300 s, scaled by MACE_LLM_RETRY_SCALE=0.01 to at most 3 s) and
// asks again; the second answer plans the run, which passes. Both attempts are recorded.
TEST_F(CliRunBase, ARateLimitedAgentIsWaitedOutAndTriedAgain) {
  std::filesystem::create_directory(dir_.file("queue"));
  dir_.write("queue/01", "rate_limit\n");
  dir_.write("queue/02", std::string("success\n") + kPlan + "\n");
  start(kClaude, {{"MACE_STANDIN_QUEUE", dir_.file("queue")}, {"MACE_LLM_RETRY_SCALE", "0.01"}});
  auto started = std::chrono::steady_clock::now();
  std::string id = submit(spec(kClaude));
  EXPECT_EQ(watch(id), 0) << maced_->mace({"logs", id}).out;
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_THAT(status(id), HasSubstr(R"("state":"passed")"));
  // Unscaled, the wait alone would be 30 s or more.
  EXPECT_LT(wall, 25.0);
  EXPECT_EQ(standin_calls(record()).size(), 2u);
  EXPECT_TRUE(std::filesystem::is_empty(dir_.file("queue")));

  auto rows = llm_calls(maced_->state_dir(), id);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].phase, "planning");
  EXPECT_FALSE(rows[0].success);
  EXPECT_EQ(rows[0].error_class, "rate_limit");
  EXPECT_EQ(rows[1].phase, "planning");
  EXPECT_TRUE(rows[1].success);
  EXPECT_THAT(rows[1].reply_text, HasSubstr(kPlan));
  // One iteration: the retry is part of the same planning call, not a re-plan.
  EXPECT_THAT(status(id), HasSubstr(R"("iterations":1)"));
}


// A plan whose build fails on the fixture, so every iteration fails and asks again.
constexpr const char* kFailingPlan =
    "TASK: t | deps= | kind=config | break it\nCONFIG_RTL: t | FAKE_BREAK_BUILD";

// REQ-BUD-5, REQ-BUD-9, REQ-BUD-12: each agent's own wire format carries a cost (claude's
// total_cost_usd, opencode's step cost; agy none, so maced's estimate); once the counted
// costs pass max_usd the run ends budget_exceeded, although iterations remain.
TEST_P(CliRunTest, ReportedCostsPassingMaxUsdEndTheRunBudgetExceeded) {
  const Cli cli = GetParam();
  write_config("", R"({"policy": "estimate", "usd_per_call": 0.6})");
  start(cli, {{"MACE_STANDIN_REPLY", kFailingPlan}, {"MACE_STANDIN_COST", "0.6"}});
  std::string id = submit(spec(cli, "", R"({"max_iterations": 9, "max_usd": 1.0})"));
  EXPECT_EQ(watch(id), 1);
  std::string s = status(id);
  EXPECT_THAT(s, HasSubstr(R"("state":"budget_exceeded")"));
  EXPECT_THAT(s, HasSubstr("cost limit reached"));
  auto rows = llm_calls(maced_->state_dir(), id);
  // At $0.60 a call, the first iteration's planning stays under $1.00 and the second's
  // passes it (the plan repeating a failed change is sent back and asked again, at the
  // same price): no third iteration is planned though nine are allowed.
  EXPECT_THAT(s, HasSubstr(R"("iterations":2)"));
  double total = 0;
  for (const auto& r : rows) {
    EXPECT_DOUBLE_EQ(r.cost_usd, 0.6) << r.phase;
    EXPECT_EQ(r.cost_source, std::string(cli.backend) == "antigravity" ? "estimated" : "reported");
    EXPECT_LE(r.iteration, 2);
    total += r.cost_usd;
  }
  EXPECT_GE(total, 1.0);
}

// REQ-BUD-5: under maced's default policy a backend that reports no cost is refused at
// submit, saying what to set; nothing is queued and the agent is never started.
TEST_F(CliRunBase, ABackendReportingNothingIsRefusedAtSubmitUnderTheRefusePolicy) {
  write_config("", R"({"policy": "refuse"})");
  start(kAntigravity, {{"MACE_STANDIN_REPLY", kPlan}});
  dir_.write("spec.json", spec(kAntigravity));
  auto r = maced_->mace({"submit", dir_.file("spec.json")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("antigravity (agy) reports neither tokens nor cost"));
  EXPECT_THAT(r.err, HasSubstr(R"("unreported_cost": {"policy": "estimate", "usd_per_call": N})"));
  EXPECT_TRUE(standin_calls(record()).empty());
  EXPECT_THAT(maced_->mace({"list", "--json"}).out, Not(HasSubstr("antigravity")));
}

// REQ-BUD-5, REQ-BUD-12: under the estimate policy the same backend runs, each call counts
// the estimate, the run's log says so once, and `mace calls` marks the cost estimated.
TEST_F(CliRunBase, ABackendReportingNothingCountsTheEstimateAndSaysSo) {
  write_config("", R"({"policy": "estimate", "usd_per_call": 0.25})");
  start(kAntigravity, {{"MACE_STANDIN_REPLY", kPlan}});
  std::string id = submit(spec(kAntigravity));
  EXPECT_EQ(watch(id), 0);
  std::string logs = maced_->mace({"logs", id}).out;
  EXPECT_THAT(logs, HasSubstr("antigravity/agent-model-7 reported neither tokens nor cost: each "
                              "such call counts $0.2500 toward budget.max_usd"));
  EXPECT_THAT(maced_->mace({"calls", id}).out, HasSubstr("~$0.2500 (estimate)"));
  EXPECT_THAT(maced_->mace({"calls", id, "--json"}).out,
              HasSubstr(R"("cost_usd":0.25,"cost_source":"estimated")"));
  EXPECT_THAT(maced_->mace({"metrics", id, "--json"}).out, HasSubstr(R"("compute_cost_usd":0.25)"));
}

// REQ-BUD-5, REQ-BUD-12: a model Claude Code has no price for (its costBasis "unknown"):
// the guess it prints is not counted, `mace calls` shows the cost as unknown, not 0, and
// the run's log names the model.
TEST_F(CliRunBase, AnUnknownModelsCostIsUnknownAndNamedInTheLog) {
  write_config("", R"({"policy": "refuse"})");
  start(kClaude, {{"MACE_STANDIN_REPLY", kPlan}, {"MACE_STANDIN_COST_BASIS", "unknown"}});
  std::string id = submit(spec(kClaude));
  EXPECT_EQ(watch(id), 0);
  EXPECT_THAT(maced_->mace({"logs", id}).out,
              HasSubstr("claude/agent-model-7 reported tokens but no cost, and no price is known "
                        "for its model: such calls count $0 toward budget.max_usd"));
  EXPECT_THAT(maced_->mace({"calls", id}).out, HasSubstr("cost unknown"));
  EXPECT_THAT(maced_->mace({"calls", id, "--json"}).out,
              HasSubstr(R"("cost_usd":null,"cost_source":"unknown")"));
  auto rows = llm_calls(maced_->state_dir(), id);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].cost_source, "unknown");
  EXPECT_EQ(rows[0].input_tokens, 12);  // the tokens are still recorded
}

// REQ-PLAT-7: claude not logged in and no key: submit refuses, saying what to do, and the
// agent is never asked anything.
TEST_F(CliRunBase, AClaudeThatCannotAuthenticateIsRefusedAtSubmit) {
  start(kClaude, {{"MACE_STANDIN_AUTH", "none"}});
  dir_.write("spec.json", spec(kClaude));
  auto r = maced_->mace({"submit", dir_.file("spec.json")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("claude: not logged in, and no ANTHROPIC_API_KEY"));
  EXPECT_THAT(r.err, HasSubstr("claude auth login"));
  EXPECT_TRUE(standin_calls(record()).empty());
}

}  // namespace
}  // namespace mace::testing
