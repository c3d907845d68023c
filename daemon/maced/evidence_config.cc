#include "maced/evidence_config.h"

#include <algorithm>

#include "maced/cache_directory_config.h"
#include "maced/config_fields.h"
#include "core/run_spec_limits.h"

namespace mace {

namespace {
constexpr std::int64_t kMaxKeepRecentHours = 24 * 365 * 10;
}  // namespace

void read_evidence_config(simdjson::dom::element value, EvidenceConfig& evidence, FieldErrors& errors) {
  const auto section_object = config_fields::object_with_keys(value, "evidence", {"path", "max_mb", "max_log_mb", "keep_recent_hours", "max_sim_output_mb", "keep_run_dirs", "waveform", "waveform_cycles", "max_waveform_mb"}, errors);
  if (!section_object) return;
  const simdjson::dom::object obj = *section_object;
  if (auto path = config_fields::string_field(obj, "path", "evidence.path", errors)) {
    if (path->front() != '/')
      errors.push_back({"evidence.path", "must be an absolute path, got \"" + *path + "\""});
    else
      evidence.path = *path;
  }
  if (auto mb = config_fields::limit_field(obj, "max_mb", "evidence.max_mb", evidence.max_mb,
                                           kMaxCacheDirectoryMb, "MiB", errors))
    evidence.max_mb = *mb;
  const bool log_limit_given = obj.at_key("max_log_mb").error() == simdjson::SUCCESS;
  if (auto mb = config_fields::limit_field(obj, "max_log_mb", "evidence.max_log_mb", evidence.max_log_mb,
                                           kMaxCacheDirectoryMb, "MiB", errors))
    evidence.max_log_mb = *mb;
  // The default per-log limit follows a total set below it.
  if (!log_limit_given) evidence.max_log_mb = std::min(evidence.max_log_mb, evidence.max_mb);
  if (auto hours = config_fields::integer_field(obj, "keep_recent_hours", "evidence.keep_recent_hours",
                                                evidence.keep_recent_hours, 0, kMaxKeepRecentHours, "hours",
                                                errors))
    evidence.keep_recent_hours = *hours;
  if (auto mb = config_fields::limit_field(obj, "max_sim_output_mb", "evidence.max_sim_output_mb",
                                           evidence.max_sim_output_mb, kMaxCacheDirectoryMb, "MiB", errors))
    evidence.max_sim_output_mb = *mb;
  if (auto keep = config_fields::bool_field(obj, "keep_run_dirs", "evidence.keep_run_dirs", evidence.keep_run_dirs,
                                            errors))
    evidence.keep_run_dirs = *keep;
  if (auto on = config_fields::bool_field(obj, "waveform", "evidence.waveform", evidence.waveform, errors))
    evidence.waveform = *on;
  if (auto cycles = config_fields::integer_field(obj, "waveform_cycles", "evidence.waveform_cycles",
                                                 evidence.waveform_cycles, 1, kMaxWaveformCycles, "cycles",
                                                 errors))
    evidence.waveform_cycles = *cycles;
  if (auto mb = config_fields::integer_field(obj, "max_waveform_mb", "evidence.max_waveform_mb",
                                             evidence.max_waveform_mb, 1, kMaxCacheDirectoryMb, "MiB", errors))
    evidence.max_waveform_mb = *mb;
  if (evidence.max_log_mb > evidence.max_mb)
    errors.push_back({"evidence.max_log_mb", "must be at most evidence.max_mb (" +
                                                 std::to_string(evidence.max_mb) + "), got " +
                                                 std::to_string(evidence.max_log_mb)});
}

}  // namespace mace
