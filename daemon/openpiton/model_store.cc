#include "openpiton/model_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <system_error>

#include "os/file_io.h"
#include "os/sha256.h"
#include "os/text.h"
#include "os/utc_text.h"

namespace mace::openpiton {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kManifestHeader = "mace-model-store 1";
constexpr std::string_view kManifest = "MANIFEST";
constexpr std::string_view kLastUsed = "last_used";
constexpr std::string_view kModel = "model";
// Bounds on what a manifest may claim, so a damaged one cannot make us allocate or loop
// without end: a sparc 1x1 model is ~100 MB in ~700 files.
constexpr std::size_t kMaxManifestBytes = 4 << 20;
constexpr std::size_t kMaxFiles = 20000;
constexpr std::uint64_t kMaxFileBytes = std::uint64_t{4} << 30;
// What a crashed publisher left in incoming/ is removed after this long; a publish in
// progress on another node is never that slow.
constexpr auto kAbandonedAfter = std::chrono::hours(24);

struct ManifestFile {
  std::uint64_t size = 0;
  std::string sha256;
  mode_t mode = 0644;
  std::string path;  // relative to model/
};

struct Manifest {
  std::string key;
  std::string origin_root;
  std::string origin_host;
  std::int64_t published_at_ms = 0;
  std::uint64_t bytes = 0;
  std::vector<ManifestFile> files;
};

bool is_hex_digest(std::string_view text) {
  return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

bool is_build_id(std::string_view text) {
  return !text.empty() && text.size() <= 100 && text != "." && text != ".." &&
         std::all_of(text.begin(), text.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
         });
}

// A manifest path must stay inside model/: relative, no "." or ".." parts, no empty part.
bool is_safe_relative_path(std::string_view path) {
  if (path.empty() || path.size() > 1024 || path.front() == '/') return false;
  if (path.find('\0') != std::string_view::npos || path.find('\n') != std::string_view::npos)
    return false;
  for (const auto& part : fs::path(std::string(path))) {
    const std::string name = part.string();
    if (name.empty() || name == "." || name == "..") return false;
  }
  return true;
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

std::int64_t now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

// A name no other publisher on any machine uses at the same time.
std::string unique_suffix() {
  static std::atomic<unsigned> counter{0};
  return host_name() + "." + std::to_string(getpid()) + "." + std::to_string(counter++) + "." +
         std::to_string(now_ms());
}

std::string manifest_text(const Manifest& m) {
  std::string out = std::string(kManifestHeader) + "\n";
  out += "key=" + m.key + "\n";
  out += "origin_root=" + m.origin_root + "\n";
  out += "origin_host=" + m.origin_host + "\n";
  out += "published_at_ms=" + std::to_string(m.published_at_ms) + "\n";
  out += "bytes=" + std::to_string(m.bytes) + "\n";
  out += "files=" + std::to_string(m.files.size()) + "\n";
  for (const auto& f : m.files) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%o", static_cast<unsigned>(f.mode & 07777));
    out += "file=" + std::to_string(f.size) + "\t" + f.sha256 + "\t" + mode + "\t" + f.path + "\n";
  }
  out += "end\n";  // a manifest cut short lacks it
  return out;
}

std::optional<std::uint64_t> parse_count(std::string_view text, std::uint64_t max) {
  if (text.empty() || text.size() > 19) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (value > max) return std::nullopt;
  return value;
}

// nullopt for anything but a complete manifest of `key` whose counts add up.
std::optional<Manifest> parse_manifest(std::string_view text, const std::string& key) {
  const auto lines = os::split_lines_dropping_newlines(text);
  if (lines.size() < 8 || lines.front() != kManifestHeader || lines.back() != "end")
    return std::nullopt;
  Manifest m;
  std::optional<std::uint64_t> expected_files;
  std::uint64_t sum = 0;
  for (std::size_t i = 1; i + 1 < lines.size(); ++i) {
    const std::string_view line = lines[i];
    const auto eq = line.find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    const std::string_view name = line.substr(0, eq), value = line.substr(eq + 1);
    if (name == "key") {
      m.key = value;
    } else if (name == "origin_root") {
      m.origin_root = value;
    } else if (name == "origin_host") {
      m.origin_host = value;
    } else if (name == "published_at_ms") {
      auto n = parse_count(value, std::uint64_t{1} << 62);
      if (!n) return std::nullopt;
      m.published_at_ms = static_cast<std::int64_t>(*n);
    } else if (name == "bytes") {
      auto n = parse_count(value, kMaxFileBytes * kMaxFiles);
      if (!n) return std::nullopt;
      m.bytes = *n;
    } else if (name == "files") {
      expected_files = parse_count(value, kMaxFiles);
      if (!expected_files) return std::nullopt;
    } else if (name == "file") {
      const auto fields = [&] {
        std::vector<std::string_view> parts;
        std::size_t start = 0;
        for (int k = 0; k < 3; ++k) {
          const auto tab = value.find('\t', start);
          if (tab == std::string_view::npos) return std::vector<std::string_view>{};
          parts.push_back(value.substr(start, tab - start));
          start = tab + 1;
        }
        parts.push_back(value.substr(start));
        return parts;
      }();
      if (fields.size() != 4 || m.files.size() >= kMaxFiles) return std::nullopt;
      ManifestFile f;
      auto size = parse_count(fields[0], kMaxFileBytes);
      if (!size || !is_hex_digest(fields[1]) || fields[2].empty() || fields[2].size() > 4 ||
          !is_safe_relative_path(fields[3]))
        return std::nullopt;
      unsigned mode = 0;
      for (char c : fields[2]) {
        if (c < '0' || c > '7') return std::nullopt;
        mode = mode * 8 + static_cast<unsigned>(c - '0');
      }
      f.size = *size;
      f.sha256 = fields[1];
      f.mode = static_cast<mode_t>(mode);
      f.path = fields[3];
      sum += f.size;
      m.files.push_back(std::move(f));
    } else {
      return std::nullopt;
    }
  }
  if (m.key != key || !expected_files || *expected_files != m.files.size() || sum != m.bytes ||
      m.origin_root.empty() || m.origin_root.front() != '/')
    return std::nullopt;
  return m;
}

// The model directory's files to store, relative and sorted. Throws std::runtime_error for
// what cannot be stored faithfully (a symlink, a device).
std::vector<std::string> model_files(const fs::path& model_dir) {
  std::vector<std::string> files;
  fs::recursive_directory_iterator it(model_dir), end;
  for (; it != end; ++it) {
    const fs::path relative = it->path().lexically_relative(model_dir);
    const std::string first = relative.begin()->string();
    // Simulations, the build's transcript and MACE's own files are not the model.
    if (first == "runs" || first == "mace_build.log" || first.starts_with(".mace_")) {
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    if (it->is_symlink()) throw std::runtime_error(it->path().string() + " is a symbolic link");
    if (it->is_directory()) continue;
    if (!it->is_regular_file())
      throw std::runtime_error(it->path().string() + " is not a regular file");
    files.push_back(relative.string());
    if (files.size() > kMaxFiles)
      throw std::runtime_error(model_dir.string() + " holds more than " +
                               std::to_string(kMaxFiles) + " files");
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Replaces `from` by `to` wherever it is a whole path prefix: followed by something that
// cannot continue a directory name, so /a/piton does not match inside /a/piton2.
std::string relocate(std::string_view text, const std::string& from, const std::string& to) {
  std::string out;
  std::size_t start = 0;
  while (true) {
    const auto at = text.find(from, start);
    if (at == std::string_view::npos) break;
    const std::size_t after = at + from.size();
    const char next = after < text.size() ? text[after] : '\0';
    const bool continues_name =
        std::isalnum(static_cast<unsigned char>(next)) || next == '_' || next == '-' || next == '.';
    out.append(text.substr(start, at - start));
    out.append(continues_name ? from : to);
    start = after;
  }
  out.append(text.substr(start));
  return out;
}

// Moves `dir` out of the way under trash/ (one rename, so readers see it whole or gone),
// then deletes it. False when it was already gone.
bool discard(const fs::path& store, const fs::path& dir) {
  std::error_code error;
  fs::create_directories(store / "trash", error);
  const fs::path target = store / "trash" / (dir.filename().string() + "." + unique_suffix());
  fs::rename(dir, target, error);
  if (error) return false;
  fs::remove_all(target, error);
  return true;
}

void touch(const fs::path& file) {
  // Opened for append so the file is created when missing; its mtime is what matters.
  if (FILE* f = std::fopen(file.c_str(), "a")) std::fclose(f);
  utimensat(AT_FDCWD, file.c_str(), nullptr, 0);
}

std::optional<Manifest> read_manifest(const fs::path& entry, const std::string& key) {
  auto text = os::try_read_file(entry / std::string(kManifest), kMaxManifestBytes);
  if (!text) return std::nullopt;
  return parse_manifest(*text, key);
}

}  // namespace

std::string ModelKey::entry_name() const {
  if (!is_build_id(build_id))
    throw std::invalid_argument("not a build ID a model store can hold: " + build_id);
  if (!is_hex_digest(fingerprint))
    throw std::invalid_argument("not a source fingerprint: " + fingerprint);
  return build_id + "-" + fingerprint;
}

ModelStore::ModelStore(ModelStoreSettings settings) : settings_(std::move(settings)) {}

bool ModelStore::holds_build(const std::string& build_id) const {
  const std::string prefix = build_id + "-";
  std::error_code error;
  for (fs::directory_iterator it(settings_.directory / "entries", error), end; !error && it != end;
       it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (name.size() == prefix.size() + 64 && name.starts_with(prefix) &&
        is_hex_digest(name.substr(prefix.size())) && fs::exists(it->path() / kManifest, error))
      return true;
  }
  return false;
}

fs::path ModelStore::entry_path(const ModelKey& key) const {
  return settings_.directory / "entries" / key.entry_name();
}

StoreFetch ModelStore::fetch(const ModelKey& key, const fs::path& model_dir,
                             const fs::path& checkout_root) const {
  StoreFetch result;
  const std::string name = key.entry_name();
  const fs::path entry = entry_path(key);
  result.entry = entry.string();
  std::error_code error;
  if (!fs::is_directory(entry, error)) return result;  // a plain miss

  const auto manifest = read_manifest(entry, name);
  if (!manifest) {
    // Entries appear under entries/ only with their manifest: this one was damaged.
    result.problem = "the store's entry " + entry.string() +
                     " has no complete MANIFEST; removed, the model is built instead";
    discard(settings_.directory, entry);
    return result;
  }
  const std::string to_root = checkout_root.string();
  try {
    for (const auto& file : manifest->files) {
      const fs::path source = entry / std::string(kModel) / file.path;
      std::string content;
      try {
        content = os::read_file(source, kMaxFileBytes);
      } catch (const os::FileError& e) {
        if (e.error() == ENOENT && !fs::exists(entry / std::string(kManifest), error)) {
          result.problem = "the store's entry " + entry.string() + " was removed while it was "
                           "copied (evicted elsewhere); the model is built instead";
          return result;
        }
        throw;
      }
      os::Sha256 hash;
      hash.update(content);
      if (content.size() != file.size || hash.finish_hex() != file.sha256) {
        result.problem = "the store's entry " + entry.string() + " is damaged (" + file.path +
                         " does not match its MANIFEST); removed, the model is built instead";
        discard(settings_.directory, entry);
        return result;
      }
      if (manifest->origin_root != to_root && content.find('\0') == std::string::npos)
        content = relocate(content, manifest->origin_root, to_root);
      const fs::path target = model_dir / file.path;
      fs::create_directories(target.parent_path());
      os::write_file_atomically(target, content,
                                {.meta = os::FileMeta{.mode = file.mode, .uid = getuid(),
                                                      .gid = getgid()},
                                 .durable = false});
    }
  } catch (const std::exception& e) {
    result.problem = std::string("cannot copy the model out of the store: ") + e.what();
    return result;
  }
  touch(entry / std::string(kLastUsed));  // best effort: a read-only store still serves
  result.hit = true;
  result.origin = "built in " + manifest->origin_root + " on " + manifest->origin_host + " at " +
                  os::utc_text(manifest->published_at_ms);
  return result;
}

StorePublish ModelStore::publish(const ModelKey& key, const fs::path& model_dir,
                                 const fs::path& checkout_root) const {
  StorePublish result;
  const std::string name = key.entry_name();
  const fs::path entry = entry_path(key);
  std::error_code error;
  if (fs::is_directory(entry, error)) {
    if (read_manifest(entry, name)) {
      result.already_present = true;
      touch(entry / std::string(kLastUsed));
      return result;
    }
    discard(settings_.directory, entry);  // damaged: ours replaces it
  }

  const fs::path incoming = settings_.directory / "incoming" / (name + "." + unique_suffix());
  try {
    fs::create_directories(settings_.directory / "entries");
    fs::create_directories(incoming / std::string(kModel));
    Manifest manifest;
    manifest.key = name;
    manifest.origin_root = checkout_root.string();
    manifest.origin_host = host_name();
    manifest.published_at_ms = now_ms();
    for (const auto& relative : model_files(model_dir)) {
      os::FileMeta meta;
      const std::string content = os::read_file(model_dir / relative, kMaxFileBytes, &meta);
      const fs::path target = incoming / std::string(kModel) / relative;
      fs::create_directories(target.parent_path());
      os::write_new_file(target, content, meta.mode & 07777);
      os::Sha256 hash;
      hash.update(content);
      manifest.files.push_back({content.size(), hash.finish_hex(), meta.mode & 07777, relative});
      manifest.bytes += content.size();
    }
    os::write_new_file(incoming / std::string(kLastUsed), "", 0644);
    os::write_new_file(incoming / std::string(kManifest), manifest_text(manifest), 0644);
    os::fsync_directory(incoming);
  } catch (const std::exception& e) {
    fs::remove_all(incoming, error);
    result.problem = std::string("cannot publish to the model store: ") + e.what();
    return result;
  }

  fs::rename(incoming, entry, error);
  if (error) {
    fs::remove_all(incoming, error);
    std::error_code ignored;
    if (fs::is_directory(entry, ignored)) {
      result.already_present = true;  // another publisher won the race
    } else {
      result.problem = "cannot publish to the model store: cannot rename into " +
                       entry.string() + ": " + error.message();
      return result;
    }
  } else {
    result.published = true;
    os::fsync_directory(entry.parent_path());
  }
  result.evicted = evict(name);
  return result;
}

std::vector<std::string> ModelStore::evict(const std::string& keep) const {
  std::vector<std::string> removed;
  std::error_code error;
  const auto now = fs::file_time_type::clock::now();
  for (const char* scratch : {"incoming", "trash"}) {
    for (fs::directory_iterator it(settings_.directory / scratch, error), end; !error && it != end;
         it.increment(error)) {
      std::error_code time_error;
      const auto written = fs::last_write_time(it->path(), time_error);
      if (!time_error && now - written > kAbandonedAfter) fs::remove_all(it->path(), time_error);
    }
    error.clear();
  }

  struct Entry {
    fs::path path;
    std::uint64_t bytes;
    fs::file_time_type used;
  };
  std::vector<Entry> entries;
  std::uint64_t total = 0;
  for (fs::directory_iterator it(settings_.directory / "entries", error), end;
       !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    auto manifest = read_manifest(it->path(), name);
    if (!manifest) continue;  // damaged entries are removed by whoever meets them
    std::error_code time_error;
    auto used = fs::last_write_time(it->path() / std::string(kLastUsed), time_error);
    if (time_error) used = fs::file_time_type::min();
    entries.push_back({it->path(), manifest->bytes, used});
    total += manifest->bytes;
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.used < b.used; });
  for (const auto& e : entries) {
    if (total <= settings_.max_bytes) break;
    if (e.path.filename() == keep) continue;
    if (discard(settings_.directory, e.path)) removed.push_back(e.path.filename().string());
    total -= e.bytes;  // gone either way: by us or by another evictor
  }
  return removed;
}

std::optional<ModelStore::Claim> ModelStore::claim(const ModelKey& key,
                                                   const os::CancelToken* cancel) const {
  const std::string name = key.entry_name();
  std::unique_lock lock(claims_->mutex);
  while (claims_->names.contains(name)) {
    if (cancel != nullptr && cancel->cancelled()) return std::nullopt;
    // Woken by a release; the timeout only bounds how late a cancel is noticed.
    claims_->released.wait_for(lock, std::chrono::milliseconds(200));
  }
  if (cancel != nullptr && cancel->cancelled()) return std::nullopt;
  claims_->names.insert(name);
  return Claim(this, name);
}

void ModelStore::Claim::release() noexcept {
  if (store_ == nullptr) return;
  {
    std::lock_guard lock(store_->claims_->mutex);
    store_->claims_->names.erase(name_);
  }
  store_->claims_->released.notify_all();
  store_ = nullptr;
}

std::uint64_t ModelStore::total_bytes() const {
  std::uint64_t total = 0;
  std::error_code error;
  for (fs::directory_iterator it(settings_.directory / "entries", error), end;
       !error && it != end; it.increment(error)) {
    if (auto m = read_manifest(it->path(), it->path().filename().string())) total += m->bytes;
  }
  return total;
}

}  // namespace mace::openpiton
