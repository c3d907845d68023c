#include "openpiton/rtl_edits.h"

#include "openpiton/path_inside.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <system_error>
#include <utility>

#include "openpiton/sha256.h"

namespace mace::openpiton {
namespace fs = std::filesystem;

namespace {

EditStepHook g_step_hook = nullptr;

void step(std::string_view name) {
  if (g_step_hook != nullptr) g_step_hook(name);
}

constexpr int kMaxSymlinks = 40;  // what Linux allows in one path walk (ELOOP)
constexpr std::string_view kManifestMagic = "mace-edit-journal 1";

std::string errno_text(int error) { return std::strerror(error); }

[[noreturn]] void refuse(std::string_view path, const std::string& reason) {
  throw PathError("refused path '" + std::string(path) + "': " + reason);
}

[[noreturn]] void io_error(const std::string& what, const fs::path& path, int error) {
  throw EditError(what + " " + path.string() + ": " + errno_text(error));
}

std::vector<std::string> split_components(std::string_view path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    parts.emplace_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

std::string lexically_normal(std::string_view path) {
  std::string out = !path.empty() && path.front() == '/' ? "/" : "";
  bool first = true;
  for (const std::string& part : split_components(path)) {
    if (part.empty() || part == ".") continue;
    if (!first) out += '/';
    out += part;
    first = false;
  }
  return out;
}

std::optional<struct stat> lstat_path(const fs::path& path, int* error = nullptr) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) return st;
  if (error != nullptr) *error = errno;
  return std::nullopt;
}

// Where `path` (absolute) really leads, like realpath(3) but tolerating a missing tail, which
// is appended as written: a dangling symlink must be judged by where a write through it
// would create the file, not by the link's own location.
fs::path resolve_fully(const fs::path& path, std::string_view shown) {
  std::deque<std::string> pending;
  for (const auto& part : path.relative_path()) pending.push_back(part.string());
  fs::path result = "/";
  bool missing = false;
  int links_left = kMaxSymlinks;
  while (!pending.empty()) {
    std::string part = std::move(pending.front());
    pending.pop_front();
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      // The kernel would fail here (ENOENT); a lexical ".." could land on a symlink we then
      // never look at.
      if (missing) refuse(shown, "a symlink target goes through a missing directory and '..'");
      result = result.parent_path();
      continue;
    }
    fs::path next = result / part;
    if (missing) {
      result = std::move(next);
      continue;
    }
    int error = 0;
    auto st = lstat_path(next, &error);
    if (!st) {
      if (error != ENOENT) {
        refuse(shown, "cannot examine " + next.string() + ": " + errno_text(error));
      }
      missing = true;
      result = std::move(next);
      continue;
    }
    if (S_ISLNK(st->st_mode)) {
      if (--links_left < 0) refuse(shown, "too many levels of symlinks");
      std::error_code ec;
      fs::path target = fs::read_symlink(next, ec);
      if (ec) refuse(shown, "cannot read symlink " + next.string() + ": " + ec.message());
      std::vector<std::string> parts;
      for (const auto& p : target.relative_path()) parts.push_back(p.string());
      pending.insert(pending.begin(), parts.begin(), parts.end());
      if (target.is_absolute()) result = "/";
      continue;
    }
    if (!S_ISDIR(st->st_mode) && !pending.empty()) {
      refuse(shown, next.string() + " is not a directory");
    }
    result = std::move(next);
  }
  return result;
}

fs::path canonical_root(const fs::path& checkout_root) {
  std::error_code ec;
  fs::path root = fs::canonical(checkout_root, ec);
  if (ec) throw EditError("checkout root " + checkout_root.string() + ": " + ec.message());
  return root;
}

// ---- files -------------------------------------------------------------------------------

struct FileMeta {
  mode_t mode = 0644;
  uid_t uid = 0;
  gid_t gid = 0;
};

std::optional<std::string> read_file_if_exists(const fs::path& path, FileMeta* meta = nullptr) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    io_error("cannot open", path, errno);
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int error = errno;
    ::close(fd);
    io_error("cannot stat", path, error);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw EditError(path.string() + " is not a regular file");
  }
  if (meta != nullptr) *meta = FileMeta{static_cast<mode_t>(st.st_mode & 07777), st.st_uid, st.st_gid};
  std::string content;
  content.reserve(static_cast<size_t>(st.st_size));
  char buffer[65536];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      int error = errno;
      ::close(fd);
      io_error("cannot read", path, error);
    }
    if (n == 0) break;
    content.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return content;
}

std::string read_file(const fs::path& path, FileMeta* meta = nullptr) {
  auto content = read_file_if_exists(path, meta);
  if (!content) throw EditError("cannot open " + path.string() + ": " + errno_text(ENOENT));
  return *content;
}

void write_all(int fd, std::string_view content, const fs::path& path) {
  while (!content.empty()) {
    ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      io_error("cannot write", path, errno);
    }
    content.remove_prefix(static_cast<size_t>(n));
  }
}

// Only durability across a power cut depends on it, and some file systems refuse it.
void fsync_dir(const fs::path& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

// Writes a new file (replacing any) in place; for the journal, whose manifest makes it
// count, so a torn write here is harmless.
void write_new_file(const fs::path& path, std::string_view content, mode_t mode) {
  (void)::unlink(path.c_str());
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
  if (fd < 0) io_error("cannot create", path, errno);
  try {
    write_all(fd, content, path);
    if (::fsync(fd) != 0) io_error("cannot fsync", path, errno);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0) io_error("cannot close", path, errno);
}

// Fixed, so that a restore after a crash knows which leftover temp file to remove.
fs::path temp_path_for(const fs::path& target) {
  return target.parent_path() / ("." + target.filename().string() + ".mace-edit.tmp");
}

// Temp + rename, so a build or a crash never sees half a file. Keeps `meta` (mode; owner
// when we may set it), or 0644 for a new file.
void write_atomically(const fs::path& target, std::string_view content,
                      const std::optional<FileMeta>& meta, bool durable) {
  const fs::path temp = temp_path_for(target);
  (void)::unlink(temp.c_str());
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) io_error("cannot create", temp, errno);
  try {
    write_all(fd, content, temp);
    if (meta) {
      struct stat st {};
      if (::fstat(fd, &st) == 0 && (st.st_uid != meta->uid || st.st_gid != meta->gid)) {
        // Only root may give a file away; a daemon running as the checkout's owner never
        // needs to.
        (void)::fchown(fd, meta->uid, meta->gid);
      }
    }
    // After fchown, which clears set-id bits.
    if (::fchmod(fd, meta ? meta->mode : 0644) != 0) io_error("cannot chmod", temp, errno);
    if (durable && ::fsync(fd) != 0) io_error("cannot fsync", temp, errno);
  } catch (...) {
    ::close(fd);
    (void)::unlink(temp.c_str());
    throw;
  }
  if (::close(fd) != 0) {
    int error = errno;
    (void)::unlink(temp.c_str());
    io_error("cannot close", temp, error);
  }
  step("temp");
  if (::rename(temp.c_str(), target.c_str()) != 0) {
    int error = errno;
    (void)::unlink(temp.c_str());
    io_error("cannot rename onto", target, error);
  }
  step("rename");
  if (durable) fsync_dir(target.parent_path());
}

// ---- journal -----------------------------------------------------------------------------

struct JournalEntry {
  std::string path;  // relative, as resolve_design_path() gives it
  bool existed = false;
  FileMeta meta;
  uint64_t size = 0;
  std::string sha256;  // of the original; "-" when it did not exist
};

struct Manifest {
  bool created_build_dir = false;
  std::vector<JournalEntry> entries;
};

fs::path journal_dir(const fs::path& root) { return root / kJournalDir; }
fs::path original_copy(const fs::path& journal, size_t index) {
  return journal / (std::to_string(index) + ".orig");
}

// Line-based, every path length-prefixed so that no byte of a path can break the format.
std::string serialize_manifest(const Manifest& manifest) {
  std::string out(kManifestMagic);
  out += "\nbuild-dir-created " + std::to_string(manifest.created_build_dir ? 1 : 0) + "\n";
  out += "files " + std::to_string(manifest.entries.size()) + "\n";
  for (const JournalEntry& e : manifest.entries) {
    char mode[16];
    std::snprintf(mode, sizeof mode, "%o", static_cast<unsigned>(e.meta.mode));
    out += "file " + std::to_string(e.existed ? 1 : 0) + " " + mode + " " +
           std::to_string(e.meta.uid) + " " + std::to_string(e.meta.gid) + " " +
           std::to_string(e.size) + " " + e.sha256 + " " + std::to_string(e.path.size()) +
           "\n" + e.path + "\n";
  }
  out += "end\n";
  return out;
}

class ManifestReader {
 public:
  explicit ManifestReader(std::string_view text) : text_(text) {}

  std::string_view line() {
    size_t nl = text_.find('\n', pos_);
    if (nl == std::string_view::npos) fail();
    std::string_view out = text_.substr(pos_, nl - pos_);
    pos_ = nl + 1;
    return out;
  }
  std::string_view bytes(size_t n) {
    if (text_.size() - pos_ < n + 1 || text_[pos_ + n] != '\n') fail();
    std::string_view out = text_.substr(pos_, n);
    pos_ += n + 1;
    return out;
  }
  bool at_end() const { return pos_ == text_.size(); }
  [[noreturn]] static void fail() { throw EditError("the edit journal's manifest is malformed"); }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

template <typename T>
T parse_number(std::string_view field, int base = 10) {
  T value{};
  auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value, base);
  if (ec != std::errc() || end != field.data() + field.size()) ManifestReader::fail();
  return value;
}

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t start = 0;
  while (start <= line.size()) {
    size_t space = line.find(' ', start);
    if (space == std::string_view::npos) space = line.size();
    fields.push_back(line.substr(start, space - start));
    start = space + 1;
  }
  return fields;
}

Manifest parse_manifest(std::string_view text) {
  ManifestReader in(text);
  Manifest manifest;
  if (in.line() != kManifestMagic) ManifestReader::fail();
  auto header = split_fields(in.line());
  if (header.size() != 2 || header[0] != "build-dir-created") ManifestReader::fail();
  manifest.created_build_dir = parse_number<int>(header[1]) != 0;
  auto count_fields = split_fields(in.line());
  if (count_fields.size() != 2 || count_fields[0] != "files") ManifestReader::fail();
  const size_t count = parse_number<size_t>(count_fields[1]);
  for (size_t i = 0; i < count; ++i) {
    auto f = split_fields(in.line());
    if (f.size() != 8 || f[0] != "file") ManifestReader::fail();
    JournalEntry e;
    e.existed = parse_number<int>(f[1]) != 0;
    e.meta.mode = parse_number<unsigned>(f[2], 8);
    e.meta.uid = parse_number<uid_t>(f[3]);
    e.meta.gid = parse_number<gid_t>(f[4]);
    e.size = parse_number<uint64_t>(f[5]);
    e.sha256 = std::string(f[6]);
    e.path = std::string(in.bytes(parse_number<size_t>(f[7])));
    manifest.entries.push_back(std::move(e));
  }
  if (in.line() != "end" || !in.at_end()) ManifestReader::fail();
  return manifest;
}

void remove_journal(const fs::path& root, const Manifest* manifest, RestoreReport& report) {
  const fs::path journal = journal_dir(root);
  // The manifest goes first: from then on what is left is an incomplete journal, which
  // means "nothing to restore", and that is now true.
  if (::unlink((journal / "manifest").c_str()) != 0 && errno != ENOENT) {
    report.errors.push_back("cannot remove the edit journal's manifest: " + errno_text(errno));
    return;
  }
  fsync_dir(journal);
  step("manifest removed");
  std::error_code ec;
  fs::remove_all(journal, ec);
  if (ec) report.errors.push_back("cannot remove the edit journal: " + ec.message());
  if (manifest != nullptr && manifest->created_build_dir) (void)::rmdir((root / "build").c_str());
}

RestoreReport restore_from_journal(const fs::path& root) {
  RestoreReport report;
  const fs::path journal = journal_dir(root);
  std::optional<std::string> manifest_text;
  try {
    manifest_text = read_file_if_exists(journal / "manifest");
  } catch (const std::exception& e) {
    report.errors.push_back(e.what());
    return report;
  }
  if (!manifest_text) {
    // The tree is only touched once the manifest is in place: nothing was changed.
    report.discarded_incomplete_journal = true;
    remove_journal(root, nullptr, report);
    return report;
  }
  Manifest manifest;
  try {
    manifest = parse_manifest(*manifest_text);
  } catch (const std::exception& e) {
    report.errors.push_back(e.what());
    return report;
  }
  for (size_t i = 0; i < manifest.entries.size(); ++i) {
    const JournalEntry& entry = manifest.entries[i];
    try {
      DesignPath where = resolve_design_path(root, entry.path);
      if (where.relative != entry.path) {
        throw EditError(entry.path + " now resolves to " + where.relative);
      }
      // A crash between writing a temp file and renaming it leaves the temp behind.
      (void)::unlink(temp_path_for(where.absolute).c_str());
      if (entry.existed) {
        std::string original = read_file(original_copy(journal, i));
        if (original.size() != entry.size || sha256_hex(original) != entry.sha256) {
          throw EditError("the journal's copy of " + entry.path + " is corrupt");
        }
        FileMeta current_meta;
        auto current = read_file_if_exists(where.absolute, &current_meta);
        // An untouched file keeps its mtime, so make does not rebuild for nothing.
        if (!current || *current != original || current_meta.mode != entry.meta.mode) {
          write_atomically(where.absolute, original, entry.meta, true);
          report.restored.push_back(entry.path);
        }
      } else if (where.exists) {
        if (::unlink(where.absolute.c_str()) != 0) io_error("cannot remove", where.absolute, errno);
        fsync_dir(where.absolute.parent_path());
        report.removed.push_back(entry.path);
      }
    } catch (const std::exception& e) {
      report.errors.push_back(std::string("cannot restore ") + entry.path + ": " + e.what());
    }
    step("restore file");
  }
  // On any error the journal stays: it is the only record of the originals.
  if (report.ok()) remove_journal(root, &manifest, report);
  return report;
}

// Checkouts with edits applied by this process, so that nothing restores them from under
// their guard (a leftover journal of our own is not a leftover).
std::mutex g_live_mutex;
std::set<std::string> g_live_roots;

bool is_live(const fs::path& root) {
  std::lock_guard lock(g_live_mutex);
  return g_live_roots.count(root.string()) != 0;
}
void set_live(const fs::path& root, bool live) {
  std::lock_guard lock(g_live_mutex);
  if (live) {
    g_live_roots.insert(root.string());
  } else {
    g_live_roots.erase(root.string());
  }
}

// ---- line diff ---------------------------------------------------------------------------

// Each line keeps its '\n', so a last line without one differs from the same text with one.
std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    lines.push_back(text.substr(start, end - start));
    start = end;
  }
  return lines;
}

// Beyond this many differing lines the trace would cost D^2 memory; such a rewrite diffs as
// one block instead, which is still a correct diff.
constexpr int kMaxDiffDistance = 2000;

// Myers' O((N+M)D) shortest edit script between a and b: '=', '-' (from a), '+' (from b).
std::string myers(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b) {
  const int n = static_cast<int>(a.size());
  const int m = static_cast<int>(b.size());
  const int max = n + m;
  std::string fallback = std::string(static_cast<size_t>(n), '-') + std::string(static_cast<size_t>(m), '+');
  if (n == 0 || m == 0) return fallback;
  const int limit = std::min(max, kMaxDiffDistance);
  std::vector<int> v(static_cast<size_t>(2 * limit + 3), 0);
  const int offset = limit + 1;
  // trace[d][k + d] is the furthest x on diagonal k after d edits.
  std::vector<std::vector<int>> trace;
  int found = -1;
  for (int d = 0; d <= limit && found < 0; ++d) {
    for (int k = -d; k <= d; k += 2) {
      int x = (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1])) ? v[offset + k + 1]
                                                                              : v[offset + k - 1] + 1;
      int y = x - k;
      while (x < n && y < m && a[static_cast<size_t>(x)] == b[static_cast<size_t>(y)]) ++x, ++y;
      v[offset + k] = x;
      if (x >= n && y >= m) found = d;
    }
    trace.emplace_back(v.begin() + offset - d, v.begin() + offset + d + 1);
  }
  if (found < 0) return fallback;

  std::string ops;
  int x = n, y = m;
  for (int d = found; d > 0; --d) {
    const std::vector<int>& prev = trace[static_cast<size_t>(d - 1)];
    auto at = [&](int k) { return prev[static_cast<size_t>(k + d - 1)]; };
    const int k = x - y;
    const bool down = k == -d || (k != d && at(k - 1) < at(k + 1));
    const int prev_k = down ? k + 1 : k - 1;
    const int prev_x = at(prev_k);
    const int snake_start = down ? prev_x : prev_x + 1;
    while (x > snake_start) {
      ops += '=';
      --x;
      --y;
    }
    ops += down ? '+' : '-';
    x = prev_x;
    y = prev_x - prev_k;
  }
  while (x > 0) {
    ops += '=';
    --x;
  }
  std::reverse(ops.begin(), ops.end());
  return ops;
}

std::string diff_ops(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b) {
  // The common head and tail are cheap to strip and usually nearly everything of an RTL edit.
  size_t head = 0;
  while (head < a.size() && head < b.size() && a[head] == b[head]) ++head;
  size_t tail = 0;
  while (tail < a.size() - head && tail < b.size() - head &&
         a[a.size() - 1 - tail] == b[b.size() - 1 - tail]) {
    ++tail;
  }
  std::vector<std::string_view> mid_a(a.begin() + static_cast<long>(head), a.end() - static_cast<long>(tail));
  std::vector<std::string_view> mid_b(b.begin() + static_cast<long>(head), b.end() - static_cast<long>(tail));
  return std::string(head, '=') + myers(mid_a, mid_b) + std::string(tail, '=');
}

std::string hunk_range(size_t start, size_t count) {
  // An empty range names the line before it (GNU diff, git).
  std::string out = std::to_string(count == 0 ? start : start + 1);
  if (count != 1) out += "," + std::to_string(count);
  return out;
}

void append_line(std::string& out, char mark, std::string_view line) {
  out += mark;
  out.append(line);
  if (line.empty() || line.back() != '\n') out += "\n\\ No newline at end of file\n";
}

constexpr size_t kContext = 3;

}  // namespace

// ---- paths -------------------------------------------------------------------------------

DesignPath resolve_design_path(const fs::path& checkout_root, std::string_view relative) {
  const std::string shown(relative.find('\0') == std::string_view::npos
                              ? relative
                              : relative.substr(0, relative.find('\0')));
  if (relative.empty()) refuse(shown, "path is empty");
  if (relative.find('\0') != std::string_view::npos) refuse(shown, "path contains a NUL byte");
  if (relative.front() == '/') refuse(shown, "path is absolute");
  std::vector<std::string> parts;
  for (std::string& part : split_components(relative)) {
    if (part == "..") refuse(shown, "path has a '..' component");
    if (part.empty() || part == ".") continue;
    parts.push_back(std::move(part));
  }
  if (relative.back() == '/') refuse(shown, "path names a directory");
  if (parts.size() < 3 || parts[0] != "piton" || parts[1] != "design") {
    refuse(shown, "path is outside " + std::string(kDesignDir) + "/");
  }

  const fs::path root = canonical_root(checkout_root);
  const fs::path design = root / "piton" / "design";
  {
    // If piton/ or piton/design were links, "inside the design" would mean wherever they
    // point, and the check below would be meaningless.
    auto piton_st = lstat_path(root / "piton");
    auto design_st = lstat_path(design);
    if (!piton_st || !S_ISDIR(piton_st->st_mode) || !design_st || !S_ISDIR(design_st->st_mode)) {
      refuse(shown, std::string(kDesignDir) + " is not a directory of the checkout");
    }
  }

  fs::path current = design;
  bool exists = true;
  for (size_t i = 2; i < parts.size(); ++i) {
    fs::path next = current / parts[i];
    const bool last = i + 1 == parts.size();
    int error = 0;
    auto st = lstat_path(next, &error);
    if (!st) {
      if (error != ENOENT) refuse(shown, "cannot examine " + next.string() + ": " + errno_text(error));
      exists = false;
      for (size_t j = i + 1; j < parts.size(); ++j) next /= parts[j];
      current = next;
      break;
    }
    if (S_ISLNK(st->st_mode)) {
      const fs::path target = resolve_fully(next, shown);
      if (!is_inside(target, design)) {
        std::error_code ec;
        const fs::path link_text = fs::read_symlink(next, ec);
        refuse(shown, "path escapes " + std::string(kDesignDir) + "/ through symlink " +
                          next.lexically_relative(root).generic_string() + " -> " +
                          link_text.string() + " (resolves to " + target.string() + ")");
      }
      current = target;
      auto target_st = lstat_path(current);
      if (!target_st) {
        exists = false;
        for (size_t j = i + 1; j < parts.size(); ++j) current /= parts[j];
        break;
      }
      st = target_st;
    } else {
      current = std::move(next);
    }
    if (!last && !S_ISDIR(st->st_mode)) {
      refuse(shown, current.lexically_relative(root).generic_string() + " is not a directory");
    }
  }
  if (exists) {
    auto st = lstat_path(current);
    if (st && S_ISDIR(st->st_mode)) refuse(shown, "path names a directory");
    if (st && !S_ISREG(st->st_mode)) refuse(shown, "path is not a regular file");
  }
  if (current == design) refuse(shown, "path names a directory");
  return DesignPath{current, current.lexically_relative(root).generic_string(), exists};
}

// ---- edits -------------------------------------------------------------------------------

const std::string& edit_path(const FileEdit& edit) {
  return std::visit([](const auto& e) -> const std::string& { return e.path; }, edit);
}

std::string apply_replacement(std::string_view content, const TextReplacement& replacement) {
  const std::string& old_text = replacement.old_text;
  if (old_text.empty()) {
    throw EditError("replacement in " + replacement.path + ": the text to replace is empty");
  }
  // Overlapping occurrences count: "aa" in "aaa" has no single place to replace.
  size_t count = 0;
  size_t first = std::string_view::npos;
  for (size_t pos = content.find(old_text); pos != std::string_view::npos;
       pos = content.find(old_text, pos + 1)) {
    if (count++ == 0) first = pos;
  }
  if (count != 1) {
    throw EditError("replacement in " + replacement.path + ": the text to replace matches " +
                    std::to_string(count) + " places; it must match exactly one");
  }
  std::string out;
  out.reserve(content.size() - old_text.size() + replacement.new_text.size());
  out.append(content.substr(0, first));
  out.append(replacement.new_text);
  out.append(content.substr(first + old_text.size()));
  return out;
}

std::vector<EditedFile> compute_edited_files(const fs::path& checkout_root, const EditSet& edit_set) {
  std::map<std::string, EditedFile> files;
  for (const FileEdit& edit : edit_set.edits) {
    DesignPath where = resolve_design_path(checkout_root, edit_path(edit));
    auto it = files.find(where.relative);
    if (it == files.end()) {
      EditedFile file{where, where.exists ? read_file_if_exists(where.absolute) : std::nullopt, {}};
      file.content = file.original.value_or("");
      // A file the set creates starts out "not existing", which only a full content or an
      // empty-old_text replacement may change.
      file.path.exists = file.original.has_value();
      it = files.emplace(where.relative, std::move(file)).first;
    }
    EditedFile& file = it->second;
    if (const auto* full = std::get_if<FullContent>(&edit)) {
      file.content = full->content;
      file.path.exists = true;
    } else {
      const auto& replacement = std::get<TextReplacement>(edit);
      if (!file.path.exists) {
        if (!replacement.old_text.empty()) {
          throw EditError("replacement in " + replacement.path + ": the file does not exist");
        }
        file.content = replacement.new_text;
        file.path.exists = true;
      } else {
        TextReplacement named = replacement;
        named.path = where.relative;
        file.content = apply_replacement(file.content, named);
      }
    }
  }
  std::vector<EditedFile> out;
  for (auto& [path, file] : files) {
    if (file.original && *file.original == file.content) continue;
    file.path.exists = file.original.has_value();
    out.push_back(std::move(file));
  }
  return out;
}

// ---- staging -----------------------------------------------------------------------------

fs::path default_staging_dir(const fs::path& checkout_root) { return checkout_root / kStagingDir; }

std::string stage_replacement(const fs::path& checkout_root, const fs::path& staging_dir,
                              const TextReplacement& edit) {
  const DesignPath where = resolve_design_path(checkout_root, edit.path);
  const fs::path staged = staging_dir / where.relative;
  std::optional<std::string> current = read_file_if_exists(staged);
  if (!current && where.exists) current = read_file(where.absolute);
  std::string updated;
  if (!current) {
    if (!edit.old_text.empty()) {
      throw EditError("replacement in " + edit.path + ": the file does not exist");
    }
    updated = edit.new_text;
  } else {
    TextReplacement named = edit;
    named.path = where.relative;
    updated = apply_replacement(*current, named);
  }
  std::error_code ec;
  fs::create_directories(staged.parent_path(), ec);
  if (ec) throw EditError("cannot create " + staged.parent_path().string() + ": " + ec.message());
  // Staging is redone from scratch if maced dies, so it need not be durable.
  write_atomically(staged, updated, std::nullopt, false);
  return updated;
}

std::string read_staged_or_checkout(const fs::path& checkout_root, const fs::path& staging_dir,
                                    std::string_view relative) {
  const DesignPath where = resolve_design_path(checkout_root, relative);
  if (auto staged = read_file_if_exists(staging_dir / where.relative)) return *staged;
  if (!where.exists) throw EditError(where.relative + " does not exist");
  return read_file(where.absolute);
}

EditSet load_staged_edits(const fs::path& checkout_root, const fs::path& staging_dir) {
  EditSet set;
  std::error_code ec;
  if (!fs::exists(staging_dir, ec)) return set;
  std::vector<std::string> staged_paths;
  for (auto it = fs::recursive_directory_iterator(staging_dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::file_status st = it->symlink_status();
    if (fs::is_directory(st)) continue;
    const std::string relative = it->path().lexically_relative(staging_dir).generic_string();
    const std::string name = it->path().filename().string();
    // A staging write interrupted between temp and rename.
    if (name.starts_with(".") && name.ends_with(".mace-edit.tmp")) continue;
    if (!fs::is_regular_file(st)) {
      throw PathError("refused path '" + relative + "': staged entry is not a regular file");
    }
    staged_paths.push_back(relative);
  }
  if (ec) throw EditError("cannot list " + staging_dir.string() + ": " + ec.message());
  std::sort(staged_paths.begin(), staged_paths.end());
  for (const std::string& relative : staged_paths) {
    const DesignPath where = resolve_design_path(checkout_root, relative);
    std::string content = read_file(staging_dir / relative);
    if (where.exists && read_file(where.absolute) == content) continue;
    set.edits.emplace_back(FullContent{where.relative, std::move(content)});
  }
  return set;
}

void discard_staged_edits(const fs::path& staging_dir) {
  std::error_code ec;
  fs::remove_all(staging_dir, ec);
  if (ec) throw EditError("cannot remove " + staging_dir.string() + ": " + ec.message());
}

// ---- applying ----------------------------------------------------------------------------

AppliedEdits::AppliedEdits(fs::path root, std::vector<std::string> files)
    : root_(std::move(root)), files_(std::move(files)) {}

AppliedEdits::AppliedEdits(AppliedEdits&& other) noexcept
    : root_(std::exchange(other.root_, {})), files_(std::exchange(other.files_, {})) {}

AppliedEdits& AppliedEdits::operator=(AppliedEdits&& other) noexcept {
  if (this != &other) {
    (void)restore();
    reset();
    root_ = std::exchange(other.root_, {});
    files_ = std::exchange(other.files_, {});
  }
  return *this;
}

AppliedEdits::~AppliedEdits() {
  (void)restore();
  reset();
}

void AppliedEdits::reset() noexcept {
  if (!root_.empty()) set_live(root_, false);
  root_.clear();
  files_.clear();
}

RestoreReport AppliedEdits::restore() noexcept {
  if (!active()) return {};
  RestoreReport report;
  try {
    report = restore_from_journal(root_);
  } catch (const std::exception& e) {
    report.errors.push_back(e.what());
  } catch (...) {
    report.errors.push_back("unknown error while restoring edits");
  }
  // On failure the guard stays active so that the caller (or the destructor) may try again.
  if (report.ok()) reset();
  return report;
}

void AppliedEdits::release_without_restore() noexcept { reset(); }

AppliedEdits apply_edits(const fs::path& checkout_root, const EditSet& edit_set) {
  const fs::path root = canonical_root(checkout_root);
  if (is_live(root)) {
    throw EditError("edits are already applied to " + root.string() + " by this process");
  }
  const fs::path journal = journal_dir(root);
  if (std::error_code ec; fs::exists(journal, ec)) {
    RestoreReport leftover = restore_from_journal(root);
    if (!leftover.ok()) {
      std::string message = "cannot apply edits to " + root.string() +
                            ": an interrupted task's edits could not be restored:";
      for (const std::string& e : leftover.errors) message += "\n  " + e;
      throw EditError(message);
    }
  }

  std::vector<EditedFile> files = compute_edited_files(root, edit_set);
  if (files.empty()) return AppliedEdits();

  Manifest manifest;
  std::vector<FileMeta> metas;
  for (const EditedFile& file : files) {
    JournalEntry entry;
    entry.path = file.path.relative;
    entry.existed = file.original.has_value();
    if (entry.existed) {
      struct stat st {};
      if (::stat(file.path.absolute.c_str(), &st) != 0) io_error("cannot stat", file.path.absolute, errno);
      entry.meta = FileMeta{static_cast<mode_t>(st.st_mode & 07777), st.st_uid, st.st_gid};
      entry.size = file.original->size();
      entry.sha256 = sha256_hex(*file.original);
    } else {
      entry.sha256 = "-";
      if (!fs::is_directory(file.path.absolute.parent_path())) {
        throw EditError("cannot create " + file.path.relative + ": its directory does not exist");
      }
    }
    manifest.entries.push_back(std::move(entry));
  }

  // Journal first: until its manifest is in place nothing in the tree has changed, so a
  // crash anywhere in here leaves a journal that restore discards.
  const fs::path build = root / "build";
  manifest.created_build_dir = !fs::exists(build);
  try {
    if (manifest.created_build_dir && ::mkdir(build.c_str(), 0755) != 0 && errno != EEXIST) {
      io_error("cannot create", build, errno);
    }
    if (::mkdir(journal.c_str(), 0700) != 0) io_error("cannot create", journal, errno);
    fsync_dir(build);
    step("journal dir");
    for (size_t i = 0; i < files.size(); ++i) {
      if (!files[i].original) continue;
      write_new_file(original_copy(journal, i), *files[i].original, 0600);
      step("journal original");
    }
    write_new_file(journal / "manifest.tmp", serialize_manifest(manifest), 0600);
    step("manifest temp");
    if (::rename((journal / "manifest.tmp").c_str(), (journal / "manifest").c_str()) != 0) {
      io_error("cannot rename into place", journal / "manifest", errno);
    }
    fsync_dir(journal);
    step("manifest");
  } catch (...) {
    std::error_code ec;
    fs::remove_all(journal, ec);
    if (manifest.created_build_dir) (void)::rmdir(build.c_str());
    throw;
  }

  set_live(root, true);
  std::vector<std::string> changed;
  for (size_t i = 0; i < files.size(); ++i) changed.push_back(files[i].path.relative);
  AppliedEdits guard(root, changed);
  try {
    for (size_t i = 0; i < files.size(); ++i) {
      const JournalEntry& entry = manifest.entries[i];
      write_atomically(files[i].path.absolute, files[i].content,
                       entry.existed ? std::optional<FileMeta>(entry.meta) : std::nullopt, true);
    }
  } catch (const std::exception& e) {
    std::string message = std::string("cannot apply edits: ") + e.what();
    RestoreReport undo = guard.restore();
    for (const std::string& error : undo.errors) message += "\n  " + error;
    throw EditError(message);
  }
  return guard;
}

RestoreReport restore_leftover_edits(const fs::path& checkout_root) {
  RestoreReport report;
  fs::path root;
  try {
    root = canonical_root(checkout_root);
  } catch (const std::exception& e) {
    report.errors.push_back(e.what());
    return report;
  }
  if (is_live(root)) {
    report.errors.push_back("edits applied to " + root.string() +
                            " by this process are still in use; not restoring them");
    return report;
  }
  std::error_code ec;
  if (!fs::exists(journal_dir(root), ec)) return report;
  try {
    return restore_from_journal(root);
  } catch (const std::exception& e) {
    report.errors.push_back(e.what());
    return report;
  }
}

// ---- hash, diff, names -------------------------------------------------------------------

std::string edits_hash(const EditSet& edit_set) {
  if (edit_set.empty()) return "";
  // Per path, in set order: edits to different files commute, edits to one file do not.
  std::map<std::string, std::vector<const FileEdit*>> by_path;
  for (const FileEdit& edit : edit_set.edits) by_path[lexically_normal(edit_path(edit))].push_back(&edit);
  Sha256 hash;
  auto field = [&hash](std::string_view bytes) {
    hash.update(std::to_string(bytes.size()) + ":");
    hash.update(bytes);
  };
  hash.update("mace-rtl-edits 1\n");
  hash.update("files " + std::to_string(by_path.size()) + "\n");
  for (const auto& [path, edits] : by_path) {
    field(path);
    hash.update("edits " + std::to_string(edits.size()) + "\n");
    for (const FileEdit* edit : edits) {
      if (const auto* full = std::get_if<FullContent>(edit)) {
        hash.update("F");
        field(full->content);
      } else {
        const auto& replacement = std::get<TextReplacement>(*edit);
        hash.update("R");
        field(replacement.old_text);
        field(replacement.new_text);
      }
    }
  }
  return hash.finish_hex();
}

std::string unified_diff_text(std::string_view old_text, std::string_view new_text,
                              std::string_view old_name, std::string_view new_name) {
  if (old_text == new_text) return "";
  const auto a = split_lines(old_text);
  const auto b = split_lines(new_text);
  const std::string ops = diff_ops(a, b);
  // Line positions before each op.
  std::vector<size_t> a_pos(ops.size() + 1), b_pos(ops.size() + 1);
  for (size_t i = 0; i < ops.size(); ++i) {
    a_pos[i + 1] = a_pos[i] + (ops[i] != '+' ? 1 : 0);
    b_pos[i + 1] = b_pos[i] + (ops[i] != '-' ? 1 : 0);
  }
  std::string out = "--- " + std::string(old_name) + "\n+++ " + std::string(new_name) + "\n";
  size_t i = 0;
  while (i < ops.size()) {
    while (i < ops.size() && ops[i] == '=') ++i;
    if (i == ops.size()) break;
    const size_t start = i >= kContext ? i - kContext : 0;
    size_t end = i;
    for (;;) {
      while (end < ops.size() && ops[end] != '=') ++end;
      size_t next = end;
      while (next < ops.size() && ops[next] == '=') ++next;
      // Hunks whose contexts would touch or overlap become one.
      if (next < ops.size() && next - end <= 2 * kContext) {
        end = next;
        continue;
      }
      break;
    }
    const size_t stop = std::min(ops.size(), end + kContext);
    out += "@@ -" + hunk_range(a_pos[start], a_pos[stop] - a_pos[start]) + " +" +
           hunk_range(b_pos[start], b_pos[stop] - b_pos[start]) + " @@\n";
    for (size_t j = start; j < stop; ++j) {
      if (ops[j] == '+') {
        append_line(out, '+', b[b_pos[j]]);
      } else {
        append_line(out, ops[j] == '=' ? ' ' : '-', a[a_pos[j]]);
      }
    }
    i = stop;
  }
  return out;
}

std::string unified_diff(const EditSet& edit_set, const fs::path& checkout_root) {
  std::string out;
  for (const EditedFile& file : compute_edited_files(checkout_root, edit_set)) {
    const std::string old_name = file.original ? "a/" + file.path.relative : "/dev/null";
    out += unified_diff_text(file.original.value_or(""), file.content, old_name,
                             "b/" + file.path.relative);
  }
  return out;
}

std::vector<std::string> edited_files(const EditSet& edit_set) {
  std::set<std::string> paths;
  for (const FileEdit& edit : edit_set.edits) paths.insert(lexically_normal(edit_path(edit)));
  return {paths.begin(), paths.end()};
}

void set_edit_step_hook(EditStepHook hook) { g_step_hook = hook; }

}  // namespace mace::openpiton
