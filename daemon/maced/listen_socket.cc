#include "maced/listen_socket.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "os/errno_text.h"
#include "os/unique_fd.h"

namespace mace {
namespace {

std::runtime_error sys_error(const std::string& what) {
  return std::runtime_error(what + ": " + os::errno_text(errno));
}

sockaddr_un address_of(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path)
    throw std::runtime_error("socket path " + path + " is longer than the " +
                             std::to_string(sizeof addr.sun_path - 1) +
                             " bytes a Unix socket path may have");
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  return addr;
}

// True when a process accepts connections on `path`.
bool someone_listens(const std::string& path) {
  os::UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) throw sys_error("socket");
  sockaddr_un addr = address_of(path);
  int rc = ::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  int saved = errno;
  if (rc == 0) return true;
  // ECONNREFUSED: a socket file nobody listens on. EAGAIN: a full backlog, so alive.
  return saved == EAGAIN;
}

}  // namespace

ListenSocket systemd_listen_socket() {
  int n = sd_listen_fds(1);
  if (n < 0) throw std::runtime_error("sd_listen_fds: " + os::errno_text(-n));
  if (n == 0) return {};
  if (n > 1)
    throw std::runtime_error("systemd passed " + std::to_string(n) +
                             " sockets; maced.socket must pass exactly one");
  int fd = SD_LISTEN_FDS_START;
  if (sd_is_socket_unix(fd, SOCK_STREAM, 1, nullptr, 0) <= 0)
    throw std::runtime_error("the socket systemd passed is not a listening Unix stream socket");
  // The path is what the CLI agents' `mace mcp` forwarders must connect to.
  sockaddr_un addr{};
  socklen_t len = sizeof addr;
  std::string path;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0 && addr.sun_path[0] != '\0')
    path = addr.sun_path;
  return {fd, true, path};
}

ListenSocket create_listen_socket(const std::string& path, unsigned mode) {
  sockaddr_un addr = address_of(path);
  std::error_code ec;
  auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);

  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode))
      throw std::runtime_error(path + " exists and is not a socket; refusing to replace it");
    if (someone_listens(path))
      throw std::runtime_error("another maced is already listening on " + path);
    if (::unlink(path.c_str()) != 0) throw sys_error("cannot remove stale socket " + path);
  }

  os::UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd) throw sys_error("socket");
  // Bind under a umask that already gives the final mode, so there is no moment in which
  // the socket is more open than asked.
  mode_t old_umask = ::umask(~mode & 0777);
  int rc = ::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  int saved = errno;
  ::umask(old_umask);
  if (rc != 0) {
    errno = saved;
    throw sys_error("cannot bind " + path);
  }
  if (::chmod(path.c_str(), mode) != 0 || ::listen(fd.get(), 64) != 0)
    throw sys_error("cannot listen on " + path);
  return {fd.release(), false, path};
}

}  // namespace mace
