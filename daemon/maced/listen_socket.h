#pragma once
// The Unix socket maced listens on: the one systemd passes (socket activation,
// LISTEN_FDS), or one maced creates itself.

#include <string>

namespace mace {

struct ListenSocket {
  int fd = -1;
  bool from_systemd = false;
  std::string path;  // also for systemd's socket, when it has one (not abstract)
};

// Returns the listening socket systemd passed, if any. Throws std::runtime_error when
// systemd passed something that is not one listening Unix stream socket.
ListenSocket systemd_listen_socket();

// Creates, binds (mode `mode`) and listens on `path`, making its directory if needed. An
// existing socket file is replaced only when nothing answers on it (a stale socket left
// by a maced that died); a live one, or a file that is not a socket, is refused with an
// error that says which.
ListenSocket create_listen_socket(const std::string& path, unsigned mode);

}  // namespace mace
