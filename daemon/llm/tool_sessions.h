#pragma once
// The tools of the LLM calls in flight, by session token (REQ-EXEC-7).
//
// A command-line agent cannot be handed C++ callables: it starts `mace mcp --session
// TOKEN`, which asks maced for the session's tools over RPC. So a CLI call opens a
// session for its tools, writes the token into the agent's MCP configuration, and
// closes it when the call returns. The token is the only thing that names a session, so
// it is random (256 bits from the kernel): one run's agent cannot guess another's.

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "llm/llm.h"

namespace mace::llm {

class ToolSessions {
 public:
  using ToolList = std::vector<Tool>;

  // Opens a session offering `tools` and returns its token (64 hex digits). Throws
  // std::system_error if the kernel gives no random bytes.
  std::string open(std::vector<Tool> tools);
  // Ends a session; unknown tokens are ignored, so closing twice is harmless.
  void close(const std::string& token);
  // The session's tools, or null for a token that was never opened or is closed. The
  // list stays alive as long as the caller holds it, so a tool call that is still running
  // when its session closes finishes safely.
  std::shared_ptr<const ToolList> find(const std::string& token) const;
  std::size_t size() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const ToolList>> sessions_;
};

// Opens a session for the lifetime of one call; closes it on every way out.
class ScopedToolSession {
 public:
  ScopedToolSession(ToolSessions& sessions, std::vector<Tool> tools)
      : sessions_(sessions), token_(sessions.open(std::move(tools))) {}
  ~ScopedToolSession() { sessions_.close(token_); }
  ScopedToolSession(const ScopedToolSession&) = delete;
  ScopedToolSession& operator=(const ScopedToolSession&) = delete;
  const std::string& token() const { return token_; }

 private:
  ToolSessions& sessions_;
  std::string token_;
};

}  // namespace mace::llm
