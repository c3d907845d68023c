#include "openpiton/applied_edits.h"

#include <mutex>
#include <optional>
#include <set>
#include <utility>

#include "openpiton/edit_error.h"
#include "openpiton/edit_io.h"

namespace mace::openpiton {
namespace fs = std::filesystem;

namespace {

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

}  // namespace

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
    report = restore_from_edit_journal(root_);
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
  const fs::path root = canonical_checkout_root(checkout_root);
  if (is_live(root)) {
    throw EditError("edits are already applied to " + root.string() + " by this process");
  }
  if (edit_journal_exists(root)) {
    RestoreReport leftover = restore_from_edit_journal(root);
    if (!leftover.ok()) {
      std::string message = "cannot apply edits to " + root.string() +
                            ": an interrupted task's edits could not be restored:";
      for (const std::string& e : leftover.errors) message += "\n  " + e;
      throw EditError(message);
    }
  }

  std::vector<EditedFile> files = compute_edited_files(root, edit_set);
  if (files.empty()) return AppliedEdits();
  // Journal first: a crash from here on leaves a journal that names every original.
  const std::vector<std::optional<os::FileMeta>> metas = write_edit_journal(root, files);

  set_live(root, true);
  std::vector<std::string> changed;
  for (const EditedFile& file : files) changed.push_back(file.path.relative);
  AppliedEdits guard(root, changed);
  try {
    for (size_t i = 0; i < files.size(); ++i)
      write_edit_file_atomically(files[i].path.absolute, files[i].content, metas[i], true);
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
    root = canonical_checkout_root(checkout_root);
  } catch (const std::exception& e) {
    report.errors.push_back(e.what());
    return report;
  }
  if (is_live(root)) {
    report.errors.push_back("edits applied to " + root.string() +
                            " by this process are still in use; not restoring them");
    return report;
  }
  if (!edit_journal_exists(root)) return report;
  try {
    return restore_from_edit_journal(root);
  } catch (const std::exception& e) {
    report.errors.push_back(e.what());
    return report;
  }
}

}  // namespace mace::openpiton
