#pragma once
// A task's line coverage, merged over its workloads (openpiton/coverage.h), into the run's
// record: the merged data and the annotated source kept with the run's evidence (its
// LogKeeper), the summary in the store (task_coverage), and a line in the run's log.

#include <cstdint>
#include <string>

#include "executor/task_calls.h"
#include "openpiton/coverage.h"
#include "run/log_keeper.h"
#include "run/run_recorder.h"

namespace mace::run {

void record_coverage(RunRecorder& recorder, LogKeeper& logs, const executor::TaskCallSite& site,
                     const openpiton::CoverageResult& coverage, int64_t now_ms);

// "lines 812 of 1040 (78.1%) over 3 workloads"; for the run's log and people.
std::string coverage_line(const openpiton::CoverageResult& coverage);

}  // namespace mace::run
