#pragma once
// The command line of an OpenPiton build: `sims ... -vlt_build` for one BuildConfig, and
// the Verilator version that decides whether it needs `--no-timing`.
//
// Always an argument vector, never a shell string. sims itself pastes some options into
// shell commands (it quotes only values with whitespace, sims,2.0 parse_args), so the
// values a plan can influence are also restricted to characters no shell treats specially:
// nothing in a BuildConfig can add an argument or a command.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "openpiton/build_config.h"
#include "os/command_runner.h"
#include "os/process_group.h"

namespace mace::openpiton {

struct VerilatorVersion {
  int major = 0;
  int minor = 0;
  // The first line of `verilator --version`, e.g. "Verilator 5.006 2023-01-22 rev (Debian
  // 5.006-3)": part of the source fingerprint, so a Verilator upgrade forces rebuilds.
  std::string text;

  // Verilator 5 refuses OpenPiton's delays without --timing or --no-timing.
  bool needs_timing_option() const { return major >= 5; }
  bool operator==(const VerilatorVersion&) const = default;
};

// Parses "Verilator 5.006 2023-01-22 rev ..." (the first line that starts with
// "Verilator "); nullopt when there is none.
std::optional<VerilatorVersion> parse_verilator_version(std::string_view output);

// Runs `verilator --version` with `env` (its PATH decides which Verilator: pass the
// checkout's environment) through `runner` (the checkout's: the Verilator that builds is
// the one asked). Remembered per binary as this machine sees it (path, inode, size, mtime),
// so each installation is asked once per process and an upgrade in place is still noticed;
// a Verilator only the runner's machine has is asked every time. Throws std::runtime_error
// when Verilator cannot be run or its answer cannot be parsed, os::HostStopped when the
// machine the runner put it on ended it (its node went down).
VerilatorVersion detect_verilator_version(const std::map<std::string, std::string>& env,
                                          const os::CancelToken* cancel = nullptr,
                                          const os::CommandRunner& runner =
                                              *os::local_command_runner());

// sims's network option (sims,2.0 parse_args: `network_config=s`). sims accepts only
// "xbar_config" and "2dmesh_config" and dies on anything else; without it, a 2D mesh.
inline constexpr std::string_view kNetworkOption = "-network_config=";

// The argv of the build of `config`, model directory build/manycore/<build_id(config)>:
//   sims -sys=manycore -x_tiles=X -y_tiles=Y -vlt_build -build_id=ID [-pico|-ariane]
//        -config_l1i_size=N -config_l1i_associativity=N ... (all four caches, always)
//        [-network_config=NAME] -config_rtl=D ... (normalised defines)
//        [-vlt_build_args=--no-timing] (Verilator >= 5) extra_flags...
// sparc is sims's default core and gets no core flag; generic goes through the PicoRV32
// (RV32) tile path and gets -pico. argv[0] is "sims", found in the checkout environment's
// PATH (piton/tools/bin comes first there).
//
// Throws std::invalid_argument for anything that could inject an argument or a shell
// command: a define that is not an upper-snake-case identifier, a network that is not a
// plain identifier, an extra flag that does not start with '-', holds a character outside
// [A-Za-z0-9_+-.,/:=], or sets an option this function owns (-build_id, -sys, -x_tiles,
// -config_rtl, -model_dir, -vlt_run, ...); and for a non-positive tile count or cache value.
std::vector<std::string> sims_build_argv(const BuildConfig& config,
                                         const VerilatorVersion& verilator);

}  // namespace mace::openpiton
