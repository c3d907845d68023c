#include "openpiton/unit_test_env.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <system_error>
#include <utility>

#include "openpiton/checkout.h"
#include "openpiton/sha256.h"

namespace mace::openpiton {

namespace fs = std::filesystem;

namespace {

std::string single_quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// True when `path` is `base` or below it; both canonical.
bool is_within(const fs::path& path, const fs::path& base) {
  auto p = path.begin();
  for (auto b = base.begin(); b != base.end(); ++b, ++p) {
    if (p == path.end() || *p != *b) return false;
  }
  return true;
}

std::optional<std::string> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return out.str();
}

bool write_file(const fs::path& path, std::string_view content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.close();
  return static_cast<bool>(out);
}

bool is_identifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) {
    return false;
  }
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

std::string last_line(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  auto nl = text.rfind('\n');
  return std::string(nl == std::string_view::npos ? text : text.substr(nl + 1));
}

// ---------------------------------------------------------------------------------------
// Port-list reading.

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
  if (!is_identifier(toks[name_at].text)) return false;
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
      if (is_identifier(toks[k].text) && toks[k].text != "parameter" &&
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

}  // namespace

// ---------------------------------------------------------------------------------------

ModulePathCheck validate_unit_test_module(const fs::path& checkout_root,
                                          std::string_view module_path) {
  ModulePathCheck check;
  auto fail = [&](std::string why) {
    check.error = "module path " + single_quoted(module_path) + " " + why;
    return check;
  };
  if (module_path.empty()) return fail("is empty");
  if (module_path.find('\0') != std::string_view::npos) return fail("contains a NUL byte");
  fs::path given{std::string(module_path)};
  if (given.is_absolute()) return fail("is absolute; name a file relative to the checkout");

  std::error_code ec;
  fs::path root = fs::canonical(checkout_root, ec);
  if (ec) return fail("cannot be checked: checkout " + checkout_root.string() + ": " + ec.message());
  // weakly_canonical resolves every existing component, symlinks included, and `..` after
  // them, so a link that leads out is caught here whether or not its target exists.
  fs::path resolved = fs::weakly_canonical(root / given, ec);
  if (ec) return fail("cannot be resolved: " + ec.message());
  if (!is_within(resolved, root) || resolved == root) {
    return fail("resolves outside the checkout (to " + resolved.string() + ")");
  }
  std::string name = given.filename().string();
  if (!(ends_with(name, ".v") || ends_with(name, ".sv") || ends_with(name, ".pyv"))) {
    return fail("is not a .v, .sv or .pyv file");
  }
  auto status = fs::status(resolved, ec);
  if (ec || !fs::exists(status)) return fail("does not exist in the checkout");
  if (!fs::is_regular_file(status)) return fail("is not a regular file");
  check.ok = true;
  check.resolved = resolved;
  check.relative = resolved.lexically_relative(root).generic_string();
  return check;
}

std::string unit_test_env_name(std::string_view task_id) {
  return "mace_ut_" + sha256_hex(task_id).substr(0, 8);
}

ModuleInterface module_port_list(std::string_view source_text, std::string_view module_name) {
  ModuleInterface result;
  const std::string src = strip_noise(source_text);
  const std::vector<Token> toks = tokenize(src);

  std::size_t k = 0;
  for (; k + 1 < toks.size(); ++k) {
    if ((toks[k].text == "module" || toks[k].text == "macromodule") &&
        is_identifier(toks[k + 1].text) &&
        (module_name.empty() || toks[k + 1].text == module_name)) {
      break;
    }
  }
  if (k + 1 >= toks.size()) return result;
  result.module = toks[k + 1].text;
  k += 2;
  // Package imports in the header (`import pkg::*;`) come before the parameters.
  while (k < toks.size() && toks[k].text == "import") {
    while (k < toks.size() && toks[k].text != ";") ++k;
    ++k;
  }
  if (k + 1 < toks.size() && toks[k].text == "#" && toks[k + 1].text == "(") {
    std::size_t end = skip_group(toks, k + 1);
    result.parameters = parse_parameters(src, toks, k + 2, end - 1);
    k = end;
  }
  std::size_t body = k;
  std::vector<std::string> header_names;
  bool ansi = false;
  if (k < toks.size() && toks[k].text == "(") {
    std::size_t end = skip_group(toks, k);
    auto items = split_commas(toks, k + 1, end - 1);
    ansi = std::any_of(items.begin(), items.end(), [&](auto item) {
      for (std::size_t m = item.first; m < item.second; ++m) {
        if (is_direction(toks[m].text)) return true;
      }
      return false;
    });
    Port inherit;
    for (auto [a, b] : items) {
      if (ansi) {
        Port port;
        if (parse_declaration_item(src, toks, a, b, inherit, port)) result.ports.push_back(port);
      } else if (b > a) {
        // `.name(expr)` port expressions are rare; take the plain name.
        std::size_t m = b - 1;
        if (toks[m].text == ")" && a + 1 < b && toks[a].text == ".") m = a + 1;
        if (is_identifier(toks[m].text)) header_names.push_back(toks[m].text);
      }
    }
    body = end;
  }

  // The body, up to endmodule: parameters declared there, and (non-ANSI) port declarations.
  std::size_t end = body;
  while (end < toks.size() && toks[end].text != "endmodule") ++end;
  std::map<std::string, Port> declared;
  for (std::size_t m = body; m < end;) {
    const std::string& t = toks[m].text;
    if (t == "function" || t == "task") {
      m = skip_subroutine(toks, m, end);
      continue;
    }
    bool statement_start = m == body || toks[m - 1].text == ";";
    if (statement_start && t == "parameter") {
      std::size_t semi = m;
      while (semi < end && toks[semi].text != ";") ++semi;
      for (auto& p : parse_parameters(src, toks, m + 1, semi)) result.parameters.push_back(p);
      m = semi + 1;
      continue;
    }
    if (statement_start && is_direction(t) && !ansi) {
      std::size_t semi = m;
      while (semi < end && toks[semi].text != ";") ++semi;
      Port inherit;
      for (auto [a, b] : split_commas(toks, m, semi)) {
        Port port;
        if (parse_declaration_item(src, toks, a, b, inherit, port)) declared[port.name] = port;
      }
      m = semi + 1;
      continue;
    }
    // A later `wire [7:0] x;` or `reg x;` for a port declared `output x;` gives its type.
    if (statement_start && !ansi && is_type_word(t)) {
      std::size_t semi = m;
      while (semi < end && toks[semi].text != ";") ++semi;
      Port inherit;
      for (auto [a, b] : split_commas(toks, m, semi)) {
        Port decl;
        if (!parse_declaration_item(src, toks, a, b, inherit, decl)) continue;
        auto it = declared.find(decl.name);
        if (it == declared.end()) continue;
        if (it->second.type.empty()) it->second.type = decl.type;
        if (it->second.width.empty()) it->second.width = decl.width;
      }
      m = semi + 1;
      continue;
    }
    ++m;
  }
  if (!ansi) {
    for (const std::string& name : header_names) {
      auto it = declared.find(name);
      result.ports.push_back(it != declared.end() ? it->second : Port{"", "", "", name, ""});
    }
  }
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

// ---------------------------------------------------------------------------------------

UnitTestEnv::UnitTestEnv(UnitTestEnv&& other) noexcept { *this = std::move(other); }

UnitTestEnv& UnitTestEnv::operator=(UnitTestEnv&& other) noexcept {
  if (this != &other) {
    restore();
    name_ = std::move(other.name_);
    root_ = std::move(other.root_);
    env_dir_ = std::move(other.env_dir_);
    testbench_ = std::move(other.testbench_);
    module_source_ = std::move(other.module_source_);
    module_name_ = std::move(other.module_name_);
    module_relative_ = std::move(other.module_relative_);
    created_ = std::move(other.created_);
    sims_config_ = std::move(other.sims_config_);
    sims_config_original_ = std::move(other.sims_config_original_);
    restored_ = other.restored_;
    other.restored_ = true;
    other.created_.clear();
  }
  return *this;
}

UnitTestEnv::~UnitTestEnv() {
  try {
    restore();
  } catch (...) {
  }
}

fs::path UnitTestEnv::model_root() const { return root_ / "build" / name_; }

std::vector<std::string> UnitTestEnv::restore() {
  std::vector<std::string> problems;
  if (restored_) return problems;
  for (const fs::path& p : created_) {
    std::error_code ec;
    fs::remove_all(p, ec);
    if (ec) problems.push_back("cannot remove " + p.string() + ": " + ec.message());
  }
  if (!sims_config_.empty()) {
    auto now = read_file(sims_config_);
    if (!sims_config_original_) {
      std::error_code ec;
      fs::remove(sims_config_, ec);
      if (ec) problems.push_back("cannot remove " + sims_config_.string() + ": " + ec.message());
    } else if (!now || *now != *sims_config_original_) {
      // Written in place so its inode, owner and mode stay what git and sims expect.
      if (!write_file(sims_config_, *sims_config_original_)) {
        problems.push_back("cannot restore " + sims_config_.string());
      }
    }
  }
  restored_ = problems.empty();
  return problems;
}

ScaffoldResult scaffold_unit_test_env(const ScaffoldOptions& o) {
  ScaffoldResult result;
  auto fail = [&](std::string_view reason, std::string error) {
    result.failure_reason = std::string(reason);
    result.error = std::move(error);
    return std::move(result);
  };

  // REQ-EXEC-12: a bad path fails before anything is written.
  ModulePathCheck check = validate_unit_test_module(o.checkout_root, o.module_path);
  if (!check.ok) return fail(kUnitTestBadModulePath, check.error);

  if (!is_identifier(o.env_name)) {
    return fail(kUnitTestScaffoldFailed,
                "environment name " + single_quoted(o.env_name) + " is not a Verilog identifier");
  }
  std::map<std::string, std::string> environment;
  fs::path root;
  try {
    Checkout checkout(o.checkout_root);
    root = fs::canonical(checkout.root());
    environment = checkout.environment(o.base_env.empty() ? inherited_environment() : o.base_env);
  } catch (const std::exception& e) {
    return fail(kUnitTestScaffoldFailed, e.what());
  }

  auto source = read_file(check.resolved);
  if (!source) return fail(kUnitTestScaffoldFailed, "cannot read " + check.relative);
  result.module = module_port_list(*source);
  if (result.module.module.empty()) {
    return fail(kUnitTestScaffoldFailed, check.relative + " declares no module");
  }

  const fs::path dv = root / "piton";
  const fs::path script = dv / "verif/env/create_env.py";
  const fs::path sims_src = dv / "tools/src/sims";
  if (!fs::is_regular_file(script)) {
    return fail(kUnitTestScaffoldFailed, "the checkout has no piton/verif/env/create_env.py");
  }

  UnitTestEnv env;
  env.name_ = o.env_name;
  env.root_ = root;
  env.env_dir_ = dv / "verif/env" / o.env_name;
  env.testbench_ = env.env_dir_ / (o.env_name + "_top.v");
  env.module_source_ = check.resolved;
  env.module_name_ = result.module.module;
  env.module_relative_ = check.relative;
  const fs::path config = sims_src / (o.env_name + ".config");
  const std::vector<fs::path> will_create = {env.env_dir_, config,
                                             sims_src / (o.env_name + ".Linux.x86_64"),
                                             env.model_root()};
  for (const fs::path& p : will_create) {
    std::error_code ec;
    if (fs::exists(fs::symlink_status(p, ec))) {
      // Someone else's: never record it, so restore() cannot remove it.
      return fail(kUnitTestScaffoldFailed, "environment " + o.env_name + " already exists (" +
                                               p.lexically_relative(root).string() + ")");
    }
  }
  env.created_ = will_create;
  env.sims_config_ = sims_src / "sims.config";
  env.sims_config_original_ = read_file(env.sims_config_);
  env.restored_ = false;

  ProcessSpec spec;
  spec.argv = {"python3", script.string(), "--name=" + o.env_name, "--author=mace"};
  spec.env = environment;
  spec.working_dir = o.work_dir.string();
  spec.log_path = (o.work_dir / "create_env.log").string();
  spec.timeout = o.timeout;
  result.process = run_process_group(spec, o.cancel);
  if (!result.process.succeeded()) {
    env.restore();
    std::string why = result.process.launch_failed ? result.process.error
                      : result.process.timed_out   ? "timed out"
                      : result.process.cancelled   ? "cancelled"
                                                   : "exit " + std::to_string(result.process.exit_code);
    std::string said = last_line(result.process.tail);
    return fail(kUnitTestScaffoldFailed,
                "create_env.py failed (" + why + ")" + (said.empty() ? "" : ": " + said));
  }

  // Repair what create_env.py leaves unbuildable (see the header).
  auto config_text = read_file(config);
  if (!config_text || !fs::is_regular_file(env.testbench_)) {
    env.restore();
    return fail(kUnitTestScaffoldFailed,
                "create_env.py exited 0 but did not write " +
                    (config_text ? env.testbench_ : config).lexically_relative(root).string());
  }
  const std::string dut_flist_name = o.env_name + "_dut.flist";
  std::istringstream lines(*config_text);
  std::string line, repaired;
  bool placed = false;
  while (std::getline(lines, line)) {
    if (line.find("-env_base=") != std::string::npos) continue;
    if (line.find("-flist=$DV_ROOT/design/" + o.env_name + "/") != std::string::npos) continue;
    repaired += line + "\n";
    if (!placed && line.find("<" + o.env_name + ">") != std::string::npos) {
      repaired += "    -flist=$DV_ROOT/verif/env/" + o.env_name + "/" + dut_flist_name + "\n";
      placed = true;
    }
  }
  // sims resolves relative flist entries against the flist's directory and runs pyHP on
  // `X` when `X.pyv` exists, so a .pyv module is listed without its .pyv.
  std::string listed = check.resolved.string();
  if (ends_with(listed, ".pyv")) listed.resize(listed.size() - 4);
  std::string dut_flist = "// The module under test, for MACE's unit_test task\n";
  dut_flist += "+incdir+" + (dv / "verif/env/test_infrstrct").string() + "\n";
  dut_flist += "+incdir+" + (dv / "design/include").string() + "\n";
  dut_flist += "+incdir+" + check.resolved.parent_path().string() + "\n";
  dut_flist += listed + "\n";
  if (!placed || !write_file(config, repaired) ||
      !write_file(env.env_dir_ / dut_flist_name, dut_flist)) {
    env.restore();
    return fail(kUnitTestScaffoldFailed,
                placed ? "cannot write " + config.lexically_relative(root).string()
                       : config.lexically_relative(root).string() + " has no <" + o.env_name +
                             "> section");
  }
  result.env.emplace(std::move(env));
  return result;
}

std::string_view classify_unit_test_build_failure(std::string_view output) {
  return output.find(kPinNotFound) != std::string_view::npos ? kTestbenchMismatch
                                                             : kUnitTestBuildFailed;
}

UnitTestBuildResult build_unit_test_env(const UnitTestEnv& env, const UnitTestBuildOptions& o) {
  UnitTestBuildResult result;
  result.log_path = o.log_path.empty() ? o.work_dir / "unit_test_build.log" : o.log_path;
  result.model_dir = env.model_root() / o.build_id;
  const auto start = std::chrono::steady_clock::now();
  bool pin_not_found = false;

  auto finish = [&](bool ok, std::string error) {
    result.ok = ok;
    result.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!ok) {
      result.failure_reason = std::string(pin_not_found ? kTestbenchMismatch : kUnitTestBuildFailed);
      result.error = std::move(error);
    }
    return result;
  };
  if (env.restored()) return finish(false, "environment " + env.name() + " was already removed");
  if (!is_identifier(o.build_id)) {
    return finish(false, "build id " + single_quoted(o.build_id) + " is not a plain name");
  }

  std::map<std::string, std::string> environment;
  try {
    environment = Checkout(env.checkout_root())
                      .environment(o.base_env.empty() ? inherited_environment() : o.base_env);
  } catch (const std::exception& e) {
    return finish(false, e.what());
  }

  auto remaining = [&]() {
    if (o.timeout.count() <= 0) return std::chrono::milliseconds(0);
    auto left = o.timeout - std::chrono::duration_cast<std::chrono::milliseconds>(
                                std::chrono::steady_clock::now() - start);
    return std::max(left, std::chrono::milliseconds(1));
  };
  auto step = [&](ProcessSpec spec, bool append) {
    spec.env = environment;
    spec.log_path = result.log_path.string();
    spec.log_append = append;
    spec.timeout = remaining();
    spec.on_line = [&](std::string_view line) {
      if (line.find(kPinNotFound) != std::string_view::npos) pin_not_found = true;
    };
    spec.is_error_line = [](std::string_view line) {
      return line.rfind("%Error", 0) == 0 || line.find("DIE.") != std::string_view::npos ||
             line.find(": error:") != std::string_view::npos;
    };
    ProcessResult r = run_process_group(spec, o.cancel);
    for (auto& l : r.error_lines) {
      if (result.error_lines.size() < 200) result.error_lines.push_back(std::move(l));
    }
    result.timed_out = result.timed_out || r.timed_out;
    result.cancelled = result.cancelled || r.cancelled;
    return r;
  };
  auto describe = [&](const char* what, const ProcessResult& r) {
    std::string why = r.launch_failed ? r.error
                      : r.timed_out   ? std::string("timed out")
                      : r.cancelled   ? std::string("cancelled")
                                      : "exit " + std::to_string(r.exit_code);
    std::string first = result.error_lines.empty() ? last_line(r.tail) : result.error_lines.front();
    return std::string(what) + " failed (" + why + ")" + (first.empty() ? "" : ": " + first);
  };

  // Step 1: sims prepares the model directory as for any simulator; -dryrun stops it
  // before its cmp_top-only Verilator command.
  ProcessSpec sims;
  sims.argv = {"sims", "-sys=" + env.name(), "-vlt_build", "-dryrun", "-build_id=" + o.build_id};
  sims.working_dir = o.work_dir.string();
  ProcessResult r = step(std::move(sims), false);
  if (!r.succeeded()) return finish(false, describe("sims", r));
  if (!fs::is_regular_file(result.model_dir / "flist")) {
    return finish(false, "sims did not write " + (result.model_dir / "flist").string());
  }

  // Step 2: Verilator on the merged flist, the testbench's top module as the top, and a C++
  // compile of the model (--build) so that a model that verilates but does not compile fails.
  ProcessSpec vlt;
  vlt.argv = {"verilator", "--cc", "--build", "-j", std::to_string(std::max(o.jobs, 1)),
              "--top-module", env.name() + "_top", "-Mdir", "obj_dir",
              // The flags sims gives every Verilator build of OpenPiton.
              "-Wno-fatal", "-Wno-BLKANDNBLK", "-Wno-TIMESCALEMOD",
              // As the manycore builds: Verilator 5 stops without a timing choice.
              "--no-timing", "-f", "flist"};
  vlt.argv.insert(vlt.argv.end(), o.extra_verilator_args.begin(), o.extra_verilator_args.end());
  vlt.working_dir = result.model_dir.string();
  result.verilator_argv = vlt.argv;
  r = step(std::move(vlt), true);
  if (!r.succeeded()) return finish(false, describe("verilator", r));
  return finish(true, "");
}

}  // namespace mace::openpiton
