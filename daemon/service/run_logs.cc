// A run's logs as `mace logs --build | --sim` reads them: the run's own copy in its
// evidence once its build or simulation has ended (evidence/evidence_archive.h), the file
// where it is being written until then. A log the retention rule removed says when and
// why; one that could not be kept is read from where it was written, with a word that a
// later run may have replaced it there.

#include <cerrno>

#include "evidence/kept_file.h"
#include "os/file_io.h"
#include "os/utc_text.h"
#include "service/run_service.h"
#include "service/service_error.h"

namespace mace::service {
namespace {

std::string what_log(const store::LogFileRecord& file) {
  std::string text = file.kind == "coverage_data"     ? "the merged coverage"
                     : file.kind == "coverage_source" ? "the annotated " + file.workload
                     : file.kind == "waveform"        ? "the waveform of " + file.workload
                     : file.workload.empty()          ? "the build log"
                                                      : "the sim.log of " + file.workload;
  text += " (iteration " + std::to_string(file.iteration) + ", task " + file.task_id;
  if (!file.narrowing.empty()) text += ", narrowing: " + file.narrowing;
  return text + ")";
}

evidence::KeptFile kept_of(const store::LogFileRecord& file) {
  evidence::KeptFile kept;
  kept.path = file.path;
  kept.original_bytes = static_cast<uint64_t>(file.original_bytes);
  kept.stored_bytes = static_cast<uint64_t>(file.stored_bytes);
  kept.head_bytes = static_cast<uint64_t>(file.cut_head_bytes);
  kept.tail_bytes = static_cast<uint64_t>(file.cut_tail_bytes);
  kept.compressed = file.compressed;
  return kept;
}

// Fills `chunk` from the run's copy.
void read_kept(const store::LogFileRecord& file, const LogQuery& query, std::size_t most, LogChunk& chunk) {
  const evidence::KeptFileReader reader(file.path, file.compressed);
  chunk.kept = true;
  chunk.size = static_cast<int64_t>(reader.size());
  if (query.offset < 0) {
    chunk.data = reader.tail(static_cast<std::size_t>(std::max<int64_t>(query.tail_lines, 1)), most);
    chunk.offset = std::max<int64_t>(0, chunk.size - static_cast<int64_t>(chunk.data.size()));
    return;
  }
  uint64_t offset = static_cast<uint64_t>(query.offset);
  if (query.offset_of_live) offset = evidence::kept_offset(kept_of(file), reader.size(), offset);
  chunk.offset = static_cast<int64_t>(offset);
  chunk.data = reader.read(offset, most);
}

// Fills `chunk` from where the log is (or was) written; found is false while it is not.
void read_written(const std::string& path, const LogQuery& query, std::size_t most, LogChunk& chunk) {
  try {
    if (query.offset < 0) {
      // The tail's bytes are the file's last ones: where they start is size minus them.
      chunk.data = os::read_file_tail(path, static_cast<std::size_t>(std::max<int64_t>(query.tail_lines, 1)), most);
      chunk.size = static_cast<int64_t>(os::read_file_range(path, 0, 0).size);
      chunk.offset = std::max<int64_t>(0, chunk.size - static_cast<int64_t>(chunk.data.size()));
      return;
    }
    os::FileRange range = os::read_file_range(path, static_cast<uint64_t>(query.offset), most);
    chunk.data = std::move(range.data);
    chunk.size = static_cast<int64_t>(range.size);
    chunk.offset = query.offset;
  } catch (const os::FileError& e) {
    if (e.error() != ENOENT) throw RequestError(RequestErrorKind::unavailable, {"log", e.what()});
    chunk.found = false;  // recorded, not yet written: sims has not opened it
  }
}

}  // namespace

std::string log_file_note(const store::LogFileRecord& file, bool run_final) {
  if (file.removed_at_ms > 0)
    return what_log(file) + " was removed by the retention rule on " + os::utc_text(file.removed_at_ms) +
           (file.removed_reason.empty() ? "" : " (" + file.removed_reason + ")");
  if (file.kept_at_ms > 0 || (file.keep_error.empty() && !run_final)) return "";
  const std::string where = file.source_path.empty() ? file.path : file.source_path;
  return what_log(file) + " is not kept with the run (" +
         (file.keep_error.empty() ? "the run ended before it was copied" : file.keep_error) +
         "): it is read from " + where + ", where a later run may have replaced it";
}

LogChunk RunService::read_log(const std::string& run_id, const LogQuery& query,
                              const Caller& caller) const {
  LogChunk chunk;
  const store::RunRecord run = readable_run(run_id, caller);
  chunk.run_final = is_final(run.state);
  std::optional<store::LogFileRecord> file =
      query.file_id > 0 ? store_.find_log_file(query.file_id)
                        : store_.find_log_file(run_id, query.iteration, query.task_id, query.workload);
  if (file && file->run_id != run_id) return chunk;
  std::string served_from;
  if (!file && !run.replay_of.empty() && query.file_id == 0) {
    // A replay's builds and simulations are its original's, served from its record.
    readable_run(run.replay_of, caller);
    file = store_.find_log_file(run.replay_of, query.iteration, query.task_id, query.workload);
    served_from = "a replay builds and simulates nothing: this is the log of run " + run.replay_of +
                  ", whose recorded results it was served";
  }
  if (!file) return chunk;
  chunk.note = log_file_note(*file, chunk.run_final);
  if (!served_from.empty()) chunk.note = served_from + (chunk.note.empty() ? "" : "; " + chunk.note);
  if (file->removed_at_ms > 0) return chunk;
  chunk.found = true;
  chunk.path = file->path;
  const std::size_t most = static_cast<std::size_t>(
      query.max_bytes > 0 ? std::min(query.max_bytes, kMaxLogChunkBytes) : kMaxLogChunkBytes);
  if (file->kept_at_ms > 0) {
    try {
      read_kept(*file, query, most, chunk);
    } catch (const os::FileError& e) {
      throw RequestError(RequestErrorKind::unavailable, {"log", what_log(*file) + ", kept with the run: " + e.what()});
    }
    return chunk;
  }
  // Not kept: still being written, or it could not be copied, or recorded before runs kept
  // their logs. Only the first is surely this run's.
  chunk.path = file->source_path.empty() ? file->path : file->source_path;
  read_written(chunk.path, query, most, chunk);
  return chunk;
}

std::vector<store::LogFileRecord> RunService::log_files(const std::string& run_id,
                                                        const Caller& caller) const {
  readable_run(run_id, caller);
  return store_.log_files(run_id);
}

}  // namespace mace::service
