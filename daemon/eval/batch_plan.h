#pragma once
// The jobs of an evaluation batch: each method on every suite task it applies to, for the
// requested repeats, in an order shuffled by the batch's seed (REQ-EVAL-2). The same suite,
// methods, repeats and seed give the same jobs in the same order on every machine, so a
// batch can be re-created and compared.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/eval_method.h"
#include "core/field_error.h"
#include "eval/suite.h"

namespace mace::eval {

// The methods (core/eval_method.h), as the harness's domain names them.
using Method = EvalMethod;
// Whether a method calls an LLM (and so needs an LLM backend).
bool calls_llm(Method method);

inline constexpr int64_t kMaxRepeats = 100;
inline constexpr size_t kMaxBatchJobs = 2000;
inline constexpr int64_t kMaxBaselineRetries = 10;

struct BatchRequest {
  std::vector<Method> methods;
  int64_t repeats = 1;
  uint64_t seed = 0;
  bool keep_models = false;  // REQ-EVAL-4: keep the checkouts' mace_* model directories
  int64_t baseline_retries = 2;
  std::string backend;  // for the LLM methods and `mace`; empty: each task spec's own
  std::string model;
};

std::string to_json(const BatchRequest& request);
std::optional<BatchRequest> request_from_json(std::string_view json);

// Problems with the request itself (its field names as `mace eval submit` spells them).
FieldErrors check_request(const BatchRequest& request);

struct Job {
  int64_t position = 0;  // 0, 1, ...: the order the batch runs them
  Method method = Method::mace;
  std::string task_id;
  std::string fault;  // fault_check only
  int64_t repeat = 0;  // 0 .. repeats-1
  uint64_t seed = 0;   // the job's own, derived from the batch seed and the job
};

// Every job, shuffled. Throws nothing; an empty result means no method applies to any task
// (the caller refuses such a batch).
std::vector<Job> plan_jobs(const Suite& suite, const BatchRequest& request);

// Fisher-Yates driven by splitmix64 from `seed`: specified here rather than std::shuffle,
// whose algorithm the standard leaves to each library.
template <typename T>
void shuffle_by_seed(std::vector<T>& items, uint64_t seed);
uint64_t splitmix64(uint64_t& state);

template <typename T>
void shuffle_by_seed(std::vector<T>& items, uint64_t seed) {
  uint64_t state = seed;
  for (size_t i = items.size(); i > 1; --i) {
    size_t j = static_cast<size_t>(splitmix64(state) % i);
    std::swap(items[i - 1], items[j]);
  }
}

}  // namespace mace::eval
