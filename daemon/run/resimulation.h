#pragma once
// REQ-EVAL-7: after a passed run with a build-only check, each design the run accepted is
// simulated on the model its build left, and each gate workload's verdict is kept.
//
// A config or workload task's design is its job again with simulation on: the same
// configuration and edits, so the build is the model already in the checkout (reused, not
// rebuilt). An rtl task's is rebuilt as a config task from the edits it applied, so no
// agent is asked again.

#include <functional>
#include <string>
#include <vector>

#include "loop/run_loop.h"
#include "run/recording_observer.h"
#include "store/eval_records.h"

namespace mace::run {

// The job that simulates `design`.
loop::TaskJob resimulation_job(const RecordingObserver::AcceptedDesign& design);

// Simulates every design on `runner`'s checkouts (as tasks of iteration `iteration`, as
// many at once as it has checkouts) and returns, per design, each of `workloads`' verdicts
// in order: `none` for one the runner did not get to (its build failed, the time ran out,
// the run was cancelled: `cancelled` says so).
std::vector<store::EvalResimulationRecord> resimulate_accepted(
    loop::TaskRunner& runner, int iteration,
    const std::vector<RecordingObserver::AcceptedDesign>& designs,
    const std::vector<std::string>& workloads, const std::function<bool()>& cancelled);

// "hello=pass memstress=timeout": a design's verdicts, for the run's log.
std::string verdicts_text(const store::EvalResimulationRecord& design);

}  // namespace mace::run
