#pragma once
// What one client connection has under way, so maced can close a connection that does
// nothing (the idle timeout, docs/operating-maced.md) and never one whose client is waiting on
// maced: a call in flight, a watch whose subscription it holds, or, for the `mace mcp`
// forwarder of a command-line agent, the tool session of the LLM call that started the
// agent, which may think for long between two tool calls.
//
// Used on the event loop's thread only, like the connection.

#include <chrono>
#include <memory>
#include <string>

#include "llm/tool_sessions.h"

namespace mace::rpc {

class ConnectionActivity : public std::enable_shared_from_this<ConnectionActivity> {
 public:
  using Clock = std::chrono::steady_clock;

  // Keeps the connection busy while it lives: one per call in flight, one per
  // subscription. Shares the activity, so it may outlive the connection harmlessly.
  class Hold {
   public:
    explicit Hold(std::shared_ptr<ConnectionActivity> activity);
    ~Hold();
    Hold(Hold&& other) noexcept = default;
    Hold& operator=(Hold&&) = delete;
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;

   private:
    std::shared_ptr<ConnectionActivity> activity_;
  };

  explicit ConnectionActivity(const llm::ToolSessions& tool_sessions)
      : tool_sessions_(tool_sessions) {}

  Hold hold() { return Hold(shared_from_this()); }

  // The connection forwards tool calls for this session; it stays busy while the session
  // is open. Only the latest one is kept: a forwarder serves one.
  void serves_session(const std::string& token) { session_ = token; }

  bool busy() const;
  // When the last hold was taken or let go (or the connection was accepted).
  Clock::time_point last_change() const { return last_change_; }

 private:
  const llm::ToolSessions& tool_sessions_;
  int holds_ = 0;
  std::string session_;
  Clock::time_point last_change_ = Clock::now();
};

}  // namespace mace::rpc
