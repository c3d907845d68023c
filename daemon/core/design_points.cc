#include "core/design_points.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <set>

#include "core/design_configuration.h"
#include "core/run_spec.h"
#include "core/joined.h"
#include "os/text.h"

namespace mace {
namespace {

constexpr int64_t kMaxCacheBytes = int64_t{1} << 30;
constexpr int64_t kMaxWays = 1024;

bool is_power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

// OpenPiton's line sizes (lsu.h.pyv, ifu.h.pyv, pyhplib.py) and the sets each cache needs.
int64_t line_bytes(std::string_view cache) {
  if (cache == "l1i") return 32;
  if (cache == "l2") return 64;
  return 16;
}
int64_t minimum_sets(std::string_view cache) { return cache == "l1d" ? 4 : 1; }

bool is_known_cache(std::string_view name) {
  return std::find(std::begin(kCacheNames), std::end(kCacheNames), name) != std::end(kCacheNames);
}

bool is_design_name(std::string_view s) {
  if (s.empty() || s.size() > kMaxDesignNameBytes) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || os::is_ascii_digit(c) || c == '_' || c == '.' ||
           c == '-';
  });
}

bool is_define(std::string_view s) {
  if (s.empty() || !(s.front() >= 'A' && s.front() <= 'Z')) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return (c >= 'A' && c <= 'Z') || os::is_ascii_digit(c) || c == '_'; });
}

// "4k", "128k", "1m", "1536b": a size as short as a task ID can carry it.
std::string size_word(int64_t bytes) {
  if (bytes % (1 << 20) == 0) return std::to_string(bytes >> 20) + "m";
  if (bytes % (1 << 10) == 0) return std::to_string(bytes >> 10) + "k";
  return std::to_string(bytes) + "b";
}

std::string path_of(const std::string& parent, std::string_view key) { return parent + "." + std::string(key); }

std::optional<std::string> size_problem(std::string_view cache, int64_t size) {
  if (size >= 1 && size <= kMaxCacheBytes && is_power_of_two(size)) return std::nullopt;
  return cache_title(cache) + " size must be a power of two from 1 B to 1 GiB, got " + std::to_string(size);
}

std::optional<std::string> ways_problem(std::string_view cache, int64_t ways) {
  if (ways >= 1 && ways <= kMaxWays && is_power_of_two(ways)) return std::nullopt;
  return cache_title(cache) + " associativity must be a power of two from 1 to 1024, got " + std::to_string(ways);
}

// Each parameter at its own path, then the two together at the cache's. One left at 0
// keeps the checkout's default, which only the run knows.
void check_geometry(const std::string& path, std::string_view cache, const CacheOverride& c, FieldErrors& errors) {
  if (c.size == 0 && c.associativity == 0) {
    errors.push_back({path, "names neither a size nor an associativity"});
    return;
  }
  auto size = c.size ? size_problem(cache, c.size) : std::nullopt;
  auto ways = c.associativity ? ways_problem(cache, c.associativity) : std::nullopt;
  if (size) errors.push_back({path + ".size", *size});
  if (ways) errors.push_back({path + ".associativity", *ways});
  if (size || ways || !c.size || !c.associativity) return;
  if (auto both = cache_geometry_problem(cache, c.size, c.associativity)) errors.push_back({path, *both});
}

}  // namespace

std::optional<int64_t> parse_size_text(std::string_view text) {
  text = os::trim(text);
  int64_t number = 0;
  const char* end = text.data() + text.size();
  auto [rest, error] = std::from_chars(text.data(), end, number);
  if (error != std::errc() || rest == text.data() || number <= 0) return std::nullopt;
  std::string unit(os::trim(std::string_view(rest, static_cast<std::size_t>(end - rest))));
  for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  int shift = 0;
  if (unit.empty() || unit == "b") shift = 0;
  else if (unit == "k" || unit == "kb" || unit == "kib") shift = 10;
  else if (unit == "m" || unit == "mb" || unit == "mib") shift = 20;
  else return std::nullopt;
  if (number > (INT64_MAX >> shift)) return std::nullopt;
  return number << shift;
}

std::optional<std::string> cache_geometry_problem(std::string_view cache, int64_t size, int64_t associativity) {
  if (auto problem = size_problem(cache, size)) return problem;
  if (auto problem = ways_problem(cache, associativity)) return problem;
  const std::string title = cache_title(cache);
  const int64_t sets = size / (line_bytes(cache) * associativity);
  if (sets < minimum_sets(cache))
    return title + " of " + size_text(size) + " cannot be " + std::to_string(associativity) + "-way: with " +
           std::to_string(line_bytes(cache)) + " B lines that leaves " +
           (sets == 0 ? std::string("no whole set") : std::to_string(sets) + " set(s)") + ", and OpenPiton's " +
           title + " needs at least " + std::to_string(minimum_sets(cache));
  return std::nullopt;
}

std::size_t sweep_size(const DesignSweep& sweep) {
  std::size_t product = 1;
  for (const auto& [cache, values] : sweep) {
    for (std::size_t n : {values.sizes.size(), values.associativities.size()}) {
      if (n == 0) continue;
      if (product > SIZE_MAX / n) return SIZE_MAX;
      product *= n;
    }
  }
  return sweep.empty() ? 0 : product;
}

std::vector<DesignPoint> sweep_points(const DesignSweep& sweep) {
  std::vector<DesignPoint> points;
  if (sweep.empty() || sweep_size(sweep) > kMaxDesigns * 16) return points;
  points.push_back({});
  // A parameter of a swept cache left out keeps the default: 0 stands for it until the
  // run's defaults fill it in (effective_caches).
  for (const auto& [cache, values] : sweep) {
    const std::vector<int64_t> sizes = values.sizes.empty() ? std::vector<int64_t>{0} : values.sizes;
    const std::vector<int64_t> ways =
        values.associativities.empty() ? std::vector<int64_t>{0} : values.associativities;
    std::vector<DesignPoint> next;
    for (const auto& point : points)
      for (int64_t size : sizes)
        for (int64_t associativity : ways) {
          DesignPoint p = point;
          p.caches[cache] = {size, associativity};
          next.push_back(std::move(p));
        }
    points = std::move(next);
  }
  for (auto& p : points) p.name = design_name_of(p.caches);
  return points;
}

FieldErrors check_design_points(const std::vector<DesignPoint>& designs, const DesignSweep& sweep) {
  FieldErrors errors;
  std::set<std::string> names;
  for (std::size_t i = 0; i < designs.size(); ++i) {
    const DesignPoint& d = designs[i];
    const std::string path = "designs[" + std::to_string(i) + "]";
    if (!is_design_name(d.name))
      errors.push_back({path + ".name", "must be 1 to " + std::to_string(kMaxDesignNameBytes) +
                                            " letters, digits, '_', '.' or '-'"});
    else if (d.name == kBaselineDesignName)
      errors.push_back({path + ".name", "\"baseline\" names OpenPiton's defaults, which the run builds "
                                        "unless \"baseline\" is false; give this design another name"});
    else if (!names.insert(d.name).second)
      errors.push_back({path + ".name", "another design is named \"" + d.name + "\" already"});
    for (const auto& [cache, c] : d.caches) {
      if (!is_known_cache(cache)) continue;  // the reader refuses unknown cache names
      check_geometry(path_of(path + ".caches", cache), cache, c, errors);
    }
    if (d.config_rtl.size() > kMaxDesignDefines)
      errors.push_back({path + ".config_rtl", count_limit_message(kMaxDesignDefines, "RTL defines",
                                                                  d.config_rtl.size())});
    for (std::size_t j = 0; j < d.config_rtl.size() && j < kMaxDesignDefines; ++j)
      if (!is_define(d.config_rtl[j]))
        errors.push_back({path + ".config_rtl[" + std::to_string(j) + "]",
                          "must be an RTL define in UPPER_SNAKE_CASE"});
  }
  for (const auto& [cache, values] : sweep) {
    const std::string path = path_of("sweep", cache);
    if (values.sizes.empty() && values.associativities.empty())
      errors.push_back({path, "names no value: give \"size\", \"associativity\" or both as lists"});
    for (auto [field, list] : {std::pair{"size", &values.sizes}, std::pair{"associativity", &values.associativities}}) {
      if (list->size() > kMaxSweepValues)
        errors.push_back({path_of(path, field), count_limit_message(kMaxSweepValues, "values", list->size())});
      std::set<int64_t> seen;
      for (std::size_t j = 0; j < list->size() && j < kMaxSweepValues; ++j)
        if (!seen.insert((*list)[j]).second)
          errors.push_back({path_of(path, field) + "[" + std::to_string(j) + "]", "repeats an earlier value"});
    }
    for (std::size_t j = 0; j < values.sizes.size() && j < kMaxSweepValues; ++j)
      if (auto problem = size_problem(cache, values.sizes[j]))
        errors.push_back({path_of(path, "size") + "[" + std::to_string(j) + "]", *problem});
    for (std::size_t j = 0; j < values.associativities.size() && j < kMaxSweepValues; ++j)
      if (auto problem = ways_problem(cache, values.associativities[j]))
        errors.push_back({path_of(path, "associativity") + "[" + std::to_string(j) + "]", *problem});
    // Every combination of the two, each point that cannot be built named once.
    for (std::size_t i = 0; i < values.sizes.size() && i < kMaxSweepValues; ++i)
      for (std::size_t j = 0; j < values.associativities.size() && j < kMaxSweepValues; ++j) {
        if (size_problem(cache, values.sizes[i]) || ways_problem(cache, values.associativities[j])) continue;
        if (auto problem = cache_geometry_problem(cache, values.sizes[i], values.associativities[j]))
          errors.push_back({path, *problem});
      }
  }
  const std::size_t swept = sweep_size(sweep);
  const std::size_t total = swept > kMaxDesigns ? swept : designs.size() + swept;
  if (total > kMaxDesigns)
    errors.push_back({sweep.empty() ? "designs" : "sweep",
                      "makes " + (swept == SIZE_MAX ? std::string("too many") : std::to_string(total)) +
                          " designs with the named ones, more than a run builds (" + std::to_string(kMaxDesigns) +
                          "); sweep fewer values, or split it over runs"});
  for (const auto& p : sweep_points(sweep))
    if (names.count(p.name))
      errors.push_back({"sweep", "makes a design named \"" + p.name + "\", as a named design is already"});
  return errors;
}

std::vector<DesignPoint> run_designs(const std::vector<DesignPoint>& designs, const DesignSweep& sweep,
                                     bool baseline) {
  std::vector<DesignPoint> out;
  if (baseline) out.push_back({std::string(kBaselineDesignName), {}, {}});
  out.insert(out.end(), designs.begin(), designs.end());
  const auto points = sweep_points(sweep);
  out.insert(out.end(), points.begin(), points.end());
  return out;
}

std::string design_text(const DesignPoint& design) {
  std::vector<std::string> parts;
  for (std::string_view cache : kCacheNames) {
    auto it = design.caches.find(std::string(cache));
    if (it == design.caches.end()) continue;
    std::string part = cache_title(cache);
    if (it->second.size) part += " " + size_text(it->second.size);
    if (it->second.associativity) part += " " + std::to_string(it->second.associativity) + "-way";
    parts.push_back(std::move(part));
  }
  if (!design.config_rtl.empty()) parts.push_back("defines " + joined(design.config_rtl, " "));
  return parts.empty() ? "OpenPiton's defaults" : joined(parts, "; ");
}

std::string design_name_of(const std::map<std::string, CacheOverride>& caches) {
  std::string name;
  for (const auto& [cache, c] : caches) {
    name += (name.empty() ? "" : "_") + cache;
    if (c.size) name += "_" + size_word(c.size);
    if (c.associativity) name += "_" + std::to_string(c.associativity) + "w";
  }
  return name;
}

namespace {

// "l15=4KiB,4": the cache and its geometry, or why not.
std::optional<std::pair<std::string, CacheOverride>> read_set(std::string_view text, std::string& why) {
  const size_t eq = text.find('=');
  const std::string cache(os::trim(text.substr(0, eq)));
  if (eq == std::string_view::npos || !is_known_cache(cache)) {
    why = "must be CACHE=SIZE[,WAYS] with CACHE one of " + joined(kCacheNames);
    return std::nullopt;
  }
  const std::string_view value = text.substr(eq + 1);
  const size_t comma = value.find(',');
  CacheOverride c;
  const std::string_view size = os::trim(value.substr(0, comma));
  if (!size.empty()) {
    auto bytes = parse_size_text(size);
    if (!bytes) {
      why = "\"" + std::string(size) + "\" is not a size (4096, 4KiB, 1MiB)";
      return std::nullopt;
    }
    c.size = *bytes;
  }
  if (comma != std::string_view::npos) {
    const std::string_view ways = os::trim(value.substr(comma + 1));
    int64_t n = 0;
    auto [end, error] = std::from_chars(ways.data(), ways.data() + ways.size(), n);
    if (error != std::errc() || end != ways.data() + ways.size() || n <= 0) {
      why = "\"" + std::string(ways) + "\" is not an associativity";
      return std::nullopt;
    }
    c.associativity = n;
  }
  if (!c.size && !c.associativity) {
    why = "names neither a size nor an associativity";
    return std::nullopt;
  }
  FieldErrors problems;
  check_geometry(cache, cache, c, problems);
  if (!problems.empty()) {
    why = problems.front().message;
    return std::nullopt;
  }
  return std::pair{cache, c};
}

}  // namespace

FieldErrors apply_design_options(std::vector<DesignPoint>& designs, DesignSweep& sweep,
                                 const std::vector<std::string>& sets, const std::vector<std::string>& sweeps) {
  FieldErrors errors;
  auto refuse = [&](const char* option, const std::string& given, const std::string& why) {
    errors.push_back({option, "\"" + given.substr(0, 80) + "\": " + why});
  };
  DesignPoint set;
  for (const auto& text : sets) {
    std::string why;
    if (auto entry = read_set(text, why)) set.caches[entry->first] = entry->second;
    else refuse("--set", text, why);
  }
  DesignSweep swept = sweep;
  for (const auto& text : sweeps) {
    const size_t eq = text.find('=');
    std::string key(os::trim(std::string_view(text).substr(0, eq)));
    const bool ways = key.ends_with(".ways");
    if (ways) key.resize(key.size() - 5);
    if (eq == std::string::npos || !is_known_cache(key)) {
      refuse("--sweep", text, "must be CACHE=SIZE,SIZE,... or CACHE.ways=WAYS,WAYS,... with CACHE one of " +
                                  joined(kCacheNames));
      continue;
    }
    std::vector<int64_t> values;
    for (std::string_view item : os::split_at(std::string_view(text).substr(eq + 1), ',')) {
      std::string why;
      const std::string one = key + "=" + (ways ? "," : "") + std::string(item);
      if (auto entry = read_set(one, why)) values.push_back(ways ? entry->second.associativity : entry->second.size);
      else refuse("--sweep", text, why);
    }
    if (values.size() > kMaxSweepValues)
      refuse("--sweep", text, count_limit_message(kMaxSweepValues, "values", values.size()));
    (ways ? swept[key].associativities : swept[key].sizes) = std::move(values);
  }
  if (!errors.empty()) return errors;
  if (!set.caches.empty()) {
    set.name = design_name_of(set.caches);
    auto same = std::find_if(designs.begin(), designs.end(), [&](const DesignPoint& d) { return d.name == set.name; });
    if (same != designs.end()) *same = set;
    else designs.push_back(set);
  }
  sweep = std::move(swept);
  return errors;
}

}  // namespace mace
