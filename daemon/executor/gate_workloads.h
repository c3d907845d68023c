#pragma once
// A task's gate workloads, one TaskCalls::run_workload call each, up to `at_once` of them
// simulating side by side on the task's model (each in its own run directory; nothing is
// shared but the read-only model), with exactly the serial outcome:
//
//   - results are taken in the spec's order, whatever order the simulations end in;
//   - stopping at the first failure (REQ-VER-1), the verdicts reported are those up to the
//     first that did not pass, and that one decides; simulations of later workloads still
//     running then are stopped (their own cancel token) and not reported;
//   - with run_every_workload, every verdict; the infrastructure, the budget's end and a
//     cancel still stop everything;
//   - `on_run` hears each taken result in order, on the calling thread.
//
// With at_once 1 it is the serial loop, one simulation after another, each given the
// request's own cancel token.
//
// Memory bounds them the way it bounds a build's compile jobs: once one simulation of the
// model is known to take F bytes at its peak (an earlier task's, or one of these that
// ended), no more start than the task's memory share holds, however many CPUs there are.

#include <cstddef>
#include <cstdint>
#include <functional>

#include "executor/task_calls.h"
#include "openpiton/simulator.h"

namespace mace::executor {

// How many of a task's simulations may run at once.
struct SideBySideLimit {
  std::size_t at_once = 1;  // the most; 1: one after another
  // What the task's simulations may take together, and what one simulation of the model
  // took at its peak (resident set); 0: not bounded, not known.
  std::int64_t memory_bytes = 0;
  std::int64_t footprint_bytes = 0;
};

// at_once, fewer when `footprint_bytes` simulations fill memory_bytes; at least 1.
std::size_t simulations_at_once(const SideBySideLimit& limit, std::int64_t footprint_bytes);

WorkloadCall run_gate_workloads(
    TaskCalls& calls, const TaskCallSite& site, const openpiton::SimulationRequest& request,
    const std::function<void(const openpiton::WorkloadRunResult& run)>& on_run = {},
    SideBySideLimit limit = {});

}  // namespace mace::executor
