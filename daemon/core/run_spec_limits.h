#pragma once
// How large each part of a run spec may be. maced takes specs from every member of its
// group and keeps them in its database, prompts and logs, so nothing in one is unbounded:
// a spec that would cost maced memory, disk or terminal lines out of proportion to what a
// run can use is refused, naming the field and its limit. Each value is far beyond what a
// real run needs (docs/run-specs.md lists them), so only a mistake or an abuse
// ever meets one.

#include <cstddef>
#include <cstdint>

namespace mace {

// The whole JSON text, before it is parsed: read no more than this (plus one byte, to know
// it is over) from a file, a socket or standard input. The largest example spec is under
// 1 KiB; this leaves room for a long objective, every list at its limit and a descriptor.
inline constexpr std::size_t kMaxSpecJsonBytes = 256 * 1024;

// Prose for people and the planner: a page or two, sent in every planning prompt.
inline constexpr std::size_t kMaxObjectiveBytes = 16 * 1024;
// Model names are like "gemini-2.5-flash" or "claude-opus-4-1-20250805".
inline constexpr std::size_t kMaxModelBytes = 256;
// The longest backend name is "antigravity"; anything longer is not one.
inline constexpr std::size_t kMaxBackendBytes = 32;

// Gate workloads run one after another in every workload task: hundreds already take
// hours. A name becomes part of a run directory's name (`<name>-<n>`), well under NAME_MAX.
inline constexpr std::size_t kMaxWorkloads = 256;
inline constexpr std::size_t kMaxWorkloadNameBytes = 128;
// workload_args has at most one entry per workload.
inline constexpr std::size_t kMaxWorkloadArgs = kMaxWorkloads;
// OpenPiton's own diag lists give a diag at most a dozen options, each under 100 bytes.
inline constexpr std::size_t kMaxOptionsPerWorkload = 64;
inline constexpr std::size_t kMaxOptionBytes = 256;
// One hex digit per tile of the largest mesh (256 x 256).
inline constexpr std::size_t kMaxFinishMaskDigits = 256 * 256;

// Tools come from maced's configuration, which has few; their names are identifiers.
inline constexpr std::size_t kMaxTools = 64;
inline constexpr std::size_t kMaxToolNameBytes = 64;
// A core descriptor names a core's ports and files; 64 KiB of minified JSON is a lot.
inline constexpr std::size_t kMaxCoreDescriptorBytes = 64 * 1024;
// Run IDs are 26 bytes ("20261130-121530-123-9f3a1c").
inline constexpr std::size_t kMaxRunIdBytes = 64;

// sims refuses a larger mesh axis ("x_tiles can be at most 256").
inline constexpr int kMaxMeshAxis = 256;
// More parallel checkouts than this is a typo, not a machine MACE runs on.
inline constexpr int64_t kMaxCheckouts = 1024;

// Each iteration plans, builds and simulates: ten thousand is weeks of work and far past
// any budget; the wire carries 32 bits.
inline constexpr int64_t kMaxIterations = 10'000;
// Thirty days: longer than any run maced is meant to keep a checkout for.
inline constexpr int64_t kMaxWallSeconds = 30LL * 24 * 3600;
// One million dollars of LLM calls in one run is a typo, not a budget.
inline constexpr double kMaxUsd = 1'000'000.0;
// The testbench holds -rtl_timeout (pc_cmp's `max`) and -max_cycle (monitor's `max_cycle`)
// in a Verilog `integer`, 32 bits signed: a larger value wraps around.
inline constexpr int64_t kMaxCycles = 2'147'483'647;
// The most cycles a failure's waveform may cover (docs/failures.md): a million cycles of a
// pico 1x1 design are about 1.2 GB of VCD before maced's size limit cuts it.
inline constexpr int64_t kMaxWaveformCycles = 1'000'000;
// The most gate workloads of one task a spec may simulate side by side.
inline constexpr int64_t kMaxParallelWorkloads = 256;

}  // namespace mace
