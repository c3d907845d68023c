#include "maced/config.h"

#include <cctype>

#include <algorithm>
#include <chrono>
#include <set>

#include <simdjson.h>

#include "core/joined.h"
#include "core/run_spec.h"
#include "llm/pricing.h"
#include "maced/config_fields.h"
#include "maced/executor_config.h"
#include "core/json_syntax.h"
#include "maced/cache_directory_config.h"
#include "maced/evidence_config.h"
#include "maced/queue_config.h"

namespace mace {
namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;
using config_fields::check_keys;
using config_fields::limit_field;
using config_fields::object_with_keys;
using config_fields::required_string;
using config_fields::shown;
using config_fields::string_field;

bool is_known_backend(std::string_view name) {
  for (auto known : kBackendNames)
    if (known == name) return true;
  return false;
}

// A tool or method name: required, and one a run spec can spell (core/run_spec.h).
std::optional<std::string> name_field(object obj, const std::string& path, FieldErrors& errors) {
  element value;
  if (obj.at_key("name").get(value)) {
    errors.push_back({path, "is required"});
    return std::nullopt;
  }
  std::string_view text;
  if (value.get(text) || !is_tool_name(text)) {
    errors.push_back({path, "must be a lowercase letter, then lowercase letters, digits and _, "
                            "got " + shown(value)});
    return std::nullopt;
  }
  return std::string(text);
}

// The tools MACE itself offers some calls (daemon/tools/diagnostic_tools.h,
// rtl_edit_tool.h, testbench_tool.h). A call offering two tools of one name would give the
// model two functions of one name, so a configured tool may not take theirs.
bool is_builtin_tool_name(std::string_view name) {
  return name == "diagnostics" || name == "rtl_edit" || name.starts_with("ut_edit_");
}

void read_command(object obj, const std::string& path, tools::CommandMethodConfig& method,
                  FieldErrors& errors) {
  element value;
  if (obj.at_key("command").get(value)) {
    errors.push_back({path, "is required"});
    return;
  }
  simdjson::dom::array list;
  if (value.get(list) || list.size() == 0) {
    errors.push_back({path, "must be a non-empty list of strings: the program's absolute path, "
                            "then its arguments; got " + shown(value)});
    return;
  }
  size_t i = 0;
  for (element arg : list) {
    std::string at = path + "[" + std::to_string(i) + "]";
    std::string_view text;
    if (arg.get(text)) {
      errors.push_back({at, "must be a string, got " + shown(arg)});
    } else if (text.find('\0') != std::string_view::npos) {
      errors.push_back({at, "must not contain a NUL character"});
    } else if (i == 0 && (text.empty() || text[0] != '/')) {
      // maced's PATH is not the administrator's; a bare name would run whatever it finds.
      errors.push_back({at, "must be an absolute path, got " + shown(arg)});
    } else {
      method.command.emplace_back(text);
    }
    ++i;
  }
}

void read_method(element entry, const std::string& at, tools::CommandToolConfig& tool,
                 std::set<std::string>& names, FieldErrors& errors) {
  const auto method_object = object_with_keys(
      entry, at, {"name", "description", "parameters", "command", "timeout_s", "max_output_bytes"},
      errors, "with \"name\", \"description\", \"parameters\" and \"command\"");
  if (!method_object) return;
  const object obj = *method_object;
  size_t before = errors.size();
  tools::CommandMethodConfig method;
  if (auto name = name_field(obj, at + ".name", errors)) {
    if (!names.insert(*name).second)
      errors.push_back({at + ".name", "names method \"" + *name + "\" a second time"});
    method.name = *name;
  }
  if (auto description = required_string(obj, "description", at + ".description", errors))
    method.description = *description;
  element parameters;
  if (!obj.at_key("parameters").get(parameters)) {
    std::string_view type;
    if (!parameters.is_object() || parameters.at_key("type").get(type) || type != "object")
      errors.push_back({at + ".parameters",
                        "must be a JSON-schema object with \"type\": \"object\", got " +
                            shown(parameters)});
    else
      method.parameters_schema_json = simdjson::minify(parameters);
  }
  read_command(obj, at + ".command", method, errors);
  if (auto t = limit_field(obj, "timeout_s", at + ".timeout_s", tools::kDefaultToolTimeoutS,
                           tools::kMaxToolTimeoutS, "seconds", errors))
    method.timeout = std::chrono::seconds(*t);
  if (auto n = limit_field(obj, "max_output_bytes", at + ".max_output_bytes",
                           tools::kDefaultToolOutputBytes, tools::kMaxToolOutputBytes, "bytes",
                           errors))
    method.max_output_bytes = static_cast<size_t>(*n);
  if (errors.size() == before) tool.methods.push_back(std::move(method));
}

void read_tools(element value, MacedConfig& config, FieldErrors& errors) {
  simdjson::dom::array list;
  if (value.get(list)) {
    errors.push_back({"tools", "must be a list of {\"name\", \"description\", \"methods\"}"});
    return;
  }
  size_t i = 0;
  std::set<std::string> tool_names;
  for (element entry : list) {
    std::string at = "tools[" + std::to_string(i++) + "]";
    const auto tool_object = object_with_keys(entry, at, {"name", "description", "methods"}, errors);
    if (!tool_object) continue;
    const object obj = *tool_object;
    tools::CommandToolConfig tool;
    if (auto name = name_field(obj, at + ".name", errors)) {
      if (is_builtin_tool_name(*name))
        errors.push_back({at + ".name", "\"" + *name + "\" is the name of one of MACE's own tools "
                                        "(diagnostics, rtl_edit, ut_edit_*); choose another"});
      else if (!tool_names.insert(*name).second)
        errors.push_back({at + ".name", "names tool \"" + *name + "\" a second time"});
      tool.name = *name;
    }
    if (auto description = required_string(obj, "description", at + ".description", errors))
      tool.description = *description;
    element methods;
    simdjson::dom::array method_list;
    if (obj.at_key("methods").get(methods)) {
      errors.push_back({at + ".methods", "is required"});
    } else if (methods.get(method_list) || method_list.size() == 0) {
      errors.push_back({at + ".methods", "must be a non-empty list of methods, got " + shown(methods)});
    } else {
      size_t j = 0;
      std::set<std::string> method_names;
      for (element method : method_list)
        read_method(method, at + ".methods[" + std::to_string(j++) + "]", tool, method_names,
                    errors);
    }
    config.tools.push_back(std::move(tool));
  }
}

// `access`: the group of maced's administrators and what others see of a user's runs.
void read_access(element access, MacedConfig& config, FieldErrors& errors) {
  const auto section_object = config_fields::object_with_keys(access, "access", {"admin_group", "others_see"}, errors);
  if (!section_object) return;
  const object obj = *section_object;
  if (auto group = string_field(obj, "admin_group", "access.admin_group", errors)) {
    // A Unix group name: what groupadd accepts, so it can be looked up as written.
    const bool valid = !group->empty() && group->size() <= 32 &&
                       (std::islower(static_cast<unsigned char>((*group)[0])) || (*group)[0] == '_') &&
                       std::all_of(group->begin(), group->end(), [](char c) {
                         return std::islower(static_cast<unsigned char>(c)) ||
                                std::isdigit(static_cast<unsigned char>(c)) || c == '_' || c == '-';
                       });
    if (valid)
      config.admin_group = *group;
    else
      errors.push_back({"access.admin_group", "must be a Unix group name ([a-z_][a-z0-9_-]*, at "
                                              "most 32 characters), got \"" + *group + "\""});
  }
  if (auto others = string_field(obj, "others_see", "access.others_see", errors)) {
    if (*others == "queue")
      config.others_see = service::OthersSee::queue;
    else if (*others == "everything")
      config.others_see = service::OthersSee::everything;
    else
      errors.push_back({"access.others_see", "must be \"queue\" or \"everything\", got \"" +
                                                 *others + "\""});
  }
}

// `replay`: the functions runs cache by default; the same names and rules as a spec's
// `replay.cache`. Bypass is a run's own setting: a daemon-wide one would serve every run
// from one other run.
void read_replay(element replay, MacedConfig& config, FieldErrors& errors) {
  const auto section_object = config_fields::object_with_keys(replay, "replay", {"cache"}, errors);
  if (!section_object) return;
  const object obj = *section_object;
  element cache;
  if (obj.at_key("cache").get(cache)) return;
  simdjson::dom::array list;
  if (cache.get(list)) {
    errors.push_back({"replay.cache", "must be a list of " + joined(kReplayFunctions)});
    return;
  }
  config.replay_cache.clear();
  size_t i = 0;
  for (element entry : list) {
    std::string at = "replay.cache[" + std::to_string(i++) + "]";
    std::string_view name;
    bool known = false;
    if (!entry.get(name))
      for (std::string_view f : kReplayFunctions) known = known || f == name;
    if (!known) {
      errors.push_back({at, "must be one of " + joined(kReplayFunctions)});
      continue;
    }
    if (std::find(config.replay_cache.begin(), config.replay_cache.end(), name) !=
        config.replay_cache.end()) {
      errors.push_back({at, "lists \"" + std::string(name) + "\" a second time"});
      continue;
    }
    config.replay_cache.emplace_back(name);
  }
}

// `connections`: the limits on client connections (maced/connection_limits.h).
void read_connections(element value, MacedConfig& config, FieldErrors& errors) {
  const auto section_object = config_fields::object_with_keys(
      value, "connections", {"max", "idle_timeout_s", "max_per_user", "admin_reserve", "max_pending_mb_per_user"},
      errors);
  if (!section_object) return;
  const object obj = *section_object;
  if (auto n = limit_field(obj, "max", "connections.max", kDefaultMaxConnections,
                           kMaxMaxConnections, "connections", errors))
    config.connections.max_connections = static_cast<std::size_t>(*n);
  if (auto s = limit_field(obj, "idle_timeout_s", "connections.idle_timeout_s",
                           kDefaultIdleTimeoutS, kMaxIdleTimeoutS, "seconds", errors))
    config.connections.idle_timeout = std::chrono::seconds(*s);
  if (auto n = limit_field(obj, "max_per_user", "connections.max_per_user", kDefaultMaxConnectionsPerUser,
                           kMaxMaxConnections, "connections", errors))
    config.connections.max_per_user = static_cast<std::size_t>(*n);
  // The default reserve follows a small connections.max: a quarter of it at most.
  const bool reserve_given = obj.at_key("admin_reserve").error() == simdjson::SUCCESS;
  config.connections.admin_reserve =
      std::min<std::size_t>(kDefaultAdminReserve, config.connections.max_connections / 4);
  if (auto n = config_fields::integer_field(obj, "admin_reserve", "connections.admin_reserve",
                                            static_cast<int64_t>(config.connections.admin_reserve), 0,
                                            kMaxMaxConnections, "connections", errors);
      n && reserve_given)
    config.connections.admin_reserve = static_cast<std::size_t>(*n);
  if (auto mb = limit_field(obj, "max_pending_mb_per_user", "connections.max_pending_mb_per_user",
                            kDefaultMaxPendingMbPerUser, kMaxMaxPendingMbPerUser, "MiB", errors))
    config.connections.max_pending_bytes_per_user = static_cast<std::size_t>(*mb) << 20;
  // Everyone else must have a place too.
  if (config.connections.admin_reserve >= config.connections.max_connections)
    errors.push_back({"connections.admin_reserve", "must be below connections.max (" +
                                                       std::to_string(config.connections.max_connections) +
                                                       "), got " + std::to_string(config.connections.admin_reserve)});
}

// With Slurm, each checkout's node is where its work runs: it must name a Slurm node.
// Without it, every checkout is maced's own machine's: a node name would be ignored, and
// the checkout's work would run here while its owner thinks it runs there.
void check_checkout_nodes(const MacedConfig& config, FieldErrors& errors) {
  if (config.executor.kind != ExecutorConfig::Kind::slurm) {
    for (std::size_t i = 0; i < config.checkouts.size(); ++i)
      if (config.checkouts[i].node != "local")
        errors.push_back({"checkouts[" + std::to_string(i) + "].node",
                          "names a machine (\"" + config.checkouts[i].node.substr(0, 64) +
                              "\"), but executor.kind is \"local\": every checkout's work runs on maced's own "
                              "machine; leave the node out, or set executor.kind to \"slurm\""});
    return;
  }
  for (std::size_t i = 0; i < config.checkouts.size(); ++i)
    if (std::string problem = slurm_node_problem(config.checkouts[i].node); !problem.empty())
      errors.push_back({"checkouts[" + std::to_string(i) + "].node", problem});
}

void read_checkouts(element checkouts, MacedConfig& config, FieldErrors& errors) {
  simdjson::dom::array list;
  if (checkouts.get(list)) {
    errors.push_back({"checkouts", "must be a list of {\"path\": ..., \"node\": ...}"});
    return;
  }
  size_t i = 0;
  std::set<std::string> paths;
  for (element entry : list) {
    std::string at = "checkouts[" + std::to_string(i++) + "]";
    const auto checkout_object =
        object_with_keys(entry, at, {"path", "node"}, errors, "with \"path\" and optional \"node\"");
    if (!checkout_object) continue;
    const object obj = *checkout_object;
    CheckoutConfig checkout;
    auto path = string_field(obj, "path", at + ".path", errors);
    if (!path) {
      if (obj.at_key("path").error()) errors.push_back({at + ".path", "is required"});
      continue;
    }
    if ((*path)[0] != '/') {
      errors.push_back({at + ".path", "must be an absolute path, got \"" + *path + "\""});
      continue;
    }
    if (!paths.insert(*path).second) {
      errors.push_back({at + ".path", "lists \"" + *path + "\" a second time"});
      continue;
    }
    checkout.path = *path;
    if (auto node = string_field(obj, "node", at + ".node", errors)) checkout.node = *node;
    config.checkouts.push_back(std::move(checkout));
  }
}

// A SetupError of the LLM layer names its place before ": " inside the document it was
// given; `prefix` makes that place a path of this file, and `whole` is the path when it
// names none.
void push_setup_error(const llm::SetupError& e, const std::string& prefix, const std::string& whole,
                      FieldErrors& errors) {
  const std::string problem = e.what();
  const auto colon = problem.find(": ");
  if (colon == std::string::npos)
    errors.push_back({whole, problem});
  else
    errors.push_back({prefix + problem.substr(0, colon), problem.substr(colon + 2)});
}

void read_llm(element llm, MacedConfig& config, FieldErrors& errors) {
  const auto llm_object = object_with_keys(llm, "llm", {"backend", "model", "prices", "unreported_cost"},
                                           errors, "with \"backend\" and \"model\"");
  if (!llm_object) return;
  const object obj = *llm_object;
  if (auto backend = string_field(obj, "backend", "llm.backend", errors)) {
    if (is_known_backend(*backend))
      config.llm_backend = *backend;
    else
      errors.push_back({"llm.backend", "must be one of " + joined(kBackendNames) + ", got \"" +
                                           *backend + "\""});
  }
  if (auto model = string_field(obj, "model", "llm.model", errors)) config.llm_model = *model;
  element prices;
  if (!obj.at_key("prices").get(prices)) {
    std::string raw = simdjson::minify(prices);
    llm::PriceTable table = llm::PriceTable::defaults();
    try {
      table.apply_overrides_json("{\"prices\":" + raw + "}");
      config.llm_prices_json = raw;
    } catch (const llm::SetupError& e) {
      push_setup_error(e, "llm.", "llm.prices", errors);  // "prices.m.input: ..."
    }
  }
  element unreported;
  if (!obj.at_key("unreported_cost").get(unreported)) {
    try {
      config.unreported_cost = llm::UnreportedCostPolicy::from_json(simdjson::minify(unreported));
    } catch (const llm::SetupError& e) {
      push_setup_error(e, "", "llm.unreported_cost", errors);  // "llm.unreported_cost.policy: ..."
    }
  }
}

}  // namespace

std::vector<std::string> tool_names(const MacedConfig& config) {
  std::vector<std::string> names;
  for (const auto& tool : config.tools) names.push_back(tool.name);
  return names;
}

ConfigParseResult parse_maced_config(std::string_view json) {
  simdjson::dom::parser parser;
  element root;
  if (auto error = parser.parse(json.data(), json.size()).get(root)) {
    return {std::nullopt, {{"", invalid_json_message(json, simdjson::error_message(error))}}};
  }
  object top;
  if (root.get(top)) return {std::nullopt, {{"", "must be a JSON object"}}};
  FieldErrors errors;
  check_keys(top, "",
             {"checkouts", "llm", "tools", "replay", "access", "connections", "queue",
              "executor", "model_store", "compiler_cache", "evidence"},
             errors);
  MacedConfig config;
  // Each section that is there, read by its own reader; one left out keeps its defaults.
  auto section = [&top](const char* name, auto&& read) {
    element value;
    if (!top.at_key(name).get(value)) read(value);
  };
  section("checkouts", [&](element e) { read_checkouts(e, config, errors); });
  section("access", [&](element e) { read_access(e, config, errors); });
  section("llm", [&](element e) { read_llm(e, config, errors); });
  section("tools", [&](element e) { read_tools(e, config, errors); });
  section("replay", [&](element e) { read_replay(e, config, errors); });
  section("connections", [&](element e) { read_connections(e, config, errors); });
  section("queue", [&](element e) { read_queue_config(e, config.queue, errors); });
  section("executor", [&](element e) { read_executor(e, config.executor, errors); });
  section("model_store", [&](element e) {
    read_cache_directory(e, "model_store", config.model_store, errors);
  });
  section("compiler_cache", [&](element e) {
    read_cache_directory(e, "compiler_cache", config.compiler_cache, errors);
  });
  section("evidence", [&](element e) { read_evidence_config(e, config.evidence, errors); });
  check_checkout_nodes(config, errors);
  if (!errors.empty()) return {std::nullopt, std::move(errors)};
  return {std::move(config), {}};
}

FieldErrors apply_environment(MacedConfig& config,
                              const std::function<const char*(const char*)>& lookup) {
  FieldErrors errors;
  if (const char* backend = lookup("MACE_LLM"); backend && *backend) {
    if (is_known_backend(backend))
      config.llm_backend = backend;
    else
      errors.push_back({"MACE_LLM", "must be one of " + joined(kBackendNames) + ", got \"" +
                                        backend + "\""});
  }
  if (const char* model = lookup("MACE_LLM_MODEL"); model && *model) config.llm_model = model;
  return errors;
}

}  // namespace mace
