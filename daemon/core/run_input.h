#pragma once
// A file a simulation's run directory held before sims started (a compiled program, the
// wrapper that starts it, a multi-tile wake-up event file): what a reproduction of that
// simulation recreates, since run directories go when the run ends (docs/failures.md).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mace {

struct RunInput {
  std::string path;     // relative to the run directory
  std::string content;  // bytes as they were
  bool operator==(const RunInput&) const = default;
};

// As the store keeps them: [{"path": ..., "base64": ...}, ...]; "" for none.
std::string run_inputs_json(const std::vector<RunInput>& inputs);
// nullopt when `json` is not what run_inputs_json writes.
std::optional<std::vector<RunInput>> run_inputs_from_json(std::string_view json);

}  // namespace mace
