// The waveform of each failed task's deciding workload (migration 21): one row per task of
// an iteration, whether a waveform was written or why not.

#include "store/waveform_records.h"

#include "store/columns.h"
#include "store/sqlite.h"
#include "store/store.h"

namespace mace::store {
namespace {

const auto kWaveformColumns = columns(
    column("run_id", &WaveformRecord::run_id), column("iteration", &WaveformRecord::iteration),
    column("task_id", &WaveformRecord::task_id), column("workload", &WaveformRecord::workload),
    column("file_id", &WaveformRecord::file_id), column("path", &WaveformRecord::path),
    column("from_time", &WaveformRecord::from_time), column("to_time", &WaveformRecord::to_time),
    column("last_time", &WaveformRecord::last_time), column("end_reason", &WaveformRecord::end),
    column("bytes", &WaveformRecord::bytes), column("build_id", &WaveformRecord::build_id),
    column("model_reused", &WaveformRecord::model_reused),
    column("build_seconds", &WaveformRecord::build_seconds),
    column("sim_seconds", &WaveformRecord::sim_seconds), column("problem", &WaveformRecord::problem),
    column("note", &WaveformRecord::note),
    column("changed_last_json", &WaveformRecord::changed_last, json_list),
    column("created_at_ms", &WaveformRecord::created_at_ms));

}  // namespace

void Store::record_waveform(const WaveformRecord& w) {
  auto stmt = db_->prepare("INSERT OR REPLACE INTO waveforms (" + kWaveformColumns.names() + ") VALUES (" +
                           kWaveformColumns.parameters() + ")");
  kWaveformColumns.bind(stmt, 1, w).run();
}

std::vector<WaveformRecord> Store::waveforms(const std::string& run_id) const {
  auto stmt = db_->prepare(kWaveformColumns.select_sql("waveforms", "WHERE run_id = ?1 ORDER BY iteration, task_id"));
  return kWaveformColumns.read_all(*db_, stmt.bind(1, run_id));
}

}  // namespace mace::store
