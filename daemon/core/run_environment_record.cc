#include "core/run_environment_record.h"

#include <simdjson.h>

namespace mace {
namespace {

std::string field(simdjson::dom::element e, const char* key) {
  std::string_view v;
  return e[key].get_string().get(v) == simdjson::SUCCESS ? std::string(v) : std::string();
}

}  // namespace

const RunEnvironment::Checkout* RunEnvironment::checkout(const std::string& path) const {
  for (const auto& c : checkouts)
    if (c.path == path) return &c;
  return nullptr;
}

RunEnvironment read_run_environment(std::string_view json) {
  RunEnvironment env;
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (json.empty() || parser.parse(json.data(), json.size()).get(root) != simdjson::SUCCESS) return env;
  env.mace_version = field(root, "mace_version");
  env.mace_commit = field(root, "mace_commit");
  env.host = field(root, "host");
  env.backend = field(root, "backend");
  env.model = field(root, "model");
  simdjson::dom::array checkouts;
  if (root["checkouts"].get_array().get(checkouts) == simdjson::SUCCESS)
    for (simdjson::dom::element c : checkouts)
      env.checkouts.push_back({field(c, "path"), field(c, "commit"), field(c, "source_fingerprint"), field(c, "verilator")});
  return env;
}

}  // namespace mace
