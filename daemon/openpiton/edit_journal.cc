#include "openpiton/edit_journal.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <system_error>

#include "openpiton/edit_error.h"
#include "openpiton/edit_io.h"
#include "os/errno_text.h"
#include "os/sha256.h"
#include "os/text.h"

namespace mace::openpiton {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kManifestMagic = "mace-edit-journal 1";

[[noreturn]] void io_error(const std::string& what, const fs::path& path, int error) {
  throw EditError("cannot " + what + " " + path.string() + ": " + os::errno_text(error));
}

void discard_partial_journal(const fs::path& journal, const fs::path& build, bool created_build_dir) {
  std::error_code ec;
  fs::remove_all(journal, ec);
  if (created_build_dir) (void)::rmdir(build.c_str());
}

struct JournalEntry {
  std::string path;  // relative, as resolve_design_path() gives it
  bool existed = false;
  os::FileMeta meta;
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

Manifest parse_manifest(std::string_view text) {
  ManifestReader in(text);
  Manifest manifest;
  if (in.line() != kManifestMagic) ManifestReader::fail();
  auto header = os::split_at(in.line(), ' ');
  if (header.size() != 2 || header[0] != "build-dir-created") ManifestReader::fail();
  manifest.created_build_dir = parse_number<int>(header[1]) != 0;
  auto count_fields = os::split_at(in.line(), ' ');
  if (count_fields.size() != 2 || count_fields[0] != "files") ManifestReader::fail();
  const size_t count = parse_number<size_t>(count_fields[1]);
  for (size_t i = 0; i < count; ++i) {
    auto f = os::split_at(in.line(), ' ');
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
    report.errors.push_back("cannot remove the edit journal's manifest: " + os::errno_text(errno));
    return;
  }
  os::fsync_directory(journal);
  edit_step("manifest removed");
  std::error_code ec;
  fs::remove_all(journal, ec);
  if (ec) report.errors.push_back("cannot remove the edit journal: " + ec.message());
  if (manifest != nullptr && manifest->created_build_dir) (void)::rmdir((root / "build").c_str());
}

}  // namespace

RestoreReport restore_from_edit_journal(const fs::path& root) {
  RestoreReport report;
  const fs::path journal = journal_dir(root);
  std::optional<std::string> manifest_text;
  try {
    manifest_text = read_edit_file_if_exists(journal / "manifest");
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
      (void)::unlink(edit_temp_path(where.absolute).c_str());
      if (entry.existed) {
        std::string original = read_edit_file(original_copy(journal, i));
        if (original.size() != entry.size || os::sha256_hex(original) != entry.sha256) {
          throw EditError("the journal's copy of " + entry.path + " is corrupt");
        }
        os::FileMeta current_meta;
        auto current = read_edit_file_if_exists(where.absolute, &current_meta);
        // An untouched file keeps its mtime, so make does not rebuild for nothing.
        if (!current || *current != original || current_meta.mode != entry.meta.mode) {
          write_edit_file_atomically(where.absolute, original, entry.meta, true);
          report.restored.push_back(entry.path);
        }
      } else if (where.exists) {
        if (::unlink(where.absolute.c_str()) != 0) io_error("remove", where.absolute, errno);
        os::fsync_directory(where.absolute.parent_path());
        report.removed.push_back(entry.path);
      }
    } catch (const std::exception& e) {
      report.errors.push_back(std::string("cannot restore ") + entry.path + ": " + e.what());
    }
    edit_step("restore file");
  }
  // On any error the journal stays: it is the only record of the originals.
  if (report.ok()) remove_journal(root, &manifest, report);
  return report;
}

bool edit_journal_exists(const fs::path& root) {
  std::error_code ec;
  return fs::exists(journal_dir(root), ec);
}

std::vector<std::optional<os::FileMeta>> write_edit_journal(const fs::path& root,
                                                            const std::vector<EditedFile>& files) {
  Manifest manifest;
  std::vector<std::optional<os::FileMeta>> metas;
  for (const EditedFile& file : files) {
    JournalEntry entry;
    entry.path = file.path.relative;
    entry.existed = file.original.has_value();
    if (entry.existed) {
      struct stat st {};
      if (::stat(file.path.absolute.c_str(), &st) != 0) io_error("stat", file.path.absolute, errno);
      entry.meta = os::FileMeta{static_cast<mode_t>(st.st_mode & 07777), st.st_uid, st.st_gid};
      entry.size = file.original->size();
      entry.sha256 = os::sha256_hex(*file.original);
      metas.push_back(entry.meta);
    } else {
      entry.sha256 = "-";
      if (!fs::is_directory(file.path.absolute.parent_path())) {
        throw EditError("cannot create " + file.path.relative + ": its directory does not exist");
      }
      metas.push_back(std::nullopt);
    }
    manifest.entries.push_back(std::move(entry));
  }

  // Until its manifest is in place nothing in the tree has changed, so a crash anywhere in
  // here leaves a journal that restore discards.
  const fs::path journal = journal_dir(root);
  const fs::path build = root / "build";
  manifest.created_build_dir = !fs::exists(build);
  try {
    if (manifest.created_build_dir && ::mkdir(build.c_str(), 0755) != 0 && errno != EEXIST) {
      io_error("create", build, errno);
    }
    if (::mkdir(journal.c_str(), 0700) != 0) io_error("create", journal, errno);
    os::fsync_directory(build);
    edit_step("journal dir");
    for (size_t i = 0; i < files.size(); ++i) {
      if (!files[i].original) continue;
      os::write_new_file(original_copy(journal, i), *files[i].original, 0600);
      edit_step("journal original");
    }
    os::write_new_file(journal / "manifest.tmp", serialize_manifest(manifest), 0600);
    edit_step("manifest temp");
    if (::rename((journal / "manifest.tmp").c_str(), (journal / "manifest").c_str()) != 0) {
      io_error("rename into place", journal / "manifest", errno);
    }
    os::fsync_directory(journal);
    edit_step("manifest");
  } catch (const os::FileError& e) {
    discard_partial_journal(journal, build, manifest.created_build_dir);
    throw EditError(e.what());
  } catch (...) {
    discard_partial_journal(journal, build, manifest.created_build_dir);
    throw;
  }
  return metas;
}

}  // namespace mace::openpiton
