#include "maced_instance.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "sanitizers.h"

namespace mace::testing {

MacedOptions options_for_checkout(const TempDir& dir, const std::string& checkout_root) {
  dir.write("maced.json", R"({"checkouts": [{"path": ")" + checkout_root + R"("}]})");
  MacedOptions options;
  options.extra_args = {"--config", dir.file("maced.json"), "--workloads", source_root() + "/workloads"};
  return options;
}

std::string maced_binary() { return build_root() + "/daemon/maced/maced"; }
std::string mace_binary() { return build_root() + "/client/mace"; }

NotifySocket::NotifySocket(std::string path, bool drain) : path_(std::move(path)) {
  fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path_.c_str(), sizeof addr.sun_path - 1);
  ::unlink(path_.c_str());
  if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
    throw std::runtime_error("cannot bind notify socket " + path_);
  if (drain) reader_ = std::thread([this] { read_loop(); });
}

NotifySocket::~NotifySocket() {
  stop_ = true;
  if (reader_.joinable()) reader_.join();
  if (fd_ >= 0) ::close(fd_);
  ::unlink(path_.c_str());
}

void NotifySocket::read_loop() {
  while (!stop_) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    char buf[4096];
    ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) continue;
    {
      std::lock_guard lock(mutex_);
      seen_.emplace_back(buf, static_cast<size_t>(n));
    }
    arrived_.notify_all();
  }
}

std::vector<std::string> NotifySocket::seen() const {
  std::lock_guard lock(mutex_);
  return seen_;
}

bool NotifySocket::wait_for(const std::string& needle, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  return arrived_.wait_for(lock, timeout, [&] {
    for (const auto& m : seen_)
      if (m.find(needle) != std::string::npos) return true;
    return false;
  });
}

namespace {

// The kernel's wait channel of each thread of `pid` ("futex_wait_queue", "do_epoll_wait").
std::string thread_waits(pid_t pid) {
  std::string waits;
  std::error_code ec;
  const std::filesystem::path tasks = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& task : std::filesystem::directory_iterator(tasks, ec)) {
    std::ifstream wchan(task.path() / "wchan");
    std::string where;
    std::getline(wchan, where);
    waits += (waits.empty() ? "" : ", ") + task.path().filename().string() + ":" +
             (where.empty() ? "?" : where);
  }
  return waits.empty() ? "(unknown)" : waits;
}

}  // namespace

MacedInstance::MacedInstance(const TempDir& dir, MacedOptions options)
    : socket_(dir.file("maced.sock")), state_(dir.file("state")) {
  notify_ = std::make_unique<NotifySocket>(dir.file("notify.sock"), options.read_notify);
  std::vector<std::string> argv = {maced_binary(), "--socket", socket_, "--state-dir", state_};
  argv.insert(argv.end(), options.extra_args.begin(), options.extra_args.end());
  options.process.set_env["NOTIFY_SOCKET"] = notify_->path();
  // The test's own environment must not leak systemd or LLM settings into maced.
  for (const char* name : {"LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES", "RUNTIME_DIRECTORY",
                           "STATE_DIRECTORY", "MACE_LLM", "MACE_LLM_MODEL",
                           "GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_OAUTH_ACCESS_TOKEN",
                           "CLOUDSDK_CONFIG"})
    if (!options.process.set_env.count(name)) options.process.unset_env.push_back(name);
  // Vertex, the default backend, is checked at submit time; give it credentials that
  // look usable (nothing calls Vertex in these tests) unless the test says otherwise.
  auto unset = [&](const char* name) {
    for (const auto& u : options.process.unset_env)
      if (u == name) return true;
    return false;
  };
  for (auto [name, value] : {std::pair{"MACE_VERTEX_ACCESS_TOKEN", "test-token"},
                             std::pair{"GOOGLE_CLOUD_PROJECT", "mace-test"}})
    if (!options.process.set_env.count(name) && !unset(name)) options.process.set_env[name] = value;
  // An installed maced has its gate workloads, which submit checks a spec's against.
  if (!options.process.set_env.count("MACE_WORKLOADS_DIR") && !unset("MACE_WORKLOADS_DIR"))
    options.process.set_env["MACE_WORKLOADS_DIR"] = source_root() + "/workloads";
  process_ = std::make_unique<BackgroundProcess>(argv, options.process);
  // Under AddressSanitizer maced starts several times slower (a restart's recovery most).
  const auto ready_within = std::chrono::seconds(kShadowMemory ? 30 : 10);
  if (options.wait_ready && !notify_->wait_for("READY=1", ready_within)) {
    auto result = process_->wait(std::chrono::milliseconds(100));
    if (result)
      throw std::runtime_error("maced did not become ready: exit " +
                               std::to_string(result->exit_code) + ": " + result->err);
    // Still running: where each of its threads waits, and what it said, show where it is.
    throw std::runtime_error("maced did not become ready within " +
                             std::to_string(ready_within.count()) + " s; its threads wait in " +
                             thread_waits(process_->pid()) + "; it printed: " +
                             process_->errors_so_far());
  }
}

ProcessResult MacedInstance::mace(const std::vector<std::string>& args,
                                  const ProcessOptions& options) const {
  std::vector<std::string> argv = {mace_binary(), "--socket", socket_};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, options);
}

}  // namespace mace::testing
