#include "run/log_keeper.h"

#include <system_error>
#include <vector>

#include "os/text.h"

namespace mace::run {
namespace {

std::string pending_key(const executor::TaskCallSite& site, const std::string& workload) {
  return std::to_string(site.iteration) + "/" + site.task_id + "/" + site.narrowing + "/" + workload;
}

}  // namespace

LogKeeper::LogKeeper(RunRecorder& recorder, std::shared_ptr<const evidence::EvidenceArchive> archive,
                     Clock now_ms)
    : recorder_(recorder), archive_(std::move(archive)), now_ms_(std::move(now_ms)) {}

LogKeeper::Pending LogKeeper::record(const executor::TaskCallSite& site, evidence::EvidenceKind kind,
                                     const std::string& name, const std::filesystem::path& path) {
  store::LogFileRecord record;
  record.run_id = recorder_.run_id();
  record.iteration = site.iteration;
  record.task_id = site.task_id;
  record.narrowing = site.narrowing;
  record.workload = name;
  record.path = path.string();
  record.source_path = path.string();
  record.created_at_ms = now_ms_();
  record.kind = std::string(evidence::to_string(kind));
  const int64_t id = recorder_.with_store([&](store::Store& s) { return s.record_log_file(record); });
  return {id, {recorder_.run_id(), site.iteration, site.task_id, site.narrowing, name, kind}, path};
}

void LogKeeper::started(const executor::TaskCallSite& site, const std::string& workload,
                        const std::filesystem::path& path) {
  const evidence::EvidenceKind kind =
      workload.empty() ? evidence::EvidenceKind::build_log : evidence::EvidenceKind::sim_log;
  Pending log = record(site, kind, workload, path);
  std::lock_guard lock(mutex_);
  if (kind == evidence::EvidenceKind::sim_log) run_dirs_.emplace(path.parent_path(), true);
  pending_[pending_key(site, workload)] = std::move(log);
}

LogKeeper::KeptCoverage LogKeeper::keep_coverage(const executor::TaskCallSite& site,
                                                 const openpiton::CoverageResult& coverage) {
  KeptCoverage kept{coverage.data.string(), coverage.annotated.string(), 0};
  if (!coverage.merged) return kept;
  const Pending data = record(site, evidence::EvidenceKind::coverage_data, "", coverage.data);
  kept.data_file_id = data.row_id;
  if (auto copy = keep(data)) kept.data_path = copy->string();
  bool annotated_kept = false;
  for (const auto& file : coverage.annotated_files) {
    const Pending source = record(site, evidence::EvidenceKind::coverage_source, file.string(),
                                  coverage.annotated / file);
    auto copy = keep(source);
    if (copy && !annotated_kept) {
      kept.annotated_dir = copy->parent_path().string();
      annotated_kept = true;
    }
  }
  return kept;
}

LogKeeper::KeptWaveform LogKeeper::keep_waveform(const executor::TaskCallSite& site, const std::string& workload,
                                                 const std::filesystem::path& path) {
  const Pending wave = record(site, evidence::EvidenceKind::waveform, workload, path);
  {
    std::lock_guard lock(mutex_);
    run_dirs_.emplace(path.parent_path(), true);
  }
  KeptWaveform kept{wave.row_id, path.string()};
  if (auto copy = keep(wave)) kept.path = copy->string();
  return kept;
}

void LogKeeper::finished(const executor::TaskCallSite& site, const std::string& workload) {
  Pending log;
  {
    std::lock_guard lock(mutex_);
    auto it = pending_.find(pending_key(site, workload));
    if (it == pending_.end()) return;  // served from the replay cache: nothing was written
    log = std::move(it->second);
    pending_.erase(it);
  }
  keep(log);
}

void LogKeeper::keep_remaining() {
  std::vector<Pending> left;
  {
    std::lock_guard lock(mutex_);
    for (auto& [key, log] : pending_) left.push_back(std::move(log));
    pending_.clear();
  }
  for (const auto& log : left) keep(log);
}

std::optional<std::filesystem::path> LogKeeper::keep(const Pending& log) {
  if (!archive_) return std::nullopt;
  auto not_kept = [&] {
    std::lock_guard lock(mutex_);
    if (auto dir = run_dirs_.find(log.source.parent_path()); dir != run_dirs_.end()) dir->second = false;
  };
  try {
    const evidence::KeptFile kept = archive_->keep(log.place, log.source);
    const store::KeptLogRecord record{kept.path.string(),
                                      now_ms_(),
                                      static_cast<int64_t>(kept.original_bytes),
                                      static_cast<int64_t>(kept.stored_bytes),
                                      static_cast<int64_t>(kept.head_bytes),
                                      static_cast<int64_t>(kept.tail_bytes),
                                      kept.compressed};
    recorder_.with_store([&](store::Store& s) { s.keep_log_file(log.row_id, record); });
    return kept.path;
  } catch (const std::exception& e) {
    // The run goes on: its log is still where it was written, which `mace logs` serves
    // with a word of warning, and the run's log says why it was not kept.
    not_kept();
    const std::string why = e.what();
    try {
      recorder_.with_store([&](store::Store& s) { s.log_file_not_kept(log.row_id, why); });
      recorder_.message(static_cast<int>(log.place.iteration), log.place.task_id,
                        "the " + (log.place.kind == evidence::EvidenceKind::coverage_source ? "annotated source"
                                  : log.place.kind == evidence::EvidenceKind::waveform      ? "waveform"
                                                                     : std::string(evidence::file_name(log.place.kind))) +
                            (log.place.workload.empty() ? "" : " of " + log.place.workload) +
                            " could not be kept with the run: " + why);
    } catch (const std::exception&) {
      // The store refuses too (a full disk): the row still names where the log was written.
    }
  }
  return std::nullopt;
}

void LogKeeper::remove_kept_run_dirs() {
  if (!archive_) return;
  std::map<std::filesystem::path, bool> dirs;
  {
    std::lock_guard lock(mutex_);
    dirs.swap(run_dirs_);
  }
  std::size_t removed = 0, left = 0;
  std::uintmax_t bytes = 0;
  std::string first_problem;
  for (const auto& [dir, kept] : dirs) {
    // Only what the simulator claims: a directory of `<model dir>/runs`.
    if (!kept || dir.parent_path().filename() != "runs") {
      ++left;
      continue;
    }
    std::error_code ec;
    if (!std::filesystem::exists(dir, ec)) continue;
    std::uintmax_t size = 0;
    for (std::filesystem::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      if (std::error_code file_error; it->is_regular_file(file_error)) size += it->file_size(file_error);
    ec.clear();
    std::filesystem::remove_all(dir, ec);
    if (ec) {
      ++left;
      if (first_problem.empty()) first_problem = dir.string() + ": " + ec.message();
      continue;
    }
    ++removed;
    bytes += size;
  }
  if (removed == 0 && first_problem.empty()) return;
  std::string text;
  if (removed > 0)
    text = "removed " + std::to_string(removed) + " simulation director" + (removed == 1 ? "y" : "ies") +
           " (" + os::mib_text(bytes) + ") from the checkouts; their logs are kept with the run";
  if (!first_problem.empty())
    text += std::string(text.empty() ? "" : "; ") + "could not remove " + std::to_string(left) +
            " simulation director" + (left == 1 ? "y" : "ies") + " from the checkouts (" + first_problem + ")";
  try {
    recorder_.message(text);
  } catch (const std::exception&) {
    // The store refuses (a full disk): the removal stands all the same.
  }
}

}  // namespace mace::run
