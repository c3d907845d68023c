#pragma once
// A connection to maced's socket for one command. Failing to connect, losing the daemon
// mid-command, or being turned away by it (too many connections) is "unreachable"
// (exit 3); a request maced refuses names its field (exit 2).

#include <functional>
#include <string>

#include <kj/async-io.h>

#include "mace.capnp.h"

namespace mace::client {

// MACE_SOCKET, else $XDG_RUNTIME_DIR/maced/maced.sock when that exists, else
// /run/maced/maced.sock.
std::string default_socket_path();

// Connects to `socket_path` and runs `body`; returns its exit code, or maps exceptions
// to exit codes with a message on stderr.
int with_maced(const std::string& socket_path,
               const std::function<int(api::Maced::Client&, kj::AsyncIoContext&)>& body);

}  // namespace mace::client
