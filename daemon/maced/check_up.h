#pragma once
// Whether this machine can do what maced is configured to do, each finding with its fix:
// the checkouts, the programs builds and simulations run, the workloads, the room left on
// disk, the Slurm nodes, the LLM backends' credentials (`mace doctor`, docs/client.md).
// maced checks its checkouts the same way when it starts and leaves out of its pool every
// checkout with a failure, saying why, so no run is ever given one.

#include <map>
#include <string>
#include <vector>

#include "core/check_finding.h"
#include "maced/command_line.h"
#include "maced/config.h"

namespace mace {

// Each configured checkout's findings (one `ok` finding for a checkout with nothing to
// say), as check_up has them. Reads files and asks `verilator --version`; quick enough for
// maced's start.
std::vector<CheckFinding> check_checkouts(const MacedConfig& config);

// Every finding: maced itself, the programs, the checkouts, the workloads, the disk, the
// Slurm nodes (executor "slurm"), the LLM backends. Runs commands (`--version`s, sinfo, a
// CLI's auth status), each with a timeout: call it off the event loop.
std::vector<CheckFinding> check_up(const MacedConfig& config, const MacedOptions& options);

// The checkouts maced must not lease, by path, each with why: those with a failure among
// `findings`.
std::map<std::string, std::string> refused_checkouts(const std::vector<CheckFinding>& findings);

}  // namespace mace
