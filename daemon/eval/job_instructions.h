#pragma once
// What a job's run is told beyond its run spec, recorded with the run (eval_runs) and read
// back by it when it starts: its method, the fixed plan of a fault check, the fault and its
// edits, whether to keep model directories, the baseline's retries.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "eval/batch_plan.h"
#include "eval/suite.h"

namespace mace::eval {

struct JobInstructions {
  Method method = Method::mace;
  bool keep_models = false;
  // fault_check: the plan reply that builds the expert configuration (a config fault
  // already laid over it). Empty for the other methods.
  std::string plan_reply;
  std::string fault;
  std::optional<FaultKind> fault_kind;
  std::vector<FaultEdit> fault_edits;  // a source fault's
  SuiteConfig fault_config;            // seeded_fault: a config fault's caches and defines
  int64_t baseline_retries = 0;        // baseline_retry only
  double area_budget = 0;              // codesign_llm: the task's, in the area model's units
  bool operator==(const JobInstructions&) const = default;
};

std::string to_json(const JobInstructions& instructions);
// nullopt when the text is not what to_json writes (a store edited by hand, say).
std::optional<JobInstructions> instructions_from_json(std::string_view json);

}  // namespace mace::eval
