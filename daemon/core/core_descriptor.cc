#include "core/core_descriptor.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <span>

#include <simdjson.h>

#include "core/printable_text.h"
#include "core/run_spec.h"
#include "os/text.h"

namespace mace {
namespace {

using simdjson::dom::element;

constexpr std::string_view kRoot = "core_descriptor";
constexpr std::string_view kFields[] = {"name",         "isa",        "harts",
                                        "mmu",          "top_module", "files",
                                        "reset_vector", "link_script", "memory_interface",
                                        "parameters"};
constexpr std::string_view kInterfaceFields[] = {"protocol", "ports", "data_width",
                                                 "address_width"};
constexpr std::size_t kMaxEchoed = 60;

std::string path_of(std::string_view field) { return std::string(kRoot) + "." + std::string(field); }

std::string shown(element e) {
  if (e.is_string()) return quoted_for_display(e.get_string().value_unsafe(), kMaxEchoed);
  std::string text = simdjson::minify(e);
  if (text.size() > kMaxEchoed) text = text.substr(0, kMaxEchoed) + "...";
  return json_for_display(text);
}

// A file of the design tree as a plain relative path: nothing a shell, sims' file lists
// or a path walk could read differently.
std::optional<std::string> design_file_problem(std::string_view path) {
  if (path.size() > kMaxDescriptorPathBytes)
    return "must be at most " + std::to_string(kMaxDescriptorPathBytes) + " bytes";
  if (!path.starts_with("piton/design/"))
    return std::string("must be a path relative to the checkout root, under piton/design/");
  for (unsigned char c : path)
    if (std::isalnum(c) == 0 && c != '_' && c != '.' && c != '/' && c != '-' && c != '+')
      return std::string("may hold only letters, digits and _ . / - +");
  if (path.find("//") != std::string_view::npos || path.find("/./") != std::string_view::npos ||
      path.find("..") != std::string_view::npos || path.ends_with("/"))
    return std::string("must not hold '..', '//', '/./' or end with '/'");
  for (std::string_view ext : {".v", ".sv", ".vh", ".svh"})
    if (path.ends_with(ext)) return std::nullopt;
  return std::string("must be a Verilog file (.v, .sv, .vh, .svh)");
}

// A Verilog constant such as 1, 32'h4000_0000 or 'b1: what a parameter override may be,
// and nothing that could close the instance or start a new statement.
bool is_verilog_constant(std::string_view s) {
  if (s.empty() || s.size() > kMaxParameterValueBytes) return false;
  if (std::isdigit(static_cast<unsigned char>(s[0])) == 0 && s[0] != '\'') return false;
  return std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return std::isalnum(c) != 0 || c == '_' || c == '\'';
  });
}

class Reader {
 public:
  FieldErrors errors;

  void error(std::string path, std::string message) { errors.push_back({std::move(path), std::move(message)}); }

  std::optional<std::string> string_field(simdjson::dom::object obj, std::string_view field,
                                          const std::string& path, std::size_t max, bool required) {
    element e;
    if (obj[field].get(e)) {
      if (required) error(path, "required");
      return std::nullopt;
    }
    if (!e.is_string()) {
      error(path, "must be a string, got " + shown(e));
      return std::nullopt;
    }
    std::string_view s = e.get_string().value_unsafe();
    if (s.size() > max) {
      error(path, "must be at most " + std::to_string(max) + " bytes, got " + std::to_string(s.size()));
      return std::nullopt;
    }
    return std::string(s);
  }

  std::optional<int64_t> int_field(simdjson::dom::object obj, std::string_view field,
                                   const std::string& path, int64_t max) {
    element e;
    if (obj[field].get(e)) return std::nullopt;
    int64_t v = 0;
    if (!e.is_int64() || (v = e.get_int64().value_unsafe()) < 1 || v > max) {
      error(path, "must be an integer from 1 to " + std::to_string(max) + ", got " + shown(e));
      return std::nullopt;
    }
    return v;
  }

  void unknown_fields(simdjson::dom::object obj, std::span<const std::string_view> known,
                      const std::string& parent) {
    for (auto [key, value] : obj) {
      if (std::find(known.begin(), known.end(), key) == known.end())
        error(parent + "." + key_path_step(key), "unknown field");
    }
  }
};

void read_interface(Reader& r, element e, CoreMemoryInterface& out) {
  const std::string path = path_of("memory_interface");
  if (!e.is_object()) {
    r.error(path, "must be an object, got " + shown(e));
    return;
  }
  auto obj = e.get_object().value_unsafe();
  r.unknown_fields(obj, kInterfaceFields, path);
  if (auto p = r.string_field(obj, "protocol", path + ".protocol", kMaxDescriptorNameBytes, true)) {
    if (!os::is_identifier(*p)) r.error(path + ".protocol", "must be an identifier, got " + quoted_for_display(*p, kMaxEchoed));
    out.protocol = *p;
  }
  if (auto v = r.int_field(obj, "ports", path + ".ports", 8)) out.ports = *v;
  if (auto v = r.int_field(obj, "data_width", path + ".data_width", 1024)) out.data_width = *v;
  if (auto v = r.int_field(obj, "address_width", path + ".address_width", 128)) out.address_width = *v;
}

void read_files(Reader& r, element e, std::vector<std::string>& out) {
  const std::string path = path_of("files");
  if (!e.is_array()) {
    r.error(path, "must be an array of paths, got " + shown(e));
    return;
  }
  auto array = e.get_array().value_unsafe();
  if (array.size() == 0) r.error(path, "must name at least one file");
  if (array.size() > kMaxDescriptorFiles) {
    r.error(path, count_limit_message(kMaxDescriptorFiles, "files", array.size()));
    return;
  }
  std::set<std::string> seen;
  std::size_t i = 0;
  for (element item : array) {
    const std::string item_path = path + "[" + std::to_string(i++) + "]";
    if (!item.is_string()) {
      r.error(item_path, "must be a string, got " + shown(item));
      continue;
    }
    std::string file(item.get_string().value_unsafe());
    if (auto problem = design_file_problem(file)) {
      r.error(item_path, *problem + ", got " + quoted_for_display(file, kMaxEchoed));
    } else if (!seen.insert(file).second) {
      r.error(item_path, "names " + quoted_for_display(file, kMaxEchoed) + " twice");
    } else {
      out.push_back(std::move(file));
    }
  }
}

void read_parameters(Reader& r, element e, CoreDescriptor& out) {
  const std::string path = path_of("parameters");
  if (!e.is_object()) {
    r.error(path, "must be an object of parameter name to Verilog constant, got " + shown(e));
    return;
  }
  auto obj = e.get_object().value_unsafe();
  if (obj.size() > kMaxDescriptorParameters) {
    r.error(path, count_limit_message(kMaxDescriptorParameters, "parameters", obj.size()));
    return;
  }
  for (auto [key, value] : obj) {
    const std::string item_path = path + "." + key_path_step(key);
    if (!os::is_identifier(key) || key.size() > kMaxDescriptorNameBytes) {
      r.error(item_path, "a parameter name must be a Verilog identifier of at most " +
                             std::to_string(kMaxDescriptorNameBytes) + " bytes");
      continue;
    }
    std::string text;
    if (value.is_int64() && value.get_int64().value_unsafe() >= 0) {
      text = std::to_string(value.get_int64().value_unsafe());
    } else if (value.is_string()) {
      text = std::string(value.get_string().value_unsafe());
    }
    if (!is_verilog_constant(text)) {
      r.error(item_path, "must be a Verilog constant such as 1 or \"32'h4000_0000\", got " + shown(value));
      continue;
    }
    out.parameters.emplace_back(std::string(key), std::move(text));
  }
}

std::optional<uint32_t> parse_reset_vector(std::string_view text) {
  if (!text.starts_with("0x") && !text.starts_with("0X")) return std::nullopt;
  text.remove_prefix(2);
  if (text.empty() || text.size() > 8) return std::nullopt;
  uint32_t value = 0;
  for (char c : text) {
    int digit = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                : (c >= 'a' && c <= 'f')                     ? c - 'a' + 10
                : (c >= 'A' && c <= 'F')                     ? c - 'A' + 10
                                                             : -1;
    if (digit < 0) return std::nullopt;
    value = value * 16 + static_cast<uint32_t>(digit);
  }
  return value;
}

bool is_isa_form(std::string_view isa) {
  if (isa.size() < 4 || !isa.starts_with("RV")) return false;
  std::size_t i = 2;
  while (i < isa.size() && std::isdigit(static_cast<unsigned char>(isa[i])) != 0) ++i;
  if (i == 2 || i == isa.size()) return false;
  return std::all_of(isa.begin() + static_cast<std::ptrdiff_t>(i), isa.end(), [](unsigned char c) {
    return (c >= 'A' && c <= 'Z') || std::isdigit(c) != 0 || c == '_';
  });
}

}  // namespace

CoreDescriptorParse parse_core_descriptor(std::string_view json) {
  CoreDescriptorParse out;
  Reader r;
  simdjson::dom::parser parser;
  simdjson::padded_string text(json);
  element root;
  if (parser.parse(text).get(root) || !root.is_object()) {
    out.errors.push_back({std::string(kRoot), "must be a JSON object"});
    return out;
  }
  auto obj = root.get_object().value_unsafe();
  r.unknown_fields(obj, kFields, std::string(kRoot));
  CoreDescriptor d;
  if (auto name = r.string_field(obj, "name", path_of("name"), kMaxDescriptorNameBytes, true)) {
    if (!os::is_identifier(*name))
      r.error(path_of("name"), "must be an identifier (letters, digits, _), got " + quoted_for_display(*name, kMaxEchoed));
    d.name = *name;
  }
  if (auto isa = r.string_field(obj, "isa", path_of("isa"), kMaxDescriptorNameBytes, true)) {
    if (!is_isa_form(*isa))
      r.error(path_of("isa"), "must be an ISA string such as \"RV32IM\" (upper case), got " +
                                  quoted_for_display(*isa, kMaxEchoed));
    d.isa = *isa;
  }
  if (auto harts = r.int_field(obj, "harts", path_of("harts"), 1024)) d.harts = *harts;
  if (element e; !obj["mmu"].get(e)) {
    if (!e.is_bool()) r.error(path_of("mmu"), "must be true or false, got " + shown(e));
    else d.mmu = e.get_bool().value_unsafe();
  }
  if (auto top = r.string_field(obj, "top_module", path_of("top_module"), kMaxDescriptorNameBytes, true)) {
    if (!os::is_identifier(*top))
      r.error(path_of("top_module"), "must be a Verilog module name, got " + quoted_for_display(*top, kMaxEchoed));
    d.top_module = *top;
  }
  if (element e; !obj["files"].get(e)) read_files(r, e, d.files);
  else r.error(path_of("files"), "required");
  if (auto rv = r.string_field(obj, "reset_vector", path_of("reset_vector"), 16, true)) {
    if (auto value = parse_reset_vector(*rv)) d.reset_vector = *value;
    else r.error(path_of("reset_vector"), "must be 0x and 1 to 8 hex digits, got " + quoted_for_display(*rv, kMaxEchoed));
  }
  if (element e; !obj["link_script"].get(e) && !e.is_null()) {
    if (auto ls = r.string_field(obj, "link_script", path_of("link_script"), kMaxLinkScriptBytes, false)) {
      if (auto problem = unprintable_text_problem(*ls, TextKind::prose))
        r.error(path_of("link_script"), "must be printable text: " + *problem);
      else if (ls->find_first_not_of(" \t\n") == std::string::npos)
        r.error(path_of("link_script"), "must not be empty");
      else d.link_script = *ls;
    }
  }
  if (element e; !obj["memory_interface"].get(e)) read_interface(r, e, d.memory_interface);
  else r.error(path_of("memory_interface"), "required");
  if (element e; !obj["parameters"].get(e)) read_parameters(r, e, d);
  std::sort(r.errors.begin(), r.errors.end(),
            [](const FieldError& a, const FieldError& b) { return a.path < b.path; });
  out.errors = std::move(r.errors);
  if (out.errors.empty()) out.descriptor = std::move(d);
  return out;
}

std::vector<std::string> generic_tile_support_problems(const CoreDescriptor& d) {
  std::vector<std::string> problems;
  std::string_view isa = d.isa;
  if (!isa.starts_with("RV32")) {
    problems.push_back("isa " + d.isa + ": the Generic Tile hosts 32-bit cores only (RV32)");
  } else {
    std::string_view rest = isa.substr(4);
    std::string_view letters = rest.substr(0, rest.find('_'));
    std::string_view extras = rest.size() > letters.size() ? rest.substr(letters.size()) : "";
    if (letters.empty() || letters[0] != 'I') {
      problems.push_back("isa " + d.isa + ": the base ISA must be RV32I (RV32E's 16 registers "
                                          "do not run the gate workloads' code)");
    } else {
      std::set<char> seen;
      for (char c : letters.substr(1)) {
        if (std::string_view("MAC").find(c) == std::string_view::npos || !seen.insert(c).second) {
          problems.push_back("isa " + d.isa + ": extension " + std::string(1, c) +
                             " is not supported (RV32I with M, A and C only: the tile has no FPU "
                             "and its memory path carries PicoRV32's requests)");
          break;
        }
      }
    }
    for (std::size_t i = 0; i < extras.size();) {
      std::size_t next = extras.find('_', i + 1);
      std::string_view ext = extras.substr(i + 1, next == std::string_view::npos ? std::string_view::npos : next - i - 1);
      if (ext != "ZICSR" && ext != "ZIFENCEI")
        problems.push_back("isa " + d.isa + ": extension " + std::string(ext) +
                           " is not supported (only Zicsr and Zifencei besides M, A, C)");
      if (next == std::string_view::npos) break;
      i = next;
    }
  }
  if (d.harts != 1)
    problems.push_back("harts " + std::to_string(d.harts) +
                       ": the Generic Tile hosts one hart per tile (its L1.5 serves one thread)");
  if (d.mmu)
    problems.push_back("mmu true: the Generic Tile hosts cores without an MMU (its L1.5 takes "
                       "physical addresses)");
  const CoreMemoryInterface& m = d.memory_interface;
  if (std::find(std::begin(kAdaptableMemoryProtocols), std::end(kAdaptableMemoryProtocols),
                m.protocol) == std::end(kAdaptableMemoryProtocols)) {
    std::string known;
    for (std::string_view p : kAdaptableMemoryProtocols) known += (known.empty() ? "" : ", ") + std::string(p);
    problems.push_back("memory_interface.protocol " + m.protocol +
                       ": not a protocol the wrapper can adapt to the tile's port (" + known + ")");
  }
  if (m.ports > 2)
    problems.push_back("memory_interface.ports " + std::to_string(m.ports) +
                       ": at most 2 (instruction and data), which the wrapper arbitrates onto the "
                       "tile's one port");
  if (m.data_width != 32)
    problems.push_back("memory_interface.data_width " + std::to_string(m.data_width) +
                       ": the tile's port carries 32-bit words");
  if (m.address_width != 32)
    problems.push_back("memory_interface.address_width " + std::to_string(m.address_width) +
                       ": the tile's port takes 32-bit addresses");
  if (d.reset_vector % 4 != 0)
    problems.push_back("reset_vector " + reset_vector_text(d.reset_vector) +
                       ": must be word-aligned (the tile fetches 32-bit words)");
  return problems;
}

std::string descriptor_march(const CoreDescriptor& d) {
  std::string out;
  for (char c : d.isa) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string reset_vector_text(uint32_t reset_vector) {
  static const char* const kDigits = "0123456789abcdef";
  std::string out = "0x";
  for (int shift = 28; shift >= 0; shift -= 4) out += kDigits[(reset_vector >> shift) & 0xf];
  return out;
}

}  // namespace mace
