#pragma once
// The core descriptor of a run on the core generic (REQ-PLAN-1, REQ-EXEC-20): an RV32 core
// OpenPiton does not integrate, described well enough for MACE to host it on the Generic
// Tile (OpenPiton's PicoRV32 tile with a per-core wrapper in PicoRV32's place).
//
// Two checks, two outcomes. Its *form* (types, unknown fields, sizes, names that could not
// be Verilog or a checkout path) is part of the spec: a descriptor that is not well formed
// is a spec error with a field path, and the run never exists. Its *content* is what the
// Generic Tile can host (generic_tile_support_problems): a well-formed descriptor of a
// core the tile cannot host ends its run `unsupported_core`, before any LLM call.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/field_error.h"

namespace mace {

// The protocols of memory ports a wrapper can adapt to PicoRV32's native interface (one
// request in flight, valid/ready, 32-bit words with byte strobes): each is a single-request
// handshake a few lines of Verilog turn into that one.
inline constexpr std::string_view kAdaptableMemoryProtocols[] = {
    "picorv32_native", "valid_ready", "obi", "wishbone", "axi4_lite", "ahb_lite"};

struct CoreMemoryInterface {
  std::string protocol;   // one of kAdaptableMemoryProtocols for the tile to host it
  int64_t ports = 1;      // 1: unified; 2: instruction and data (the wrapper arbitrates)
  int64_t data_width = 32;
  int64_t address_width = 32;
  bool operator==(const CoreMemoryInterface&) const = default;
};

struct CoreDescriptor {
  std::string name;        // an identifier, for people and prompts
  std::string isa;         // "RV32I", "RV32IM", "RV64GC", ...: upper case, as written
  int64_t harts = 1;
  bool mmu = false;
  std::string top_module;  // the core's own top module, which the wrapper instantiates
  // The core's Verilog files, relative to the checkout root, under piton/design/.
  std::vector<std::string> files;
  uint32_t reset_vector = 0;
  // The link script the gate workloads are linked with; unset: MACE writes one that puts
  // every section from reset_vector on (generic_tile.h).
  std::optional<std::string> link_script;
  CoreMemoryInterface memory_interface;
  // Verilog parameters the wrapper passes to the core: name, then a Verilog constant.
  std::vector<std::pair<std::string, std::string>> parameters;
  bool operator==(const CoreDescriptor&) const = default;
};

// Bounds on a descriptor (it is stored, shown and put into prompts).
inline constexpr std::size_t kMaxDescriptorFiles = 256;
inline constexpr std::size_t kMaxDescriptorPathBytes = 512;
inline constexpr std::size_t kMaxDescriptorNameBytes = 64;
inline constexpr std::size_t kMaxDescriptorParameters = 64;
inline constexpr std::size_t kMaxParameterValueBytes = 128;
inline constexpr std::size_t kMaxLinkScriptBytes = 16 * 1024;

struct CoreDescriptorParse {
  std::optional<CoreDescriptor> descriptor;  // set only when `errors` is empty
  FieldErrors errors;                        // paths start with "core_descriptor"
};

// Reads the descriptor's JSON (an object) and checks its form, reporting every problem.
CoreDescriptorParse parse_core_descriptor(std::string_view json);

// What keeps the Generic Tile from hosting the core, one sentence each; empty: it can.
// The tile hosts one RV32 hart (RV32I, optionally with M, A and C: the L1.5 transducer
// carries PicoRV32's AMOs), without an MMU (the L1.5 takes physical addresses), whose
// memory port is 32-bit data and address of a protocol the wrapper can adapt, with a
// word-aligned reset vector.
std::vector<std::string> generic_tile_support_problems(const CoreDescriptor& descriptor);

// The -march a program for the core is compiled with: the ISA in lower case ("rv32im").
std::string descriptor_march(const CoreDescriptor& descriptor);

// "0x40000000".
std::string reset_vector_text(uint32_t reset_vector);

}  // namespace mace
