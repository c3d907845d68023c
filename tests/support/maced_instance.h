#pragma once
// A real maced process on a temporary socket and state directory, and the real `mace`
// binary pointed at it.

#include <memory>
#include <string>
#include <vector>

#include "child_process.h"

namespace mace::testing {

// A datagram socket standing in for systemd's NOTIFY_SOCKET.
class NotifySocket {
 public:
  explicit NotifySocket(std::string path);
  ~NotifySocket();
  const std::string& path() const { return path_; }
  // Waits for a message containing `needle`; every message seen is kept in `seen()`.
  bool wait_for(const std::string& needle,
                std::chrono::milliseconds timeout = std::chrono::milliseconds(10000));
  const std::vector<std::string>& seen() const { return seen_; }

 private:
  std::string path_;
  int fd_ = -1;
  std::vector<std::string> seen_;
};

struct MacedOptions {
  std::vector<std::string> extra_args;
  ProcessOptions process;
  bool wait_ready = true;
};

class MacedInstance {
 public:
  // `dir` holds the socket (dir/maced.sock) and state (dir/state).
  explicit MacedInstance(const TempDir& dir, MacedOptions options = {});

  const std::string& socket_path() const { return socket_; }
  std::string state_dir() const { return state_; }
  BackgroundProcess& process() { return *process_; }
  NotifySocket& notify() { return *notify_; }

  // Runs `mace --socket <ours> args...`.
  ProcessResult mace(const std::vector<std::string>& args, const ProcessOptions& options = {}) const;

 private:
  std::string socket_;
  std::string state_;
  std::unique_ptr<NotifySocket> notify_;
  std::unique_ptr<BackgroundProcess> process_;
};

std::string maced_binary();
std::string mace_binary();

}  // namespace mace::testing
