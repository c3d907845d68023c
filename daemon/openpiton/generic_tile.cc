#include "openpiton/generic_tile.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>

#include "openpiton/verilog_ports.h"

namespace mace::openpiton {
namespace {

namespace fs = std::filesystem;

std::string hex8(uint32_t value) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%08x", value);
  return buffer;
}

std::optional<std::string> read_text(const fs::path& path, std::size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string text(max_bytes, '\0');
  in.read(text.data(), static_cast<std::streamsize>(max_bytes));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

// The files Flist.pico names, as checkout-relative paths.
std::set<std::string> pico_flist_files(const fs::path& root) {
  std::set<std::string> out;
  auto text = read_text(root / kPicoFlist, 64 * 1024);
  if (!text) return out;
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line);) {
    line.erase(0, line.find_first_not_of(" \t"));
    line.erase(line.find_last_not_of(" \t\r") + 1);
    if (line.empty() || line.starts_with("//") || line[0] == '+' || line[0] == '-') continue;
    out.insert(std::string(kGenericDir) + "/" + line);
  }
  return out;
}

// The PicoRV32 native interface, as the patched tile connects it (tile.v.pyv, g_picorv32_core).
constexpr std::string_view kWrapperPorts =
    "    input  wire        clk,\n"
    "    input  wire        reset_l,     // the tile's reset, active low\n"
    "    output wire        trap,\n"
    "    output wire        mem_valid,   // a request: held until mem_ready; the tile takes a request\n"
    "                                    // on a rising edge, so low for a cycle between two\n"
    "    output wire        mem_instr,   // the request is an instruction fetch\n"
    "    input  wire        mem_ready,   // the request is done (read data valid this cycle)\n"
    "    output wire [31:0] mem_addr,    // byte address, word-aligned\n"
    "    output wire [31:0] mem_wdata,\n"
    "    output wire [ 3:0] mem_wstrb,   // 0: read; else the bytes written\n"
    "    output wire [`L15_AMO_OP_WIDTH-1:0] mem_amo_op,  // `L15_AMO_OP_NONE unless an AMO\n"
    "    input  wire [31:0] mem_rdata,\n"
    "    input  wire        pico_int     // the wake-up: one pulse when the tile may start; hold the\n"
    "                                    // core in reset until it came (PicoRV32 does), or its\n"
    "                                    // first fetch goes out before the tile can answer it\n";

// What OpenPiton's testbench reads inside the instance (pc_cmp.v.pyv, through
// cross_module.h's `PICO_CORE<n> = <tile>.g_picorv32_core.core): the pass/fail trap and
// the wake-up events follow the PC of each instruction the core launches.
constexpr std::string_view kMonitoredNets =
    "    wire        launch_next_insn;  // high for one cycle as the core starts an instruction\n"
    "    wire [31:0] reg_pc;            // that instruction's PC\n";

}  // namespace

std::string default_link_script(uint32_t reset_vector) {
  return "/* Written by MACE: every section from the core's reset vector on. */\n"
         "OUTPUT_ARCH( \"riscv\" )\n"
         "ENTRY(_start)\n\n"
         "SECTIONS\n{\n"
         "  . = 0x" + hex8(reset_vector) + ";\n"
         "  .text.init : { *(.text.init) }\n"
         "  . = ALIGN(0x1000);\n"
         "  .tohost : { *(.tohost) }\n"
         "  . = ALIGN(0x1000);\n"
         "  .text : { *(.text) }\n"
         "  . = ALIGN(0x1000);\n"
         "  .data : { *(.data) }\n"
         "  .bss : { *(.bss) }\n"
         "  _end = .;\n"
         "}\n";
}

std::string wrapper_skeleton(const GenericCore& core) {
  std::string out;
  out += "// Written by MACE: the skeleton of the Generic Tile's wrapper for the core " + core.name +
         " (" + core.isa + ", top module " + core.top_module + ").\n"
         "// An rtl task replaces the body: instantiate " + core.top_module +
         " and adapt its memory port to this interface.\n"
         "// The tile (tile.v.pyv) instantiates this module in place of picorv32 when "
         "MACE_GENERIC_CORE is defined.\n"
         "`include \"l15.tmp.h\"\n\n"
         "module " + std::string(kGenericWrapperModule) + " (\n";
  out += kWrapperPorts;
  out += ");\n";
  out += kMonitoredNets;
  out += "    // Skeleton: no core yet, so the tile makes no request.\n"
         "    assign launch_next_insn = 1'b0;\n"
         "    assign reg_pc     = 32'b0;\n"
         "    assign trap       = 1'b0;\n"
         "    assign mem_valid  = 1'b0;\n"
         "    assign mem_instr  = 1'b0;\n"
         "    assign mem_addr   = 32'b0;\n"
         "    assign mem_wdata  = 32'b0;\n"
         "    assign mem_wstrb  = 4'b0;\n"
         "    assign mem_amo_op = {`L15_AMO_OP_WIDTH{1'b0}};\n"
         "endmodule\n";
  return out;
}

std::vector<GeneratedFile> generic_tile_files(const GenericCore& core, const fs::path& checkout_root) {
  std::vector<GeneratedFile> out;
  out.push_back({std::string(kGeneratedWrapper), wrapper_skeleton(core)});
  out.push_back({std::string(kGeneratedLinkScript),
                 core.link_script.empty() ? default_link_script(core.reset_vector) : core.link_script});
  const std::set<std::string> already = pico_flist_files(checkout_root);
  std::string flist = "// Written by MACE for the core " + core.name +
                      " on the Generic Tile: its files and its wrapper.\n";
  for (const auto& file : core.files) {
    if (already.count(file)) continue;  // -pico compiles it already
    flist += "$DV_ROOT/" + file.substr(std::string_view("piton/").size()) + "\n";
  }
  flist += std::string(kGeneratedWrapper).substr(std::string(kGenericDir).size() + 1) + "\n";
  out.push_back({std::string(kGeneratedFlist), flist});
  return out;
}

std::vector<std::string> missing_core_files(const GenericCore& core, const fs::path& checkout_root) {
  std::vector<std::string> missing;
  for (const auto& file : core.files) {
    std::error_code ec;
    if (!fs::is_regular_file(checkout_root / file, ec)) missing.push_back(file);
  }
  return missing;
}

std::string wrapper_brief(const GenericCore& core, const fs::path& checkout_root) {
  std::string out =
      "\nThe core generic: this run hosts the RV32 core " + core.name + " (" + core.isa +
      ") on OpenPiton's Generic Tile, the PicoRV32 tile with a per-core wrapper in PicoRV32's "
      "place. Write the wrapper " + std::string(kGeneratedWrapper) +
      " (MACE wrote its skeleton; keep its module name and ports): instantiate " +
      core.top_module + " and adapt its memory port (" + core.protocol + ", " +
      std::to_string(core.ports) + (core.ports == 1 ? " port" : " ports") +
      ") to the tile's interface, one request at a time:\n" + std::string(kWrapperPorts) +
      "and drive the two nets OpenPiton's testbench reads inside the wrapper (it finds the "
      "pass and fail traps by the PC of each instruction launched):\n" + std::string(kMonitoredNets) +
      "The core must start fetching at its reset vector 0x" + hex8(core.reset_vector) +
      ": MACE fails a task whose simulation shows any tile's first request elsewhere.\n";
  if (!core.parameters.empty()) {
    out += "Parameters the descriptor gives the core:";
    for (const auto& [name, value] : core.parameters) out += " " + name + " = " + value + ";";
    out += "\n";
  }
  out += "The core's files: ";
  for (std::size_t i = 0; i < core.files.size(); ++i) out += (i ? ", " : "") + core.files[i];
  out += "\n";
  for (const auto& file : core.files) {
    auto text = read_text(checkout_root / file, 4 * 1024 * 1024);
    if (!text) continue;
    ModuleInterface module = module_port_list(*text, core.top_module);
    if (module.module.empty()) continue;
    out += "The core's module header, as read from " + file + ":\n" + format_module_interface(module);
    if (!out.ends_with("\n")) out += "\n";
    return out;
  }
  out += "(MACE found no module " + core.top_module + " in those files.)\n";
  return out;
}

FirstRequests parse_first_requests(std::string_view transcript) {
  FirstRequests out;
  std::size_t at = 0;
  while ((at = transcript.find(kFirstRequestPrefix, at)) != std::string_view::npos) {
    std::size_t pos = at + kFirstRequestPrefix.size();
    at = pos;
    int64_t tile = 0;
    std::size_t digits = 0;
    while (pos < transcript.size() && transcript[pos] >= '0' && transcript[pos] <= '9' && digits < 9) {
      tile = tile * 10 + (transcript[pos++] - '0');
      ++digits;
    }
    constexpr std::string_view kAddress = " address 0x";
    if (digits == 0 || transcript.substr(pos, kAddress.size()) != kAddress) continue;
    pos += kAddress.size();
    uint32_t address = 0;
    std::size_t hex = 0;
    for (; pos < transcript.size() && hex < 8; ++pos, ++hex) {
      char c = transcript[pos];
      int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (v < 0) break;
      address = address * 16 + static_cast<uint32_t>(v);
    }
    if (hex != 8) continue;
    out.by_tile.emplace(tile, address);  // the first line of a tile wins
  }
  return out;
}

FirstRequests read_first_requests(const fs::path& sim_log, std::size_t max_bytes) {
  auto text = read_text(sim_log, max_bytes);
  if (!text) {
    FirstRequests out;
    out.error = "cannot read " + sim_log.string();
    return out;
  }
  return parse_first_requests(*text);
}

std::optional<std::string> first_request_problem(const FirstRequests& requests, uint32_t reset_vector) {
  if (!requests.error.empty()) return "REQ-VER-17: no transcript to check the first requests in: " + requests.error;
  if (requests.by_tile.empty())
    return "REQ-VER-17: the first simulation shows no tile's first memory request (\"" +
           std::string(kFirstRequestPrefix) +
           "N address 0x...\"): no core ever fetched, or the checkout's tile lacks MACE's "
           "print (run scripts/patch_openpiton.sh)";
  std::string wrong;
  for (const auto& [tile, address] : requests.by_tile)
    if (address != reset_vector)
      wrong += (wrong.empty() ? "" : ", ") + std::string("tile ") + std::to_string(tile) + " at 0x" + hex8(address);
  if (wrong.empty()) return std::nullopt;
  return "REQ-VER-17: the first memory request is not at the core descriptor's reset vector 0x" +
         hex8(reset_vector) + ": " + wrong;
}

}  // namespace mace::openpiton
