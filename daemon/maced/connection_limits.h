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

struct ConnectionLimits {
  std::size_t max_connections = kDefaultMaxConnections;
  std::chrono::seconds idle_timeout{kDefaultIdleTimeoutS};
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
