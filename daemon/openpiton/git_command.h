#pragma once
// git as the adapter runs it in a checkout, for reading only: the same settings and
// environment for every read (the source fingerprint, the define search), so a quirk of
// the daemon user's git configuration affects neither.

#include <filesystem>
#include <string>
#include <vector>

#include "os/process_group.h"

namespace mace::openpiton {

// `git <arguments>` run in `top`, the directory holding `.git`:
// - safe.directory=top: the daemon may run as another user than the one owning the
//   checkout; it was told to use this checkout, so git need not second-guess that;
// - the checkout's own ignore files decide what is untracked, not the daemon user's global
//   excludes, and no file-system monitor answers in git's place;
// - PATH and HOME only (never the daemon's GIT_DIR or GIT_INDEX_FILE), LC_ALL=C, and no
//   optional locks, so a read taken while a build or an edit runs never holds index.lock.
// The caller sets the timeout and what it keeps of the output.
os::ProcessSpec git_command(const std::filesystem::path& top,
                            const std::vector<std::string>& arguments);

// Why a git command did not succeed, in a few words: the launch error, "cancelled",
// "timed out", "killed by signal N" or "exit N".
std::string git_failure(const os::ProcessResult& result);

}  // namespace mace::openpiton
