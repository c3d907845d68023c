#pragma once
// The rpc_frames fuzz target: bytes a client sends maced's socket, read by a connection set
// up exactly as maced sets up each client's (maced/client_connections.h: its message limits,
// its bootstrap capability, every method's dispatch into the run and evaluation services
// over a real SQLite store).

#include <string>
#include <string_view>
#include <vector>

namespace mace::fuzz {

// Writes `input` to one client connection, then ends the client's side, and reads whatever
// maced answers. Throws Violation when the connection is not closed within seconds of the
// client's end, or when maced still counts it as served after.
void check_rpc_frames(std::string_view input);

// Byte strings of the protocol for the mutator: the interface IDs maced's calls name.
std::vector<std::string> rpc_frames_dictionary();

}  // namespace mace::fuzz
