#pragma once
// A connection to maced's socket for one command. Failing to connect, losing the daemon
// mid-command, or being turned away by it (too many connections) is "unreachable"
// (exit 3); a request maced refuses names its field (exit 2).

#include <functional>
#include <string>

#include <kj/async-io.h>

#include "mace.capnp.h"

namespace mace::client {

// Connects to maced and runs `body`; returns its exit code, or maps exceptions to exit
// codes with a message on stderr. `socket_path` is --socket's value; empty: MACE_SOCKET,
// else the first of the usual places that answers (maced_socket.h).
int with_maced(const std::string& socket_path,
               const std::function<int(api::Maced::Client&, kj::AsyncIoContext&)>& body);

// The socket the last with_maced connected to.
const std::string& connected_socket_path();

}  // namespace mace::client
