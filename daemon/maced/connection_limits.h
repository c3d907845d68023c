#pragma once
// The limits on maced's client connections (docs/operating-maced.md). Each one bounds what
// clients, or one misbehaving client, can take of maced's descriptors and memory, which
// its runs' builds and store need too.

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace mace {

// `connections.max`: connections served at once; one more is told "too many connections"
// and closed. Well under systemd's default descriptor limit (1024) and far under the
// service's LimitNOFILE=, so the store, builds and simulations keep theirs.
inline constexpr int64_t kDefaultMaxConnections = 256;
inline constexpr int64_t kMaxMaxConnections = 65536;

// `connections.idle_timeout_s`: a connection with no call in flight, no watch subscription
// and no tool session of an LLM call under way is closed after this long, so idle sockets
// cannot hold places and descriptors for ever.
inline constexpr int64_t kDefaultIdleTimeoutS = 600;
inline constexpr int64_t kMaxIdleTimeoutS = 86400;

// `connections.max_per_user`: connections one uid may hold at once, so one user's idle or
// runaway clients cannot take everyone's places. maced's administrators (root, its own
// user, access.admin_group) are not counted against it.
inline constexpr int64_t kDefaultMaxConnectionsPerUser = 32;

// `connections.admin_reserve`: places of connections.max kept for administrators: other
// users are refused once max - admin_reserve are served, so an administrator can always
// reach a maced that everyone else has filled up.
inline constexpr int64_t kDefaultAdminReserve = 8;

// `connections.max_pending_mb_per_user`: what one uid's connections may have announced of
// messages they are still sending. A message's size is in its first bytes, and maced
// reserves that much for it; beyond this budget a connection's next message is not read
// until the user's earlier ones are in (rpc/frame_budget_stream.h), so a user who starts
// many large messages and never finishes them holds this much of maced's memory, not
// connections × kMaxMessageBytes.
inline constexpr int64_t kDefaultMaxPendingMbPerUser = 64;
inline constexpr int64_t kMaxMaxPendingMbPerUser = 65536;

struct ConnectionLimits {
  std::size_t max_connections = kDefaultMaxConnections;
  std::chrono::seconds idle_timeout{kDefaultIdleTimeoutS};
  std::size_t max_per_user = kDefaultMaxConnectionsPerUser;
  std::size_t admin_reserve = kDefaultAdminReserve;
  std::size_t max_pending_bytes_per_user = static_cast<std::size_t>(kDefaultMaxPendingMbPerUser) << 20;
};

// Not configurable: the largest message a client may send. Cap'n Proto reserves the size a
// frame's header announces before the data arrives, up to this, and refuses a larger
// announcement at once; so one connection can make maced hold at most this much for a
// message. The largest legitimate requests (a testbench written through a tool call, at
// most 1 MiB; a run spec) are far smaller, with room to read them more than once (the
// limit also counts what maced traverses). Nesting deeper than the schema ever does is
// refused too.
inline constexpr std::size_t kMaxMessageBytes = 8 << 20;
inline constexpr int kMaxMessageNesting = 32;

}  // namespace mace
