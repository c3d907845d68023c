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

#include <cstddef>
#include <functional>

#include "executor/task_calls.h"
#include "openpiton/simulator.h"

namespace mace::executor {

WorkloadCall run_gate_workloads(
    TaskCalls& calls, const TaskCallSite& site, const openpiton::SimulationRequest& request,
    const std::function<void(const openpiton::WorkloadRunResult& run)>& on_run = {},
    std::size_t at_once = 1);

}  // namespace mace::executor
