#pragma once
// The facts of one recorded simulation that `mace repro` turns into a script
// (core/repro.h): which simulation of a run, chosen as a user names it, with its build, its
// RTL edits and where it ran. Reads only the store.

#include <cstdint>
#include <string>

#include "core/repro.h"
#include "store/store.h"

namespace mace::service {

struct ReproQuery {
  int64_t iteration = 0;  // 0: the newest that has a match
  std::string task_id;    // "": any task
  std::string workload;   // "": the first that did not pass
};

// The simulation `query` names in `run`: of the newest iteration that has one, the first
// task's (in plan order) result of the workload, or, without a workload, the first that did
// not pass. Throws RequestError naming the field when there is none, or when it was
// recorded before MACE kept command lines.
ReproFacts repro_facts(const store::Store& store, const store::RunRecord& run, const ReproQuery& query);

}  // namespace mace::service
