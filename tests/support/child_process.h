#pragma once
// Real processes for end-to-end tests: run a program to completion capturing its output,
// or keep one (maced) running in the background and stop it on destruction.

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mace::testing {

struct ProcessResult {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  std::string out;
  std::string err;
};

struct ProcessOptions {
  std::map<std::string, std::string> set_env;
  std::vector<std::string> unset_env;
  std::string stdin_text;
  std::optional<uid_t> uid;  // drop to this uid in the child (tests run as root in CI)
  // Runs in the child after fork, before exec (for example to place a listening fd).
  std::function<void()> in_child;
  std::chrono::milliseconds timeout{30000};
};

// Runs `argv` to completion (killing it after the timeout) and captures its output.
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

// A process left running; killed (SIGKILL) and reaped on destruction unless waited for.
class BackgroundProcess {
 public:
  BackgroundProcess(const std::vector<std::string>& argv, const ProcessOptions& options = {});
  ~BackgroundProcess();
  BackgroundProcess(const BackgroundProcess&) = delete;
  BackgroundProcess& operator=(const BackgroundProcess&) = delete;

  pid_t pid() const { return pid_; }
  void signal(int sig);
  // Waits for exit up to `timeout`; nullopt if still running. Output is read to the end.
  std::optional<ProcessResult> wait(std::chrono::milliseconds timeout);
  bool running();
  // What it has printed on standard output, and on standard error, so far.
  const std::string& output_so_far();
  const std::string& errors_so_far();

 private:
  void drain(bool until_eof);
  pid_t pid_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
  std::string out_, err_;
  std::optional<ProcessResult> result_;
};

// A fresh directory under /tmp, removed with everything in it on destruction. write() makes
// the directories a name has and throws when the file cannot be written.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  void write(const std::string& name, const std::string& content) const;

 private:
  std::string path_;
};

// Waits until `predicate` holds, polling; false on timeout.
bool eventually(const std::function<bool()>& predicate,
                std::chrono::milliseconds timeout = std::chrono::milliseconds(10000));

std::string build_root();   // MACE_BUILD_ROOT
std::string source_root();  // MACE_SOURCE_ROOT

}  // namespace mace::testing
