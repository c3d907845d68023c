// symbols: the compiled program's symbols (objdump -t) beside the run's symbol table, and
// optionally one symbol disassembled. objdump is the only program the diagnostic tools
// start: in its own process group, with a timeout and an output cap, never through a shell.

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "os/process_group.h"
#include "tools/diagnostic_tools.h"
#include "tools/diagnostics/directory_walk.h"
#include "tools/diagnostics/methods.h"
#include "tools/diagnostics/read_only_file.h"
#include "tools/diagnostics/text.h"

namespace mace::tools::diagnostics {

namespace fs = std::filesystem;
using llm::ToolCallResult;

namespace {

struct ObjdumpOutput {
  std::string text;
  bool cut = false;
  os::ProcessResult result;
};

ObjdumpOutput run_objdump(const State& state, const std::vector<std::string>& args,
                          const fs::path& program, const std::string& shown_name) {
  ObjdumpOutput out;
  os::ProcessSpec spec;
  spec.argv.push_back(state.objdump);
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  // Canonical and so absolute: it cannot be read as an option.
  spec.argv.push_back(program.string());
  spec.env = state.objdump_env;
  spec.working_dir = "/";
  spec.timeout = state.objdump_timeout;
  spec.kill_grace = std::chrono::milliseconds(1000);
  spec.tail_bytes = 4096;
  spec.max_line_bytes = 4096;
  // objdump names the file by the path it was given; the model knows it by its own name.
  const std::string given = program.string();
  spec.on_line = [&](std::string_view line) {
    if (out.text.size() + line.size() + 1 > kMaxObjdumpOutputBytes) {
      out.cut = true;
      return;
    }
    if (line.starts_with(given)) {
      out.text += shown_name;
      line.remove_prefix(given.size());
    }
    out.text.append(line);
    out.text += '\n';
  };
  out.result = os::run_process_group(spec);
  return out;
}

std::string objdump_failure(const State& state, const ObjdumpOutput& o) {
  const auto& r = o.result;
  std::string why = fs::path(state.objdump).filename().string();
  if (r.launch_failed) return why + " could not be started: " + r.error;
  if (r.timed_out)
    return why + " did not finish within " + std::to_string(state.objdump_timeout.count()) + " ms";
  if (r.term_signal) return why + " was killed by signal " + std::to_string(r.term_signal);
  return why + " exited with status " + std::to_string(r.exit_code);
}

struct ElfSymbol {
  std::uint64_t address;
  std::string name;
  std::string section;
};

std::optional<std::uint64_t> parse_hex(std::string_view s) {
  if (s.starts_with("0x") || s.starts_with("0X")) s.remove_prefix(2);
  if (s.empty() || s.size() > 16) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : s) {
    const int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                  : (c >= 'a' && c <= 'f')                    ? c - 'a' + 10
                  : (c >= 'A' && c <= 'F')                    ? c - 'A' + 10
                                                              : -1;
    if (d < 0) return std::nullopt;
    v = v * 16 + static_cast<std::uint64_t>(d);
  }
  return v;
}

std::vector<std::string> split_blank(std::string_view line) {
  std::vector<std::string> out;
  std::istringstream in{std::string(line)};
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// objdump -t: "4000003c g       .text.init	00000000 pass".
std::vector<ElfSymbol> parse_symbol_table(const std::string& text) {
  std::vector<ElfSymbol> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const auto words = split_blank(line);
    if (words.size() < 4 || words[0].size() < 8) continue;
    const auto address = parse_hex(words[0]);
    if (!address || !parse_hex(words[words.size() - 2])) continue;
    out.push_back(ElfSymbol{*address, words.back(), words[words.size() - 3]});
  }
  return out;
}

bool valid_symbol_name(const std::string& s) {
  if (s.empty() || s.size() > 200) return false;
  if (!(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_' || s[0] == '.' || s[0] == '$'))
    return false;
  return std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '.' || c == '$' || c == '@';
  });
}

// The path argument, or the last failed run: a run directory or a program, not the log.
Resolved symbols_target(const State& state, const ToolArguments& args) {
  Resolved target;
  if (auto arg = args.optional_string("path")) {
    target = state.resolve(*arg);
  } else {
    const Place* run = state.last_failed_run();
    if (run == nullptr)
      throw Refusal("this scope has no run directory (the task failed before simulating), so "
                    "there is no compiled program");
    target = Resolved{run, run->name, run->root};
  }
  if (target.place->is_file())
    throw Refusal("path " + in_quotes(target.name) + " is the build log, not a program");
  return target;
}

// The program and the directory whose symbol.tbl goes beside it.
struct ProgramInRun {
  Resolved program;
  std::string dir_name;
};

// A run directory's program: its diag.exe, else the first *.elf directly in it.
Resolved program_in_directory(const State& state, const Resolved& dir) {
  std::vector<std::string> candidates = {"diag.exe"};
  bool truncated = false;
  std::vector<std::string> elfs;
  for (const auto& e : walk(dir, kMaxListedEntries, truncated))
    if (e.kind == EntryKind::file && e.name.ends_with(".elf") &&
        e.name.find('/', dir.name.size() + 1) == std::string::npos)
      elfs.push_back(e.name.substr(dir.name.size() + 1));
  candidates.insert(candidates.end(), elfs.begin(), elfs.end());
  std::error_code ec;
  for (const auto& c : candidates) {
    if (!fs::exists(fs::symlink_status(dir.path / c, ec))) continue;
    // A diag.exe that leads outside is refused here rather than passed over.
    return state.resolve(dir.name + "/" + c);
  }
  throw Refusal("no compiled program (diag.exe or *.elf) in " + in_quotes(dir.name) +
                "; name one with \"path\"");
}

ProgramInRun locate_program(const State& state, const Resolved& target) {
  std::error_code ec;
  if (fs::is_directory(fs::symlink_status(target.path, ec)))
    return ProgramInRun{program_in_directory(state, target), target.name};
  return ProgramInRun{target, target.name.substr(0, target.name.rfind('/'))};
}

// The run's symbol table: what the testbench takes good_trap and bad_trap from.
struct RunSymbolTable {
  std::string name;  // says why when it is not available
  std::string text;  // its first 1000 lines; empty when not available
};

RunSymbolTable read_run_symbol_table(const State& state, const std::string& dir_name) {
  RunSymbolTable table{dir_name + "/symbol.tbl", ""};
  try {
    const Resolved resolved = state.resolve(table.name);
    OpenedFile t = open_regular(resolved);
    if (is_binary(t.file.get())) throw Refusal("it is a binary file");
    scan_lines(t.file.get(), 1024, state.deadline(),
               [&](std::uint64_t n, std::string_view line, bool) {
                 if (n > 1000) return false;
                 table.text.append(line);
                 table.text += '\n';
                 return true;
               });
  } catch (const Refusal& e) {
    table.text.clear();
    table.name += " (not available: " + std::string(e.what()) + ")";
  }
  return table;
}

// The program's symbols at one address, other than absolute ones.
std::string symbols_at(std::uint64_t address, const std::vector<ElfSymbol>& elf_symbols) {
  std::string names;
  for (const auto& s : elf_symbols)
    if (s.address == address && !s.name.empty() && s.section != "*ABS*")
      names += (names.empty() ? "" : ", ") + printable(s.name) + " (" + printable(s.section) + ")";
  return names;
}

// One symbol.tbl line ("good_trap 40000034 ..."): each distinct address on it and the
// program's symbols there.
std::string table_row(const std::vector<std::string>& words,
                      const std::vector<ElfSymbol>& elf_symbols) {
  std::vector<std::uint64_t> addresses;
  for (std::size_t w = 1; w < words.size(); ++w)
    if (auto a = parse_hex(words[w]);
        a && std::find(addresses.begin(), addresses.end(), *a) == addresses.end())
      addresses.push_back(*a);
  std::string row = printable(words[0]) + ":";
  for (auto address : addresses) {
    std::ostringstream hex;
    hex << std::hex << address;
    const std::string names = symbols_at(address, elf_symbols);
    row += " " + hex.str() + " -> " +
           (names.empty() ? "no symbol of the program here" : names) + ";";
  }
  return row;
}

// Each symbol.tbl entry beside the program's symbols at its addresses: a trap address
// that no longer names pass/fail is a program and table out of step.
std::string table_against_program(const std::string& dir_name, const std::string& table_text,
                                  const std::vector<ElfSymbol>& elf_symbols) {
  std::string out = "== " + dir_name + "/symbol.tbl against the program's symbols\n";
  std::istringstream in(table_text);
  for (std::string line; std::getline(in, line);) {
    const auto words = split_blank(line);
    if (words.size() < 2) continue;
    out += table_row(words, elf_symbols) + "\n";
  }
  return out;
}

// objdump -d of one symbol, after `out`; ok=false when objdump fails or has no such symbol.
ToolCallResult with_disassembly(const State& state, const Resolved& program,
                                const std::string& symbol, std::string out) {
  ObjdumpOutput dis =
      run_objdump(state, {"-d", "--disassemble=" + symbol}, program.path, program.name);
  out += "== objdump -d --disassemble=" + symbol + " " + program.name + "\n";
  if (!dis.result.succeeded()) {
    out += objdump_failure(state, dis) + "\n";
    append_printable(out, dis.text);
    return ToolCallResult{false, out};
  }
  if (dis.text.find("<" + symbol + ">:") == std::string::npos) {
    out += "the program has no symbol named " + in_quotes(symbol) + "\n";
    return ToolCallResult{false, out};
  }
  append_printable(out, dis.text);
  if (dis.cut) out += "(cut at " + std::to_string(kMaxObjdumpOutputBytes / 1024) + " KiB)\n";
  return ToolCallResult{true, out};
}

}  // namespace

ToolCallResult symbols(const State& state, const ToolArguments& args) {
  const auto disassemble = args.optional_string("disassemble");
  if (disassemble && !valid_symbol_name(*disassemble))
    throw Refusal("argument \"disassemble\" must be a symbol name (letters, digits, _ . $ @, "
                  "not starting with a digit), not " + in_quotes(*disassemble));

  const ProgramInRun found = locate_program(state, symbols_target(state, args));
  const Resolved& program = found.program;
  OpenedFile opened = open_regular(program);
  if (!is_elf(opened.file.get()))
    throw Refusal("path " + in_quotes(program.name) + " is not an ELF program");
  const RunSymbolTable run_table = read_run_symbol_table(state, found.dir_name);

  std::string out = "program " + program.name + " (" + std::to_string(opened.size) + " bytes)\n";
  out += "== " + run_table.name + "\n";
  append_printable(out, run_table.text);

  if (state.objdump.empty()) {
    return ToolCallResult{false, "cannot show the program's symbols: " + state.objdump_missing +
                                     "\n" + out};
  }
  ObjdumpOutput table = run_objdump(state, {"-t"}, program.path, program.name);
  if (!table.result.succeeded()) {
    std::string why = "cannot read the symbols of " + program.name + ": " +
                      objdump_failure(state, table) + "\n";
    append_printable(why, table.text.empty() ? table.result.tail : table.text);
    return ToolCallResult{false, why + "\n" + out};
  }
  if (!run_table.text.empty())
    out += table_against_program(found.dir_name, run_table.text, parse_symbol_table(table.text));
  out += "== objdump -t " + program.name + "\n";
  append_printable(out, table.text);
  if (table.cut) out += "(cut at " + std::to_string(kMaxObjdumpOutputBytes / 1024) + " KiB)\n";

  if (!disassemble) return ToolCallResult{true, out};
  return with_disassembly(state, program, *disassemble, std::move(out));
}

}  // namespace mace::tools::diagnostics
