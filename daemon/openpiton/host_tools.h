#pragma once
// The programs OpenPiton's builds and simulations run, as the checkouts' environment finds
// them on this machine: for `mace doctor` and maced's start, which say what is missing and
// which Debian package brings it, before a build fails on it.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mace::openpiton {

enum class HostTool {
  verilator,           // every build
  cxx_compiler,        // g++: Verilator's C++
  make,                // Verilator's makefiles
  perl,                // sims
  python3,             // pyHP, create_env.py
  git,                 // source fingerprints, define searches, rtl edits
  riscv_gcc,           // pico and generic diags (riscv64-unknown-elf-gcc)
  verilator_coverage,  // specs with "coverage": true
  ccache,              // models compiled through the compiler cache
};

// The program's name as PATH finds it, and the Debian 12 package that installs it.
std::string_view program_name(HostTool tool);
std::string_view debian_package(HostTool tool);

// Whether every run needs the tool (a build or simulation fails without it) or only some.
bool needed_by_every_run(HostTool tool);

struct HostToolFinding {
  HostTool tool;
  std::optional<std::filesystem::path> path;  // nullopt: not found
  // The first line of `--version` for the tools whose version decides what a model is
  // (Verilator, the RISC-V GCC); empty for the others, or when it could not be read.
  std::string version;
};

// Every HostTool, searched in the PATH of `env` (a checkout's environment puts OpenPiton's
// tools/bin first). Versions are asked with a timeout of 5 s each. Never throws.
std::vector<HostToolFinding> find_host_tools(const std::map<std::string, std::string>& env);

}  // namespace mace::openpiton
