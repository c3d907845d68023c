#include "maced/state_backup.h"

#include <sys/stat.h>

#include <chrono>
#include <numeric>
#include <stdexcept>
#include <system_error>

#include <simdjson.h>

#include "core/json_writer.h"
#include "os/file_io.h"
#include "os/text.h"
#include "os/utc_text.h"
#include "store/database_check.h"
#include "store/migrations.h"
#include "store/sqlite.h"
#include "store/store.h"

namespace mace {
namespace {

namespace fs = std::filesystem;

constexpr const char* kDatabase = "mace.db";
constexpr const char* kManifest = "backup.json";
constexpr const char* kEvidence = "evidence";
constexpr std::size_t kMaxListed = 1000;  // of the gone and outside files, in the manifest
constexpr std::chrono::seconds kProgressEvery{5};
constexpr std::chrono::minutes kCheckLimit{10};

int64_t now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

std::size_t run_count(const store::Store& store) {
  const auto by_state = store.count_runs_by_state();
  return std::accumulate(by_state.begin(), by_state.end(), std::size_t{0},
                         [](std::size_t sum, const auto& entry) { return sum + static_cast<std::size_t>(entry.second); });
}

// `path` below `root`, when it is there and names no '..' (a stored path is maced's own,
// but a backup never writes outside itself whatever it is given).
std::optional<fs::path> below(const fs::path& path, const fs::path& root) {
  const fs::path normal = path.lexically_normal();
  if (!normal.is_absolute() || normal != path) return std::nullopt;
  const fs::path relative = normal.lexically_relative(root.lexically_normal());
  if (relative.empty() || *relative.begin() == ".." || relative == ".") return std::nullopt;
  return relative;
}

// Copies `from` to `to` through a temporary beside it, so `to` is the old file or the
// whole new one. False when `from` does not exist; throws for anything else.
bool copy_whole(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::create_directories(to.parent_path(), ec);
  if (ec) throw std::runtime_error("cannot make " + to.parent_path().string() + ": " + ec.message());
  const fs::path temp = to.parent_path() / ("." + to.filename().string() + ".copying");
  fs::copy_file(from, temp, fs::copy_options::overwrite_existing, ec);
  if (ec == std::errc::no_such_file_or_directory && !fs::exists(from)) return false;
  if (ec) throw std::runtime_error("cannot copy " + from.string() + " to " + temp.string() + ": " + ec.message());
  fs::rename(temp, to, ec);
  if (ec) {
    fs::remove(temp);
    throw std::runtime_error("cannot move " + temp.string() + " to " + to.string() + ": " + ec.message());
  }
  return true;
}

// Says how far a long copy has come, every few seconds.
class Progress {
 public:
  Progress(std::ostream& log, std::string what, std::size_t total) : log_(log), what_(std::move(what)), total_(total) {}
  void copied(std::uint64_t bytes) {
    ++done_;
    bytes_ += bytes;
    if (std::chrono::steady_clock::now() - last_ < kProgressEvery) return;
    last_ = std::chrono::steady_clock::now();
    log_ << "maced: " << what_ << " " << done_ << " of " << total_ << " kept files (" << os::mib_text(bytes_) << ")\n";
    log_.flush();
  }

 private:
  std::ostream& log_;
  std::string what_;
  std::size_t total_, done_ = 0;
  std::uint64_t bytes_ = 0;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

std::string manifest_json(const BackupSummary& summary, const fs::path& state_dir, const fs::path& evidence_root,
                          int64_t taken_at_ms) {
  JsonWriter w(true);
  w.begin_object();
  w.field("mace_version", MACE_VERSION);
  w.field("schema_version", summary.schema_version);
  w.field("taken_at", os::utc_text(taken_at_ms));
  w.field("taken_at_ms", taken_at_ms);
  w.field("state_dir", state_dir.string());
  w.field("evidence_root", evidence_root.string());
  w.field("runs", static_cast<uint64_t>(summary.runs));
  w.field("files", static_cast<uint64_t>(summary.files));
  w.field("bytes", static_cast<uint64_t>(summary.bytes));
  for (const auto& [name, list] : {std::pair{"gone", &summary.gone}, std::pair{"outside", &summary.outside}}) {
    w.field(std::string(name) + "_count", static_cast<uint64_t>(list->size()));
    w.key(name).begin_array();
    for (std::size_t i = 0; i < list->size() && i < kMaxListed; ++i) w.value((*list)[i]);
    w.end_array();
  }
  w.end_object();
  return w.take() + "\n";
}

struct Manifest {
  int schema_version = 0;
  std::string evidence_root;
  std::string taken_at;
};

Manifest read_manifest(const fs::path& source) {
  const fs::path path = source / kManifest;
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (auto error = parser.load(path.string()).get(root))
    throw std::runtime_error(path.string() + ": not a backup's manifest (" + simdjson::error_message(error) + ")");
  Manifest manifest;
  int64_t version = 0;
  std::string_view evidence_root, taken_at;
  if (root["schema_version"].get(version) || root["evidence_root"].get(evidence_root) ||
      root["taken_at"].get(taken_at))
    throw std::runtime_error(path.string() + ": not a backup's manifest (schema_version, evidence_root or "
                                             "taken_at missing)");
  manifest.schema_version = static_cast<int>(version);
  manifest.evidence_root = std::string(evidence_root);
  manifest.taken_at = std::string(taken_at);
  return manifest;
}

std::string compact_time(int64_t unix_ms) {
  std::string text = os::utc_text(unix_ms);  // "2026-12-02 07:05:02 UTC"
  std::string out;
  for (char c : text.substr(0, 19)) out += (c == ' ' || c == ':') ? '-' : c;
  return out;
}

}  // namespace

BackupSummary back_up_state(const fs::path& state_dir, const fs::path& evidence_root, const fs::path& destination,
                            std::ostream& log) {
  const fs::path database = state_dir / kDatabase;
  std::error_code ec;
  if (!fs::is_regular_file(database, ec))
    throw std::runtime_error("there is no " + database.string() + " to back up");
  if (fs::exists(destination, ec) || fs::is_symlink(destination, ec))
    throw std::runtime_error(destination.string() + " already exists; a backup goes into a new directory");
  fs::create_directories(destination.parent_path(), ec);
  if (::mkdir(destination.c_str(), 0700) != 0)
    throw std::runtime_error("cannot make " + destination.string() + ": " + std::error_code(errno, std::generic_category()).message());
  try {
    const int64_t taken_at = now_ms();
    {
      store::Database live(database);
      live.set_busy_timeout(5000);
      live.backup_to(destination / kDatabase);
    }
    BackupSummary summary;
    std::vector<std::string> kept;
    {
      auto snapshot = store::Store::open(destination / kDatabase);
      summary.schema_version = snapshot->schema_version();
      summary.runs = run_count(*snapshot);
      kept = snapshot->kept_file_paths();
    }
    log << "maced: " << database.string() << " copied (" << summary.runs << " runs); copying " << kept.size()
        << " kept files\n";
    log.flush();
    Progress progress(log, "copied", kept.size());
    for (const auto& path : kept) {
      const auto relative = below(path, evidence_root);
      if (!relative) {
        summary.outside.push_back(path);
        continue;
      }
      const auto size = fs::file_size(path, ec);
      if (!copy_whole(path, destination / kEvidence / *relative)) {
        summary.gone.push_back(path);
        continue;
      }
      ++summary.files;
      summary.bytes += ec ? 0 : size;
      progress.copied(ec ? 0 : size);
    }
    os::write_new_file(destination / kManifest, manifest_json(summary, state_dir, evidence_root, taken_at), 0600);
    os::fsync_directory(destination);
    return summary;
  } catch (...) {
    fs::remove_all(destination, ec);
    throw;
  }
}

BackupSummary restore_state(const fs::path& source, const fs::path& state_dir, const fs::path& evidence_root,
                            std::ostream& log) {
  const Manifest manifest = read_manifest(source);
  const fs::path backup_db = source / kDatabase;
  std::error_code ec;
  if (!fs::is_regular_file(backup_db, ec)) throw std::runtime_error("the backup has no " + backup_db.string());
  if (manifest.schema_version > store::latest_schema_version())
    throw std::runtime_error("the backup was made by a newer MACE (schema " + std::to_string(manifest.schema_version) +
                             "; this one knows up to " + std::to_string(store::latest_schema_version()) +
                             "): restore it with that MACE");
  const store::DatabaseCheck check = store::check_database(backup_db, kCheckLimit);
  if (!check.problems.empty())
    throw std::runtime_error("the backup's database is damaged: " + check.problems.front());

  fs::create_directories(state_dir, ec);
  const fs::path database = state_dir / kDatabase;
  if (fs::exists(database, ec)) {
    const fs::path aside = state_dir / ("before-restore-" + compact_time(now_ms()));
    if (::mkdir(aside.c_str(), 0700) != 0)
      throw std::runtime_error("cannot make " + aside.string() + " to keep the current store in: " +
                               std::error_code(errno, std::generic_category()).message());
    for (const char* name : {"mace.db", "mace.db-wal", "mace.db-shm"}) {
      if (!fs::exists(state_dir / name, ec)) continue;
      fs::rename(state_dir / name, aside / name, ec);
      if (ec) throw std::runtime_error("cannot move " + (state_dir / name).string() + " aside: " + ec.message());
    }
    log << "maced: the store that was there is kept in " << aside.string() << "\n";
  }

  // The kept files first, the database that names them last: a restore cut short leaves no
  // store pointing at files that are not there.
  BackupSummary summary;
  const fs::path files = source / kEvidence;
  std::vector<fs::path> to_copy;
  for (fs::recursive_directory_iterator it(files, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file(ec) && !it->is_symlink(ec)) to_copy.push_back(it->path());
  if (ec && fs::exists(files)) throw std::runtime_error("cannot read " + files.string() + ": " + ec.message());
  Progress progress(log, "restored", to_copy.size());
  for (const auto& file : to_copy) {
    const fs::path relative = file.lexically_relative(files);
    if (relative.empty() || *relative.begin() == "..") continue;
    const auto size = fs::file_size(file, ec);
    copy_whole(file, evidence_root / relative);
    ++summary.files;
    summary.bytes += ec ? 0 : size;
    progress.copied(ec ? 0 : size);
  }
  for (const char* name : {"mace.db-wal", "mace.db"})
    if (fs::exists(source / name, ec)) copy_whole(source / name, state_dir / name);

  auto store = store::Store::open(database);  // migrates a backup of an earlier MACE
  summary.schema_version = store->schema_version();
  summary.runs = run_count(*store);
  const fs::path old_root = fs::path(manifest.evidence_root).lexically_normal();
  if (old_root != evidence_root.lexically_normal()) {
    const int64_t moved = store->move_evidence_root(old_root.string(), evidence_root.lexically_normal().string());
    log << "maced: the kept files were under " << old_root.string() << ", now under " << evidence_root.string()
        << " (" << moved << " stored paths moved)\n";
  }
  if (manifest.schema_version < summary.schema_version)
    log << "maced: the store was migrated from schema " << manifest.schema_version << " to "
        << summary.schema_version << "\n";
  return summary;
}

}  // namespace mace
