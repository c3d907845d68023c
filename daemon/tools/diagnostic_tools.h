#pragma once
// The diagnostic tools offered to the diagnosis and post-mortem calls of one failed task
// (REQ-FAIL-5): search the failed run's logs, list and read the text files of its run
// directories, compare its transcript with a reference transcript, and show the compiled
// program's symbols beside the run's symbol table.
//
// Why read-only by construction (REQ-FAIL-6): the model reads logs that a failing design
// wrote, so every argument is treated as hostile. The tools open files O_RDONLY only, never
// create or change anything, and start exactly one kind of program: objdump, in its own
// process group with a timeout and an output cap, never through a shell. No build and no
// simulation can be reached from here.
//
// Why one path namespace: a failed task has several places worth reading (each simulated
// workload's run directory, the build transcript, a passing run of the same workload, the
// workload sources). Each gets a fixed name, and every path argument starts with one:
//
//   failed/<run>/...      a run directory of the failed task   (failed/hello-1/sim.log)
//   build/<file name>     the build's transcript                (build/mace_build.log)
//   reference/<run>/...   a reference run directory             (reference/hello-1/sim.log)
//   workloads/...         the workloads directory               (workloads/pico/hello.c)
//
// <run> is the directory's own name (`<workload>-<n>`, simulator.h). A path is refused
// when it is absolute, empty, holds a NUL byte or a `..` component, names no such place, or
// resolves (through any symlink) outside the place it names; the refusal is an ok=false
// result naming the path and the reason. What list_files shows is exactly what the other
// methods take.
//
// Why a factory that may say no (REQ-FAIL-7): when none of the failed task's places exists
// (the run directory was removed, the build never wrote a log) there is nothing to diagnose
// with; the caller then makes its call without these tools.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "llm/llm.h"
#include "tools/tool_error.h"

namespace mace::tools {

inline constexpr std::string_view kDiagnosticToolName = "diagnostics";
inline constexpr std::string_view kDefaultObjdump = "riscv64-unknown-elf-objdump";
inline constexpr std::string_view kFallbackObjdump = "objdump";

// The names of the places in the path namespace above.
inline constexpr std::string_view kFailedPlace = "failed";
inline constexpr std::string_view kBuildPlace = "build";
inline constexpr std::string_view kReferencePlace = "reference";
inline constexpr std::string_view kWorkloadsPlace = "workloads";

// Limits of one call, so that a multi-gigabyte transcript or a line without an end costs a
// bounded amount of time, memory and prompt.
inline constexpr int64_t kDefaultSearchMatches = 50;
inline constexpr int64_t kMaxSearchMatches = 500;
inline constexpr std::size_t kMaxShownLineBytes = 400;      // a longer line is cut, marked
inline constexpr std::size_t kMaxPatternBytes = 1000;
inline constexpr std::size_t kMaxReadBytes = 64 * 1024;     // returned by one read_file
inline constexpr int64_t kDefaultReadLines = 400;
inline constexpr int64_t kMaxReadLines = 5000;
inline constexpr std::size_t kBinaryProbeBytes = 64 * 1024; // a NUL in these: binary
inline constexpr int64_t kDefaultDiffLines = 200;
inline constexpr int64_t kMaxDiffLines = 2000;
inline constexpr std::size_t kMaxDiffInputBytes = 32 * 1024 * 1024;  // of each transcript
inline constexpr std::size_t kMaxListedEntries = 2000;
inline constexpr std::size_t kMaxObjdumpOutputBytes = 128 * 1024;
inline constexpr std::size_t kMaxWaveAnswerBytes = 32 * 1024;  // of one wave_* answer

// The failed task and what to compare it with. Relative paths are taken relative to
// checkout_root. Places that do not exist are left out (and named in the tool's
// description); at least one run directory or the build log must exist.
struct DiagnosticScope {
  // The checkout the task ran in; the base of relative paths below. May be empty when
  // every path is absolute.
  std::filesystem::path checkout_root{};
  // The failed task's simulation run directories (`<model dir>/runs/<workload>-<n>`), in
  // the order they ran; the last is the one that failed (simulation stops at the first
  // failure, REQ-VER-1) and is what compare_transcript and symbols look at by default.
  std::vector<std::filesystem::path> run_dirs{};
  // The build's transcript (builder.h: <model dir>/mace_build.log); empty: none.
  std::filesystem::path build_log{};
  // Passing runs to compare with, e.g. of the same workload from an earlier task.
  std::vector<std::filesystem::path> reference_run_dirs{};
  // The project's workloads/ directory (the programs' sources); empty: none.
  std::filesystem::path workloads_dir{};
  // The waveform of the failed workload (docs/failures.md), a VCD, and that workload; empty:
  // none, and the wave_signals and wave_values methods are not offered.
  std::filesystem::path waveform{};
  std::string waveform_workload{};

  // objdump to run; a bare name is looked up in the PATH of `environment`, and when it is
  // not found there `fallback_objdump` is tried. When neither is found, `symbols` says so
  // and the other methods work as ever.
  std::string objdump = std::string(kDefaultObjdump);
  std::string fallback_objdump = std::string(kFallbackObjdump);
  // The environment objdump runs with (it gets only PATH of it, and LC_ALL=C); unset: the
  // daemon's own.
  std::optional<std::map<std::string, std::string>> environment{};
  std::chrono::milliseconds objdump_timeout{20000};
  // A search or read stops (and says so) once it has run this long.
  std::chrono::milliseconds call_time_limit{30000};
};

// The "diagnostics" tool over `scope`, with methods search_logs, list_files, read_file,
// compare_transcript and symbols, and with a waveform wave_signals and wave_values. Its call() never throws: a bad argument, a refused path,
// an unreadable file is an ok=false result whose content says what and why.
//
// Throws ToolError, saying why, when the tools cannot start: none of the failed run
// directories and not the build log exists (or can be resolved).
llm::Tool make_diagnostic_tool(const DiagnosticScope& scope);

}  // namespace mace::tools
