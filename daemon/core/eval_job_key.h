#pragma once
// What an evaluation job is: its place in its batch and what it tries. The job's record in
// the store, every run it made and its outcome in the results all carry it.

#include <cstdint>
#include <string>

#include "core/eval_method.h"

namespace mace {

struct EvalJobKey {
  std::string batch_id;
  int64_t position = 0;  // 0, 1, ...: the order the batch runs its jobs
  EvalMethod method = EvalMethod::mace;
  std::string task_id;
  std::string fault;  // a fault check's or seeded-fault job's fault; "" otherwise
  int64_t repeat = 0;
  int64_t seed = 0;
};

}  // namespace mace
