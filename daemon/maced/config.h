#pragma once
// maced's configuration file (JSON; see docs/operating-maced.md):
//
//   {
//     "checkouts": [ {"path": "/srv/piton/a"}, {"path": "/srv/piton/b", "node": "local"} ],
//     "llm": { "backend": "vertex", "model": "gemini-2.5-flash",
//              "prices": { "gemini-2.5-flash": {"input": 0.30, "output": 2.50} },
//              "unreported_cost": {"policy": "estimate", "usd_per_call": 0.05} },
//     "tools": [ {"name": "logs", "description": "...",
//                 "methods": [ {"name": "grep", "description": "...",
//                               "parameters": {"type": "object", "properties": {...}},
//                               "command": ["/usr/local/bin/grep-logs", "--json"],
//                               "timeout_s": 60, "max_output_bytes": 65536} ]} ],
//     "replay": { "cache": ["build", "run"] },
//     "access": { "admin_group": "mace-admin", "others_see": "queue" },
//     "connections": { "max": 256, "idle_timeout_s": 600 },
//     "queue": { "max_runs_per_user": 100, "max_eval_jobs_per_user": 2000 }
//                                                        (maced/queue_config.h)
//     "executor": { "kind": "slurm", "slurm": { ... } }   (maced/executor_config.h)
//     "model_store": { "path": "/srv/shared/models", "max_mb": 51200 },
//     "compiler_cache": { "path": "/srv/shared/ccache", "max_mb": 10240 }
//                                                        (maced/cache_directory_config.h)
//     "evidence": { "path": "/srv/mace/runs", "max_mb": 10240, "max_log_mb": 64,
//                   "keep_recent_hours": 24 }            (maced/evidence_config.h)
//   }
//
// Every field is optional; unknown fields are errors so a typo never silently falls back
// to a default. Environment variables MACE_LLM and MACE_LLM_MODEL override `llm`.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/field_error.h"
#include "llm/cost_accounting.h"
#include "maced/connection_limits.h"
#include "maced/executor_config.h"
#include "maced/cache_directory_config.h"
#include "maced/evidence_config.h"
#include "service/caller.h"
#include "service/queue_limits.h"
#include "tools/command_tool.h"

namespace mace {

struct CheckoutConfig {
  std::string path;            // an OpenPiton checkout maced owns
  // The machine that holds it (REQ-EXEC-4): "local" for maced's own, else the Slurm node
  // whose jobs run its builds and simulations (executor.kind "slurm").
  std::string node = "local";
};

struct MacedConfig {
  std::vector<CheckoutConfig> checkouts;
  std::string llm_backend = "vertex";
  std::string llm_model;  // empty: the backend's default
  // `llm.prices`: per-model prices replacing the built-in table (daemon/llm/pricing.cc),
  // as JSON `{"<model>": {"input": x, "output": y, "thinking": z}}` (USD per million
  // tokens), already checked; empty: none.
  std::string llm_prices_json;
  // `llm.unreported_cost`: what a call whose vendor reports no cost counts toward max_usd
  // (llm/cost_accounting.h); by default such runs are refused at submit.
  llm::UnreportedCostPolicy unreported_cost;
  // `tools`: programs a run spec may name in its `tools` for its LLM calls (REQ-EXEC-7),
  // already checked (see daemon/tools/command_tool.h for how they run).
  std::vector<mace::tools::CommandToolConfig> tools;
  // `replay.cache`: the functions whose tagged calls a run caches when its spec's
  // `replay.cache` is unset (REQ-REPLAY-2). Builds and runs by default, so any run can be
  // replayed from the database (`mace replay`).
  std::vector<std::string> replay_cache = {"build", "run"};
  // `access`: who sees what of others' runs (service/caller.h). `admin_group` names a Unix
  // group whose members administer maced (read, cancel and replay every run) besides root
  // and maced's own user; empty: none.
  std::string admin_group;
  service::OthersSee others_see = service::OthersSee::queue;
  // `connections`: how many clients maced serves at once and how long one may sit idle
  // (maced/connection_limits.h).
  ConnectionLimits connections;
  // `queue`: how many runs and evaluation jobs one user may have queued
  // (maced/queue_config.h).
  service::QueueLimits queue;
  // `executor`: where the checkouts' builds and simulations run (maced/executor_config.h).
  ExecutorConfig executor;
  // `model_store`: finished models shared by checkouts, runs and nodes; `compiler_cache`:
  // the ccache directory models are compiled through (maced/cache_directory_config.h).
  CacheDirectoryConfig model_store{.enabled = true, .path = "", .max_mb = 20480};
  CacheDirectoryConfig compiler_cache{.enabled = true, .path = "", .max_mb = 5120};
  // `evidence`: where and how much of each run's logs it keeps (maced/evidence_config.h).
  EvidenceConfig evidence;
};

// The names of the configured tools, in configuration order: what a spec may name
// (service::ServiceSettings::tool_names).
std::vector<std::string> tool_names(const MacedConfig& config);

struct ConfigParseResult {
  std::optional<MacedConfig> config;
  FieldErrors errors;
};

ConfigParseResult parse_maced_config(std::string_view json);

// Applies MACE_LLM / MACE_LLM_MODEL, looked up through `getenv`-like `lookup`; an unknown
// backend name is an error naming the variable.
FieldErrors apply_environment(MacedConfig& config,
                              const std::function<const char*(const char*)>& lookup);

}  // namespace mace
