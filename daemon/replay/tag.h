#pragma once
// The tag of a remote call (REQ-REPLAY-1): `<run ID>/iter<iteration>/<task id>/<phase>`,
// the key its return value is cached under and served by.
//
// Phases: `prompt` (a task's prompt call, when task prompts are on), `build`, `run` for
// the first gate workload and `run:<workload>` for each later one. A narrowing rebuild of
// a task (REQ-FAIL-12), which the spec's tags predate, makes calls of the same task in the
// same iteration; its phases carry what it undid, `build[undo define X]`, so its entries
// never replace the task's own.

#include <cstddef>
#include <string>
#include <string_view>

namespace mace::replay {

// The functions whose calls are tagged, as a spec's `replay.cache` / `replay.bypass` name them.
inline constexpr std::string_view kPromptFunction = "prompt";
inline constexpr std::string_view kBuildFunction = "build";
inline constexpr std::string_view kRunFunction = "run";
inline constexpr std::string_view kCachedFunctions[] = {kPromptFunction, kBuildFunction, kRunFunction};

std::string call_tag(std::string_view run_id, int iteration, std::string_view task_id,
                     std::string_view phase);

// `run` for the first gate workload (index 0), `run:<workload>` for each later one.
std::string run_phase(std::size_t workload_index, std::string_view workload);

// The phase of a narrowing rebuild's call: `phase[narrowing]`; `phase` when narrowing is "".
std::string narrowing_phase(std::string_view phase, std::string_view narrowing);

// The same tag under another run ID: how a replay finds the original's entries.
std::string with_run_id(std::string_view tag, std::string_view run_id);

}  // namespace mace::replay
