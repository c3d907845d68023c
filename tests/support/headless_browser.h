#pragma once
// Debian's chromium, run headless on a local page: how the report tests see what a person
// would, scripts and all.

#include <string>
#include <vector>

#include "child_process.h"

namespace mace::testing {

// The chromium binary, or "" when it is not installed (the caller skips, saying why).
std::string chromium_binary();

// Headless chromium on `page` (a file path) with `options` (e.g. --dump-dom,
// --screenshot=FILE), a profile and HOME of its own under `scratch_dir`, stderr logging on so
// a script error shows; at most 60 s.
ProcessResult browse(const std::string& page, const std::vector<std::string>& options,
                     const std::string& scratch_dir);

}  // namespace mace::testing
