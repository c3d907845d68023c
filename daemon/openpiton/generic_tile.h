#pragma once
// The Generic Tile: OpenPiton's PicoRV32 tile hosting another RV32 core through a per-core
// wrapper (REQ-EXEC-20, REQ-VER-17). How a checkout hosts it:
//
//   - scripts/patch_openpiton.sh makes the PICORV32_TILE branch of
//     piton/design/chip/tile/rtl/tile.v.pyv instantiate `mace_generic_wrapper` in place of
//     `picorv32` when MACE_GENERIC_CORE is defined (same instance name, same ports: the
//     PicoRV32 native memory interface pico_l15_transducer speaks), and print each tile's
//     first memory request (kFirstRequestPrefix) whatever core it hosts;
//   - a generic build is a pico build (-pico: Flist.pico, PITON_PICO, RV32 diags) plus
//     -config_rtl=MACE_GENERIC_CORE and -flist=<kGeneratedFlist> (sims_command.h);
//   - generic_tile_files() are the files MACE writes into the checkout for every build of
//     the run, as RTL edits (applied_edits.h), so the crash journal takes them out again
//     however the task ends: the file list, the link script and the wrapper's skeleton,
//     which an rtl task's agent replaces through the rtl_edit tool.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mace::openpiton {

// The core as the adapter needs it (the core descriptor, daemon/core/core_descriptor.h).
struct GenericCore {
  std::string name;
  std::string isa;
  std::string top_module;
  std::vector<std::string> files;  // relative to the checkout root, under piton/design/
  uint32_t reset_vector = 0;
  std::string link_script;         // empty: default_link_script(reset_vector)
  std::string march;               // e.g. "rv32im"
  std::string protocol;            // the core's memory port, for the agent's brief
  int64_t ports = 1;
  std::vector<std::pair<std::string, std::string>> parameters;
};

inline constexpr std::string_view kGenericCoreDefine = "MACE_GENERIC_CORE";
inline constexpr std::string_view kGenericWrapperModule = "mace_generic_wrapper";
// Beside the PicoRV32 tile's own files; an existing directory, so the edits create files only.
inline constexpr std::string_view kGenericDir = "piton/design/chip/tile/pico/rtl";
inline constexpr std::string_view kGeneratedWrapper =
    "piton/design/chip/tile/pico/rtl/mace_generic_wrapper.v";
inline constexpr std::string_view kGeneratedFlist =
    "piton/design/chip/tile/pico/rtl/Flist.mace_generic";
inline constexpr std::string_view kGeneratedLinkScript =
    "piton/design/chip/tile/pico/rtl/mace_generic_link.ld";
// What -flist= names: sims replaces $DV_ROOT (<checkout>/piton), so the build argv, and
// with it the build ID, is the same in every checkout.
inline constexpr std::string_view kGeneratedFlistOption =
    "-flist=$DV_ROOT/design/chip/tile/pico/rtl/Flist.mace_generic";
// The PicoRV32 tile's own file list, which -pico already compiles.
inline constexpr std::string_view kPicoFlist = "piton/design/chip/tile/pico/rtl/Flist.pico";
// The line the patched tile prints: "MACE first request: tile 3 address 0x40000000".
inline constexpr std::string_view kFirstRequestPrefix = "MACE first request: tile ";

// One generated file: path relative to the checkout root, full content.
struct GeneratedFile {
  std::string path;
  std::string content;
};

// The files a build of `core` needs in `checkout_root`, in the order they apply: the
// wrapper's skeleton, the link script, the file list. The file list names the wrapper
// and the core's files, except those Flist.pico already lists (Verilator refuses a module
// declared twice).
std::vector<GeneratedFile> generic_tile_files(const GenericCore& core,
                                              const std::filesystem::path& checkout_root);

// The wrapper as MACE writes it before an rtl task writes it: the interface the tile needs,
// every output tied off. A wrapper whose text is this is "still a skeleton" (REQ-PLAN-15).
std::string wrapper_skeleton(const GenericCore& core);

// Every section from the reset vector on, as PicoRV32's own link.ld lays out a diag.
std::string default_link_script(uint32_t reset_vector);

// The files of `core` the checkout lacks (relative paths), for unsupported_core.
std::vector<std::string> missing_core_files(const GenericCore& core,
                                            const std::filesystem::path& checkout_root);

// What an rtl task's agent is told (REQ-PLAN-15): the wrapper to write, the interface it
// must present, the core's module header as read from its files (verilog_ports.h), its
// parameters and reset vector.
std::string wrapper_brief(const GenericCore& core, const std::filesystem::path& checkout_root);

// Each tile's first memory request in a simulation transcript: tile number → address.
// Reads at most `max_bytes` of `sim_log`; a tile printed twice keeps its first line.
struct FirstRequests {
  std::map<int64_t, uint32_t> by_tile;
  std::string error;  // the transcript could not be read
};
FirstRequests read_first_requests(const std::filesystem::path& sim_log,
                                  std::size_t max_bytes = 512u * 1024 * 1024);
FirstRequests parse_first_requests(std::string_view transcript);

// REQ-VER-17: why a simulation's first requests fail the task, or nullopt when every
// tile's first request is at the reset vector. A transcript with no first request at
// all fails too: the tile prints one (patch_openpiton.sh), so none means the checkout is
// not patched or no tile ever ran.
std::optional<std::string> first_request_problem(const FirstRequests& requests,
                                                 uint32_t reset_vector);

}  // namespace mace::openpiton
