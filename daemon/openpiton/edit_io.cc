#include "openpiton/edit_io.h"

#include "openpiton/edit_error.h"

namespace mace::openpiton {
namespace fs = std::filesystem;

namespace {
EditStepHook g_step_hook = nullptr;
}  // namespace

void set_edit_step_hook(EditStepHook hook) { g_step_hook = hook; }

void edit_step(std::string_view name) {
  if (g_step_hook != nullptr) g_step_hook(name);
}

std::optional<std::string> read_edit_file_if_exists(const fs::path& path, os::FileMeta* meta) {
  try {
    return os::read_file_if_exists(path, os::kNoSizeLimit, meta);
  } catch (const os::FileError& e) {
    throw EditError(e.what());
  }
}

std::string read_edit_file(const fs::path& path, os::FileMeta* meta) {
  try {
    return os::read_file(path, os::kNoSizeLimit, meta);
  } catch (const os::FileError& e) {
    throw EditError(e.what());
  }
}

fs::path edit_temp_path(const fs::path& target) {
  return target.parent_path() / ("." + target.filename().string() + ".mace-edit.tmp");
}

void write_edit_file_atomically(const fs::path& target, std::string_view content,
                                const std::optional<os::FileMeta>& meta, bool durable) {
  try {
    os::write_file_atomically(target, content,
                              {.meta = meta,
                               .durable = durable,
                               .temp_path = edit_temp_path(target),
                               .on_step = [](std::string_view step) { edit_step(step); }});
  } catch (const os::FileError& e) {
    throw EditError(e.what());
  }
}

}  // namespace mace::openpiton
