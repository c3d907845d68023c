#pragma once
// Tells systemd (Type=notify) how maced is doing. Without NOTIFY_SOCKET these do nothing.

#include <string>

namespace mace {

void notify_ready(const std::string& status);
void notify_status(const std::string& status);
void notify_stopping();

}  // namespace mace
