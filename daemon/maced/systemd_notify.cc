#include "maced/systemd_notify.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include <cerrno>
#include <cstddef>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace mace {
namespace {

// sd_notify() blocks while the receiver's queue is full, and these messages are sent from
// the event loop: a service manager slow to read (or a test that never reads) would stop
// maced answering anyone. So the datagram is sent without blocking; a STATUS or WATCHDOG
// message that finds the queue full is dropped (the next one says the same), and the
// messages that change the service's state are retried for up to a second.
bool send_notification(const std::string& message, bool must_arrive) {
  const char* where = std::getenv("NOTIFY_SOCKET");
  if (where == nullptr || where[0] == '\0') return false;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::size_t length = std::strlen(where);
  if (length >= sizeof addr.sun_path) return false;
  std::memcpy(addr.sun_path, where, length);
  if (addr.sun_path[0] == '@') addr.sun_path[0] = '\0';  // an abstract socket
  socklen_t addr_len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + length);
  int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return false;
  bool sent = false;
  for (int attempt = 0; attempt < (must_arrive ? 100 : 1) && !sent; ++attempt) {
    ssize_t n = ::sendto(fd, message.data(), message.size(), MSG_NOSIGNAL,
                         reinterpret_cast<sockaddr*>(&addr), addr_len);
    sent = n == static_cast<ssize_t>(message.size());
    if (!sent && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) break;
    if (!sent && must_arrive) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::close(fd);
  return sent;
}

}  // namespace

void notify_ready(const std::string& status) {
  send_notification("READY=1\nSTATUS=" + status, true);
}

void notify_status(const std::string& status) { send_notification("STATUS=" + status, false); }

void notify_stopping() { send_notification("STOPPING=1\nSTATUS=stopping", true); }

std::optional<std::chrono::microseconds> watchdog_ping_interval() {
  std::uint64_t usec = 0;
  if (sd_watchdog_enabled(0, &usec) <= 0 || usec == 0) return std::nullopt;
  return std::chrono::microseconds(usec / 2);
}

void notify_watchdog() { send_notification("WATCHDOG=1", false); }

}  // namespace mace
