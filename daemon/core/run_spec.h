#pragma once
// A run specification: what a user asks MACE to do (REQ-PLAN-1..4, REQ-BUD-1..2).
//
// Two ways in, one set of rules: `parse_run_spec_json` reads the JSON form (`mace submit
// FILE`, `mace spec check FILE`), checking types, unknown fields and every value;
// `validate_run_spec` checks the values of an already-typed spec (what arrives through
// the structured RPC form). Both report every problem, each naming its field path.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/design_points.h"
#include "core/dispatch.h"
#include "core/field_error.h"
#include "core/run_spec_limits.h"

namespace mace {

enum class Core { ariane, sparc, pico, generic };

std::string_view to_string(Core c);
std::optional<Core> core_from_string(std::string_view s);

struct Budget {
  int64_t max_iterations = 10;
  double max_usd = 20.0;
  int64_t max_wall_s = 3600;
  bool operator==(const Budget&) const = default;
};

struct WorkloadArgs {
  // Hex digits without any 0x prefix; empty means one finish bit per tile (REQ-VER-7).
  std::string finish_mask;
  // sims options from sims_option_allowlist.h, each one argv element.
  std::vector<std::string> options;
  // This workload's own testbench limits (cycles), as OpenPiton's diag lists give a diag
  // its own -rtl_timeout and -max_cycle; unset: the spec's rtl_timeout and max_cycle.
  std::optional<int64_t> rtl_timeout{};
  std::optional<int64_t> max_cycle{};
  bool operator==(const WorkloadArgs&) const = default;
};

struct RunOptions {
  bool rtl_edits = false;
  bool fast_path = true;
  bool task_prompts = false;
  // A build-only check: a config, workload or rtl task passes when its build succeeds, and
  // no gate workload is simulated. An evaluation job simulates the designs such a run
  // accepted afterwards (REQ-EVAL-7).
  bool build_only = false;
  bool operator==(const RunOptions&) const = default;
};

// Deterministic replay (REQ-REPLAY-2, 3): which functions' tagged calls the run stores in
// the cache, and which it serves from the cache instead of executing. The functions are
// kReplayFunctions. Bypassed calls are looked up under the tags of run `from`, whose
// entries they reuse; a new run's own tags have none, so bypass needs `from`.
struct ReplaySettings {
  std::optional<std::vector<std::string>> cache;  // unset: maced's default
  std::vector<std::string> bypass;
  std::optional<std::string> from;
  bool operator==(const ReplaySettings&) const = default;
};

// prompt: a task's prompt call; build: a task's build; run: one gate workload's simulation.
inline constexpr std::string_view kReplayFunctions[] = {"prompt", "build", "run"};

inline constexpr int64_t kDefaultRtlTimeout = 1'000'000;  // REQ-VER-8

struct RunSpec {
  Core core = Core::ariane;
  int mesh_x = 1;
  int mesh_y = 1;
  std::vector<std::string> workloads;
  std::string objective;
  Budget budget;
  bool coverage = false;
  // Build with OpenPiton's monitors, and count from each transcript what each tile's caches
  // and network did (core/tile_figures.h): another model per design, transcripts 50 to 140
  // times longer, simulations up to 4 times slower (docs/design-results.md#what-each-tile-did).
  bool monitors = false;
  // Simulate every gate workload of a task whatever the others gave, as OpenPiton's and
  // dvsim's regressions do, so one run reports every failure at once. Off: a task stops
  // at its first workload that does not pass (REQ-VER-1), what the loop needs to decide.
  bool run_every_workload = false;
  // The waveform around a failure (docs/failures.md): a failed task's deciding workload
  // re-simulated once on a traced model, the last `waveform_cycles` cycles (unset: maced's
  // configuration) before the failure kept. Off here or in maced's configuration: none.
  bool waveform = true;
  std::optional<int64_t> waveform_cycles;
  // The most gate workloads of one task simulating side by side (1: one after another);
  // unset: maced's configuration, else the task's share of the machine's CPUs.
  std::optional<int64_t> parallel_workloads;
  std::optional<int64_t> rtl_timeout;
  std::optional<int64_t> max_cycle;
  std::map<std::string, WorkloadArgs> workload_args;  // by program name
  std::optional<std::string> core_descriptor_json;    // a JSON object, minified
  RunOptions options;
  std::optional<std::string> backend;
  std::optional<std::string> model;
  std::optional<int64_t> checkouts;
  // How a level's tasks go onto the checkouts (core/dispatch.h); unset: maced's default.
  std::optional<Dispatch> dispatch;
  // Tools maced's configuration declares (REQ-EXEC-7), by name; every LLM call of the run
  // is offered them. Whether each exists is checked at submit time, not here: `mace spec
  // check` has no daemon to ask.
  std::vector<std::string> tools;
  ReplaySettings replay;
  // The designs the run builds as they are (core/design_points.h): named ones, a sweep's
  // product, and OpenPiton's defaults as the baseline unless `baseline` is false. With the
  // direct planner each is a config task; an LLM planner is told them as its starting point.
  std::vector<DesignPoint> designs;
  DesignSweep sweep;
  bool baseline = true;

  int64_t effective_rtl_timeout() const { return rtl_timeout.value_or(kDefaultRtlTimeout); }
  // What `program`'s simulation gets: its own value when workload_args sets one, else the
  // spec's.
  int64_t effective_rtl_timeout(const std::string& program) const;
  std::optional<int64_t> effective_max_cycle(const std::string& program) const;
  // Whether the spec names designs of its own (a list or a sweep).
  bool names_designs() const { return !designs.empty() || !sweep.empty(); }
  // Every design the run builds, baseline first (run_designs).
  std::vector<DesignPoint> all_designs() const { return run_designs(designs, sweep, baseline); }
  bool operator==(const RunSpec&) const = default;
};

// The sims flag of line coverage (REQ-EXEC-6), as builds get it and task rows record it.
inline constexpr std::string_view kCoverageBuildFlag = "-vlt_build_args=--coverage-line";
// The flags every build of the run adds to its configuration: coverage when asked for.
std::vector<std::string> extra_build_flags(const RunSpec& spec);

// The backends a spec may name: the four LLM backends (REQ-PLAT-7) and `direct`, the
// planner that calls no LLM.
inline constexpr std::string_view kDirectBackend = "direct";
inline constexpr std::string_view kBackendNames[] = {"vertex", "claude", "opencode",
                                                     "antigravity", kDirectBackend};
// The run's plan comes from the direct planner, not an LLM.
inline bool is_direct_backend(std::string_view backend) { return backend == kDirectBackend; }

// A tool or tool-method name: [a-z][a-z0-9_]*. The same rule for maced's configuration and
// for a spec, so a name a spec cannot spell is never configured.
bool is_tool_name(std::string_view name);

struct SpecParseResult {
  std::optional<RunSpec> spec;  // set only when `errors` is empty
  FieldErrors errors;
};

// Errors come sorted by path, in the order run_spec_to_json writes the fields. null
// means "unset" for the optional fields without a fixed default (max_cycle, a
// finish_mask, a workload's rtl_timeout and max_cycle, core_descriptor, backend, model,
// checkouts, dispatch) and for rtl_timeout. Before it is parsed the text itself must fit
// kMaxSpecJsonBytes and be UTF-8 without a NUL byte (path "" for those). The
// parsed spec always has rtl_timeout set, to kDefaultRtlTimeout when the JSON leaves it
// out or null, so a parsed spec equals what its run_spec_to_json parses back to.
SpecParseResult parse_run_spec_json(std::string_view json);

// The rules of the bounded numbers, as both readers word them: "must be an integer from 1
// to N" and the one of budget.max_usd.
std::string integer_range_rule(int64_t max);
std::string max_usd_rule();
// A key of the spec (a program of workload_args, an unknown field) as a step of an error's
// path: as it is when it is printable and no longer than a workload name, else quoted and
// escaped, so a path never carries to a terminal what the key was refused for.
std::string key_path_step(std::string_view key);
// "must hold at most 256 names, got 300": a list over its limit, in both readers.
std::string count_limit_message(size_t max, std::string_view what, size_t count);

// Checks every value of a typed spec; empty when the spec is valid.
FieldErrors validate_run_spec(const RunSpec& spec);

// The normalised spec (every default filled in) as JSON; parses back to an equal spec,
// except that an unset rtl_timeout comes back set to kDefaultRtlTimeout (the same
// effective timeout). An empty finish_mask is written as null.
std::string run_spec_to_json(const RunSpec& spec, bool pretty = false);

}  // namespace mace
