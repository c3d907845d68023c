#include "eval/job_instructions.h"

#include <simdjson.h>

#include "core/enum_text.h"
#include "core/json_writer.h"

namespace mace::eval {

std::string to_json(const JobInstructions& in) {
  JsonWriter w;
  w.begin_object();
  w.field("method", to_string(in.method));
  w.field("keep_models", in.keep_models);
  w.field("plan_reply", in.plan_reply);
  w.field("fault", in.fault);
  w.field("fault_kind", in.fault_kind ? to_string(*in.fault_kind) : std::string_view(""));
  w.key("fault_edits").begin_array();
  for (const auto& e : in.fault_edits) {
    w.begin_object();
    w.field("path", e.path);
    w.field("old", e.old_text);
    w.field("new", e.new_text);
    w.end_object();
  }
  w.end_array();
  w.key("fault_config").begin_object();
  w.key("caches").begin_object();
  for (const auto& [name, cache] : in.fault_config.caches) {
    w.key(name).begin_object();
    w.field("size", cache.size).field("associativity", cache.associativity);
    w.end_object();
  }
  w.end_object();
  w.key("defines").begin_array();
  for (const auto& d : in.fault_config.defines) w.value(d);
  w.end_array();
  w.end_object();
  w.field("baseline_retries", in.baseline_retries);
  w.field("area_budget", in.area_budget);
  w.end_object();
  return w.take();
}

std::optional<JobInstructions> instructions_from_json(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json);
  simdjson::dom::element root;
  if (parser.parse(padded).get(root)) return std::nullopt;
  JobInstructions in;
  std::string_view method, plan, fault, kind;
  if (root["method"].get(method) || root["plan_reply"].get(plan) || root["fault"].get(fault) ||
      root["fault_kind"].get(kind) || root["keep_models"].get(in.keep_models) ||
      root["baseline_retries"].get(in.baseline_retries) || root["area_budget"].get(in.area_budget))
    return std::nullopt;
  auto m = eval_method_from_string(method);
  if (!m) return std::nullopt;
  in.method = *m;
  in.plan_reply = std::string(plan);
  in.fault = std::string(fault);
  if (!kind.empty()) {
    in.fault_kind = enum_from_string<FaultKind>(kind);
    if (!in.fault_kind) return std::nullopt;
  }
  simdjson::dom::array edits;
  if (root["fault_edits"].get(edits)) return std::nullopt;
  for (auto e : edits) {
    std::string_view path, old_text, new_text;
    if (e["path"].get(path) || e["old"].get(old_text) || e["new"].get(new_text)) return std::nullopt;
    in.fault_edits.push_back({std::string(path), std::string(old_text), std::string(new_text)});
  }
  simdjson::dom::object caches;
  simdjson::dom::array defines;
  if (root["fault_config"]["caches"].get(caches) || root["fault_config"]["defines"].get(defines))
    return std::nullopt;
  for (auto field : caches) {
    CacheOverride cache;
    if (field.value["size"].get(cache.size) || field.value["associativity"].get(cache.associativity))
      return std::nullopt;
    in.fault_config.caches[std::string(field.key)] = cache;
  }
  for (auto d : defines) {
    std::string_view define;
    if (d.get(define)) return std::nullopt;
    in.fault_config.defines.emplace_back(define);
  }
  return in;
}

}  // namespace mace::eval
