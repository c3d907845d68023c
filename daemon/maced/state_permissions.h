#pragma once
// What a member of maced's group may read is decided by the API (service/caller.h), never by
// the disk: the state directory, the database and every run's evidence are readable by
// maced's own user only, whatever the umask maced was started with. maced's files are made
// so (umask 077 for maced and everything it starts), and at start the modes of what exists
// are checked and corrected, each correction said on standard error. The socket, maced's
// door for the group, keeps its own mode; when it lies inside the state directory the
// directory lets the group through (0710) without letting it list or read anything.

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

namespace mace {

// umask(077) for maced and every process it starts. Call first thing.
void restrict_new_files();

// Corrects the modes of the state directory (0700, or 0710 with the socket inside), the
// database and its journal files (0600) and each evidence root given (0700); says each
// correction on `log`. Returns what it could not correct (a path and why), also said there.
std::vector<std::string> secure_state(const std::filesystem::path& state_dir, const std::string& socket_path,
                                      const std::vector<std::filesystem::path>& evidence_roots, std::ostream& log);

}  // namespace mace
