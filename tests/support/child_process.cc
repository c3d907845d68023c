#include "child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

namespace mace::testing {
namespace {

struct Pipes {
  int in[2], out[2], err[2];
};

pid_t spawn(const std::vector<std::string>& argv, const ProcessOptions& options, Pipes& p) {
  if (::pipe2(p.in, O_CLOEXEC) || ::pipe2(p.out, O_CLOEXEC) || ::pipe2(p.err, O_CLOEXEC))
    throw std::runtime_error("pipe failed");
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::dup2(p.in[0], 0);
    ::dup2(p.out[1], 1);
    ::dup2(p.err[1], 2);
    for (auto& [k, v] : options.set_env) ::setenv(k.c_str(), v.c_str(), 1);
    for (auto& k : options.unset_env) ::unsetenv(k.c_str());
    if (options.in_child) options.in_child();
    if (options.uid) {
      if (::setgid(*options.uid) != 0 || ::setuid(*options.uid) != 0) ::_exit(126);
    }
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  ::close(p.in[0]);
  ::close(p.out[1]);
  ::close(p.err[1]);
  if (!options.stdin_text.empty()) {
    ssize_t ignored = ::write(p.in[1], options.stdin_text.data(), options.stdin_text.size());
    (void)ignored;
  }
  ::close(p.in[1]);
  return pid;
}

void read_available(int& fd, std::string& into) {
  if (fd < 0) return;
  char buf[65536];
  ssize_t n = ::read(fd, buf, sizeof buf);
  if (n > 0) {
    into.append(buf, static_cast<size_t>(n));
  } else if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
    ::close(fd);
    fd = -1;
  }
}

ProcessResult decode(int status, std::string out, std::string err) {
  ProcessResult r;
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  r.out = std::move(out);
  r.err = std::move(err);
  return r;
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  BackgroundProcess process(argv, options);
  auto result = process.wait(options.timeout);
  if (!result) {
    process.signal(SIGKILL);
    result = process.wait(std::chrono::milliseconds(5000));
    if (result) result->err += "\n[test harness: killed after timeout]";
  }
  return result.value_or(ProcessResult{});
}

BackgroundProcess::BackgroundProcess(const std::vector<std::string>& argv,
                                     const ProcessOptions& options) {
  Pipes p{};
  pid_ = spawn(argv, options, p);
  out_fd_ = p.out[0];
  err_fd_ = p.err[0];
  ::fcntl(out_fd_, F_SETFL, O_NONBLOCK);
  ::fcntl(err_fd_, F_SETFL, O_NONBLOCK);
}

BackgroundProcess::~BackgroundProcess() {
  if (!result_ && pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status;
    ::waitpid(pid_, &status, 0);
  }
  if (out_fd_ >= 0) ::close(out_fd_);
  if (err_fd_ >= 0) ::close(err_fd_);
}

void BackgroundProcess::signal(int sig) {
  if (!result_) ::kill(pid_, sig);
}

void BackgroundProcess::drain(bool until_eof) {
  do {
    pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
    if (out_fd_ < 0 && err_fd_ < 0) return;
    int n = ::poll(fds, 2, until_eof ? 200 : 0);
    if (n <= 0) return;
    if (fds[0].revents) read_available(out_fd_, out_);
    if (fds[1].revents) read_available(err_fd_, err_);
  } while (until_eof);
}

bool BackgroundProcess::running() {
  if (result_) return false;
  drain(false);
  int status;
  pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    drain(true);
    result_ = decode(status, out_, err_);
    return false;
  }
  return true;
}

const std::string& BackgroundProcess::output_so_far() {
  running();
  return result_ ? result_->out : out_;
}

const std::string& BackgroundProcess::errors_so_far() {
  running();
  return result_ ? result_->err : err_;
}

std::optional<ProcessResult> BackgroundProcess::wait(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (running()) {
    if (std::chrono::steady_clock::now() > deadline) return std::nullopt;
    pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
    ::poll(fds, 2, 20);
  }
  return result_;
}

TempDir::TempDir() {
  char pattern[] = "/tmp/mace-test.XXXXXX";
  if (!::mkdtemp(pattern)) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

void TempDir::write(const std::string& name, const std::string& content) const {
  const std::filesystem::path path = file(name);
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << content;
  // A test whose input silently went missing would test something else.
  if (!out.flush()) throw std::runtime_error("cannot write " + path.string());
}

bool eventually(const std::function<bool()>& predicate, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (predicate()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return predicate();
}

std::string build_root() {
  const char* root = std::getenv("MACE_BUILD_ROOT");
  if (!root) throw std::runtime_error("MACE_BUILD_ROOT is not set (run the tests with meson test)");
  return root;
}

std::string source_root() {
  const char* root = std::getenv("MACE_SOURCE_ROOT");
  if (!root) throw std::runtime_error("MACE_SOURCE_ROOT is not set (run the tests with meson test)");
  return root;
}

}  // namespace mace::testing
