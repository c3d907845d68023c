#pragma once
// pico's C programs (and a generic core's, REQ-EXEC-20): sims compiles no C for pico, so
// MACE does it here, in the run directory, with Debian's riscv64 toolchain. The program is
// compiled to assembly, wrapped with workloads/pico/start.S into the diag.S sims assembles,
// and linked here the way sims' rv32_as will link it, so that a program that does not build
// fails with the compiler's own lines instead of running as an empty image until it times
// out. For a mesh, the events that wake every tile other than 0 (REQ-VER-7); for a generic
// core, its own memory image and trap symbols, which replace sims' after it assembles.

#include <cstdint>
#include <filesystem>
#include <string>

#include "openpiton/workload.h"

namespace mace::openpiton {

// workloads/<stem>.c prepared for `tiles` tiles in ctx.run_dir. A program that does not
// compile or link is workload_not_built; a name sims cannot take is workload_not_found.
// Throws os::HostStopped when the machine running a compiler ended it.
PreparedWorkload prepare_pico_program(const std::string& stem, const std::filesystem::path& source,
                                      const WorkloadContext& ctx, std::int64_t tiles);

}  // namespace mace::openpiton
