#pragma once
// Tells systemd (Type=notify) how maced is doing. Without NOTIFY_SOCKET these do nothing.

#include <chrono>
#include <optional>
#include <string>

namespace mace {

void notify_ready(const std::string& status);
void notify_status(const std::string& status);
void notify_stopping();

// How often to send WATCHDOG=1: half of WATCHDOG_USEC (WatchdogSec=), so one late ping
// does not get maced killed. nullopt when systemd asked for no watchdog (or asked it of
// another pid, WATCHDOG_PID).
std::optional<std::chrono::microseconds> watchdog_ping_interval();
void notify_watchdog();

}  // namespace mace
