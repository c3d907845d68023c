#pragma once
// `executor` in maced's configuration: where checkouts run their builds and simulations.
//
//   "executor": {"kind": "local"}                     every checkout is on maced's machine
//   "executor": {"kind": "local", "dispatch": "batches", "infrastructure_retries": 3}
//   "executor": {"kind": "slurm", "slurm": {          each checkout's work runs on its node
//       "partition": "piton", "account": "arch", "qos": "normal",
//       "gres": "openpiton:1",
//       "build":    {"cpus": 4, "memory_mb": 12000, "time_limit_min": 240},
//       "simulate": {"cpus": 1, "memory_mb": 2000},
//       "cores": {"sparc": {"build": {"cpus": 8, "memory_mb": 24000}}},
//       "srun_options": ["--exclusive"],
//       "pending_limit_s": 600, "cleanup_limit_s": 120,
//       "bin_dir": "/usr/bin", "environment": {"SLURM_CONF": "/etc/slurm/slurm.conf"}}}
//
// `dispatch` is how a level's tasks go onto the checkouts when a run spec does not say
// ("queue", the default, or "batches"; core/dispatch.h); `infrastructure_retries` how often
// one task lost to the infrastructure (its node failed) runs again on another checkout
// before its run ends (0 to 20, default 3). `parallel_workloads` is the most gate workloads
// of one task simulating side by side when a spec does not say (0, the default: the task's
// share of the machine's CPUs; 1: one after another, as before).
//
// With Slurm, every checkout names its node (`checkouts[i].node`), which must be a Slurm
// node name; the checkout's path must be the same on that node and on maced's machine.

#include <cstdint>
#include <string_view>

#include <simdjson.h>

#include "core/dispatch.h"
#include "core/field_error.h"
#include "slurm/slurm_settings.h"

namespace mace {

struct ExecutorConfig {
  enum class Kind { local, slurm };
  Kind kind = Kind::local;
  Dispatch dispatch = Dispatch::queue;
  int infrastructure_retries = 3;
  std::int64_t parallel_workloads = 0;
  // When kind is slurm. maced sets `instance` itself at start (from its state directory).
  slurm::SlurmSettings slurm;
};

void read_executor(simdjson::dom::element value, ExecutorConfig& executor, FieldErrors& errors);

// Why `node` cannot be a Slurm node name (letters, digits, '.', '_', '-'; at most 64), or
// "" when it can.
std::string slurm_node_problem(std::string_view node);

}  // namespace mace
