#pragma once
// A task's build configuration as an architect reads it: the core and mesh, each cache's
// size and ways, the on-chip network, the RTL defines and the files the RTL edits change,
// each value that is OpenPiton's own default marked so. `mace status`, the run report,
// `mace compare` and the evaluation results all say it in these words.
//
// The default configuration of a run is its core and mesh with everything else OpenPiton's
// default: the checkout's own caches, the 2D mesh network, no RTL define beyond those every
// build gets, no RTL edits (what the direct planner builds). Core and mesh are the run's,
// so they are never "default" or not.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mace {

// Defines every build carries whatever its task says (openpiton::kDefaultRtlDefine): a task
// that names one changes nothing.
inline constexpr std::string_view kDefinesEveryBuildHas[] = {"MINIMAL_MONITORING"};

struct DesignConfiguration {
  std::string core;
  int64_t mesh_x = 1;
  int64_t mesh_y = 1;
  struct Cache {
    std::string name;  // l1i, l1d, l15, l2
    int64_t size_bytes = 0;
    int64_t associativity = 0;
    bool is_default = false;  // the run's checkout's own
    bool operator==(const Cache&) const = default;
  };
  std::vector<Cache> caches;  // in reading order: l1i, l1d, l15, l2
  std::string network;        // "" or "2dmesh_config": OpenPiton's 2D mesh; "xbar_config"
  std::vector<std::string> rtl_defines;
  std::vector<std::string> edited_files;
  bool operator==(const DesignConfiguration&) const = default;
};

// One line of a configuration: "L1D" "4 KiB, 4-way", not default.
struct ConfigurationItem {
  std::string name;
  std::string value;
  bool is_default = false;
  bool operator==(const ConfigurationItem&) const = default;
};

// core, mesh, L1I, L1D, L1.5, L2 (each in the configuration), network, RTL defines, edited
// files: always in this order, so two configurations line up item by item.
std::vector<ConfigurationItem> configuration_items(const DesignConfiguration& config);

// "pico 1x1; L1I 16 KiB 4-way (default); L1D 4 KiB 4-way; ...": one line for people.
std::string configuration_text(const DesignConfiguration& config);

// Every item but core and mesh is OpenPiton's default.
bool is_default_configuration(const DesignConfiguration& config);

// "8 KiB", "1 MiB", "1536 B": a cache size as people write it.
std::string size_text(int64_t bytes);

// "2D mesh" for "" and "2dmesh_config", "crossbar" for "xbar_config", else the word.
std::string network_text(const std::string& network);

struct ConfigurationDifference {
  std::string name;
  std::vector<ConfigurationItem> values;  // one per configuration, in the order given
};

// The items whose values are not all the same across `configs`, in item order.
std::vector<ConfigurationDifference> configuration_differences(
    const std::vector<DesignConfiguration>& configs);

}  // namespace mace
