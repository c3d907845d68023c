#include "maced/systemd_notify.h"

#include <systemd/sd-daemon.h>

namespace mace {

void notify_ready(const std::string& status) {
  sd_notify(0, ("READY=1\nSTATUS=" + status).c_str());
}

void notify_status(const std::string& status) { sd_notify(0, ("STATUS=" + status).c_str()); }

void notify_stopping() { sd_notify(0, "STOPPING=1\nSTATUS=stopping"); }

}  // namespace mace
