// mace: the command-line client of maced.

#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "commands.h"
#include "exit_codes.h"
#include "maced_connection.h"

namespace {

using namespace mace::client;

constexpr const char* kUsage = R"(usage: mace [--socket PATH] [--json] COMMAND [ARGS]

Commands:
  submit FILE [--watch] [--backend B] [--model M]
                          submit a run spec (JSON; "-" reads standard input) and print its
                          run ID; the LLM is --backend/--model, else the spec's, else vertex
                          with gemini-2.5-flash
  watch RUN               show the run's progress until it ends
  status [RUN]            one run in detail, or the daemon and its active runs
  list [--state S,..] [--mine] [--limit N]
                          runs, newest first
  logs RUN                the run's recorded log
  logs RUN --build | --sim WORKLOAD [--task T] [--iteration N] [--tail N] [--follow]
                          a task's build log or a workload's sim.log: the run's own copy,
                          read through maced (newest task and iteration unless named);
                          --follow waits for more until the run ends
  logs RUN --list         every log the run kept (narrowing rebuilds' too), with its size,
                          what was cut, and what the retention rule removed
  logs RUN --file ID [--tail N]
                          one log of --list by its ID
  report RUN -o FILE.html one self-contained HTML page of the run: summary, task DAGs,
                          timeline, verdicts, narrowing, diagnoses, LLM calls
  metrics RUN             successful tasks, iterations, failures recovered, time, cost
  calls RUN [--full]      the run's LLM calls: phase, task, tokens, cost, outcome;
                          --full adds each prompt and reply
  cancel RUN              stop the run's builds and simulations
  replay RUN [--until N] [--watch]
                          re-execute a finished run from its record under a new run ID:
                          builds and runs from its cache, LLM replies from its calls;
                          stops at the first decision that differs, saying what differed
  spec check FILE         validate a run spec and print it with defaults filled; when
                          maced answers, also what only it can tell (gate workloads,
                          tools, backend), as submit would
  plan parse FILE         parse a planner reply ("-" reads standard input) and print the
                          plan as JSON; exit 2 with the reasons when it cannot run
  verdict SIM_LOG...      the verdict of each simulation transcript: pass, fail, timeout,
                          maxcycles or none (one line each; no daemon needed)
  version                 the client's and the daemon's versions
  eval submit SUITE --methods M[,M..] [--repeats N] [--seed S] [--keep-models]
              [--baseline-retries N] [--backend B] [--model M]
                          queue an evaluation batch (methods: mace, baseline,
                          baseline_retry, fault_check, seeded_fault, codesign,
                          codesign_llm); prints the batch ID
  eval status BATCH       jobs done / total, per method
  eval results BATCH [--csv]
                          the results table per task and method (--json: JSON)
  eval report BATCH -o FILE.html
                          a self-contained HTML page with the table and plots
  eval cancel BATCH       start no further job and cancel the one under way

Options:
  --socket PATH   maced's socket (default: $MACE_SOCKET, else /run/maced/maced.sock)
  --json          machine-readable output

Exit codes: 0 ok (a watched run passed), 1 a watched run did not pass, 2 bad input,
3 maced unreachable, 4 maced failed the request.
)";

struct Command {
  const char* name;
  int (*run)(const GlobalOptions&, const Arguments&);
  ArgumentSpec accepts;
};

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"submit", cmd_submit, {{"--watch"}, {"--backend", "--model"}}},
      {"watch", cmd_watch, {{}, {}}},
      {"status", cmd_status, {{}, {}}},
      {"list", cmd_list, {{"--mine"}, {"--state", "--limit"}}},
      {"logs", cmd_logs,
       {{"--build", "--follow", "--list"}, {"--sim", "--task", "--iteration", "--tail", "--file"}}},
      {"metrics", cmd_metrics, {{}, {}}},
      {"report", cmd_report, {{}, {"-o"}}},
      {"calls", cmd_calls, {{"--full"}, {}}},
      {"cancel", cmd_cancel, {{}, {}}},
      {"replay", cmd_replay, {{"--watch"}, {"--until"}}},
      {"spec check", cmd_spec_check, {{}, {}}},
      {"plan parse", cmd_plan_parse, {{}, {}}},
      {"version", cmd_version, {{}, {}}},
      {"verdict", cmd_verdict, {{}, {}}},
      {"mcp", cmd_mcp, {{}, {"--session"}}},
      {"eval submit", cmd_eval_submit,
       {{"--keep-models"}, {"--methods", "--repeats", "--seed", "--baseline-retries", "--backend", "--model"}}},
      {"eval status", cmd_eval_status, {{}, {}}},
      {"eval results", cmd_eval_results, {{"--csv"}, {}}},
      {"eval report", cmd_eval_report, {{}, {"-o", "--output"}}},
      {"eval cancel", cmd_eval_cancel, {{}, {}}},
  };
  return table;
}

}  // namespace

int main(int argc, char** argv) {
  GlobalOptions global;
  global.socket_path = default_socket_path();
  std::vector<std::string> rest;
  // Global options may stand anywhere before "--", so `mace list --json` works too.
  bool after_dashes = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (after_dashes) {
      rest.push_back(a);
    } else if (a == "--") {
      after_dashes = true;
      rest.push_back(a);
    } else if (a == "--json") {
      global.json = true;
    } else if (a == "--socket") {
      if (i + 1 >= argc) {
        std::cerr << "mace: --socket needs a path\n";
        return kExitBadInput;
      }
      global.socket_path = argv[++i];
    } else if (a.rfind("--socket=", 0) == 0) {
      global.socket_path = a.substr(9);
    } else if (a == "--help" || a == "-h" || a == "help") {
      std::cout << kUsage;
      return kExitOk;
    } else {
      rest.push_back(a);
    }
  }
  if (rest.empty()) {
    std::cerr << kUsage;
    return kExitBadInput;
  }
  for (const Command& command : commands()) {
    std::string name = command.name;
    size_t words = name.find(' ') == std::string::npos ? 1 : 2;
    if (rest.size() < words) continue;
    std::string given = words == 1 ? rest[0] : rest[0] + " " + rest[1];
    if (given != name) continue;
    std::vector<std::string> tail(rest.begin() + static_cast<long>(words), rest.end());
    std::string error;
    auto args = parse_arguments(tail, command.accepts, error);
    if (!args) {
      std::cerr << "mace " << name << ": " << error << "\n";
      return kExitBadInput;
    }
    return command.run(global, *args);
  }
  std::cerr << "mace: unknown command \"" << rest[0] << "\"\n" << kUsage;
  return kExitBadInput;
}
