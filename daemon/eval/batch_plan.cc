#include "eval/batch_plan.h"

#include <simdjson.h>

#include "core/json_writer.h"
#include "os/sha256.h"

namespace mace::eval {

bool calls_llm(Method method) {
  return method == Method::baseline || method == Method::baseline_retry ||
         method == Method::codesign_llm;
}

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::string to_json(const BatchRequest& r) {
  JsonWriter w;
  w.begin_object();
  w.key("methods").begin_array();
  for (Method m : r.methods) w.value(to_string(m));
  w.end_array();
  w.field("repeats", r.repeats);
  w.field("seed", r.seed);
  w.field("keep_models", r.keep_models);
  w.field("baseline_retries", r.baseline_retries);
  w.field("backend", r.backend);
  w.field("model", r.model);
  w.end_object();
  return w.take();
}

std::optional<BatchRequest> request_from_json(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json);
  simdjson::dom::element root;
  if (parser.parse(padded).get(root)) return std::nullopt;
  BatchRequest r;
  simdjson::dom::array methods;
  std::string_view backend, model;
  if (root["methods"].get(methods) || root["repeats"].get(r.repeats) ||
      root["seed"].get(r.seed) || root["keep_models"].get(r.keep_models) ||
      root["baseline_retries"].get(r.baseline_retries) || root["backend"].get(backend) ||
      root["model"].get(model))
    return std::nullopt;
  for (auto m : methods) {
    std::string_view name;
    if (m.get(name)) return std::nullopt;
    auto method = eval_method_from_string(name);
    if (!method) return std::nullopt;
    r.methods.push_back(*method);
  }
  r.backend = std::string(backend);
  r.model = std::string(model);
  return r;
}

FieldErrors check_request(const BatchRequest& request) {
  FieldErrors errors;
  if (request.methods.empty()) errors.push_back({"methods", "must name at least one method"});
  for (size_t i = 0; i < request.methods.size(); ++i)
    for (size_t k = 0; k < i; ++k)
      if (request.methods[k] == request.methods[i])
        errors.push_back({"methods[" + std::to_string(i) + "]",
                          "repeats " + std::string(to_string(request.methods[i]))});
  if (request.repeats < 1 || request.repeats > kMaxRepeats)
    errors.push_back({"repeats", "must be an integer from 1 to " + std::to_string(kMaxRepeats) +
                                     ", got " + std::to_string(request.repeats)});
  if (request.baseline_retries < 1 || request.baseline_retries > kMaxBaselineRetries)
    errors.push_back({"baseline_retries", "must be an integer from 1 to " +
                                              std::to_string(kMaxBaselineRetries) + ", got " +
                                              std::to_string(request.baseline_retries)});
  return errors;
}

namespace {

// A job's seed: the batch seed and what the job is, hashed, so adding a method to a batch
// does not change the seeds of the other methods' jobs.
uint64_t job_seed(uint64_t batch_seed, const Job& job) {
  std::string text = std::to_string(batch_seed) + "/" + std::string(to_string(job.method)) + "/" +
                     job.task_id + "/" + job.fault + "/" + std::to_string(job.repeat);
  std::string hex = os::sha256_hex(text).substr(0, 15);
  return std::stoull(hex, nullptr, 16);
}

}  // namespace

std::vector<Job> plan_jobs(const Suite& suite, const BatchRequest& request) {
  std::vector<Job> jobs;
  for (Method method : request.methods) {
    for (const auto& task : suite.tasks) {
      for (int64_t repeat = 0; repeat < request.repeats; ++repeat) {
        if (method == Method::codesign || method == Method::codesign_llm) {
          // A task without an area budget has no co-design search.
          if (task.area_budget) jobs.push_back({0, method, task.id, "", repeat, 0});
          continue;
        }
        if (method != Method::fault_check && method != Method::seeded_fault) {
          jobs.push_back({0, method, task.id, "", repeat, 0});
          continue;
        }
        // A seeded-fault run changes a plan's configuration: config faults only.
        for (const auto& fault : suite.faults)
          if (fault_applies(fault, task) &&
              (method == Method::fault_check || fault.kind == FaultKind::config))
            jobs.push_back({0, method, task.id, fault.name, repeat, 0});
      }
    }
  }
  for (auto& job : jobs) job.seed = job_seed(request.seed, job);
  shuffle_by_seed(jobs, request.seed);
  for (size_t i = 0; i < jobs.size(); ++i) jobs[i].position = static_cast<int64_t>(i);
  return jobs;
}

}  // namespace mace::eval
