#include "core/design_configuration.h"

#include <algorithm>

#include "core/plan.h"

namespace mace {
namespace {

bool every_build_has(const std::string& define) {
  return std::find(std::begin(kDefinesEveryBuildHas), std::end(kDefinesEveryBuildHas), define) !=
         std::end(kDefinesEveryBuildHas);
}

bool is_default_network(const std::string& network) {
  return network.empty() || network == "2dmesh_config";
}

std::string joined(const std::vector<std::string>& words, std::string_view between) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : std::string(between)) + w;
  return out;
}

}  // namespace

std::string size_text(int64_t bytes) {
  if (bytes > 0 && bytes % (int64_t{1} << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes > 0 && bytes % 1024 == 0) return std::to_string(bytes / 1024) + " KiB";
  return std::to_string(bytes) + " B";
}

std::string network_text(const std::string& network) {
  if (is_default_network(network)) return "2D mesh";
  if (network == "xbar_config") return "crossbar";
  return network;
}

std::vector<ConfigurationItem> configuration_items(const DesignConfiguration& c) {
  std::vector<ConfigurationItem> items;
  items.push_back({"core", c.core, false});
  items.push_back({"mesh", std::to_string(c.mesh_x) + "x" + std::to_string(c.mesh_y), false});
  for (const auto& cache : c.caches)
    items.push_back({cache_title(cache.name),
                     size_text(cache.size_bytes) + ", " + std::to_string(cache.associativity) + "-way",
                     cache.is_default});
  items.push_back({"network", network_text(c.network), is_default_network(c.network)});
  std::vector<std::string> defines;
  for (const auto& d : c.rtl_defines)
    if (!every_build_has(d)) defines.push_back(d);
  items.push_back({"RTL defines", defines.empty() ? "none" : joined(defines, " "), defines.empty()});
  items.push_back({"edited files", c.edited_files.empty() ? "none" : joined(c.edited_files, " "),
                   c.edited_files.empty()});
  return items;
}

std::string configuration_text(const DesignConfiguration& c) {
  std::string out = c.core + " " + std::to_string(c.mesh_x) + "x" + std::to_string(c.mesh_y);
  for (const auto& item : configuration_items(c)) {
    if (item.name == "core" || item.name == "mesh") continue;
    out += "; " + item.name + " " + item.value + (item.is_default ? " (default)" : "");
  }
  return out;
}

bool is_default_configuration(const DesignConfiguration& c) {
  for (const auto& item : configuration_items(c))
    if (item.name != "core" && item.name != "mesh" && !item.is_default) return false;
  return true;
}

std::vector<ConfigurationDifference> configuration_differences(
    const std::vector<DesignConfiguration>& configs) {
  std::vector<std::vector<ConfigurationItem>> all;
  for (const auto& c : configs) all.push_back(configuration_items(c));
  // Item names in the order they first appear (a configuration may lack a cache).
  std::vector<std::string> names;
  for (const auto& items : all)
    for (const auto& item : items)
      if (std::find(names.begin(), names.end(), item.name) == names.end()) names.push_back(item.name);
  std::vector<ConfigurationDifference> out;
  for (const auto& name : names) {
    ConfigurationDifference d{name, {}};
    for (const auto& items : all) {
      auto it = std::find_if(items.begin(), items.end(),
                             [&](const ConfigurationItem& i) { return i.name == name; });
      d.values.push_back(it != items.end() ? *it : ConfigurationItem{name, "-", false});
    }
    const bool same = std::all_of(d.values.begin(), d.values.end(), [&](const ConfigurationItem& v) {
      return v.value == d.values.front().value;
    });
    if (!same) out.push_back(std::move(d));
  }
  return out;
}

}  // namespace mace
