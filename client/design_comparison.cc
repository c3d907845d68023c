#include "design_comparison.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "core/csv_field.h"
#include "core/json_writer.h"
#include "render.h"
#include "tile_figures_text.h"

namespace mace::client {
namespace {

// A, B, ..., Z, then A2, B2, ...: short names for the columns of the text table.
std::string letter(std::size_t i) {
  std::string out(1, static_cast<char>('A' + i % 26));
  if (i >= 26) out += std::to_string(i / 26 + 1);
  return out;
}

std::string percent_text(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", p);
  return buf;
}

std::string pad(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

// "pass 13,886" / "fail" / "-" (not simulated), with the change against the first design.
std::string cell_text(const Comparison& c, std::size_t design, const std::string& workload) {
  const ComparedResult* r = result_of(c.designs[design], workload);
  if (r == nullptr) return "-";
  std::string out = r->verdict;
  if (r->cycles) out += " " + cycles_text(*r->cycles);
  if (design > 0) {
    const ComparedResult* base = result_of(c.designs[0], workload);
    if (auto p = change_percent(base ? base->cycles : std::nullopt, r->cycles))
      out += " (" + percent_text(*p) + ")";
  }
  return out;
}

const TileFigures* tile_of(const ComparedResult* r, int tile) {
  if (r == nullptr) return nullptr;
  for (const auto& t : r->tiles)
    if (t.tile == tile) return &t;
  return nullptr;
}

// Each workload's tiles, each figure per design with its change against A; nothing when no
// design ran with monitors.
void tile_figures_text(const Comparison& c, std::ostringstream& out) {
  bool any = false;
  for (const auto& d : c.designs)
    for (const auto& r : d.results) any = any || !r.tiles.empty();
  if (!any) return;
  out << "what each tile did: each figure, change against A\n";
  for (const auto& workload : c.workloads) {
    std::vector<int> tiles;
    for (const auto& d : c.designs)
      if (const ComparedResult* r = result_of(d, workload))
        for (const auto& t : r->tiles)
          if (std::find(tiles.begin(), tiles.end(), t.tile) == tiles.end()) tiles.push_back(t.tile);
    std::sort(tiles.begin(), tiles.end());
    for (int tile : tiles) {
      out << "  " << workload << ", tile " << tile << "\n";
      const TileFigures* base = tile_of(result_of(c.designs[0], workload), tile);
      for (std::size_t k = 0; k < kTileCounterCount; ++k) {
        const auto counter = static_cast<TileCounter>(k);
        out << "    " << pad(std::string(counter_title(counter)), 22);
        for (std::size_t i = 0; i < c.designs.size(); ++i) {
          const TileFigures* t = tile_of(result_of(c.designs[i], workload), tile);
          std::string cell = t ? cycles_text((*t)[counter]) : "-";
          if (i > 0 && t && base)
            if (auto p = change_percent((*base)[counter], (*t)[counter])) cell += " (" + percent_text(*p) + ")";
          out << letter(i) << " " << pad(cell, 24);
        }
        out << "\n";
      }
    }
  }
}

}  // namespace

std::optional<double> change_percent(std::optional<int64_t> base, std::optional<int64_t> value) {
  if (!base || !value || *base == 0) return std::nullopt;
  return (static_cast<double>(*value) - static_cast<double>(*base)) / static_cast<double>(*base) * 100.0;
}

const ComparedResult* result_of(const ComparedDesign& design, const std::string& workload) {
  for (const auto& r : design.results)
    if (r.workload == workload) return &r;
  return nullptr;
}

std::string design_label(const ComparedDesign& design) { return design.run_id + ":" + design.task_id; }

Comparison compare_designs(std::vector<ComparedDesign> designs) {
  Comparison c;
  c.designs = std::move(designs);
  std::vector<DesignConfiguration> configs;
  for (const auto& d : c.designs)
    if (d.configuration) configs.push_back(*d.configuration);
  if (configs.size() == c.designs.size()) {
    c.differences = configuration_differences(configs);
  } else {
    // A design without a configuration shows "-" for every item of the others.
    std::vector<DesignConfiguration> padded;
    for (const auto& d : c.designs) padded.push_back(d.configuration.value_or(DesignConfiguration{}));
    c.differences = configuration_differences(padded);
  }
  for (const auto& d : c.designs) {
    auto add = [&](const std::string& w) {
      if (std::find(c.workloads.begin(), c.workloads.end(), w) == c.workloads.end()) c.workloads.push_back(w);
    };
    for (const auto& w : d.gate_workloads) add(w);
    for (const auto& r : d.results) add(r.workload);
  }
  return c;
}

std::string comparison_text(const Comparison& c) {
  std::ostringstream out;
  out << "designs\n";
  for (std::size_t i = 0; i < c.designs.size(); ++i) {
    const auto& d = c.designs[i];
    out << "  " << letter(i) << "  " << design_label(d) << " (iteration " << d.iteration << ", run "
        << d.run_state << ")\n";
    out << "     " << (d.configuration ? configuration_text(*d.configuration) : "no build configuration")
        << "\n";
    if (!d.build.empty()) out << "     build: " << d.build << "\n";
    if (d.area) {
      char area[64];
      std::snprintf(area, sizeof area, "%.1f", *d.area);
      out << "     cache area per tile: " << area << " (KiB-equivalents)\n";
    }
  }
  out << "configuration differences\n";
  if (c.differences.empty()) out << "  none\n";
  for (const auto& diff : c.differences) {
    out << "  " << pad(diff.name, 14);
    for (std::size_t i = 0; i < diff.values.size(); ++i)
      out << letter(i) << " " << pad(diff.values[i].value + (diff.values[i].is_default ? " (default)" : ""), 30);
    out << "\n";
  }
  out << "gate workloads: verdict and cycles, change against A\n";
  std::size_t name_width = 10;
  for (const auto& w : c.workloads) name_width = std::max(name_width, w.size() + 2);
  out << "  " << pad("workload", name_width);
  for (std::size_t i = 0; i < c.designs.size(); ++i) out << pad(letter(i), 26);
  out << "\n";
  for (const auto& w : c.workloads) {
    out << "  " << pad(w, name_width);
    for (std::size_t i = 0; i < c.designs.size(); ++i) out << pad(cell_text(c, i, w), 26);
    out << "\n";
  }
  tile_figures_text(c, out);
  std::string text = out.str();
  // No trailing blanks at line ends.
  std::string cleaned;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    line.erase(line.find_last_not_of(' ') + 1);
    cleaned += line + "\n";
  }
  return cleaned;
}

std::string comparison_json(const Comparison& c) {
  JsonWriter w;
  w.begin_object();
  w.key("designs").begin_array();
  for (const auto& d : c.designs) {
    w.begin_object();
    w.field("run_id", d.run_id).field("task_id", d.task_id).field("iteration", d.iteration);
    w.field("run_state", d.run_state);
    w.key("configuration");
    if (d.configuration) {
      w.begin_array();
      for (const auto& item : configuration_items(*d.configuration))
        w.begin_object().field("name", item.name).field("value", item.value).field("default", item.is_default).end_object();
      w.end_array();
      w.field("default_configuration", is_default_configuration(*d.configuration));
    } else {
      w.null();
      w.field("default_configuration", false);
    }
    w.field("build", d.build);
    const auto optional_field = [&w](std::string_view key, auto value) {
      w.key(key);
      value ? w.value(*value) : w.null();
    };
    optional_field("build_wall_s", d.build_wall_s);
    optional_field("build_cpu_s", d.build_cpu_s);
    optional_field("build_peak_rss_bytes", d.build_peak_rss_bytes);
    optional_field("area", d.area);
    w.end_object();
  }
  w.end_array();
  w.key("differences").begin_array();
  for (const auto& diff : c.differences) {
    w.begin_object().field("name", diff.name).key("values").begin_array();
    for (const auto& v : diff.values)
      w.begin_object().field("value", v.value).field("default", v.is_default).end_object();
    w.end_array().end_object();
  }
  w.end_array();
  w.key("workloads").begin_array();
  for (const auto& workload : c.workloads) {
    w.begin_object().field("workload", workload).key("results").begin_array();
    const ComparedResult* base = result_of(c.designs.front(), workload);
    for (const auto& d : c.designs) {
      const ComparedResult* r = result_of(d, workload);
      if (r == nullptr) {
        w.null();
        continue;
      }
      w.begin_object().field("verdict", r->verdict);
      w.key("cycles");
      r->cycles ? w.value(*r->cycles) : w.null();
      w.key("verdict_time");
      r->verdict_time ? w.value(*r->verdict_time) : w.null();
      w.field("wall_s", r->wall_s);
      w.key("change_percent");
      const auto p = change_percent(base ? base->cycles : std::nullopt, r->cycles);
      p ? w.value(*p) : w.null();
      w.key("tiles");
      write_tile_figures(w, r->tiles);
      w.end_object();
    }
    w.end_array().end_object();
  }
  w.end_array();
  w.end_object();
  return w.take();
}

std::string comparison_csv(const Comparison& c) {
  std::string out = "run_id,task_id,iteration,workload,verdict,cycles,change_percent,area";
  for (const auto& diff : c.differences) out += "," + csv_field(diff.name);
  out += "\n";
  for (std::size_t i = 0; i < c.designs.size(); ++i) {
    const auto& d = c.designs[i];
    for (const auto& workload : c.workloads) {
      const ComparedResult* r = result_of(d, workload);
      const ComparedResult* base = result_of(c.designs.front(), workload);
      out += csv_field(d.run_id) + "," + csv_field(d.task_id) + "," + std::to_string(d.iteration) +
             "," + csv_field(workload) + "," + (r ? csv_field(r->verdict) : "") + ",";
      if (r && r->cycles) out += std::to_string(*r->cycles);
      out += ",";
      if (auto p = change_percent(base ? base->cycles : std::nullopt, r ? r->cycles : std::nullopt)) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.2f", *p);
        out += buf;
      }
      out += ",";
      if (d.area) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.1f", *d.area);
        out += buf;
      }
      for (const auto& diff : c.differences) out += "," + csv_field(diff.values[i].value);
      out += "\n";
    }
  }
  return out;
}

}  // namespace mace::client
