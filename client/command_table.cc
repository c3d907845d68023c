#include "command_table.h"

#include <sstream>

namespace mace::client {
namespace {

const std::vector<CommandInfo> kCommands = {
    {"submit", "FILE [--watch] [--backend B] [--model M] [--set CACHE=SIZE[,WAYS]]... [--sweep CACHE=SIZE,...]...",
     "submit a run spec; prints its run ID",
     "Submits a run spec (JSON; \"-\" reads standard input) to maced and prints the new run's\n"
     "ID. The LLM is --backend and --model, else the spec's, else vertex with\n"
     "gemini-2.5-flash; \"direct\" plans without one. --watch then follows the run as\n"
     "`mace watch` does and exits 0 only when it passes.\n"
     "--set l15=4KiB,4 (repeatable: one design of all of them, named from its values, e.g.\n"
     "l15_4k_4w) and --sweep l15=4KiB,8KiB,16KiB (or l15.ways=2,4,8; repeatable: their product)\n"
     "add designs to the spec's without editing the file (docs/run-specs.md#designs).\n",
     cmd_submit, {{"--watch"}, {"--backend", "--model"}, {"--set", "--sweep"}}},
    {"watch", "RUN [--raw]", "follow a run live until it ends",
     "Shows the run's recorded events, then the new ones as they happen, until the run ends.\n"
     "On a terminal, one line per event and, below them, a live line per task under way\n"
     "(its stage, its build's objects compiled, the time spent and left). On a pipe or with\n"
     "--json, JSON Lines: {\"event\": ...} per event and {\"result\": ...} last. Exits 0 when\n"
     "the run passed, 1 when it ended otherwise.\n",
     cmd_watch, {{"--raw"}, {}}},
    {"status", "[RUN] [--raw]", "one run in detail, or maced and its active runs",
     "With RUN: its state (and, while queued, what it waits for), its tasks with their\n"
     "verdicts and models, narrowing builds, diagnoses and post-mortem. Without: maced's\n"
     "version and socket, its active runs and each checkout with what holds it.\n",
     cmd_status, {{"--raw"}, {}}},
    {"list", "[--state S,...] [--mine] [--limit N] [--raw]", "runs, newest first",
     "Runs, newest first: the last 100 unless --limit says otherwise (0: all). --state keeps\n"
     "the runs in those states (queued, running, passed, failed, planning_failed,\n"
     "budget_exceeded, checksum_mismatch, unsupported_core, error, cancelled); --mine\n"
     "those you submitted.\n",
     cmd_list, {{"--mine", "--raw"}, {"--state", "--limit"}}},
    {"logs",
     "RUN [--build | --sim WORKLOAD | --list | --file ID | --coverage] [--task T] [--iteration N] "
     "[--tail N] [--follow] [--raw]",
     "a run's log, or one of the build logs, sim.logs and coverage files it kept",
     "Without --build, --sim, --list or --file: the run's log, one line per thing that\n"
     "happened, each workload's verdict with its wall time, a build's progress folded to its\n"
     "last line. --build: a task's build transcript; --sim WORKLOAD: that workload's sim.log;\n"
     "both the run's own copy, read through maced a bounded piece at a time, from the newest\n"
     "task and iteration that has one unless --task and --iteration say. --list: every log\n"
     "the run kept (narrowing rebuilds' too) with its ID, its size, what was cut and what the\n"
     "retention rule removed; --file ID: one of them. --tail N starts at the last N lines;\n"
     "--follow keeps reading as the file grows, until the run ends. --coverage: a task's line\n"
     "coverage merged over its workloads (a spec with \"coverage\": true), per top-level\n"
     "module, where the merged coverage.dat and the annotated source are kept, and the ID of\n"
     "each annotated file for --file.\n",
     cmd_logs,
     {{"--build", "--follow", "--list", "--raw", "--coverage"}, {"--sim", "--task", "--iteration", "--tail", "--file"}}},
    {"report", "RUN -o FILE.html [--with-logs] [--junit FILE.xml]",
     "write the run as one self-contained HTML page, or its verdicts as JUnit XML",
     "Writes one HTML file that needs nothing else to be viewed: the run's summary and\n"
     "environment, each iteration's task DAG, a timeline of builds and simulations per\n"
     "checkout, the verdicts, the failures by signature with each failed workload's\n"
     "transcript around its error and verdict, coverage, narrowing builds, diagnoses, the\n"
     "post-mortem and the LLM calls. Each log is named by the `mace logs RUN --file ID` that\n"
     "reads it; with --with-logs the run's kept logs (and coverage files) are copied beside\n"
     "the page, into FILE-logs/, and the page links to them there. --junit FILE.xml writes\n"
     "the verdicts as JUnit XML for a CI's test view (Jenkins, GitLab, GitHub): a testsuite\n"
     "per task, a testcase per workload, each failure with its verdict, error line,\n"
     "transcript excerpt and sim.log, the run's provenance as properties.\n",
     cmd_report, {{"--with-logs"}, {"-o", "--junit"}}},
    {"compare", "RUN | RUN[:TASK] RUN[:TASK]... [--csv]", "designs side by side: configuration and cycles",
     "Puts two or more designs side by side: each one's build configuration in words (OpenPiton's\n"
     "defaults marked), its cache area and build figures, the items in which they differ, and\n"
     "for each gate workload each design's verdict and simulated cycles with the change in\n"
     "percent against the first. One RUN alone: the designs its last iteration built, its\n"
     "baseline first. Several: RUN:TASK names a task of a run (its last iteration that has it);\n"
     "RUN, the run's last task that passed, else its last that simulated anything. --json for\n"
     "scripts, --csv for a spreadsheet (one row per design and workload).\n",
     cmd_compare, {{"--csv"}, {}}},
    {"repro", "RUN [--iteration N] [--task TASK] [--workload WORKLOAD] [-o FILE]",
     "a script that rebuilds and reruns a recorded simulation by hand, outside maced",
     "Writes a self-contained shell script (to FILE, executable, else to standard output)\n"
     "that reproduces one recorded simulation of the run: the newest iteration's first that\n"
     "did not pass unless --iteration, --task and --workload say. Run by hand on maced's\n"
     "host, it checks the checkout's commit, applies the task's RTL edits and takes them\n"
     "back, rebuilds the model with the recorded sims command line and environment under\n"
     "build ID repro_<id> (maced's models are left alone), recreates what the run directory\n"
     "held, reruns the recorded simulation command and compares the verdict and its time\n"
     "with the recorded ones: exit 0 reproduced, 1 not, 2 could not be set up. --json: the\n"
     "facts instead (command lines, environments, edits, inputs, verdict, versions).\n",
     cmd_repro, {{}, {"--iteration", "--task", "--workload", "-o"}}},
    {"wave", "RUN [--iteration N] [--task T] [--workload W] [-o FILE]",
     "the waveform of a failed workload's last cycles, as a VCD",
     "Writes the waveform maced traced around a failure (docs/failures.md) as a plain VCD that\n"
     "GTKWave or Surfer opens: the failed task's deciding workload simulated again on a traced\n"
     "model, the cycles before the time it failed at. The newest waveform of the run unless\n"
     "--iteration, --task and --workload say which; -o FILE (default WORKLOAD.vcd, never over\n"
     "an existing file; - for standard output). `mace status RUN` lists the run's waveforms,\n"
     "or why a failure has none. --json: the file written and what it covers.\n",
     cmd_wave, {{}, {"--iteration", "--task", "--workload", "-o"}}},
    {"failures", "[--since WHEN] [--core CORE] [--max-runs N]", "failure signatures across your runs, most frequent first",
     "Groups every workload that did not pass, in every run you may read (yours; every run\n"
     "for maced's administrators), by failure signature (the verdict and error line with its\n"
     "numbers and addresses written N and #), the most frequent first: how often and in how\n"
     "many runs, the first and last run that hit it, the configurations and workloads it hit,\n"
     "and whether each configuration passed that workload in a later run (fixed) or not since\n"
     "(open). --since 7d, 24h, 90m or a UTC date (2026-12-01, 2026-12-01T08:30); --core pico;\n"
     "--max-runs N reads at most the newest N runs (default 1000, at most 5000). --json for\n"
     "scripts.\n",
     cmd_failures, {{}, {"--since", "--core", "--max-runs"}}},
    {"metrics", "RUN", "successful tasks, iterations, failures recovered, time, cost",
     "The run's five metrics: successful tasks, iterations, failures recovered, execution\n"
     "time and compute cost.\n",
     cmd_metrics, {{}, {}}},
    {"calls", "RUN [--full] [--raw]", "the run's LLM calls with tokens and cost",
     "The run's LLM call attempts, oldest first: iteration, phase, task, backend and model,\n"
     "tokens, cost (an estimate or unknown where the vendor reported none), wall time and\n"
     "outcome. --full adds each prompt and reply.\n",
     cmd_calls, {{"--full", "--raw"}, {}}},
    {"cancel", "RUN", "stop a run",
     "Stops the run's builds and simulations and records it cancelled. Only its submitter\n"
     "and maced's administrators may.\n",
     cmd_cancel, {{}, {}}},
    {"replay", "RUN [--until N] [--watch]", "re-execute a finished run from its record",
     "Re-executes a finished run under a new run ID (printed): builds and simulations come\n"
     "from its cache, LLM replies from its recorded calls, so nothing is built and no LLM is\n"
     "called. It stops at the first decision that differs and says what differed; --until N\n"
     "stops after iteration N; --watch follows it.\n",
     cmd_replay, {{"--watch"}, {"--until"}}},
    {"spec check", "FILE [--set CACHE=SIZE[,WAYS]]... [--sweep CACHE=SIZE,...]...",
     "validate a run spec; maced, when it answers, checks the rest",
     "Validates a run spec and prints it with every default filled in; each mistake names\n"
     "its field (a JSON error its line and column). When maced answers, also what only it can\n"
     "tell, as submit would: each gate workload found where sims will look, the tools, the\n"
     "backend. FILE is a regular file or \"-\" for standard input. --set and --sweep add designs\n"
     "as submit's do, and the spec printed has them.\n",
     cmd_spec_check, {{}, {}, {"--set", "--sweep"}}},
    {"plan parse", "FILE", "print the plan MACE would take from an LLM reply",
     "Reads a planner's reply (\"-\": standard input) and prints the plan MACE would take from\n"
     "it as JSON, with the lines it skipped; exits 2 with the reasons when no plan can run.\n",
     cmd_plan_parse, {{}, {}}},
    {"verdict", "SIM_LOG...", "the verdict of simulation transcripts, no daemon needed",
     "Reads each sim.log exactly as maced does and prints its verdict: pass, fail, timeout,\n"
     "maxcycles or none.\n",
     cmd_verdict, {{}, {}}},
    {"doctor", "", "whether this machine can do what MACE needs, each problem with its fix",
     "Asks maced to check, as it sees them now: maced itself (its user, its state), the\n"
     "programs builds and simulations run (Verilator's and the RISC-V GCC's versions), each\n"
     "configured checkout (an OpenPiton checkout, writable by maced, patched for the\n"
     "installed Verilator, on a path OpenPiton's tools can take; maced refuses at start every\n"
     "checkout that fails), the workloads directory, the room left for models, the compiler\n"
     "cache and evidence, each Slurm node of the configuration, and whether each LLM backend\n"
     "has credentials (never their values). One line per finding, a fix under each that is\n"
     "not ok. Exits 0 when nothing fails (warnings allowed), 1 when something does, 3 when\n"
     "maced cannot be reached.\n",
     cmd_doctor, {{}, {}}},
    {"version", "", "mace's and maced's versions, and maced's socket",
     "Prints mace's version, then maced's and the socket it answered on.\n", cmd_version,
     {{}, {}}},
    {"eval submit",
     "SUITE --methods M[,M...] [--repeats N] [--seed S] [--keep-models] "
     "[--baseline-retries N] [--backend B] [--model M]",
     "queue an evaluation batch; prints its ID",
     "Queues an evaluation batch: every method on every suite task it applies to, --repeats\n"
     "times, in an order shuffled by --seed. Methods: mace, baseline, baseline_retry,\n"
     "fault_check, seeded_fault, codesign, codesign_llm. --keep-models keeps the models\n"
     "between jobs (by default each job builds from scratch).\n",
     cmd_eval_submit,
     {{"--keep-models"},
      {"--methods", "--repeats", "--seed", "--baseline-retries", "--backend", "--model"}}},
    {"eval status", "BATCH [--raw]", "a batch's progress",
     "Jobs done of jobs in all, per method, and the job under way.\n", cmd_eval_status,
     {{"--raw"}, {}}},
    {"eval results", "BATCH [--csv] [--raw]", "a batch's results table",
     "Per task and method: success rate over the repeats, iterations, cost, wall time and\n"
     "designs evaluated. --csv for a spreadsheet, --json for every job and its environment.\n",
     cmd_eval_results, {{"--csv", "--raw"}, {}}},
    {"eval report", "BATCH -o FILE.html", "a batch's results as one HTML page",
     "Writes the results table and its plots as one self-contained HTML page.\n",
     cmd_eval_report, {{}, {"-o", "--output"}}},
    {"eval cancel", "BATCH", "stop a batch",
     "Starts no further job of the batch and cancels the one under way.\n", cmd_eval_cancel,
     {{}, {}}},
    {"mcp", "--session TOKEN", "the MCP server of an LLM agent's tools",
     "Started by an LLM agent that maced runs, never by hand: serves the session's tools on\n"
     "standard input and output.\n",
     cmd_mcp, {{}, {"--session"}}, true},
};

}  // namespace

const std::vector<CommandInfo>& command_table() { return kCommands; }

std::string overall_help() {
  std::ostringstream out;
  out << "usage: mace [--socket PATH] [--json] COMMAND [ARGS]\n\nCommands:\n";
  for (const CommandInfo& c : command_table()) {
    if (c.hidden) continue;
    // The summary in a column; after a synopsis too long for it, on the next line.
    const std::string head = std::string(c.name) + (*c.synopsis ? " " : "") + c.synopsis;
    out << "  " << head;
    if (head.size() > 34) out << "\n" << std::string(38, ' ');
    else out << std::string(36 - head.size(), ' ');
    out << c.summary << "\n";
  }
  out << "\n`mace COMMAND --help` says more about one.\n\n"
         "Options:\n"
         "  --socket PATH   maced's socket. Without it: $MACE_SOCKET, else the first that\n"
         "                  answers of /run/maced/maced.sock, $XDG_RUNTIME_DIR/maced/maced.sock,\n"
         "                  $XDG_RUNTIME_DIR/maced.sock and ~/.local/state/mace/maced.sock\n"
         "  --json          output for scripts\n\n"
         "Exit codes: 0 done (a watched run passed), 1 a watched run did not pass (doctor: a\n"
         "check failed), 2 bad input or an unknown run, 3 maced unreachable, 4 maced failed\n"
         "the request.\n";
  return out.str();
}

std::string command_help(const CommandInfo& command) {
  std::ostringstream out;
  out << "usage: mace " << command.name << (*command.synopsis ? " " : "") << command.synopsis
      << "\n\n"
      << command.details;
  // The commands that print what models, logs and people wrote (escaped_output.h).
  if (command.accepts.switches.count("--raw"))
    out << "--raw prints that text exactly as it is; without it, control characters and bytes\n"
           "that are not UTF-8 are shown as escapes such as \\x1b (error messages always are).\n";
  return out.str();
}

std::string group_help(const std::string& group) {
  std::ostringstream out;
  for (const CommandInfo& c : command_table()) {
    const std::string name = c.name;
    if (c.hidden || name.rfind(group + " ", 0) != 0) continue;
    if (out.tellp() == 0) out << "usage:\n";
    out << "  mace " << name << " " << c.synopsis << "\n      " << c.summary << "\n";
  }
  return out.str();
}

}  // namespace mace::client
