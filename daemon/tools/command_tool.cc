#include "tools/command_tool.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <memory>
#include <system_error>

#include <simdjson.h>

#include "os/errno_text.h"
#include "os/file_io.h"
#include "os/process_group.h"
#include "os/temp_dir.h"

namespace mace::tools {
namespace {

// Enough of standard error to say why a program failed, little enough for a prompt.
constexpr std::size_t kStderrTailBytes = 4096;
// How much standard output a failed call shows besides its standard error.
constexpr std::size_t kFailedOutputBytes = 4096;

constexpr const char* kInheritedVariables[] = {"PATH", "HOME", "LANG",  "LC_ALL",  "LC_CTYPE",
                                               "TZ",   "TMPDIR", "USER", "LOGNAME"};

std::map<std::string, std::string> base_environment(const CommandToolContext& context) {
  if (!context.environment.empty()) return context.environment;
  std::map<std::string, std::string> env;
  for (const char* name : kInheritedVariables)
    if (const char* value = std::getenv(name)) env[name] = value;
  // Without a PATH a script's `#!/usr/bin/env python3` finds nothing.
  env.try_emplace("PATH", "/usr/local/bin:/usr/bin:/bin");
  return env;
}

std::filesystem::path temp_parent(const CommandToolContext& context) {
  return context.temp_root.empty() ? os::default_temp_parent()
                                   : std::filesystem::path(context.temp_root);
}

llm::ToolCallResult failed(std::string content) { return {false, std::move(content)}; }

// Why the arguments cannot be handed over, or empty when they are a JSON object.
std::string arguments_problem(const std::string& arguments_json) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (auto error = parser.parse(arguments_json).get(root))
    return std::string("the arguments are not valid JSON: ") + simdjson::error_message(error);
  if (!root.is_object()) return "the arguments must be a JSON object";
  return {};
}

std::string cut(const std::string& text, std::size_t max_bytes) {
  return text.size() <= max_bytes ? text : text.substr(0, max_bytes);
}

llm::ToolCallResult run_method(const CommandToolConfig& tool, const CommandMethodConfig& method,
                               const CommandToolContext& context,
                               const std::map<std::string, std::string>& base_env,
                               const std::string& arguments_json) {
  const std::string who = tool.name + "." + method.name;
  const std::string arguments = arguments_json.empty() ? "{}" : arguments_json;
  if (std::string problem = arguments_problem(arguments); !problem.empty())
    return failed(who + ": " + problem + "; nothing was run");
  if (method.command.empty()) return failed(who + ": no command is configured");
  // Said plainly here; through the shell below it would be "exec: ...: not found".
  const std::string& program = method.command.front();
  if (::access(program.c_str(), X_OK) != 0)
    return failed(who + ": cannot execute '" + program + "': " + os::errno_text(errno));

  // A directory of the call's own, removed with everything the program left in it.
  os::TempDir dir(temp_parent(context), "mace-tool-");
  const std::string in_path = dir.path() / "arguments.json";
  const std::string err_path = dir.path() / "stderr";
  os::write_file(in_path, arguments);

  os::ProcessSpec spec;
  // run_process_group gives the child /dev/null for stdin and merges stderr into the one
  // pipe it reads; the program needs its arguments on stdin and its stdout alone. The
  // shell only redirects and then execs the argv as given, so nothing is quoted or parsed
  // and the program itself leads the process group.
  spec.argv = {"/bin/sh", "-c", "in=$1 err=$2; shift 2; exec \"$@\" <\"$in\" 2>\"$err\"",
               "mace-tool", in_path, err_path};
  spec.argv.insert(spec.argv.end(), method.command.begin(), method.command.end());
  spec.env = base_env;
  spec.env["MACE_TOOL_NAME"] = tool.name;
  spec.env["MACE_TOOL_METHOD"] = method.name;
  spec.env["MACE_RUN_ID"] = context.run_id;
  spec.working_dir = dir.path();
  spec.timeout = method.timeout;
  spec.kill_grace = context.kill_grace;
  // Output that fits is exactly the tail; the head of output that does not is gathered
  // line by line, since the runner keeps only the end.
  const std::size_t cap = std::max<std::size_t>(method.max_output_bytes, 1);
  spec.tail_bytes = cap;
  spec.max_line_bytes = cap;
  std::string head;
  spec.on_line = [&head, cap](std::string_view line) {
    if (head.size() >= cap) return;
    head.append(line.substr(0, cap - head.size()));
    if (head.size() < cap) head += '\n';
  };

  os::ProcessResult result = os::run_process_group(spec, context.cancel);
  std::string output = result.output_bytes <= cap ? result.tail : head;
  bool output_cut = result.output_bytes > cap;

  if (result.succeeded()) {
    if (output_cut)
      output += "\n[mace: output cut to its first " + std::to_string(cap) + " of " +
                std::to_string(result.output_bytes) + " bytes]";
    return {true, std::move(output)};
  }

  std::string why;
  if (result.launch_failed)
    why = result.error;
  else if (result.cancelled)
    why = "cancelled: the run is being stopped";
  else if (result.timed_out)
    why = "timed out after " + std::to_string(method.timeout.count()) +
          " s; its process group was killed";
  else if (result.term_signal != 0)
    why = "killed by signal " + std::to_string(result.term_signal);
  else
    why = "exited with status " + std::to_string(result.exit_code);
  std::string message = who + " failed: " + why;
  std::string err = os::read_file_end(err_path, kStderrTailBytes);
  if (!err.empty()) message += "\nstandard error (its end):\n" + err;
  if (!output.empty()) {
    message += "\nstandard output:\n" + cut(output, kFailedOutputBytes);
    if (output_cut || output.size() > kFailedOutputBytes) message += "\n[cut]";
  }
  return failed(std::move(message));
}

}  // namespace

llm::Tool make_command_tool(const CommandToolConfig& config, const CommandToolContext& context) {
  llm::Tool tool;
  tool.name = config.name;
  tool.description = config.description;
  for (const CommandMethodConfig& m : config.methods)
    tool.methods.push_back({m.name, m.description, m.parameters_schema_json});
  // Shared by every copy of the Tool the backends make.
  auto shared_config = std::make_shared<const CommandToolConfig>(config);
  auto shared_context = std::make_shared<const CommandToolContext>(context);
  auto env = std::make_shared<const std::map<std::string, std::string>>(base_environment(context));
  tool.call = [shared_config, shared_context, env](
                  const std::string& method_name,
                  const std::string& arguments_json) -> llm::ToolCallResult {
    const CommandToolConfig& cfg = *shared_config;
    try {
      for (const CommandMethodConfig& method : cfg.methods)
        if (method.name == method_name)
          return run_method(cfg, method, *shared_context, *env, arguments_json);
      std::string known;
      for (const CommandMethodConfig& method : cfg.methods)
        known += (known.empty() ? "" : ", ") + method.name;
      return failed(cfg.name + ": no method '" + method_name + "'; it has " + known);
    } catch (const std::exception& e) {
      return failed(cfg.name + "." + method_name + ": " + e.what());
    } catch (...) {
      return failed(cfg.name + "." + method_name + ": failed");
    }
  };
  return tool;
}

std::vector<llm::Tool> select_command_tools(const std::vector<CommandToolConfig>& configured,
                                            const std::vector<std::string>& names,
                                            const CommandToolContext& context) {
  std::vector<llm::Tool> tools;
  for (const std::string& name : names) {
    const CommandToolConfig* found = nullptr;
    for (const CommandToolConfig& candidate : configured)
      if (candidate.name == name) found = &candidate;
    if (!found) {
      std::string known;
      for (const CommandToolConfig& candidate : configured)
        known += (known.empty() ? "" : ", ") + candidate.name;
      throw ToolError("tool '" + name + "' is not in maced's configuration (it has " +
                      (known.empty() ? std::string("none") : known) + ")");
    }
    tools.push_back(make_command_tool(*found, context));
  }
  return tools;
}

}  // namespace mace::tools
