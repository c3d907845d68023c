#include "maced/config.h"

#include <set>

#include <simdjson.h>

#include "core/joined.h"
#include "core/run_spec.h"
#include "llm/pricing.h"

namespace mace {
namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

bool is_known_backend(std::string_view name) {
  for (auto known : kBackendNames)
    if (known == name) return true;
  return false;
}

// Reports unknown and duplicate keys of `obj` at `path`.
void check_keys(object obj, const std::string& path, std::initializer_list<std::string_view> allowed,
                FieldErrors& errors) {
  std::set<std::string_view> seen;
  for (auto [key, value] : obj) {
    (void)value;
    std::string where = path.empty() ? std::string(key) : path + "." + std::string(key);
    bool known = false;
    for (auto a : allowed) known |= (a == key);
    if (!known) {
      errors.push_back({where, "unknown field; expected one of: " + joined(allowed)});
    } else if (!seen.insert(key).second) {
      errors.push_back({where, "given more than once"});
    }
  }
}

std::optional<std::string> string_field(object obj, std::string_view key, const std::string& path,
                                        FieldErrors& errors) {
  element value;
  if (obj.at_key(key).get(value)) return std::nullopt;
  std::string_view text;
  if (value.get(text) || text.empty()) {
    errors.push_back({path, "must be a non-empty string"});
    return std::nullopt;
  }
  return std::string(text);
}

}  // namespace

ConfigParseResult parse_maced_config(std::string_view json) {
  simdjson::dom::parser parser;
  element root;
  FieldErrors errors;
  if (auto error = parser.parse(json.data(), json.size()).get(root)) {
    return {std::nullopt, {{"", std::string("invalid JSON: ") + simdjson::error_message(error)}}};
  }
  object top;
  if (root.get(top)) return {std::nullopt, {{"", "must be a JSON object"}}};
  check_keys(top, "", {"checkouts", "llm"}, errors);

  MacedConfig config;
  element checkouts;
  if (!top.at_key("checkouts").get(checkouts)) {
    simdjson::dom::array list;
    if (checkouts.get(list)) {
      errors.push_back({"checkouts", "must be a list of {\"path\": ..., \"node\": ...}"});
    } else {
      size_t i = 0;
      std::set<std::string> paths;
      for (element entry : list) {
        std::string at = "checkouts[" + std::to_string(i++) + "]";
        object obj;
        if (entry.get(obj)) {
          errors.push_back({at, "must be an object with \"path\" and optional \"node\""});
          continue;
        }
        check_keys(obj, at, {"path", "node"}, errors);
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
  }

  element llm;
  if (!top.at_key("llm").get(llm)) {
    object obj;
    if (llm.get(obj)) {
      errors.push_back({"llm", "must be an object with \"backend\" and \"model\""});
    } else {
      check_keys(obj, "llm", {"backend", "model", "prices"}, errors);
      if (auto backend = string_field(obj, "backend", "llm.backend", errors)) {
        if (is_known_backend(*backend))
          config.llm_backend = *backend;
        else
          errors.push_back({"llm.backend", "must be one of " + joined(kBackendNames) +
                                               ", got \"" + *backend + "\""});
      }
      if (auto model = string_field(obj, "model", "llm.model", errors)) config.llm_model = *model;
      element prices;
      if (!obj.at_key("prices").get(prices)) {
        std::string raw = simdjson::minify(prices);
        std::string problem;
        llm::PriceTable table = llm::PriceTable::defaults();
        if (table.apply_overrides_json("{\"prices\":" + raw + "}", problem)) {
          config.llm_prices_json = raw;
        } else {
          // The table names the place inside its own document ("prices.m.input: ...").
          auto colon = problem.find(": ");
          if (colon == std::string::npos)
            errors.push_back({"llm.prices", problem});
          else
            errors.push_back({"llm." + problem.substr(0, colon), problem.substr(colon + 2)});
        }
      }
    }
  }
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
