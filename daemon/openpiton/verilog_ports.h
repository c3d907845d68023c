#pragma once
// The ports and parameters of a Verilog module, read from its source for the prompt of a
// unit_test task's agent (REQ-EXEC-8): a heuristic reader, not a Verilog parser.

#include <string>
#include <string_view>
#include <vector>

namespace mace::openpiton {

// A simple Verilog identifier: a letter or '_', then letters, digits and '_' (no '$',
// which would need quoting in a shell and in file names).
bool is_verilog_identifier(std::string_view s);

// One port of a module header.
struct Port {
  std::string direction;  // "input", "output", "inout"; "" when the body never declares it
  std::string type;       // "wire", "reg", "logic", "signed", "reg signed", ...; "" if none
  std::string width;      // packed dimensions as written ("[SIZE-1:0]"); "" for one bit
  std::string name;
  std::string unpacked;   // unpacked dimensions after the name ("[3:0]"); usually ""
};

struct ModuleParameter {
  std::string name;
  std::string default_value;  // as written, whitespace collapsed; "" if none
};

struct ModuleInterface {
  std::string module;  // empty: no module declaration found (then the rest is empty too)
  std::vector<ModuleParameter> parameters;
  std::vector<Port> ports;  // in header order
};

// Reads the first module declared in `source_text` (or the one named `module_name`): its
// parameters and ports, from ANSI headers (`input wire [7:0] a, b`) and from non-ANSI ones
// (a list of names, declared as input/output/inout in the body; function and task
// arguments are not ports). Comments, attributes, pyHP `<% %>` blocks and preprocessor
// directive lines are skipped (both arms of an `ifdef count). A heuristic reader, not a
// Verilog parser: it is for the agent's prompt (REQ-EXEC-8).
ModuleInterface module_port_list(std::string_view source_text, std::string_view module_name = {});

// The interface as lines for a prompt: "module NAME", "  parameter P = 4", then
// "  input wire [P-1:0] data" per port.
std::string format_module_interface(const ModuleInterface& module);

}  // namespace mace::openpiton
