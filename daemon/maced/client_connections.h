#pragma once
// The client connections maced serves (docs/operating-maced.md). Each gets its own RPC system
// whose bootstrap capability knows who the peer is (SO_PEERCRED; maced/peer_caller.h), and:
// - at most `max_connections` are served at once, the last `admin_reserve` of them only to
//   maced's administrators, and at most `max_per_user` of one other user's. One more is
//   told why ("maced: too many connections (limit N); try again", "maced: you have N
//   connections open, the most one user may (connections.max_per_user)") and closed
//   (rpc/connection_refusal.h), so a flood of clients cannot take the descriptors the
//   store and the builds need, nor one user everyone else's places;
// - what one user's connections have announced of messages still arriving is bounded
//   (max_pending_bytes_per_user, rpc/frame_budget_stream.h);
// - one with nothing under way (rpc/connection_activity.h) for `idle_timeout` is closed,
//   so idle sockets cannot hold places and descriptors for ever;
// - a message larger than kMaxMessageBytes, or nested deeper than kMaxMessageNesting,
//   ends its connection before any of it is stored.
// The start and the end of an episode of refusals are logged, not each refusal.

#include <sys/types.h>

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include <kj/async-io.h>
#include <kj/timer.h>

#include "llm/tool_sessions.h"
#include "maced/connection_limits.h"
#include "rpc/check_up_source.h"
#include "rpc/connection_activity.h"
#include "rpc/frame_budget.h"
#include "rpc/run_lister.h"
#include "service/eval_service.h"
#include "service/run_service.h"

namespace mace {

class ClientConnections {
 public:
  // `admin_gid`: the group of maced's administrators (access.admin_group), if any.
  ClientConnections(service::RunService& service, llm::ToolSessions& tool_sessions,
                    kj::Timer& timer, ConnectionLimits limits, std::optional<gid_t> admin_gid,
                    std::ostream& log);

  // Serves `stream`, or refuses it when `max_connections` are being served.
  void add(kj::Own<kj::AsyncIoStream> stream);

  std::size_t served() const { return served_; }
  // The evaluation harness every connection serves (maced's); unset: none.
  void set_eval_service(service::EvalService* eval) { eval_ = eval; }
  // Where listings are read (maced's listing thread); unset: by the service, on the loop.
  void set_run_lister(rpc::RunLister* lister) { lister_ = lister; }
  // Where check-ups are run (maced's check-up thread); unset: maced has none.
  void set_check_up_source(rpc::CheckUpSource* check_up) { check_up_ = check_up; }

 private:
  struct Connection;

  class ErrorHandler final : public kj::TaskSet::ErrorHandler {
   public:
    explicit ErrorHandler(std::ostream& log) : log_(log) {}
    void taskFailed(kj::Exception&& exception) override;

   private:
    std::ostream& log_;
  };

  // Why `caller` may not have one more connection now; empty: it may.
  std::string refusal_for(const service::Caller& caller) const;
  void refuse(kj::Own<kj::AsyncIoStream> stream, const std::string& reason);
  std::shared_ptr<rpc::FrameBudget> frame_budget_of(uint32_t uid);
  // Resolves once `activity` has been idle for the idle timeout.
  kj::Promise<void> idle_for_the_timeout(std::shared_ptr<rpc::ConnectionActivity> activity);

  service::RunService& service_;
  service::EvalService* eval_ = nullptr;
  rpc::RunLister* lister_ = nullptr;
  rpc::CheckUpSource* check_up_ = nullptr;
  llm::ToolSessions& tool_sessions_;
  kj::Timer& timer_;
  const ConnectionLimits limits_;
  const std::optional<gid_t> admin_gid_;
  std::ostream& log_;
  std::size_t served_ = 0;
  std::map<uint32_t, std::size_t> served_by_uid_;   // non-administrators' connections
  std::map<uint32_t, std::weak_ptr<rpc::FrameBudget>> budgets_;
  std::size_t refusing_ = 0;  // refusals waiting for their client to hang up
  std::size_t refused_in_episode_ = 0;
  bool at_limit_ = false;
  ErrorHandler error_handler_;
  kj::TaskSet tasks_;  // last: its tasks use everything above
};

}  // namespace mace
