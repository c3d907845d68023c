#pragma once
// Who is at the other end of a client connection: its uid from SO_PEERCRED, and whether it
// administers maced (root, maced's own user, or a member of access.admin_group).

#include <sys/types.h>

#include <optional>
#include <string>

#include "service/caller.h"

namespace mace {

// The gid of the group `name`; nullopt for an empty name. Throws std::runtime_error naming
// access.admin_group when there is no such group: maced must not start believing it has
// administrators it has not.
std::optional<gid_t> resolve_admin_group(const std::string& name);

// The caller a peer with `uid` and primary `gid` is. Group membership is read from the
// group database at each connection, so adding someone to the group takes effect at once.
service::Caller caller_of(uid_t uid, gid_t gid, std::optional<gid_t> admin_gid);

}  // namespace mace
