#include "openpiton/host_tools.h"

#include <array>
#include <chrono>

#include "os/process_group.h"
#include "os/program_search.h"
#include "os/text.h"

namespace mace::openpiton {
namespace {

constexpr std::array kEveryTool = {
    HostTool::verilator, HostTool::cxx_compiler, HostTool::make,
    HostTool::perl,      HostTool::python3,      HostTool::git,
    HostTool::riscv_gcc, HostTool::verilator_coverage, HostTool::ccache,
};

bool version_matters(HostTool tool) {
  return tool == HostTool::verilator || tool == HostTool::riscv_gcc;
}

// The first non-empty line of `program --version`; empty when it cannot be read.
std::string first_version_line(const std::filesystem::path& program,
                               const std::map<std::string, std::string>& env) {
  os::ProcessSpec spec;
  spec.argv = {program.string(), "--version"};
  spec.env = env;
  spec.purpose = program.filename() == "verilator" ? os::CommandPurpose::verilator_version
                                                   : os::CommandPurpose::command;
  spec.timeout = std::chrono::seconds(5);
  spec.kill_grace = std::chrono::seconds(1);
  spec.tail_bytes = 4096;
  const os::ProcessResult result = os::run_process_group(spec);
  if (!result.succeeded()) return "";
  for (std::string_view line : os::split_at_newlines(result.tail)) {
    line = os::trim(line);
    if (!line.empty()) return std::string(os::clip_utf8(line, 200));
  }
  return "";
}

}  // namespace

namespace {

// The program a tool is run as, and the Debian package that brings it.
struct ToolNames {
  std::string_view program;
  std::string_view package;
};

ToolNames names_of(HostTool tool) {
  switch (tool) {
    case HostTool::verilator: return {"verilator", "verilator"};
    case HostTool::cxx_compiler: return {"g++", "g++"};
    case HostTool::make: return {"make", "make"};
    case HostTool::perl: return {"perl", "perl"};
    case HostTool::python3: return {"python3", "python3"};
    case HostTool::git: return {"git", "git"};
    case HostTool::riscv_gcc: return {"riscv64-unknown-elf-gcc", "gcc-riscv64-unknown-elf"};
    case HostTool::verilator_coverage: return {"verilator_coverage", "verilator"};
    case HostTool::ccache: return {"ccache", "ccache"};
  }
  return {"?", "?"};
}

}  // namespace

std::string_view program_name(HostTool tool) { return names_of(tool).program; }

std::string_view debian_package(HostTool tool) { return names_of(tool).package; }

bool needed_by_every_run(HostTool tool) {
  switch (tool) {
    case HostTool::verilator:
    case HostTool::cxx_compiler:
    case HostTool::make:
    case HostTool::perl:
    case HostTool::python3:
    case HostTool::git:
      return true;
    case HostTool::riscv_gcc:
    case HostTool::verilator_coverage:
    case HostTool::ccache:
      return false;
  }
  return false;
}

std::vector<HostToolFinding> find_host_tools(const std::map<std::string, std::string>& env) {
  const auto path = env.find("PATH");
  const std::string path_list = path != env.end() ? path->second : "/usr/local/bin:/usr/bin:/bin";
  std::vector<HostToolFinding> out;
  for (HostTool tool : kEveryTool) {
    HostToolFinding finding{tool, os::find_program(program_name(tool), path_list), ""};
    if (finding.path && version_matters(tool)) {
      try {
        finding.version = first_version_line(*finding.path, env);
      } catch (const std::exception&) {
        // A machine that cannot start a process now: the tool is there, its version unknown.
      }
    }
    out.push_back(std::move(finding));
  }
  return out;
}

}  // namespace mace::openpiton
