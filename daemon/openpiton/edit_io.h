#pragma once
// File reads and writes of the RTL edit code (design files, staged files, the journal),
// through the base layer but failing with EditError, the error callers of rtl_edits.h catch.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "os/file_io.h"

namespace mace::openpiton {

std::optional<std::string> read_edit_file_if_exists(const std::filesystem::path& path,
                                                    os::FileMeta* meta = nullptr);
std::string read_edit_file(const std::filesystem::path& path, os::FileMeta* meta = nullptr);

// Temp + rename (the temp is edit_temp_path(target), which a restore after a crash
// removes), keeping `meta` or 0644 for a new file; `durable` fsyncs file and directory.
// Tells the edit step hook "temp" and "rename".
void write_edit_file_atomically(const std::filesystem::path& target, std::string_view content,
                                const std::optional<os::FileMeta>& meta, bool durable);

// Fixed, so that a restore after a crash knows which leftover temp file to remove.
std::filesystem::path edit_temp_path(const std::filesystem::path& target);

// Test hook: called at every step of apply and restore where a crash would leave a
// different state on disk ("journal original", "manifest", "temp", "rename", ...). Tests
// _exit() from it in a forked child to check recovery from each point. Not thread-safe;
// nullptr (the default) disables it.
using EditStepHook = void (*)(std::string_view step);
void set_edit_step_hook(EditStepHook hook);
void edit_step(std::string_view name);

}  // namespace mace::openpiton
