#include "llm/tool_sessions.h"

#include <sys/random.h>

#include <cerrno>
#include <system_error>

namespace mace::llm {
namespace {

std::string random_token() {
  unsigned char bytes[32];
  size_t got = 0;
  while (got < sizeof bytes) {
    ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::system_error(errno, std::generic_category(), "getrandom");
    }
    got += static_cast<size_t>(n);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string token;
  token.reserve(2 * sizeof bytes);
  for (unsigned char b : bytes) {
    token.push_back(kHex[b >> 4]);
    token.push_back(kHex[b & 0xf]);
  }
  return token;
}

}  // namespace

std::string ToolSessions::open(std::vector<Tool> tools) {
  auto list = std::make_shared<const ToolList>(std::move(tools));
  std::lock_guard lock(mutex_);
  for (;;) {
    std::string token = random_token();
    if (sessions_.emplace(token, list).second) return token;
  }
}

void ToolSessions::close(const std::string& token) {
  std::shared_ptr<const ToolList> dropped;  // destroyed outside the lock
  std::lock_guard lock(mutex_);
  auto it = sessions_.find(token);
  if (it == sessions_.end()) return;
  dropped = std::move(it->second);
  sessions_.erase(it);
}

std::shared_ptr<const ToolSessions::ToolList> ToolSessions::find(const std::string& token) const {
  std::lock_guard lock(mutex_);
  auto it = sessions_.find(token);
  return it == sessions_.end() ? nullptr : it->second;
}

std::size_t ToolSessions::size() const {
  std::lock_guard lock(mutex_);
  return sessions_.size();
}

}  // namespace mace::llm
