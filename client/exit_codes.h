#pragma once
// mace's exit codes, for scripts (docs/client.md).

namespace mace::client {

inline constexpr int kExitOk = 0;           // done; for submit --watch / watch: the run passed
inline constexpr int kExitRunNotPassed = 1;  // the watched run ended in any state but passed
inline constexpr int kExitBadInput = 2;      // bad usage, an invalid spec, an unknown run
inline constexpr int kExitUnreachable = 3;   // maced could not be reached, or went away
inline constexpr int kExitDaemonError = 4;   // maced failed a well-formed request (its log says why)

}  // namespace mace::client
