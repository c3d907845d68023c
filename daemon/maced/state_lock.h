#pragma once
// One maced per state directory. Two on one would each take the other's running runs for a
// dead maced's (marking them `error`) and start the same queued run twice, two builds in one
// checkout. So maced takes an exclusive lock on <state>/maced.lock before it touches
// anything (before the keeper, the store, the recovery of what a dead maced left), and keeps
// it for its life: flock(2), which the kernel releases however maced ends, kill -9 included.
// The file holds the holder's pid and socket, for the message a second maced prints.

#include <filesystem>
#include <string>

#include "os/unique_fd.h"

namespace mace {

class StateLock {
 public:
  // Takes the lock, making the state directory (mode 0700) when it does not exist. Throws
  // std::runtime_error naming the maced that holds it ("... is in use by maced 1234 on
  // /run/maced/maced.sock; stop that one first"), or why the lock could not be taken.
  StateLock(const std::filesystem::path& state_dir, const std::string& socket_path);

  int fd() const { return fd_.get(); }

 private:
  os::UniqueFd fd_;
};

}  // namespace mace
