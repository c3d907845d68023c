// The JSON form of an evaluation suite. The run specification of each task is read by the
// run spec's own parser (so a suite task and `mace spec check` agree), and each expert
// configuration is written as a plan and read back by the plan parser, so a configuration
// the loop would skip is refused here rather than silently built with defaults.

#include "eval/suite.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include <simdjson.h>

#include "core/direct_planner.h"
#include "core/enum_text.h"
#include "core/joined.h"
#include "core/json_syntax.h"
#include "core/json_document.h"
#include "core/printable_text.h"

namespace mace::eval {
namespace {

using simdjson::dom::element;

constexpr std::string_view kTopFields[] = {"suite", "tasks", "faults"};
constexpr std::string_view kTaskFields[] = {"id", "spec", "expert", "area_budget", "faults"};
constexpr std::string_view kConfigFields[] = {"caches", "defines"};
constexpr std::string_view kCacheFields[] = {"size", "associativity"};
constexpr std::string_view kFaultFields[] = {"name", "kind", "description", "cores",
                                             "meshes", "config", "edits"};
constexpr std::string_view kEditFields[] = {"path", "old", "new"};
// OpenPiton's own default L1.5 ways, for the way rule when a configuration leaves the
// L1.5 out (sims-notes.md: every cache defaults to 4 ways).
constexpr int64_t kDefaultL15Ways = 4;

// Callers check the type first. Copies, so a range-for does not outlive a temporary.
simdjson::dom::array array_of(element e) { return e.get_array().value_unsafe(); }
simdjson::dom::object object_of(element e) { return e.get_object().value_unsafe(); }

// `e` as a list of `min` to `max` items; nothing when it is not one.
std::optional<simdjson::dom::array> list_within(element e, std::size_t min, std::size_t max) {
  if (!e.is_array()) return std::nullopt;
  const simdjson::dom::array list = array_of(e);
  if (list.size() < min || list.size() > max) return std::nullopt;
  return list;
}
// Reads each item of `list` with `read(item, its path)`, every one even after one fails;
// true when all were read.
template <typename Read>
bool read_each(simdjson::dom::array list, const std::string& path, Read read) {
  bool ok = true;
  std::size_t i = 0;
  for (element item : list) ok = read(item, path + "[" + std::to_string(i++) + "]") && ok;
  return ok;
}
// `list_within` for the member `key` of `object`, which must be there.
std::optional<simdjson::dom::array> list_within(simdjson::dom::object object, std::string_view key,
                                                std::size_t min, std::size_t max) {
  element e;
  if (object[key].get(e)) return std::nullopt;
  return list_within(e, min, max);
}

bool listed(std::span<const std::string_view> names, std::string_view key) {
  return std::find(names.begin(), names.end(), key) != names.end();
}

bool is_name(std::string_view s) {
  if (s.empty() || s.size() > kMaxNameBytes) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
  });
}

bool is_define(std::string_view s) {
  if (s.empty() || s.size() > kMaxNameBytes || !(s.front() >= 'A' && s.front() <= 'Z'))
    return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

std::string shown(element e) {
  if (e.is_string()) return quoted_for_display(e.get_string().value_unsafe(), 60);
  std::string text = simdjson::minify(e);
  if (text.size() > 60) text = text.substr(0, 60) + "...";
  return json_for_display(text);
}

class Reader {
 public:
  FieldErrors errors;

  void error(std::string path, std::string message) {
    errors.push_back({std::move(path), std::move(message)});
  }

  // Every key of `object` must be one of `names`.
  bool object_at(element e, const std::string& path, std::span<const std::string_view> names) {
    if (!e.is_object()) {
      error(path, "must be an object, got " + shown(e));
      return false;
    }
    for (auto field : object_of(e))
      if (!listed(names, field.key))
        error(path.empty() ? std::string(field.key) : path + "." + std::string(field.key),
              "is not a field of " + (path.empty() ? std::string("a suite") : path));
    return true;
  }

  std::optional<std::string> name_at(element e, const std::string& path) {
    if (!e.is_string() || !is_name(e.get_string().value_unsafe())) {
      error(path, "must be a name of 1 to 64 characters a-z, 0-9, _, - or ., got " + shown(e));
      return std::nullopt;
    }
    return std::string(e.get_string().value_unsafe());
  }

  std::optional<int64_t> integer_at(element e, const std::string& path, int64_t max) {
    if (!e.is_int64() || e.get_int64().value_unsafe() < 1 || e.get_int64().value_unsafe() > max) {
      error(path, "must be an integer from 1 to " + std::to_string(max) + ", got " + shown(e));
      return std::nullopt;
    }
    return e.get_int64().value_unsafe();
  }

  SuiteConfig config_at(element e, const std::string& path) {
    SuiteConfig config;
    if (!object_at(e, path, kConfigFields)) return config;
    auto object = object_of(e);
    if (auto caches = object["caches"]; caches.error() == simdjson::SUCCESS) {
      const std::string cpath = path + ".caches";
      if (object_at(caches.value_unsafe(), cpath, kCacheNames)) {
        for (auto field : object_of(caches.value_unsafe())) {
          if (!listed(kCacheNames, field.key)) continue;
          const std::string one = cpath + "." + std::string(field.key);
          if (!object_at(field.value, one, kCacheFields)) continue;
          auto geometry = object_of(field.value);
          CacheOverride cache;
          auto size = geometry["size"];
          auto ways = geometry["associativity"];
          if (size.error() || ways.error()) {
            error(one, "must give both size and associativity");
            continue;
          }
          auto s = integer_at(size.value_unsafe(), one + ".size", kMaxCacheBytes);
          auto w = integer_at(ways.value_unsafe(), one + ".associativity", kMaxAssociativity);
          if (s && w) config.caches[std::string(field.key)] = {*s, *w};
        }
      }
    }
    if (auto defines = object["defines"]; defines.error() == simdjson::SUCCESS) {
      const std::string dpath = path + ".defines";
      if (!defines.value_unsafe().is_array()) {
        error(dpath, "must be a list of defines, got " + shown(defines.value_unsafe()));
      } else {
        auto list = array_of(defines.value_unsafe());
        if (list.size() > kMaxExpertDefines)
          error(dpath, "must hold at most " + std::to_string(kMaxExpertDefines) + " defines");
        size_t i = 0;
        for (element d : list) {
          const std::string one = dpath + "[" + std::to_string(i++) + "]";
          if (!d.is_string() || !is_define(d.get_string().value_unsafe()))
            error(one, "must be an UPPER_SNAKE_CASE define of at most 64 characters, got " + shown(d));
          else
            config.defines.emplace_back(d.get_string().value_unsafe());
        }
      }
    }
    std::sort(config.defines.begin(), config.defines.end());
    config.defines.erase(std::unique(config.defines.begin(), config.defines.end()),
                         config.defines.end());
    return config;
  }

  // The adapter's configuration rules (REQ-EVAL-1): what the plan parser would refuse, and
  // the way rule of cores whose L1 caches may not out-way their L1.5.
  void check_config_rules(const SuiteConfig& config, Core core, const std::string& path) {
    RunSpec probe;
    probe.core = core;
    probe.workloads = {"probe.S"};
    Plan plan = parse_plan(config_plan_reply(probe, config));
    for (const auto& reason : plan.skip_reasons) error(path, "the plan parser refuses it: " + reason);
    if (core != Core::ariane) return;
    int64_t l15 = config.caches.contains("l15") ? config.caches.at("l15").associativity
                                                 : kDefaultL15Ways;
    for (std::string_view l1 : {"l1d", "l1i"}) {
      auto it = config.caches.find(std::string(l1));
      if (it != config.caches.end() && it->second.associativity > l15)
        error(path + ".caches." + std::string(l1),
              std::string(l1) + " has " + std::to_string(it->second.associativity) +
                  " ways, more than the L1.5's " + std::to_string(l15) +
                  " (way_rule: ariane cannot build it)");
    }
  }

  std::optional<Fault> fault_at(element e, const std::string& path) {
    if (!object_at(e, path, kFaultFields)) return std::nullopt;
    auto object = object_of(e);
    Fault fault;
    bool ok = true;
    if (auto name = object["name"]; name.error()) {
      error(path + ".name", "is required");
      ok = false;
    } else if (auto n = name_at(name.value_unsafe(), path + ".name")) {
      fault.name = *n;
    } else {
      ok = false;
    }
    if (auto kind = object["kind"]; kind.error()) {
      error(path + ".kind", "is required (config or source)");
      ok = false;
    } else if (auto known = kind.value_unsafe().is_string()
                                ? enum_from_string<FaultKind>(kind.value_unsafe().get_string().value_unsafe())
                                : std::nullopt) {
      fault.kind = *known;
    } else {
      error(path + ".kind", "must be config or source, got " + shown(kind.value_unsafe()));
      ok = false;
    }
    if (auto description = object["description"]; description.error() == simdjson::SUCCESS) {
      element d = description.value_unsafe();
      std::optional<std::string> problem;
      if (!d.is_string() || d.get_string().value_unsafe().size() > kMaxDescriptionBytes ||
          (problem = unprintable_text_problem(d.get_string().value_unsafe(), TextKind::line))) {
        error(path + ".description",
              problem ? *problem : "must be printable text of at most 1024 bytes");
        ok = false;
      } else {
        fault.description = std::string(d.get_string().value_unsafe());
      }
    }
    ok = read_cores(object, path, fault) && ok;
    ok = read_meshes(object, path, fault) && ok;
    auto config = object["config"];
    auto edits = object["edits"];
    if (fault.kind == FaultKind::config) {
      if (edits.error() == simdjson::SUCCESS) {
        error(path + ".edits", "a config fault changes no source: give config instead");
        ok = false;
      }
      if (config.error()) {
        error(path + ".config", "is required for a config fault");
        ok = false;
      } else {
        size_t before = errors.size();
        fault.config = config_at(config.value_unsafe(), path + ".config");
        if (errors.size() != before) ok = false;
        if (ok && fault.config.caches.empty() && fault.config.defines.empty()) {
          error(path + ".config", "changes nothing: give caches or defines");
          ok = false;
        }
      }
    } else {
      if (config.error() == simdjson::SUCCESS) {
        error(path + ".config", "a source fault changes no configuration: give edits instead");
        ok = false;
      }
      if (edits.error()) {
        error(path + ".edits", "is required for a source fault");
        ok = false;
      } else {
        ok = read_edits(edits.value_unsafe(), path + ".edits", fault) && ok;
      }
    }
    if (!ok) return std::nullopt;
    return fault;
  }

  bool read_cores(simdjson::dom::object object, const std::string& path, Fault& fault) {
    const auto cores = list_within(object, "cores", 1, 4);
    if (!cores) {
      error(path + ".cores", "must list the 1 to 4 cores the fault breaks");
      return false;
    }
    return read_each(*cores, path + ".cores", [&](element c, const std::string& one) {
      std::optional<Core> core;
      if (c.is_string()) core = core_from_string(c.get_string().value_unsafe());
      if (!core) {
        error(one, "must be one of ariane, sparc, pico, generic, got " + shown(c));
        return false;
      }
      fault.cores.push_back(*core);
      return true;
    });
  }

  bool read_meshes(simdjson::dom::object object, const std::string& path, Fault& fault) {
    const auto meshes = list_within(object, "meshes", 1, 64);
    if (!meshes) {
      error(path + ".meshes", "must list the 1 to 64 meshes [x, y] the fault breaks");
      return false;
    }
    return read_each(*meshes, path + ".meshes", [&](element m, const std::string& one) {
      if (!m.is_array() || array_of(m).size() != 2) {
        error(one, "must be [x, y], got " + shown(m));
        return false;
      }
      auto xy = array_of(m);
      auto x = integer_at(xy.at(0).value_unsafe(), one + "[0]", 256);
      auto y = integer_at(xy.at(1).value_unsafe(), one + "[1]", 256);
      if (!x || !y) return false;
      fault.meshes.push_back({static_cast<int>(*x), static_cast<int>(*y)});
      return true;
    });
  }

  bool read_edits(element e, const std::string& path, Fault& fault) {
    const auto edits = list_within(e, 1, kMaxFaultEdits);
    if (!edits) {
      error(path, "must list 1 to " + std::to_string(kMaxFaultEdits) + " edits");
      return false;
    }
    return read_each(*edits, path, [&](element edit, const std::string& one) {
      if (!object_at(edit, one, kEditFields)) return false;
      auto object = object_of(edit);
      FaultEdit out;
      auto text = [&](std::string_view key, std::string& into, bool need_non_empty) {
        auto v = object[key];
        const std::string field = one + "." + std::string(key);
        if (v.error() || !v.value_unsafe().is_string()) {
          error(field, "must be a string");
          return false;
        }
        std::string_view s = v.value_unsafe().get_string().value_unsafe();
        if ((need_non_empty && s.empty()) || s.size() > kMaxFaultEditTextBytes ||
            s.find('\0') != std::string_view::npos) {
          error(field, "must be " + std::string(need_non_empty ? "non-empty " : "") +
                           "text of at most " + std::to_string(kMaxFaultEditTextBytes) +
                           " bytes without NUL");
          return false;
        }
        into = std::string(s);
        return true;
      };
      bool good = text("path", out.path, true) && text("old", out.old_text, true) &&
                  text("new", out.new_text, false);
      if (good && (!out.path.starts_with("piton/design/") || out.path.find("..") != std::string::npos ||
                   out.path.find('\\') != std::string::npos)) {
        error(one + ".path", "must be a relative path under piton/design/ without '..', got " +
                                 quoted_for_display(out.path, 60));
        good = false;
      }
      if (good && out.old_text == out.new_text) {
        error(one + ".new", "must differ from old");
        good = false;
      }
      if (good) fault.edits.push_back(std::move(out));
      return good;
    });
  }

  std::optional<SuiteTask> task_at(element e, const std::string& path) {
    if (!object_at(e, path, kTaskFields)) return std::nullopt;
    auto object = object_of(e);
    size_t before = errors.size();
    SuiteTask task;
    if (auto id = object["id"]; id.error()) error(path + ".id", "is required");
    else if (auto n = name_at(id.value_unsafe(), path + ".id")) task.id = *n;
    if (auto spec = object["spec"]; spec.error()) {
      error(path + ".spec", "is required (a run specification)");
    } else if (!spec.value_unsafe().is_object()) {
      error(path + ".spec", "must be a run specification object, got " + shown(spec.value_unsafe()));
    } else {
      SpecParseResult parsed = parse_run_spec_json(simdjson::minify(spec.value_unsafe()));
      for (const auto& err : parsed.errors)
        error(err.path.empty() ? path + ".spec" : path + ".spec." + err.path, err.message);
      if (parsed.spec) task.spec = *parsed.spec;
    }
    if (auto expert = object["expert"]; expert.error()) {
      error(path + ".expert", "is required (the configuration an expert would choose)");
    } else {
      size_t at = errors.size();
      task.expert = config_at(expert.value_unsafe(), path + ".expert");
      if (errors.size() == at && errors.size() == before)
        check_config_rules(task.expert, task.spec.core, path + ".expert");
    }
    if (auto area = object["area_budget"]; area.error() == simdjson::SUCCESS) {
      element a = area.value_unsafe();
      if (!a.is_number() || a.is_bool() || !(a.get_double().value_unsafe() > 0) ||
          !std::isfinite(a.get_double().value_unsafe()) || a.get_double().value_unsafe() > 1e9)
        error(path + ".area_budget", "must be a number above 0 and at most 1e9, got " + shown(a));
      else
        task.area_budget = a.get_double().value_unsafe();
    }
    if (auto faults = object["faults"]; faults.error() == simdjson::SUCCESS) {
      const auto names = list_within(faults.value_unsafe(), 0, kMaxFaultsPerTask);
      if (!names) {
        error(path + ".faults", "must list at most " + std::to_string(kMaxFaultsPerTask) +
                                    " fault names");
      } else {
        size_t i = 0;
        for (element name : *names)
          if (auto n = name_at(name, path + ".faults[" + std::to_string(i++) + "]"))
            task.faults.push_back(*n);
      }
    }
    if (errors.size() != before) return std::nullopt;
    return task;
  }
};

}  // namespace

std::string_view to_string(FaultKind kind) {
  switch (kind) {
    case FaultKind::config: return "config";
    case FaultKind::source: return "source";
  }
  return "";
}

const Fault* Suite::fault(std::string_view name) const {
  for (const auto& f : faults)
    if (f.name == name) return &f;
  return nullptr;
}

const SuiteTask* Suite::task(std::string_view id) const {
  for (const auto& t : tasks)
    if (t.id == id) return &t;
  return nullptr;
}

SuiteParseResult parse_suite_json(std::string_view json) {
  SuiteParseResult result;
  if (auto problem = json_document_problem(json, "a suite", kMaxSuiteJsonBytes)) {
    result.errors.push_back({"", std::move(*problem)});
    return result;
  }
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json);
  element root;
  if (auto error = parser.parse(padded).get(root)) {
    result.errors.push_back({"", invalid_json_message(json, simdjson::error_message(error))});
    return result;
  }
  Reader r;
  Suite suite;
  if (!r.object_at(root, "", kTopFields)) return {std::nullopt, std::move(r.errors)};
  auto object = object_of(root);
  if (auto name = object["suite"]; name.error()) r.error("suite", "is required (the suite's name)");
  else if (auto n = r.name_at(name.value_unsafe(), "suite")) suite.name = *n;

  if (auto faults = object["faults"]; faults.error() == simdjson::SUCCESS) {
    const auto listed_faults = list_within(faults.value_unsafe(), 0, kMaxSuiteFaults);
    if (!listed_faults) {
      r.error("faults", "must be a list of at most " + std::to_string(kMaxSuiteFaults) + " faults");
    } else {
      size_t i = 0;
      std::set<std::string> names;
      for (element fault : *listed_faults) {
        const std::string path = "faults[" + std::to_string(i++) + "]";
        auto read = r.fault_at(fault, path);
        if (!read) continue;
        if (!names.insert(read->name).second)
          r.error(path + ".name", "repeats the fault \"" + read->name + "\"");
        else
          suite.faults.push_back(std::move(*read));
      }
    }
  }

  const auto tasks = list_within(object, "tasks", 1, kMaxSuiteTasks);
  if (!tasks) {
    r.error("tasks", "must be a list of 1 to " + std::to_string(kMaxSuiteTasks) + " tasks");
  } else {
    size_t i = 0;
    std::set<std::string> ids;
    for (element task : *tasks) {
      const std::string path = "tasks[" + std::to_string(i++) + "]";
      auto read = r.task_at(task, path);
      if (!read) continue;
      if (!ids.insert(read->id).second) {
        r.error(path + ".id", "repeats the task \"" + read->id + "\"");
        continue;
      }
      for (size_t k = 0; k < read->faults.size(); ++k)
        if (!suite.fault(read->faults[k]))
          r.error(path + ".faults[" + std::to_string(k) + "]",
                  "names no fault of the suite: \"" + read->faults[k] + "\"");
      suite.tasks.push_back(std::move(*read));
    }
  }
  if (!r.errors.empty()) return {std::nullopt, std::move(r.errors)};
  result.suite = std::move(suite);
  return result;
}

bool fault_applies(const Fault& fault, const SuiteTask& task) {
  if (std::find(task.faults.begin(), task.faults.end(), fault.name) == task.faults.end())
    return false;
  if (std::find(fault.cores.begin(), fault.cores.end(), task.spec.core) == fault.cores.end())
    return false;
  MeshShape mesh{task.spec.mesh_x, task.spec.mesh_y};
  return std::find(fault.meshes.begin(), fault.meshes.end(), mesh) != fault.meshes.end();
}

SuiteConfig with_fault(const SuiteConfig& base, const Fault& fault) {
  SuiteConfig out = base;
  if (fault.kind != FaultKind::config) return out;
  for (const auto& [name, cache] : fault.config.caches) out.caches[name] = cache;
  out.defines.insert(out.defines.end(), fault.config.defines.begin(), fault.config.defines.end());
  std::sort(out.defines.begin(), out.defines.end());
  out.defines.erase(std::unique(out.defines.begin(), out.defines.end()), out.defines.end());
  return out;
}

std::string config_plan_reply(const RunSpec& spec, const SuiteConfig& config) {
  if (config.caches.empty() && config.defines.empty()) return direct_plan_reply(spec);
  std::string reply = "TASK: build | deps= | kind=config | Build the ";
  reply += to_string(spec.core);
  reply += " " + std::to_string(spec.mesh_x) + "x" + std::to_string(spec.mesh_y);
  reply += " mesh with the configuration below and run " + joined(spec.workloads) + "\n";
  if (!config.caches.empty()) {
    reply += "CACHES: build |";
    for (const auto& [name, cache] : config.caches)
      reply += " " + name + "=" + std::to_string(cache.size) + "," + std::to_string(cache.associativity);
    reply += "\n";
  }
  if (!config.defines.empty()) {
    reply += "CONFIG_RTL: build |";
    for (const auto& define : config.defines) reply += " " + define;
    reply += "\n";
  }
  return reply;
}

}  // namespace mace::eval
