#include "openpiton/verilog_ports.h"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <map>
#include <set>
#include <utility>

namespace mace::openpiton {

bool is_verilog_identifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) {
    return false;
  }
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

namespace {

bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

// Blanks out what is not Verilog a header reader should see, keeping every other byte where
// it was: comments, (* attributes *), pyHP <% %> blocks, and directive lines (`ifdef,
// `include, `define with its continuation lines). Macro uses inside code (`WIDTH) stay.
std::string strip_noise(std::string_view in) {
  std::string out(in);
  std::size_t i = 0;
  const std::size_t n = out.size();
  bool line_start = true;
  auto blank = [&](std::size_t from, std::size_t to) {
    for (std::size_t k = from; k < to && k < n; ++k) {
      if (out[k] != '\n') out[k] = ' ';
    }
  };
  while (i < n) {
    char c = out[i];
    if (c == '"') {
      std::size_t j = i + 1;
      while (j < n && out[j] != '"' && out[j] != '\n') j += (out[j] == '\\') ? 2 : 1;
      i = std::min(j + 1, n);
      line_start = false;
      continue;
    }
    if (c == '/' && i + 1 < n && out[i + 1] == '/') {
      std::size_t j = out.find('\n', i);
      if (j == std::string::npos) j = n;
      blank(i, j);
      i = j;
      continue;
    }
    if (c == '/' && i + 1 < n && out[i + 1] == '*') {
      std::size_t j = out.find("*/", i + 2);
      j = (j == std::string::npos) ? n : j + 2;
      blank(i, j);
      i = j;
      continue;
    }
    if (c == '<' && i + 1 < n && out[i + 1] == '%') {
      std::size_t j = out.find("%>", i + 2);
      j = (j == std::string::npos) ? n : j + 2;
      blank(i, j);
      i = j;
      continue;
    }
    if (c == '(' && i + 1 < n && out[i + 1] == '*' && (i + 2 >= n || out[i + 2] != ')')) {
      std::size_t j = out.find("*)", i + 2);
      j = (j == std::string::npos) ? n : j + 2;
      blank(i, j);
      i = j;
      continue;
    }
    if (c == '`' && line_start) {
      // A directive line: everything up to an unescaped end of line.
      std::size_t j = i;
      while (j < n) {
        std::size_t nl = out.find('\n', j);
        if (nl == std::string::npos) { j = n; break; }
        std::size_t k = nl;
        while (k > j && (out[k - 1] == ' ' || out[k - 1] == '\t' || out[k - 1] == '\r')) --k;
        if (k > j && out[k - 1] == '\\') { j = nl + 1; continue; }
        j = nl;
        break;
      }
      blank(i, j);
      i = j;
      continue;
    }
    if (c == '\n') {
      line_start = true;
    } else if (c != ' ' && c != '\t' && c != '\r') {
      line_start = false;
    }
    ++i;
  }
  return out;
}

struct Token {
  std::string text;
  std::size_t pos;
};

// Identifiers (with `macro and $name forms), numbers with their base ('h1F), and single
// punctuation characters.
std::vector<Token> tokenize(const std::string& s) {
  std::vector<Token> tokens;
  std::size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) { ++i; continue; }
    std::size_t start = i;
    if (c == '"') {
      ++i;
      while (i < s.size() && s[i] != '"' && s[i] != '\n') i += (s[i] == '\\') ? 2 : 1;
      i = std::min(i + 1, s.size());
    } else if (ident_char(c) || c == '`' || c == '\'') {
      ++i;
      while (i < s.size() && (ident_char(s[i]) || s[i] == '\'')) ++i;
    } else {
      ++i;
    }
    tokens.push_back({s.substr(start, i - start), start});
  }
  return tokens;
}

bool is_direction(std::string_view t) { return t == "input" || t == "output" || t == "inout"; }

bool is_type_word(std::string_view t) {
  static const char* const kWords[] = {"wire", "reg", "logic", "signed", "unsigned", "var",
                                       "tri", "bit", "integer", "wand", "wor", "tri0",
                                       "tri1", "supply0", "supply1", "uwire", "byte",
                                       "shortint", "int", "longint"};
  return std::any_of(std::begin(kWords), std::end(kWords),
                     [&](const char* w) { return t == w; });
}

// Joins tokens [from, to) with the spacing of the source collapsed to single spaces.
std::string span_text(const std::string& src, const std::vector<Token>& toks, std::size_t from,
                      std::size_t to) {
  if (from >= to) return "";
  std::size_t a = toks[from].pos;
  std::size_t b = toks[to - 1].pos + toks[to - 1].text.size();
  std::string out;
  bool space = false;
  for (std::size_t k = a; k < b; ++k) {
    char c = src[k];
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

// Index just past the bracket that closes the one at `open` ('(' '[' '{'), or toks.size().
std::size_t skip_group(const std::vector<Token>& toks, std::size_t open) {
  int depth = 0;
  for (std::size_t k = open; k < toks.size(); ++k) {
    const std::string& t = toks[k].text;
    if (t == "(" || t == "[" || t == "{") ++depth;
    if (t == ")" || t == "]" || t == "}") {
      if (--depth == 0) return k + 1;
    }
  }
  return toks.size();
}

// Splits [from, to) at top-level commas.
std::vector<std::pair<std::size_t, std::size_t>> split_commas(const std::vector<Token>& toks,
                                                              std::size_t from,
                                                              std::size_t to) {
  std::vector<std::pair<std::size_t, std::size_t>> items;
  int depth = 0;
  std::size_t start = from;
  for (std::size_t k = from; k < to; ++k) {
    const std::string& t = toks[k].text;
    if (t == "(" || t == "[" || t == "{") ++depth;
    if (t == ")" || t == "]" || t == "}") --depth;
    if (t == "," && depth == 0) {
      items.emplace_back(start, k);
      start = k + 1;
    }
  }
  if (start < to) items.emplace_back(start, to);
  return items;
}

// One declaration item: [direction] [type words] [packed dims] name [unpacked dims] [= ...].
// `inherit` carries the direction, type and width of the item before it in the same
// declaration, which applies when this item names only a port.
bool parse_declaration_item(const std::string& src, const std::vector<Token>& toks,
                            std::size_t from, std::size_t to, Port& inherit, Port& out) {
  std::size_t k = from;
  bool own_direction = false;
  if (k < to && is_direction(toks[k].text)) {
    inherit = Port{toks[k].text, "", "", "", ""};
    own_direction = true;
    ++k;
  }
  std::string type;
  std::string width;
  bool own_type = false;
  while (k < to) {
    const std::string& t = toks[k].text;
    if (is_type_word(t)) {
      type += (type.empty() ? "" : " ") + t;
      own_type = true;
      ++k;
    } else if (t == "[") {
      std::size_t end = skip_group(toks, k);
      width += span_text(src, toks, k, std::min(end, to));
      own_type = true;
      k = end;
    } else {
      break;
    }
  }
  // A user-defined type or interface port ("my_pkg::t_bus data"): the name is the last
  // identifier before any unpacked dimension or default value.
  std::size_t name_end = k;
  while (name_end < to && toks[name_end].text != "[" && toks[name_end].text != "=") ++name_end;
  if (name_end == k) return false;
  std::size_t name_at = name_end - 1;
  if (!is_verilog_identifier(toks[name_at].text)) return false;
  if (name_at > k) {
    type += (type.empty() ? "" : " ") + span_text(src, toks, k, name_at);
    own_type = true;
  }
  std::string unpacked;
  std::size_t m = name_end;
  while (m < to && toks[m].text == "[") {
    std::size_t end = skip_group(toks, m);
    unpacked += span_text(src, toks, m, std::min(end, to));
    m = end;
  }
  if (own_direction || own_type) {
    inherit.type = type;
    inherit.width = width;
  }
  out = Port{inherit.direction, inherit.type, inherit.width, toks[name_at].text, unpacked};
  return true;
}

std::vector<ModuleParameter> parse_parameters(const std::string& src,
                                              const std::vector<Token>& toks,
                                              std::size_t from, std::size_t to) {
  std::vector<ModuleParameter> params;
  for (auto [a, b] : split_commas(toks, from, to)) {
    std::size_t eq = a;
    while (eq < b && toks[eq].text != "=") ++eq;
    // The name is the last identifier before '=' outside any dimension.
    std::size_t k = a;
    std::size_t candidate = b;
    while (k < eq) {
      if (toks[k].text == "[") { k = skip_group(toks, k); continue; }
      if (is_verilog_identifier(toks[k].text) && toks[k].text != "parameter" &&
          toks[k].text != "localparam" && !is_type_word(toks[k].text)) {
        candidate = k;
      }
      ++k;
    }
    if (candidate == b) continue;
    params.push_back({toks[candidate].text, eq < b ? span_text(src, toks, eq + 1, b) : ""});
  }
  return params;
}

// Ends of `function ... endfunction` and `task ... endtask` blocks, whose input declarations
// are arguments, not ports.
std::size_t skip_subroutine(const std::vector<Token>& toks, std::size_t k, std::size_t end) {
  const std::string closer = toks[k].text == "function" ? "endfunction" : "endtask";
  for (std::size_t m = k + 1; m < end; ++m) {
    if (toks[m].text == closer) return m + 1;
  }
  return end;
}

// Index of the `module` keyword that declares the module wanted (the first one when
// `module_name` is empty), or toks.size().
std::size_t find_module(const std::vector<Token>& toks, std::string_view module_name) {
  for (std::size_t k = 0; k + 1 < toks.size(); ++k) {
    if ((toks[k].text == "module" || toks[k].text == "macromodule") &&
        is_verilog_identifier(toks[k + 1].text) &&
        (module_name.empty() || toks[k + 1].text == module_name)) {
      return k;
    }
  }
  return toks.size();
}

// Package imports in the header (`import pkg::*;`) come before the parameters.
std::size_t skip_imports(const std::vector<Token>& toks, std::size_t k) {
  while (k < toks.size() && toks[k].text == "import") {
    while (k < toks.size() && toks[k].text != ";") ++k;
    ++k;
  }
  return k;
}

// Index of the `;` that ends the statement starting at `k`, or `end` when none does.
std::size_t statement_end(const std::vector<Token>& toks, std::size_t k, std::size_t end) {
  while (k < end && toks[k].text != ";") ++k;
  return k;
}

using Items = std::vector<std::pair<std::size_t, std::size_t>>;

// An ANSI header declares its ports' directions itself; a non-ANSI one only names them.
bool any_direction(const std::vector<Token>& toks, const Items& items) {
  return std::any_of(items.begin(), items.end(), [&](auto item) {
    for (std::size_t m = item.first; m < item.second; ++m) {
      if (is_direction(toks[m].text)) return true;
    }
    return false;
  });
}

// The port a non-ANSI header item names; "" when it is none.
std::string header_port_name(const std::vector<Token>& toks, std::size_t a, std::size_t b) {
  if (b <= a) return "";
  // `.name(expr)` port expressions are rare; take the plain name.
  std::size_t m = b - 1;
  if (toks[m].text == ")" && a + 1 < b && toks[a].text == ".") m = a + 1;
  return is_verilog_identifier(toks[m].text) ? toks[m].text : "";
}

// What the ( ... ) port list of a module header says.
struct HeaderPorts {
  bool ansi = false;
  std::vector<Port> ports;         // ANSI: the ports, declared in the header
  std::vector<std::string> names;  // non-ANSI: the ports' names, declared in the body
  std::size_t end = 0;             // just past the list: where the body starts
};

HeaderPorts read_header_ports(const std::string& src, const std::vector<Token>& toks,
                              std::size_t open) {
  HeaderPorts header;
  header.end = skip_group(toks, open);
  const Items items = split_commas(toks, open + 1, header.end - 1);
  header.ansi = any_direction(toks, items);
  Port inherit;
  for (auto [a, b] : items) {
    if (header.ansi) {
      Port port;
      if (parse_declaration_item(src, toks, a, b, inherit, port)) header.ports.push_back(port);
    } else if (std::string name = header_port_name(toks, a, b); !name.empty()) {
      header.names.push_back(name);
    }
  }
  return header;
}

// `input a, b;` in a non-ANSI body: the directions (and types) of ports the header named.
void declare_ports(const std::string& src, const std::vector<Token>& toks, std::size_t from,
                   std::size_t to, std::map<std::string, Port>& declared) {
  Port inherit;
  for (auto [a, b] : split_commas(toks, from, to)) {
    Port port;
    if (parse_declaration_item(src, toks, a, b, inherit, port)) declared[port.name] = port;
  }
}

// A later `wire [7:0] x;` or `reg x;` for a port declared `output x;` gives its type.
void complete_port_types(const std::string& src, const std::vector<Token>& toks,
                         std::size_t from, std::size_t to,
                         std::map<std::string, Port>& declared) {
  Port inherit;
  for (auto [a, b] : split_commas(toks, from, to)) {
    Port decl;
    if (!parse_declaration_item(src, toks, a, b, inherit, decl)) continue;
    auto it = declared.find(decl.name);
    if (it == declared.end()) continue;
    if (it->second.type.empty()) it->second.type = decl.type;
    if (it->second.width.empty()) it->second.width = decl.width;
  }
}

// What the body, up to endmodule, declares: parameters, and (non-ANSI) the ports.
struct BodyDeclarations {
  std::vector<ModuleParameter> parameters;
  std::map<std::string, Port> ports;  // by name
};

BodyDeclarations read_body(const std::string& src, const std::vector<Token>& toks,
                           std::size_t body, bool ansi) {
  BodyDeclarations found;
  std::size_t end = body;
  while (end < toks.size() && toks[end].text != "endmodule") ++end;
  for (std::size_t m = body; m < end;) {
    const std::string& t = toks[m].text;
    if (t == "function" || t == "task") {
      m = skip_subroutine(toks, m, end);
      continue;
    }
    const bool statement_start = m == body || toks[m - 1].text == ";";
    const bool port_statement = !ansi && (is_direction(t) || is_type_word(t));
    if (!statement_start || (t != "parameter" && !port_statement)) {
      ++m;
      continue;
    }
    const std::size_t semi = statement_end(toks, m, end);
    if (t == "parameter") {
      for (auto& p : parse_parameters(src, toks, m + 1, semi)) found.parameters.push_back(p);
    } else if (is_direction(t)) {
      declare_ports(src, toks, m, semi, found.ports);
    } else {
      complete_port_types(src, toks, m, semi, found.ports);
    }
    m = semi + 1;
  }
  return found;
}

// A non-ANSI module's ports in header order, as the body declares them.
std::vector<Port> ports_named(const std::vector<std::string>& names,
                              const std::map<std::string, Port>& declared) {
  std::vector<Port> ports;
  for (const std::string& name : names) {
    auto it = declared.find(name);
    ports.push_back(it != declared.end() ? it->second : Port{"", "", "", name, ""});
  }
  return ports;
}

}  // namespace

ModuleInterface module_port_list(std::string_view source_text, std::string_view module_name) {
  ModuleInterface result;
  const std::string src = strip_noise(source_text);
  const std::vector<Token> toks = tokenize(src);

  std::size_t k = find_module(toks, module_name);
  if (k + 1 >= toks.size()) return result;
  result.module = toks[k + 1].text;
  k = skip_imports(toks, k + 2);
  if (k + 1 < toks.size() && toks[k].text == "#" && toks[k + 1].text == "(") {
    std::size_t end = skip_group(toks, k + 1);
    result.parameters = parse_parameters(src, toks, k + 2, end - 1);
    k = end;
  }
  HeaderPorts header;
  header.end = k;
  if (k < toks.size() && toks[k].text == "(") header = read_header_ports(src, toks, k);

  BodyDeclarations body = read_body(src, toks, header.end, header.ansi);
  result.parameters.insert(result.parameters.end(), body.parameters.begin(),
                           body.parameters.end());
  result.ports = header.ansi ? std::move(header.ports) : ports_named(header.names, body.ports);
  return result;
}

std::string format_module_interface(const ModuleInterface& module) {
  if (module.module.empty()) return "(no module declaration found)\n";
  std::string out = "module " + module.module + "\n";
  for (const auto& p : module.parameters) {
    out += "  parameter " + p.name;
    if (!p.default_value.empty()) out += " = " + p.default_value;
    out += "\n";
  }
  for (const auto& port : module.ports) {
    std::string line = "  " + (port.direction.empty() ? std::string("(undeclared)") : port.direction);
    if (!port.type.empty()) line += " " + port.type;
    if (!port.width.empty()) line += " " + port.width;
    line += " " + port.name;
    if (!port.unpacked.empty()) line += " " + port.unpacked;
    out += line + "\n";
  }
  return out;
}

}  // namespace mace::openpiton
