#pragma once
// One function per `mace` command. Each returns the process exit code.

#include <cstdint>
#include <optional>
#include <string>

#include "arguments.h"

namespace mace::client {

struct GlobalOptions {
  std::string socket_path;  // --socket; empty: MACE_SOCKET, else the usual places
  bool json = false;
};

int cmd_spec_check(const GlobalOptions& global, const Arguments& args);
int cmd_submit(const GlobalOptions& global, const Arguments& args);
int cmd_watch(const GlobalOptions& global, const Arguments& args);
int cmd_status(const GlobalOptions& global, const Arguments& args);
int cmd_list(const GlobalOptions& global, const Arguments& args);
int cmd_logs(const GlobalOptions& global, const Arguments& args);
int cmd_metrics(const GlobalOptions& global, const Arguments& args);
int cmd_calls(const GlobalOptions& global, const Arguments& args);
int cmd_cancel(const GlobalOptions& global, const Arguments& args);
// Queues a replay of a recorded run (replay_command.cc).
int cmd_replay(const GlobalOptions& global, const Arguments& args);
int cmd_version(const GlobalOptions& global, const Arguments& args);
// Whether this machine can do what MACE needs, as maced sees it (doctor_command.cc).
int cmd_doctor(const GlobalOptions& global, const Arguments& args);
int cmd_verdict(const GlobalOptions& global, const Arguments& args);
// Parses a planner reply locally and prints the plan as JSON (plan_command.cc).
int cmd_plan_parse(const GlobalOptions& global, const Arguments& args);
// The MCP stdio server an LLM agent starts for its tools (mcp_command.cc).
int cmd_mcp(const GlobalOptions& global, const Arguments& args);

// `mace logs RUN --build | --sim W ...`: a log file through maced (log_file_command.cc).
bool wants_log_file(const Arguments& args);
int cmd_log_file(const GlobalOptions& global, const Arguments& args);
// `mace logs RUN --coverage`: a task's coverage and its annotated files (coverage_command.cc).
int cmd_log_coverage(const GlobalOptions& global, const Arguments& args, uint64_t iteration);

// `mace compare RUN[:TASK]...`: designs side by side (compare_command.cc).
int cmd_compare(const GlobalOptions& global, const Arguments& args);

// `mace repro RUN`: a script that reruns a recorded simulation (repro_command.cc).
int cmd_repro(const GlobalOptions& global, const Arguments& args);
int cmd_wave(const GlobalOptions& global, const Arguments& args);
// `mace failures`: failure signatures across runs (failures_command.cc).
int cmd_failures(const GlobalOptions& global, const Arguments& args);
// `mace report RUN -o FILE.html` (report_command.cc).
int cmd_report(const GlobalOptions& global, const Arguments& args);
// Evaluation batches (eval_commands.cc).
int cmd_eval_submit(const GlobalOptions& global, const Arguments& args);
int cmd_eval_status(const GlobalOptions& global, const Arguments& args);
int cmd_eval_results(const GlobalOptions& global, const Arguments& args);
int cmd_eval_report(const GlobalOptions& global, const Arguments& args);
int cmd_eval_cancel(const GlobalOptions& global, const Arguments& args);

// Shared by submit --watch and watch.
int watch_run(const GlobalOptions& global, const std::string& run_id);

// A run maced has just accepted (submit, replay): its ID on stdout, or with --json
// {"run_id": ...} and, for a replay, "replay_of". Then `rc` as it is, or with --watch and
// rc ok, the run watched to its end (watch_run's exit status).
void print_accepted_run(const GlobalOptions& global, const std::string& run_id,
                        const std::string& replay_of = "");
int watch_if_asked(const GlobalOptions& global, const Arguments& args, int rc,
                   const std::string& run_id);

// What read_input read: the bytes as they are (NULs included), or an error saying what
// could not be read and why, with nothing else.
struct Input {
  std::string bytes;
  std::string error;
  // The input's whole size where that is known without reading all of it (a regular file,
  // standard input redirected from one).
  std::optional<std::uint64_t> whole_size;
};

// Reads at most `max_bytes` of a regular file, or of standard input for "-" (read_input.cc);
// a FIFO or a device is refused.
Input read_input(const std::string& path, std::size_t max_bytes);

}  // namespace mace::client
