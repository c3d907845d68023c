#pragma once
// A real maced process on a temporary socket and state directory, and the real `mace`
// binary pointed at it.

#include <memory>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <string>
#include <vector>

#include "child_process.h"

namespace mace::testing {

// A datagram socket standing in for systemd's NOTIFY_SOCKET.
// The socket maced's sd_notify messages go to. Read continuously by a thread of its own,
// as systemd reads it: a datagram socket nobody reads fills after a few messages.
// `drain = false` leaves it unread (a stuck service manager) for tests of just that.
class NotifySocket {
 public:
  explicit NotifySocket(std::string path, bool drain = true);
  ~NotifySocket();
  const std::string& path() const { return path_; }
  // Waits for a message containing `needle`, also one that came before the call.
  bool wait_for(const std::string& needle,
                std::chrono::milliseconds timeout = std::chrono::milliseconds(10000));
  // Every message received so far, oldest first.
  std::vector<std::string> seen() const;

 private:
  void read_loop();

  std::string path_;
  int fd_ = -1;
  mutable std::mutex mutex_;
  std::condition_variable arrived_;
  std::vector<std::string> seen_;
  std::atomic<bool> stop_{false};
  std::thread reader_;
};

struct MacedOptions {
  std::vector<std::string> extra_args;
  ProcessOptions process;
  bool wait_ready = true;   // needs read_notify
  bool read_notify = true;  // false: nobody reads maced's notify socket
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

// The options of a maced that owns `checkout_root` alone and runs the shipped workloads:
// writes its configuration to dir/maced.json.
MacedOptions options_for_checkout(const TempDir& dir, const std::string& checkout_root);

}  // namespace mace::testing
