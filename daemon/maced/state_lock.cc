#include "maced/state_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <system_error>

#include "os/errno_text.h"

namespace mace {
namespace {

constexpr const char* kLockFile = "maced.lock";
// What a holder writes into the file: "pid socket\n"; more is not ours.
constexpr std::size_t kMaxHolderBytes = 4096;

std::string holder_of(int fd) {
  char buffer[kMaxHolderBytes];
  const ssize_t n = ::pread(fd, buffer, sizeof buffer - 1, 0);
  if (n <= 0) return "";
  std::string text(buffer, static_cast<std::size_t>(n));
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  const auto space = text.find(' ');
  if (space == std::string::npos) return "maced " + text;
  return "maced " + text.substr(0, space) + " on " + text.substr(space + 1);
}

}  // namespace

StateLock::StateLock(const std::filesystem::path& state_dir, const std::string& socket_path) {
  std::error_code error;
  std::filesystem::create_directories(state_dir, error);
  if (error)
    throw std::runtime_error("cannot make the state directory " + state_dir.string() + ": " + error.message());
  const std::filesystem::path path = state_dir / kLockFile;
  fd_ = os::UniqueFd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd_) throw std::runtime_error("cannot open " + path.string() + ": " + os::errno_text(errno));
  if (::flock(fd_.get(), LOCK_EX | LOCK_NB) != 0) {
    const int why = errno;
    if (why != EWOULDBLOCK)
      throw std::runtime_error("cannot lock " + path.string() + ": " + os::errno_text(why));
    const std::string holder = holder_of(fd_.get());
    throw std::runtime_error("the state directory " + state_dir.string() + " is in use by " +
                             (holder.empty() ? std::string("another maced") : holder) +
                             "; one maced per state directory: stop that one first, or give this one "
                             "--state-dir of its own");
  }
  const std::string holder = std::to_string(::getpid()) + " " + socket_path + "\n";
  if (::ftruncate(fd_.get(), 0) != 0 || ::pwrite(fd_.get(), holder.data(), holder.size(), 0) < 0) {
    // The lock holds all the same; only the message a second maced prints is poorer.
  }
}

}  // namespace mace
