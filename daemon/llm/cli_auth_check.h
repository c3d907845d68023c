#pragma once
// Whether a CLI agent can authenticate, asked at submit so a run that cannot is refused
// with what to do, instead of ending at its first call (`Not logged in · Please run
// /login`). Only what can be known without a call to the vendor is checked:
//   claude    `claude auth status` (JSON, exit 1 when not logged in; reads the login state
//             and the environment, makes no network call)
//   opencode  the provider the model names (`anthropic/claude-…`): a key in the
//             environment, a credential in opencode's auth.json, or an apiKey in its
//             resolved configuration (`opencode debug config`). Providers MACE does not
//             know the key variable of, and a model that names no provider, pass.
//   antigravity  agy has no such command that works without a network call: not checked.
// A check that cannot run (the command fails, times out, prints what we cannot read)
// passes: it must never refuse a backend that works.

#include <map>
#include <optional>
#include <string>

namespace mace::llm {

// `environment` is the CLI's whole environment (HOME, keys).
std::optional<std::string> cli_auth_problem(const std::string& backend, const std::string& model,
                                            const std::string& executable,
                                            const std::map<std::string, std::string>& environment);

}  // namespace mace::llm
