#include "openpiton/pico_program.h"

#include <cctype>
#include <cstdint>
#include <fstream>
#include <optional>
#include <sstream>
#include <system_error>
#include <utility>

#include "os/environment.h"
#include "os/file_io.h"
#include "os/process_group.h"
#include "os/text.h"

namespace mace::openpiton {
namespace {

namespace fs = std::filesystem;

// What Debian's gcc-riscv64-unknown-elf needs to produce code sims' rv32_as can include
// in a pico diag (docs/openpiton-findings.md, "pico programs").
const char* const kPicoCompiler = "riscv64-unknown-elf-gcc";
const char* const kPicoObjcopy = "riscv64-unknown-elf-objcopy";
const char* const kPicoNm = "riscv64-unknown-elf-nm";
const char* const kPicoObjdump = "riscv64-unknown-elf-objdump";
const std::vector<std::string> kPicoCFlags = {
    "-O2",           "-march=rv32ima", "-mabi=ilp32", "-mno-riscv-attribute",
    "-ffreestanding", "-fno-builtin",  "-fno-pic"};
constexpr std::chrono::seconds kCompileTimeout{120};
// workloads/pico/start.S has stack room for this many slots (and fails the run beyond it).
constexpr std::int64_t kPicoMaxTiles = 448;
// Where every pico tile starts; tile 0 retiring it is what wakes the others.
const char* const kPicoResetPc = "64'h0000000040000000";

bool regular_file(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) {
    if (!text.empty()) text += '\n';
    text += line;
  }
  return text;
}

bool write_text(const fs::path& path, const std::string& text, std::string& error) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    error = "cannot write " + path.string();
    return false;
  }
  return true;
}

// Lines worth showing from a gcc/as/ld run: diagnostics, not the "In function" chatter.
bool is_compiler_error_line(std::string_view line) {
  return line.find("error:") != std::string_view::npos ||
         line.find("Error:") != std::string_view::npos ||
         line.find("undefined reference") != std::string_view::npos ||
         line.find("cannot find") != std::string_view::npos;
}

// Runs one toolchain command; empty string on success, else the message for `error`.
// `program_at_fault` (when given) is set when the tool ran and refused the program (an
// exit status), not when the machine stopped it.
// Throws os::HostStopped when the machine running it ended it.
std::string run_tool(const std::vector<std::string>& argv, const WorkloadContext& ctx,
                     const fs::path& log_path, const std::string& what,
                     bool* program_at_fault = nullptr) {
  os::ProcessSpec spec;
  spec.argv = argv;
  spec.env = ctx.environment.empty() ? os::inherited_environment() : ctx.environment;
  spec.working_dir = ctx.run_dir.string();
  spec.timeout = kCompileTimeout;
  spec.kill_grace = std::chrono::milliseconds(2000);
  spec.log_path = log_path.string();
  spec.tail_bytes = 8 * 1024;
  spec.is_error_line = is_compiler_error_line;
  spec.max_error_lines = 40;
  spec.purpose = os::CommandPurpose::compile_workload;
  const os::CommandRunner& runner = ctx.runner ? *ctx.runner : *os::local_command_runner();
  const os::ProcessResult result = runner.run(spec, nullptr);
  if (result.succeeded()) return "";

  std::string message = what + " failed: ";
  if (result.launch_failed) {
    message += result.error + " (is " + argv[0] + " on the PATH of the checkout's environment?)";
    return message;
  }
  if (result.host_stop != os::HostStop::none) {
    throw os::HostStopped(result.host_stop, message + result.host_stop_detail);
  } else if (result.timed_out) {
    message += "timed out after " + std::to_string(kCompileTimeout.count()) + " s";
  } else if (result.cancelled) {
    message += "cancelled";
  } else if (result.term_signal != 0) {
    message += "killed by signal " + std::to_string(result.term_signal);
  } else {
    message += "exit status " + std::to_string(result.exit_code);
    if (program_at_fault) *program_at_fault = true;
  }
  if (!result.error_lines.empty()) {
    message += "\n" + join_lines(result.error_lines);
  } else if (!result.tail.empty()) {
    std::string tail = result.tail;
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r')) tail.pop_back();
    message += "\n" + tail;
  }
  return message;
}

std::string hex_lower(std::uint64_t value) {
  static const char* const kDigits = "0123456789abcdef";
  std::string text;
  do {
    text.insert(text.begin(), kDigits[value % 16]);
    value /= 16;
  } while (value != 0);
  return text;
}

// core generic: the memory image and trap symbols of `elf` as sims' rv32_as writes them
// (a "@<address>" line, then 32 bytes a line as two 16-byte hex groups; "good_trap" and
// "bad_trap" at the program's pass and fail labels), the image loaded where the
// descriptor's link script placed it.
std::string write_generic_image(const fs::path& elf, const fs::path& image, const fs::path& symbols,
                                const WorkloadContext& ctx, bool& program_at_fault) {
  const fs::path binary = ctx.run_dir / (elf.stem().string() + ".bin");
  std::string problem = run_tool({kPicoObjcopy, "-O", "binary", elf.string(), binary.string()}, ctx,
                                 ctx.run_dir / "objcopy.log", "extracting the image of " + elf.string(),
                                 &program_at_fault);
  if (!problem.empty()) return problem;
  // objcopy's binary starts at the lowest loaded section, which the link script placed.
  const fs::path headers = ctx.run_dir / "objdump.log";
  problem = run_tool({kPicoObjdump, "-h", elf.string()}, ctx, headers,
                     "listing the sections of " + elf.string());
  if (!problem.empty()) return problem;
  std::optional<std::uint64_t> load_address;
  {
    std::ifstream in(headers);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
      std::istringstream fields(lines[i]);
      std::string index, name, size, vma, lma;
      if (!(fields >> index >> name >> size >> vma >> lma) || index.empty() ||
          !std::isdigit(static_cast<unsigned char>(index[0])))
        continue;
      if (lines[i + 1].find("LOAD") == std::string::npos ||
          lines[i + 1].find("CONTENTS") == std::string::npos || std::stoull(size, nullptr, 16) == 0)
        continue;
      const std::uint64_t address = std::stoull(lma, nullptr, 16);
      if (!load_address || address < *load_address) load_address = address;
    }
  }
  if (!load_address) {
    program_at_fault = true;
    return "linking " + elf.string() + ": no loadable section";
  }
  const fs::path nm_out = ctx.run_dir / "nm.log";
  problem = run_tool({kPicoNm, elf.string()}, ctx, nm_out, "listing the symbols of " + elf.string());
  if (!problem.empty()) return problem;
  // A program for a tile's memory: far below this bound, which only stops a runaway link
  // from filling the run directory's image.
  constexpr std::size_t kMaxImageBytes = 64 << 20;
  std::string bytes;
  try {
    bytes = os::read_file(binary, kMaxImageBytes);
  } catch (const os::FileError& e) {
    return "extracting the image of " + elf.string() + ": " + e.what();
  }
  bytes.append(128 - bytes.size() % 128, '\0');  // as rv32_as pads
  std::string text = "\n@" + std::string(16 - hex_lower(*load_address).size(), '0') +
                     hex_lower(*load_address) + "\t// Section '.RED_SEC', segment 'text'\n";
  static const char* const kDigits = "0123456789abcdef";
  for (std::size_t line = 0; line < bytes.size(); line += 32) {
    for (std::size_t i = 0; i < 32; ++i) {
      if (i == 16) text += ' ';
      const auto b = static_cast<unsigned char>(bytes[line + i]);
      text += kDigits[b >> 4];
      text += kDigits[b & 15];
    }
    text += '\n';
  }
  if (!write_text(image, text, problem)) return problem;
  std::ifstream nm(nm_out);
  std::string traps;
  for (std::string address, type, name; nm >> address >> type >> name;) {
    if (name == "pass") traps = "good_trap " + address + " X " + address + "\n" + traps;
    if (name == "fail") traps += "bad_trap " + address + " X " + address + "\n";
  }
  if (traps.find("good_trap") == std::string::npos) {
    program_at_fault = true;
    return "linking " + elf.string() + ": no 'pass' label, so no good trap to stop at";
  }
  if (!write_text(symbols, traps, problem)) return problem;
  return "";
}

// Why a pico C program cannot be prepared before anything runs, or nullopt.
std::optional<PreparedWorkload> refuse_pico_program(const std::string& stem, std::int64_t tiles,
                                                    const fs::path& start) {
  if (!os::is_identifier(stem) || stem == "diag") {
    return unprepared("workload '" + stem + "': a pico C program's name must be a C identifier " +
                      "other than 'diag' (sims' rv32_as makes a symbol of it and writes diag.S)",
                  Failure::workload_not_found);
  }
  if (tiles > kPicoMaxTiles) {
    return unprepared("workload '" + stem + "' for core pico: " + std::to_string(tiles) +
                      " tiles, but workloads/pico/start.S has stacks for " +
                      std::to_string(kPicoMaxTiles),
                  Failure::workload_not_built);
  }
  if (!regular_file(start)) {
    return unprepared("workload '" + stem + "' for core pico: the start-up code " + start.string() +
                  " is missing");
  }
  return std::nullopt;
}

// The files one pico C program becomes in its run directory.
struct PicoFiles {
  fs::path start;     // workloads/pico/start.S
  fs::path assembly;  // the program compiled to assembly
  fs::path wrapper;   // what sims assembles as diag.S: start-up code, then the program
  fs::path elf;       // the wrapper linked here the way rv32_as will, to check it links
};

// The program's C compiled to assembly; "" or what went wrong.
std::string compile_pico_c(const std::string& stem, const fs::path& source, const PicoFiles& files,
                           const WorkloadContext& ctx, std::int64_t tiles, bool& program_at_fault) {
  std::vector<std::string> compile = {kPicoCompiler, "-S"};
  compile.insert(compile.end(), kPicoCFlags.begin(), kPicoCFlags.end());
  if (ctx.generic) compile.push_back("-march=" + ctx.generic->march);  // the last -march wins
  compile.insert(compile.end(), {"-DMACE_TILES=" + std::to_string(tiles),
                                 "-I" + ctx.workloads_dir.string(), "-o", files.assembly.string(),
                                 source.string()});
  return run_tool(compile, ctx, ctx.run_dir / (stem + ".compile.log"),
                  "compiling " + source.string() + " for pico", &program_at_fault);
}

std::string write_pico_wrapper(const std::string& stem, const PicoFiles& files, std::int64_t tiles) {
  std::ostringstream text;
  text << "/* Written by MACE for workload " << stem << " (pico, " << tiles
       << " tiles); sims assembles it as diag.S. */\n"
       << "#define MACE_TILES " << tiles << "\n"
       << "#include \"" << files.start.string() << "\"\n"
       << "#include \"" << files.assembly.string() << "\"\n";
  std::string problem;
  write_text(files.wrapper, text.str(), problem);
  return problem;
}

// sims does not check what rv32_as says (a broken program would run as an empty image
// until it times out), so the wrapper is linked here the way rv32_as will link it.
std::string link_pico_check(const std::string& stem, const PicoFiles& files,
                            const WorkloadContext& ctx, bool& program_at_fault) {
  const std::string march = ctx.generic ? ctx.generic->march : "rv32ima";
  std::vector<std::string> link = {kPicoCompiler, "-march=" + march, "-mabi=ilp32",
                                   "-nostdlib", "-nostartfiles",
                                   "-DTEST_FUNC_NAME=" + stem,
                                   "-DTEST_FUNC_TXT=\"" + stem + "\"",
                                   "-DTEST_FUNC_RET=" + stem + "_ret"};
  if (auto dv = ctx.environment.find("DV_ROOT"); dv != ctx.environment.end()) {
    const fs::path include = fs::path(dv->second) / "verif/diag/assembly/include/riscv/pico";
    if (regular_file(include / "link.ld")) {
      link.push_back("-I" + include.string());
      if (!ctx.generic) link.push_back("-T" + (include / "link.ld").string());
    }
  }
  if (ctx.generic) link.push_back("-T" + ctx.generic->link_script.string());
  link.insert(link.end(), {files.wrapper.string(), "-o", files.elf.string()});
  return run_tool(link, ctx, ctx.run_dir / (stem + ".link.log"),
                  "assembling and linking " + files.wrapper.string() + " for pico",
                  &program_at_fault);
}

// REQ-VER-7: tiles other than 0 sleep until they get a wake-up interrupt; the IOB model
// sends one to thread 2N (tile N) when tile 0 retires its first instruction. Writes the
// events file; "" or what went wrong.
std::string write_wake_up_events(const fs::path& wake, std::int64_t tiles, const WorkloadContext& ctx) {
  const std::string reset_pc =
      ctx.generic ? "64'h" + hex_lower(ctx.generic->reset_vector) : std::string(kPicoResetPc);
  std::string events;
  for (std::int64_t tile = 1; tile < tiles; ++tile) {
    events += std::string("trig_pc_d(1,") + reset_pc + ") -> intp(" +
              hex_lower(static_cast<std::uint64_t>(2 * tile)) + ", 1, 1)\n";
  }
  std::string problem;
  write_text(wake, events, problem);
  return problem;
}

}  // namespace

PreparedWorkload prepare_pico_program(const std::string& stem, const fs::path& source,
                                const WorkloadContext& ctx, std::int64_t tiles) {
  const PicoFiles files{ctx.workloads_dir / "pico" / "start.S", ctx.run_dir / (stem + ".c.s"),
                        ctx.run_dir / (stem + ".S"), ctx.run_dir / (stem + ".check.elf")};
  if (auto refused = refuse_pico_program(stem, tiles, files.start)) return *refused;
  std::error_code ec;
  fs::create_directories(ctx.run_dir, ec);
  if (ec) {
    return unprepared("cannot create run directory " + ctx.run_dir.string() + ": " + ec.message());
  }
  bool program_at_fault = false;
  auto failed_build = [&](std::string problem) {
    return unprepared(std::move(problem),
                  program_at_fault ? Failure::workload_not_built : Failure::none);
  };
  if (auto p = compile_pico_c(stem, source, files, ctx, tiles, program_at_fault); !p.empty())
    return failed_build(p);
  if (auto p = write_pico_wrapper(stem, files, tiles); !p.empty()) return unprepared(p);
  if (auto p = link_pico_check(stem, files, ctx, program_at_fault); !p.empty())
    return failed_build(p);

  PreparedWorkload result;
  result.diag_name = stem + ".S";
  result.sims_args.push_back("-asm_diag_path=" + ctx.run_dir.string());
  // sims' rv32_as links every RV32 diag with PicoRV32's link.ld at 0x40000000; a generic
  // core's image is the one linked above with its descriptor's link script, loaded at its
  // reset vector: sims' memory image and trap symbols are replaced by ours after it
  // assembles (-pre_process_cmd runs then, in its run directory).
  std::vector<std::string> after_assembly;
  if (ctx.generic) {
    const fs::path image = ctx.run_dir / (stem + ".mem.image");
    const fs::path symbols = ctx.run_dir / (stem + ".symbol.tbl");
    if (auto p = write_generic_image(files.elf, image, symbols, ctx, program_at_fault); !p.empty())
      return failed_build(p);
    after_assembly.push_back("cp " + image.string() + " mem.image && cp " + symbols.string() +
                             " symbol.tbl");
  }
  if (tiles > 1) {
    const fs::path wake = ctx.run_dir / "wake.ev";
    if (auto p = write_wake_up_events(wake, tiles, ctx); !p.empty()) return unprepared(p);
    // sims deletes diag.ev before assembling and runs this afterwards, in its run directory.
    after_assembly.push_back("cp " + wake.string() + " diag.ev");
  }
  if (!after_assembly.empty()) {
    std::string command = after_assembly.front();
    for (std::size_t i = 1; i < after_assembly.size(); ++i) command += " && " + after_assembly[i];
    result.sims_args.push_back("-pre_process_cmd=" + command);
  }
  return result;
}

}  // namespace mace::openpiton
