#pragma once
// What maced's configuration and command line make of the settings of the parts it wires
// together: the run service (what a submit is checked against), every run (workloads,
// tools, backends, caches, evidence), and the Slurm instance tag. Read once, at start.

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "evidence/evidence_archive.h"
#include "llm/tool_sessions.h"
#include "maced/command_line.h"
#include "maced/config.h"
#include "run/run_execution.h"
#include "service/checkout_pool.h"
#include "service/run_service.h"

namespace mace {

// The service's settings: defaults for a spec's backend and model, access, queue limits,
// and the checks a submit goes through (the backend usable, the tools declared, the gate
// workloads found).
service::ServiceSettings service_settings(const MacedConfig& config, const MacedOptions& options);

// What every run gets from maced. `socket_path` is where the CLI agents' `mace mcp`
// reaches maced; `sessions` holds the tools of the LLM calls in flight.
run::RunSettings run_settings(const MacedConfig& config, const MacedOptions& options,
                              const std::string& socket_path, llm::ToolSessions& sessions);

// Where each run keeps its own logs, and how much (`evidence`); relative paths are made
// absolute, since runs are started from other directories.
std::shared_ptr<const evidence::EvidenceArchive> evidence_archive(const MacedConfig& config,
                                                                  const MacedOptions& options);

// Tags this maced's Slurm jobs: the same for every maced with this state directory (and so
// this store), different for another maced on the same cluster.
std::string slurm_instance_of(const std::string& state_dir);

std::vector<service::PooledCheckout> pooled_checkouts(const MacedConfig& config);

// A directory of maced's: the configured one, else `name` in the state directory (the
// model store "models", the compiler cache "ccache", the evidence "runs").
std::filesystem::path under_state_dir_unless(const std::string& configured,
                                             const MacedOptions& options, const char* name);

}  // namespace mace
