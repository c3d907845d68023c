#include "maced/peer_caller.h"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace mace {
namespace {

bool member_of(uid_t uid, gid_t primary, gid_t group) {
  if (primary == group) return true;
  std::vector<char> buffer(16384);
  passwd entry{};
  passwd* found = nullptr;
  if (::getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) != 0 || !found) return false;
  int count = 64;
  std::vector<gid_t> groups(static_cast<size_t>(count));
  if (::getgrouplist(found->pw_name, primary, groups.data(), &count) < 0) {
    groups.resize(static_cast<size_t>(count));  // count now holds how many there are
    if (::getgrouplist(found->pw_name, primary, groups.data(), &count) < 0) return false;
  }
  groups.resize(static_cast<size_t>(count));
  return std::find(groups.begin(), groups.end(), group) != groups.end();
}

}  // namespace

std::optional<gid_t> resolve_admin_group(const std::string& name) {
  if (name.empty()) return std::nullopt;
  std::vector<char> buffer(16384);
  group entry{};
  group* found = nullptr;
  if (::getgrnam_r(name.c_str(), &entry, buffer.data(), buffer.size(), &found) != 0 || !found)
    throw std::runtime_error("access.admin_group: there is no group named \"" + name + "\"");
  return found->gr_gid;
}

service::Caller caller_of(uid_t uid, gid_t gid, std::optional<gid_t> admin_gid) {
  const bool admin = uid == 0 || uid == ::getuid() || (admin_gid && member_of(uid, gid, *admin_gid));
  return {static_cast<uint32_t>(uid), admin};
}

}  // namespace mace
