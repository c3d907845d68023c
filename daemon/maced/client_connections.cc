#include "maced/client_connections.h"

#include <sys/socket.h>

#include <chrono>
#include <memory>
#include <string>

#include <capnp/rpc-twoparty.h>

#include "maced/peer_caller.h"
#include "rpc/connection_refusal.h"
#include "rpc/frame_budget_stream.h"
#include "rpc/maced_server.h"

namespace mace {
namespace {

// A refused client is given this long to read why before its socket is closed anyway,
// and at most this many are waited for at once; beyond that a refused connection is
// closed without the reason (its client sees a lost connection). So a flood beyond the
// limit holds no more descriptors than these either.
constexpr kj::Duration kRefusalLinger = 1 * kj::SECONDS;
constexpr std::size_t kMaxLingeringRefusals = 16;

// What maced reads from a client: Cap'n Proto checks a frame's announced size against
// the traversal limit before it reserves space for it, so a header announcing gigabytes
// costs nothing; the default limit (64 MiB) would let every connection make maced
// reserve, and fill, that much.
capnp::ReaderOptions client_message_limits() {
  capnp::ReaderOptions options;
  options.traversalLimitInWords = kMaxMessageBytes / sizeof(capnp::word);
  options.nestingLimit = kMaxMessageNesting;
  return options;
}

// Who the client is, from what the kernel says of the connection's other end.
service::Caller peer_caller(kj::AsyncIoStream& stream, std::optional<gid_t> admin_gid) {
  ucred peer{};
  kj::uint length = sizeof peer;
  stream.getsockopt(SOL_SOCKET, SO_PEERCRED, &peer, &length);
  return caller_of(peer.uid, peer.gid, admin_gid);
}

}  // namespace

// One connection served. The RPC system reads and writes the stream, so it is destroyed
// first (members go in reverse order).
struct ClientConnections::Connection {
  Connection(ClientConnections& owner, kj::Own<kj::AsyncIoStream> accepted, service::Caller caller)
      : owner(owner),
        caller(caller),
        stream(kj::mv(accepted)),
        budgeted(*stream, owner.frame_budget_of(caller.uid), kMaxMessageBytes),
        activity(std::make_shared<rpc::ConnectionActivity>(owner.tool_sessions_)),
        network(budgeted, capnp::rpc::twoparty::Side::SERVER, client_message_limits()),
        // Its own bootstrap capability, so each client's knows who that client is.
        rpc_system(capnp::makeRpcServer(
            network, kj::heap<rpc::MacedServer>(owner.service_, caller, owner.tool_sessions_, activity, owner.eval_,
                                                owner.lister_, owner.check_up_))) {
    ++owner.served_;
    if (!caller.admin) ++owner.served_by_uid_[caller.uid];
  }
  ~Connection() {
    --owner.served_;
    if (!caller.admin && --owner.served_by_uid_[caller.uid] == 0) owner.served_by_uid_.erase(caller.uid);
  }

  ClientConnections& owner;
  const service::Caller caller;
  kj::Own<kj::AsyncIoStream> stream;
  rpc::FrameBudgetStream budgeted;
  std::shared_ptr<rpc::ConnectionActivity> activity;
  capnp::TwoPartyVatNetwork network;
  capnp::RpcSystem<capnp::rpc::twoparty::VatId> rpc_system;
};

void ClientConnections::ErrorHandler::taskFailed(kj::Exception&& exception) {
  // A client that disconnects mid-call lands here; that is routine, not a fault.
  if (exception.getType() == kj::Exception::Type::DISCONNECTED) return;
  log_ << "maced: connection error: " << exception.getDescription().cStr() << "\n";
}

ClientConnections::ClientConnections(service::RunService& service,
                                     llm::ToolSessions& tool_sessions, kj::Timer& timer,
                                     ConnectionLimits limits, std::optional<gid_t> admin_gid,
                                     std::ostream& log)
    : service_(service),
      tool_sessions_(tool_sessions),
      timer_(timer),
      limits_(limits),
      admin_gid_(admin_gid),
      log_(log),
      error_handler_(log),
      tasks_(error_handler_) {}

std::shared_ptr<rpc::FrameBudget> ClientConnections::frame_budget_of(uint32_t uid) {
  std::weak_ptr<rpc::FrameBudget>& entry = budgets_[uid];
  auto budget = entry.lock();
  if (!budget) {
    budget = std::make_shared<rpc::FrameBudget>(limits_.max_pending_bytes_per_user);
    entry = budget;
  }
  // Users gone: their entries go too, so the map holds no more than the connections.
  std::erase_if(budgets_, [](const auto& e) { return e.second.expired(); });
  return budget;
}

std::string ClientConnections::refusal_for(const service::Caller& caller) const {
  // A reserve as large as the limit (limits made in code, not read from a configuration,
  // which refuses it) is none.
  const std::size_t reserve = limits_.admin_reserve < limits_.max_connections ? limits_.admin_reserve : 0;
  const std::size_t everyones = caller.admin ? limits_.max_connections : limits_.max_connections - reserve;
  if (served_ >= everyones)
    return "maced: too many connections (limit " + std::to_string(limits_.max_connections) +
           (caller.admin || reserve == 0 ? "" : ", of which " + std::to_string(reserve) + " are kept for administrators") +
           "); try again";
  if (caller.admin) return "";
  const auto mine = served_by_uid_.find(caller.uid);
  if (mine != served_by_uid_.end() && mine->second >= limits_.max_per_user)
    return "maced: you have " + std::to_string(mine->second) +
           " connections open, the most one user may have (connections.max_per_user in maced's "
           "configuration); close some and try again";
  return "";
}

void ClientConnections::add(kj::Own<kj::AsyncIoStream> stream) {
  const service::Caller caller = peer_caller(*stream, admin_gid_);
  if (std::string reason = refusal_for(caller); !reason.empty()) {
    refuse(kj::mv(stream), reason);
    return;
  }
  if (at_limit_) {
    log_ << "maced: below the connection limit again; " << refused_in_episode_
         << " connection(s) were refused meanwhile\n";
    log_.flush();
    at_limit_ = false;
    refused_in_episode_ = 0;
  }
  auto connection = kj::heap<Connection>(*this, kj::mv(stream), caller);
  auto disconnected = connection->network.onDisconnect();
  auto idle = idle_for_the_timeout(connection->activity);
  // Whichever comes first ends the connection: the client leaving, or the idle timeout.
  tasks_.add(disconnected.exclusiveJoin(kj::mv(idle)).attach(kj::mv(connection)));
}

void ClientConnections::refuse(kj::Own<kj::AsyncIoStream> stream, const std::string& reason) {
  if (!at_limit_) {
    log_ << "maced: " << served_ << " connections open; refusing new ones (" << reason.substr(7)
         << ") until some close\n";
    log_.flush();
    at_limit_ = true;
  }
  ++refused_in_episode_;
  if (refusing_ >= kMaxLingeringRefusals) return;  // `stream` is closed here, unexplained
  ++refusing_;
  auto refusal = rpc::refuse_connection(*stream, reason)
                     .exclusiveJoin(timer_.afterDelay(kRefusalLinger))
                     // A client that left before it was told has nothing more to hear.
                     .catch_([](kj::Exception&&) {})
                     .attach(kj::mv(stream), kj::defer([this] { --refusing_; }));
  tasks_.add(kj::mv(refusal));
}

kj::Promise<void> ClientConnections::idle_for_the_timeout(
    std::shared_ptr<rpc::ConnectionActivity> activity) {
  using Clock = rpc::ConnectionActivity::Clock;
  // Busy: nothing can end before a whole timeout has passed, so look again then.
  Clock::duration wait = limits_.idle_timeout;
  if (!activity->busy()) {
    auto idle = Clock::now() - activity->last_change();
    if (idle >= limits_.idle_timeout) return kj::READY_NOW;
    wait = limits_.idle_timeout - idle;
  }
  auto ms = std::chrono::ceil<std::chrono::milliseconds>(wait).count();
  return timer_.afterDelay(ms * kj::MILLISECONDS)
      .then([this, activity = std::move(activity)]() mutable {
        return idle_for_the_timeout(std::move(activity));
      });
}

}  // namespace mace
