// The "diagnostics" tool (diagnostic_tools.h): its places and objdump fixed when it is
// made, its method table, and call() turning every refusal into an ok=false result. The
// parts live in diagnostics/: scope (places and the refusal rules), read_only_file,
// directory_walk and text, and one file per method (methods.h).

#include "tools/diagnostic_tools.h"

#include <unistd.h>

#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "core/json_writer.h"
#include "os/environment.h"
#include "os/process_group.h"
#include "os/program_search.h"
#include "tools/diagnostics/methods.h"
#include "tools/diagnostics/scope.h"
#include "tools/diagnostics/text.h"
#include "tools/tool_arguments.h"
#include "waveform/wave_query.h"

namespace mace::tools {
namespace {

namespace fs = std::filesystem;
using llm::ToolCallResult;
using diagnostics::in_quotes;
using diagnostics::Place;
using diagnostics::PlaceKind;
using diagnostics::Refusal;
using diagnostics::State;

// An executable regular file named `program`, found as a path or in `path_var`.
std::string find_program(const std::string& program, const std::string& path_var) {
  auto usable = [](const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
  };
  if (program.empty()) return {};
  if (program.find('/') != std::string::npos) {
    std::error_code ec;
    fs::path p = fs::absolute(program, ec);
    return !ec && usable(p) ? p.string() : std::string();
  }
  const auto found = os::find_program(program, path_var);
  return found ? found->string() : std::string();
}

std::string unique_name(const State& state, const std::string& base) {
  std::string name = base;
  for (int k = 2; state.find(name) != nullptr; ++k) name = base + "~" + std::to_string(k);
  return name;
}

std::string json_string(std::string_view text) {
  std::string out = "\"";
  append_json_escaped(out, text);
  return out + "\"";
}

// One property of a method's parameters schema.
std::string prop(std::string_view name, std::string_view type, const std::string& description,
                 std::string_view extra = "") {
  return json_string(name) + R"(:{"type":)" + json_string(type) + std::string(extra) +
         R"(,"description":)" + json_string(description) + "}";
}

std::string schema(const std::vector<std::string>& properties,
                   const std::vector<std::string>& required = {}) {
  std::string s = R"({"type":"object","properties":{)";
  for (std::size_t i = 0; i < properties.size(); ++i) s += (i ? "," : "") + properties[i];
  s += "}";
  if (!required.empty()) {
    s += R"(,"required":[)";
    for (std::size_t i = 0; i < required.size(); ++i) s += (i ? "," : "") + json_string(required[i]);
    s += "]";
  }
  return s + "}";
}

const std::string kPathHelp =
    "Paths start with a place: failed/<run>/..., build/<log>, reference/<run>/..., "
    "workloads/... (list_files shows them); absolute paths and '..' are refused.";

// The waveform's methods, offered when the failure has one.
std::vector<llm::ToolMethod> wave_methods() {
  return {
      {"wave_signals",
       "List the scopes and signals of the failed workload's waveform (a VCD of its last cycles "
       "before the failure, times 500 per clock cycle): the scopes directly below `scope` and "
       "the signals under it whose name contains `filter`.",
       schema({prop("scope", "string", "a scope, e.g. TOP.cmp_top.system.chip.tile0; default: the top"),
               prop("filter", "string", "a part of the signal's name to look for, e.g. l15 or valid"),
               prop("max_signals", "integer",
                    "default " + std::to_string(waveform::kDefaultListed) + ", at most " +
                        std::to_string(waveform::kMaxListed))})},
      {"wave_values",
       "The values of named signals of the failed workload's waveform over a window of time: "
       "the value before the window and the last max_changes changes in it.",
       schema({prop("signals", "string",
                    "full signal names as wave_signals gives them, separated by commas; at most " +
                        std::to_string(waveform::kMaxQueriedSignals)),
               prop("from", "integer", "the window's start, in simulation time; default: the file's start"),
               prop("to", "integer", "the window's end, in simulation time; default: the file's end"),
               prop("max_changes", "integer",
                    "per signal, default " + std::to_string(waveform::kDefaultChanges) + ", at most " +
                        std::to_string(waveform::kMaxChanges))},
              {"signals"})},
  };
}

std::vector<llm::ToolMethod> methods() {
  const std::string n = std::to_string(kDefaultSearchMatches);
  return {
      {"search_logs",
       "Search the text files of the failed task's run directories and its build log (or of "
       "one path) for a fixed string or a regular expression. Returns matching lines as "
       "path:line: text, at most max_matches of them; lines longer than " +
           std::to_string(kMaxShownLineBytes) +
           " bytes are cut, and only the first 4096 bytes of each line are searched.",
       schema({prop("pattern", "string", "the text or ECMAScript regular expression to look for"),
               prop("mode", "string",
                    "fixed (default): the pattern as it is; regex: a regular expression "
                    "(no back-references)",
                    R"(,"enum":["fixed","regex"])"),
               prop("ignore_case", "boolean", "default false"),
               prop("path", "string",
                    "a file or directory to search instead of the failed runs and the build "
                    "log, e.g. reference/hello-1 or failed/hello-1/sims.log. " + kPathHelp),
               prop("max_matches", "integer",
                    "default " + n + ", at most " + std::to_string(kMaxSearchMatches))},
              {"pattern"})},
      {"list_files",
       "List the files of the failed task's run directories, build log, reference runs and "
       "workloads (or of one path), with sizes; marks binary files and ELF programs.",
       schema({prop("path", "string",
                    "a place or directory to list; default: all of them. " + kPathHelp)})},
      {"read_file",
       "Read lines of one text file, numbered, at most " + std::to_string(kMaxReadBytes / 1024) +
           " KiB per call. Binary files are refused.",
       schema({prop("path", "string", "the file, e.g. failed/hello-1/sim.log. " + kPathHelp),
               prop("start_line", "integer", "first line to return, from 1 (default 1)"),
               prop("max_lines", "integer",
                    "default " + std::to_string(kDefaultReadLines) + ", at most " +
                        std::to_string(kMaxReadLines)),
               prop("tail", "boolean",
                    "true: return the last max_lines lines instead (not with start_line)")},
              {"path"})},
      {"compare_transcript",
       "Compare the failed run's testbench transcript (sim.log) with a reference transcript, "
       "as a unified line diff (reference lines '-', failed lines '+'), with both verdicts.",
       schema({prop("transcript", "string",
                    "the failing transcript or its run directory; default: the failed run's "
                    "sim.log"),
               prop("reference", "string",
                    "the transcript to compare with, or its run directory; default: the "
                    "reference run of the same workload. " + kPathHelp),
               prop("context", "integer", "unchanged lines around each change, 0..20 (default 3)"),
               prop("max_lines", "integer",
                    "diff lines to return, default " + std::to_string(kDefaultDiffLines) +
                        ", at most " + std::to_string(kMaxDiffLines)),
               prop("ignore_cycle_stamps", "boolean",
                    "true: lines that differ only in their leading cycle stamp ('7007250: ') "
                    "count as equal")})},
      {"symbols",
       "Show the compiled program's symbols (objdump -t) beside the run's symbol table "
       "(symbol.tbl, where the testbench reads good_trap and bad_trap from), with each "
       "symbol.tbl address matched to the program's symbols; optionally disassemble one symbol.",
       schema({prop("path", "string",
                    "a run directory (its diag.exe or *.elf) or a program in one; default: the "
                    "failed run"),
               prop("disassemble", "string", "a symbol to disassemble, e.g. pass or main")})},
  };
}

using Handler = ToolCallResult (*)(const State&, const ToolArguments&);

Handler handler_for(const std::string& method) {
  if (method == "search_logs") return diagnostics::search_logs;
  if (method == "list_files") return diagnostics::list_files;
  if (method == "read_file") return diagnostics::read_file;
  if (method == "compare_transcript") return diagnostics::compare_transcript;
  if (method == "symbols") return diagnostics::symbols;
  if (method == "wave_signals") return diagnostics::wave_signals;
  if (method == "wave_values") return diagnostics::wave_values;
  return nullptr;
}

std::string describe(const State& state) {
  std::string d =
      "Read-only diagnostics of the failed task: search its logs, list and read the files "
      "of its run directories, compare its transcript with a reference, show its program's "
      "symbols. Places: ";
  for (const auto& p : state.places) {
    d += p.name;
    switch (p.kind) {
      case PlaceKind::failed: d += " (failed task's run)"; break;
      case PlaceKind::build: d += " (build transcript)"; break;
      case PlaceKind::reference: d += " (reference run)"; break;
      case PlaceKind::workloads: d += " (workload sources)"; break;
    }
    d += "; ";
  }
  if (!state.unavailable.empty()) d += "not available: " + std::to_string(state.unavailable.size()) + " (see list_files); ";
  if (!state.waveform.empty())
    d += "the waveform of " + state.waveform_workload + "'s last cycles before the failure (wave_signals, "
         "wave_values); ";
  if (state.objdump.empty()) d += "symbols is unavailable: " + state.objdump_missing;
  return d;
}

// Relative scope paths are taken from the checkout root; each place must exist and be what
// it claims to be (a directory; the log a regular file) once resolved. One that is not is
// left out, and `state.unavailable` says why.
std::optional<fs::path> resolve_place(State& state, const fs::path& checkout_root,
                                      const fs::path& given, bool directory,
                                      const std::string& what) {
  fs::path p = given.is_relative() && !checkout_root.empty() ? checkout_root / given : given;
  std::error_code ec;
  fs::path canonical = fs::canonical(p, ec);
  if (ec) {
    state.unavailable.push_back(what + " " + p.string() + ": " + ec.message());
    return std::nullopt;
  }
  const bool ok =
      directory ? fs::is_directory(canonical, ec) : fs::is_regular_file(canonical, ec);
  if (!ok) {
    state.unavailable.push_back(what + " " + p.string() + ": not a " +
                                (directory ? "directory" : "regular file"));
    return std::nullopt;
  }
  return canonical;
}

// A place's name after its group: the directory's (or the log's) own name.
std::string place_label(const fs::path& canonical) {
  std::string name = canonical.filename().string();
  if (name.empty() || name.find('\0') != std::string::npos) name = "run";
  return name;
}

// The places of the failed task itself: its run directories, then its build log.
void add_failed_places(State& state, const DiagnosticScope& scope) {
  for (const auto& dir : scope.run_dirs) {
    if (auto c = resolve_place(state, scope.checkout_root, dir, true, "failed run directory")) {
      std::string name = unique_name(state, std::string(kFailedPlace) + "/" + place_label(*c));
      state.places.push_back(Place{PlaceKind::failed, std::move(name), *c});
    }
  }
  if (!scope.build_log.empty()) {
    if (auto c = resolve_place(state, scope.checkout_root, scope.build_log, false, "build log")) {
      state.places.push_back(
          Place{PlaceKind::build, std::string(kBuildPlace) + "/" + place_label(*c), *c});
    }
  }
}

// Why the tools cannot start when none of the failed task's places exists.
std::string no_failed_place(const State& state, const DiagnosticScope& scope) {
  std::string why = "the diagnostic tools cannot start: none of the failed task's run "
                    "directories and no build log exists";
  if (scope.run_dirs.empty() && scope.build_log.empty()) why += " (the scope names none)";
  for (const auto& u : state.unavailable) why += "; " + u;
  return why;
}

// What the failed task is compared with: reference runs, then the workload sources.
void add_comparison_places(State& state, const DiagnosticScope& scope) {
  for (const auto& dir : scope.reference_run_dirs) {
    if (auto c = resolve_place(state, scope.checkout_root, dir, true, "reference run directory")) {
      std::string name =
          unique_name(state, std::string(kReferencePlace) + "/" + place_label(*c));
      state.places.push_back(Place{PlaceKind::reference, std::move(name), *c});
    }
  }
  if (!scope.workloads_dir.empty()) {
    if (auto c = resolve_place(state, scope.checkout_root, scope.workloads_dir, true,
                               "workloads directory"))
      state.places.push_back(Place{PlaceKind::workloads, std::string(kWorkloadsPlace), *c});
  }
}

// objdump, or its fallback, on the PATH of the scope's environment; when neither is
// found, `symbols` says so and the other methods work as ever.
void find_objdump(State& state, const DiagnosticScope& scope) {
  std::map<std::string, std::string> env =
      scope.environment ? *scope.environment : os::inherited_environment();
  const std::string path_var = env.count("PATH") ? env["PATH"] : "/usr/local/bin:/usr/bin:/bin";
  state.objdump = find_program(scope.objdump, path_var);
  if (state.objdump.empty()) state.objdump = find_program(scope.fallback_objdump, path_var);
  if (state.objdump.empty())
    state.objdump_missing = "neither " + in_quotes(scope.objdump) + " nor " +
                            in_quotes(scope.fallback_objdump) + " was found on PATH (" +
                            path_var + ")";
  state.objdump_env = {{"PATH", path_var}, {"LC_ALL", "C"}};
}

// The methods `state` offers: the waveform's only with a waveform.
std::vector<llm::ToolMethod> methods_of(const State& state) {
  std::vector<llm::ToolMethod> all = methods();
  if (!state.waveform.empty())
    for (auto& m : wave_methods()) all.push_back(std::move(m));
  return all;
}

// The waveform, when the scope names one that can be read.
void add_waveform(State& state, const DiagnosticScope& scope) {
  if (scope.waveform.empty()) return;
  if (auto c = resolve_place(state, scope.checkout_root, scope.waveform, false, "waveform")) {
    state.waveform = *c;
    state.waveform_workload = scope.waveform_workload;
  }
}

// One call of the tool: every refusal and failure becomes an ok=false result.
ToolCallResult call_method(const State& state, const std::string& method,
                           const std::string& arguments_json) {
  try {
    const Handler handler = handler_for(method);
    if (handler == nullptr) {
      std::string names;
      for (const auto& m : methods_of(state)) names += (names.empty() ? "" : ", ") + m.name;
      return ToolCallResult{false, "unknown method " + in_quotes(method) +
                                       "; the methods are: " + names};
    }
    return handler(state, ToolArguments::parse(arguments_json));
  } catch (const ToolArgumentError& e) {
    return ToolCallResult{false, std::string(e.what())};
  } catch (const Refusal& e) {
    return ToolCallResult{false, std::string(e.what())};
  } catch (const std::exception& e) {
    return ToolCallResult{false, method + " failed: " + e.what()};
  } catch (...) {
    return ToolCallResult{false, method + " failed"};
  }
}

}  // namespace

llm::Tool make_diagnostic_tool(const DiagnosticScope& scope) {
  auto state = std::make_shared<State>();
  state->objdump_timeout = scope.objdump_timeout;
  state->call_time_limit = scope.call_time_limit;
  add_failed_places(*state, scope);
  if (state->places.empty()) throw ToolError(no_failed_place(*state, scope));
  add_comparison_places(*state, scope);
  find_objdump(*state, scope);
  add_waveform(*state, scope);

  llm::Tool tool;
  tool.name = std::string(kDiagnosticToolName);
  tool.description = describe(*state);
  tool.methods = methods_of(*state);
  tool.call = [state](const std::string& method,
                      const std::string& arguments_json) -> ToolCallResult {
    return call_method(*state, method, arguments_json);
  };
  return tool;
}

}  // namespace mace::tools
