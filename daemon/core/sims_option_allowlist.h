#pragma once
// The sims options a run spec may give a workload (`workload_args.<program>.options`).
//
// Why an allowlist: maced runs sims as its own user, for runs submitted by any member of
// its group. sims (piton/tools/src/sims/sims,2.0) pastes option values into shell commands
// (call_program, `open("$cmd 2>&1 |")`), reads its options from a file another option
// names (-sims_config), runs programs options name (-pre_process_cmd, -sim_q_command,
// -other_sim_run_cmd, midas' -<tool>_cmd), opens files options name for writing
// (-simslog_name, -jobcommand_name) and runs a simulator from a directory an option names
// (-model, -model_dir). No list of what is dangerous can be trusted to be complete, so
// only what is known to be safe is allowed, each value checked: the options OpenPiton's
// diag lists give diags that only tune the assembly or the simulation. Every allowed form
// is made of letters, digits, '_', '=', '+' and '-' only, so none can be a path, a second
// shell word or a shell construct. sims_option_allowlist.cc says, entry by entry, why each
// is safe.

#include <optional>
#include <string>
#include <string_view>

namespace mace {

// Why sims must not be given `option` (one argv element, e.g. "-midas_args=-DFOO=1"),
// naming the option; nullopt when it may.
std::optional<std::string> sims_option_problem(std::string_view option);

// The allowed forms, for messages and the README: "-midas_args=..., -sim_run_args=+...".
std::string allowed_sims_options();

}  // namespace mace
