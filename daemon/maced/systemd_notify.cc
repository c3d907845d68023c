#include "maced/systemd_notify.h"

#include <systemd/sd-daemon.h>

#include <cstdint>

namespace mace {

void notify_ready(const std::string& status) {
  sd_notify(0, ("READY=1\nSTATUS=" + status).c_str());
}

void notify_status(const std::string& status) { sd_notify(0, ("STATUS=" + status).c_str()); }

void notify_stopping() { sd_notify(0, "STOPPING=1\nSTATUS=stopping"); }

std::optional<std::chrono::microseconds> watchdog_ping_interval() {
  std::uint64_t usec = 0;
  if (sd_watchdog_enabled(0, &usec) <= 0 || usec == 0) return std::nullopt;
  return std::chrono::microseconds(usec / 2);
}

void notify_watchdog() { sd_notify(0, "WATCHDOG=1"); }

}  // namespace mace
