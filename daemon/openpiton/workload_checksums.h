#pragma once
// The check of MACE's own workload programs against workloads/CHECKSUMS (REQ-BUD-7/8).

#include <filesystem>
#include <string>
#include <vector>

namespace mace::openpiton {

// Every program file under `workloads_dir` matches workloads/CHECKSUMS and CHECKSUMS lists
// no file that is missing. Returns the problems, one line each; empty: ok.
std::vector<std::string> verify_workload_checksums(const std::filesystem::path& workloads_dir);

}  // namespace mace::openpiton
