#include "openpiton/waveform_trace.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <system_error>

#include "openpiton/sim_figures.h"
#include "os/file_io.h"
#include "os/text.h"

namespace mace::openpiton {
namespace fs = std::filesystem;

BuildConfig traced_config(BuildConfig config) {
  const std::string flag(kTraceBuildFlag);
  if (std::find(config.extra_flags.begin(), config.extra_flags.end(), flag) == config.extra_flags.end())
    config.extra_flags.push_back(flag);
  return config;
}

std::int64_t WaveWindow::from() const {
  return std::max<std::int64_t>(0, failure_time - cycles * kVerilatorTimePerCycle);
}

std::int64_t WaveWindow::to() const { return failure_time + kVerilatorTimePerCycle; }

std::optional<WaveStatus> parse_wave_status(std::string_view text) {
  std::map<std::string, std::string> fields;
  for (std::string_view word : os::split_at(os::trim(text), ' ')) {
    const std::size_t eq = word.find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    fields[std::string(word.substr(0, eq))] = std::string(word.substr(eq + 1));
  }
  WaveStatus status;
  for (auto [name, out] : {std::pair{"from", &status.from}, {"to", &status.to}, {"last", &status.last}}) {
    const auto it = fields.find(name);
    if (it == fields.end()) return std::nullopt;
    const std::string& v = it->second;
    // An unbounded window's end is UINT64_MAX: kept as the largest time there is.
    std::uint64_t n = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || end != v.data() + v.size()) return std::nullopt;
    *out = static_cast<std::int64_t>(std::min<std::uint64_t>(n, INT64_MAX));
  }
  const auto end = fields.find("end");
  if (end == fields.end() || (end->second != "window" && end->second != "size" && end->second != "finish"))
    return std::nullopt;
  status.end = end->second;
  return status;
}

WaveTraceResult trace_workload(SimulationRequest request, const WaveWindow& window) {
  request.extra_environment["MACE_WAVE_FILE"] = std::string(kWaveFileName);
  request.extra_environment["MACE_WAVE_FROM"] = std::to_string(window.from());
  request.extra_environment["MACE_WAVE_TO"] = std::to_string(window.to());
  request.extra_environment["MACE_WAVE_MAX_BYTES"] = std::to_string(window.max_bytes);
  request.extra_environment["MACE_WAVE_DEPTH"] = std::to_string(window.depth);
  request.run_every_workload = false;
  // The waveform is written beside sim.log: a limit on what one run may write must let
  // it reach its own limit first.
  if (request.max_output_bytes && window.max_bytes)
    request.max_output_bytes = std::max(request.max_output_bytes, window.max_bytes + (window.max_bytes >> 2));
  WaveTraceResult result;
  SimulationResult simulated = simulate_workloads(request);
  if (simulated.runs.empty()) {
    result.problem = "the traced simulation did not start: " + simulated.failure_detail;
    return result;
  }
  result.run = std::move(simulated.runs.front());
  if (result.run.run_dir.empty() || !result.run.sims_invoked) {
    result.problem = "the traced simulation did not run: " + result.run.error;
    return result;
  }
  const fs::path file = result.run.run_dir / kWaveFileName;
  std::error_code ec;
  const auto bytes = fs::file_size(file, ec);
  if (ec) {
    result.problem = result.run.cancelled ? "the run was cancelled while the waveform was traced"
                     : result.run.timed_out
                         ? "the traced simulation ran out of time before the window"
                         : "the traced model wrote no waveform (is the checkout's testbench main patched? "
                           "scripts/patch_openpiton.sh --only wave)";
    return result;
  }
  result.file = file;
  result.bytes = bytes;
  if (auto text = os::read_file_if_exists(fs::path(file.string() + ".status"), 4096))
    result.status = parse_wave_status(*text);
  return result;
}

}  // namespace mace::openpiton
