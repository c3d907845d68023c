#include "openpiton/cache_defaults.h"

#include <cctype>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

#include "os/file_io.h"

namespace mace::openpiton {
namespace {

using Key = std::pair<Cache, bool /*is_size*/>;
using Values = std::map<Key, int64_t>;

std::optional<Cache> cache_named(std::string name) {
  for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (Cache cache : kAllCaches) {
    if (to_string(cache) == name) return cache;
  }
  return std::nullopt;
}

// sims runs the config through cpp with -DFLIST_<core> (sims,2.0 lines 356-359), so the
// core's own #ifdef block may set caches too. Generic-tile cores go through the PicoRV32
// (RV32) path, so they see FLIST_PICO like pico.
std::set<std::string> flist_macros(Core core) {
  switch (core) {
    case Core::ariane: return {"FLIST_ARIANE"};
    case Core::sparc: return {"FLIST_OST1"};
    case Core::pico:
    case Core::generic: return {"FLIST_PICO"};
  }
  return {};
}

// The lines cpp would keep, for the few directives OpenPiton's configs use: #ifdef,
// #ifndef, #if [!]defined(X) / 0 / 1, #else, #endif. Anything else after #if counts as
// false, so an expression we cannot evaluate never contributes a default.
class ConditionalLines {
 public:
  explicit ConditionalLines(std::set<std::string> defined) : defined_(std::move(defined)) {}

  // True when `line` is ordinary text that cpp would keep.
  bool keep(const std::string& line) {
    static const std::regex directive(R"(^\s*#\s*(\w+)\s*(.*?)\s*$)");
    std::smatch match;
    if (!std::regex_match(line, match, directive)) return active();
    const std::string name = match[1];
    const std::string argument = match[2];
    if (name == "ifdef") {
      push(defined_.count(first_word(argument)) > 0);
    } else if (name == "ifndef") {
      push(defined_.count(first_word(argument)) == 0);
    } else if (name == "if") {
      push(evaluate(argument));
    } else if (name == "elif") {
      if (!stack_.empty()) {
        Frame& frame = stack_.back();
        frame.taking = !frame.taken && evaluate(argument);
        frame.taken = frame.taken || frame.taking;
      }
    } else if (name == "else") {
      if (!stack_.empty()) {
        Frame& frame = stack_.back();
        frame.taking = !frame.taken;
        frame.taken = true;
      }
    } else if (name == "endif") {
      if (!stack_.empty()) stack_.pop_back();
    }
    return false;
  }

 private:
  struct Frame {
    bool taking;  // this branch is kept (if the enclosing ones are)
    bool taken;   // some branch of this #if was already kept
  };

  static std::string first_word(const std::string& text) {
    std::istringstream in(text);
    std::string word;
    in >> word;
    return word;
  }

  bool evaluate(const std::string& expression) const {
    static const std::regex defined_test(R"(^(!?)\s*defined\s*\(?\s*(\w+)\s*\)?$)");
    std::smatch match;
    if (std::regex_match(expression, match, defined_test)) {
      return (defined_.count(match[2]) > 0) != (match[1] == "!");
    }
    return expression == "1";
  }

  void push(bool condition) { stack_.push_back({condition, condition}); }

  bool active() const {
    for (const Frame& frame : stack_) {
      if (!frame.taking) return false;
    }
    return true;
  }

  std::set<std::string> defined_;
  std::vector<Frame> stack_;
};

// sims reads the `<manycore>` section; a later option overrides an earlier one, as
// Getopt does with repeated scalar options.
Values values_from_manycore_config(const std::string& text, Core core) {
  static const std::regex option(R"(^\s*-config_(l1i|l1d|l15|l2)_(size|associativity)=(\d+))");
  const bool has_section = text.find("<manycore>") != std::string::npos;
  bool in_section = !has_section;
  ConditionalLines conditional(flist_macros(core));
  Values values;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (has_section) {
      if (line.find("<manycore>") != std::string::npos) {
        in_section = true;
        continue;
      }
      if (line.find("</manycore>") != std::string::npos) {
        in_section = false;
        continue;
      }
    }
    if (!conditional.keep(line) || !in_section) continue;
    std::smatch match;
    if (!std::regex_search(line, match, option)) continue;
    const auto cache = cache_named(match[1]);
    values[{*cache, match[2] == "size"}] = std::stoll(match[3]);
  }
  return values;
}

// pyhplib.py: `CONFIG_L1D_SIZE = int(os.environ.get('CONFIG_L1D_SIZE', '8192'))`.
Values values_from_pyhplib(const std::string& text) {
  static const std::regex assignment(
      R"(^\s*CONFIG_(L1I|L1D|L15|L2)_(SIZE|ASSOCIATIVITY)\s*=\s*)"
      R"(int\(\s*os\.environ\.get\(\s*['"]CONFIG_\w+['"]\s*,\s*['"](\d+)['"]\s*\)\s*\))");
  Values values;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch match;
    if (!std::regex_search(line, match, assignment)) continue;
    const auto cache = cache_named(match[1]);
    values[{*cache, match[2] == "SIZE"}] = std::stoll(match[3]);
  }
  return values;
}

}  // namespace

DefaultsResult read_cache_defaults(const Checkout& checkout, Core core) {
  const auto manycore_config = checkout.dv_root() / "tools/src/sims/manycore.config";
  const auto pyhplib = checkout.dv_root() / "tools/bin/pyhplib.py";

  Values values;
  if (auto text = os::try_read_file(manycore_config)) values = values_from_manycore_config(*text, core);
  Values fallback;
  if (auto text = os::try_read_file(pyhplib)) fallback = values_from_pyhplib(*text);

  DefaultsResult result;
  CacheSet caches;
  for (Cache cache : kAllCaches) {
    for (bool is_size : {true, false}) {
      const Key key{cache, is_size};
      const Values& source = values.count(key) ? values : fallback;
      const auto it = source.find(key);
      if (it == source.end()) {
        result.error = "no default for -config_" + std::string(to_string(cache)) +
                       (is_size ? "_size" : "_associativity") + " in " + manycore_config.string() +
                       " or " + pyhplib.string();
        return result;
      }
      (is_size ? caches[cache].size_bytes : caches[cache].associativity) = it->second;
    }
  }
  result.caches = caches;
  return result;
}

CacheSet with_defaults(const CacheSet& defaults, const CacheOverrides& overrides) {
  CacheSet caches = defaults;
  if (overrides.l1i) caches.l1i = *overrides.l1i;
  if (overrides.l1d) caches.l1d = *overrides.l1d;
  if (overrides.l15) caches.l15 = *overrides.l15;
  if (overrides.l2) caches.l2 = *overrides.l2;
  return caches;
}

}  // namespace mace::openpiton
