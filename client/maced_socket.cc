#include "maced_socket.h"

#include <errno.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

namespace mace::client {
namespace {

std::string variable(const Environment& environment, const char* name) {
  const char* value = environment(name);
  return value ? value : "";
}

std::string connect_failure(int error) {
  switch (error) {
    case ENOENT:
      return "no such socket";
    case ECONNREFUSED:
      return "nothing is listening there (maced is not running)";
    case EACCES:
    case EPERM:
      return "permission denied (maced's socket is for the members of its group, usually "
             "`mace`)";
    case ENOTDIR:
      return "a part of the path is not a directory";
    default:
      return std::strerror(error);
  }
}

}  // namespace

std::vector<SocketCandidate> socket_candidates(const std::string& socket_option,
                                               const Environment& environment) {
  if (!socket_option.empty()) return {{socket_option, "--socket"}};
  if (const std::string named = variable(environment, "MACE_SOCKET"); !named.empty())
    return {{named, "MACE_SOCKET"}};
  std::vector<SocketCandidate> places = {{"/run/maced/maced.sock", "the system service"}};
  if (const std::string runtime = variable(environment, "XDG_RUNTIME_DIR"); !runtime.empty()) {
    places.push_back({runtime + "/maced/maced.sock", "a user service"});
    places.push_back({runtime + "/maced.sock", "$XDG_RUNTIME_DIR"});
  }
  std::string state = variable(environment, "XDG_STATE_HOME");
  if (state.empty() && !variable(environment, "HOME").empty())
    state = variable(environment, "HOME") + "/.local/state";
  if (!state.empty()) places.push_back({state + "/mace/maced.sock", "the quick start's"});
  return places;
}

int connect_unix_socket(const std::string& path, std::string& why) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof address.sun_path) {
    why = "the path is longer than a Unix socket's " +
          std::to_string(sizeof address.sun_path - 1) + " bytes";
    return -1;
  }
  std::memcpy(address.sun_path, path.data(), path.size());
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    why = std::strerror(errno);
    return -1;
  }
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    why = connect_failure(errno);
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace mace::client
