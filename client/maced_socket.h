#pragma once
// Where `mace` looks for maced. A socket named by --socket or MACE_SOCKET is the only one
// tried: a command meant for one maced must not reach another. Otherwise the places maced
// is started in, in this order: the system service's socket, a user service's, one in
// $XDG_RUNTIME_DIR, and the quick start's state directory. The first that answers is used;
// when none does, the error lists each place with why it did not answer.

#include <functional>
#include <string>
#include <vector>

namespace mace::client {

struct SocketCandidate {
  std::string path;
  std::string origin;  // for people: where this place comes from ("MACE_SOCKET", ...)
};

using Environment = std::function<const char*(const char* name)>;

// `socket_option`: --socket's value, empty when it was not given.
std::vector<SocketCandidate> socket_candidates(const std::string& socket_option,
                                               const Environment& environment);

// Connects a Unix stream socket to `path`. Returns the descriptor, or -1 with `why` set in
// words ("nothing is listening there: maced is not running").
int connect_unix_socket(const std::string& path, std::string& why);

}  // namespace mace::client
