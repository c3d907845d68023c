#pragma once
// REQ-PLAT-1 as this version reads it: the machine that runs maced runs Linux and has a
// POSIX shell at /bin/sh, which maced's own helpers (the bounded make, the CLI agents'
// launch, the command tools) and OpenPiton's sims (`#! /bin/sh`) run under. bash itself is
// not needed: the Python version sourced piton_settings.bash with it, maced builds that
// environment itself (openpiton/checkout.h). Checked once, at start.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace mace {

inline constexpr const char* kPosixShell = "/bin/sh";

// What keeps `system_name` (uname's sysname) with `shell` from running MACE; empty when
// nothing does.
std::vector<std::string> host_platform_problems(std::string_view system_name,
                                                const std::filesystem::path& shell);

// This machine's, read with uname(2).
std::vector<std::string> this_host_platform_problems();

}  // namespace mace
