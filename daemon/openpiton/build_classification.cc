#include "openpiton/build_classification.h"

#include <cstdio>
#include <system_error>

#include "openpiton/builder.h"

namespace mace::openpiton {
namespace {

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", seconds);
  return text;
}

}  // namespace

BuildClassification classify_build(const os::ProcessResult& run, std::chrono::milliseconds timeout,
                                   const std::filesystem::path& binary) {
  if (run.launch_failed) return {Failure::launch_failed, run.error};
  if (run.host_stop != os::HostStop::none)
    return {failure_of(run.host_stop), run.host_stop_detail};
  if (run.cancelled)
    return {Failure::cancelled,
            "the build was cancelled after " + seconds_text(run.wall_seconds)};
  if (run.timed_out)
    return {Failure::timeout,
            "the build did not finish within " + seconds_text(static_cast<double>(timeout.count()) / 1000.0)};
  if (run.exit_code != 0)
    return {Failure::build_failed,
            run.term_signal != 0 ? "sims was killed by signal " + std::to_string(run.term_signal)
                                 : "sims exited with status " + std::to_string(run.exit_code)};
  std::error_code error;
  if (!std::filesystem::exists(binary, error))
    return {Failure::no_model_binary, "sims exited 0 but left no " + binary.string()};
  return {};
}

}  // namespace mace::openpiton
