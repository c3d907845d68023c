#include "service/checkout_pool.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace mace::service {

CheckoutPool::CheckoutPool(std::vector<PooledCheckout> checkouts)
    : checkouts_(std::move(checkouts)), holder_(checkouts_.size()) {}

size_t CheckoutPool::free_count() const {
  return static_cast<size_t>(std::count(holder_.begin(), holder_.end(), std::nullopt));
}

std::optional<Grant> CheckoutPool::grant_next(const std::vector<QueuedRun>& queued,
                                              const Unusable& unusable) {
  std::optional<size_t> free;
  for (size_t i = 0; i < holder_.size() && !free; ++i)
    if (!holder_[i] && (!unusable || !unusable(checkouts_[i]))) free = i;
  if (!free) return std::nullopt;

  std::map<uint32_t, size_t> in_use;  // checkouts held per user
  std::map<std::string, size_t> held;  // per run
  for (const auto& holder : holder_) {
    if (!holder) continue;
    ++in_use[uid_of_.at(*holder)];
    ++held[*holder];
  }
  // Fewest checkouts in use first, then the user served longest ago, then a run that holds
  // none, then the oldest run: a user with a long queue or a wide plan cannot keep everyone
  // else waiting.
  using Key = std::tuple<size_t, uint64_t, bool, std::string>;
  std::optional<Key> best;
  Grant grant;
  uint32_t granted_uid = 0;
  auto consider = [&](const std::string& run_id, uint32_t uid, bool starts) {
    const auto served = last_served_.find(uid);
    const Key key{in_use[uid], served == last_served_.end() ? 0 : served->second, held[run_id] > 0, run_id};
    if (best && !(key < *best)) return;
    best = key;
    grant = {run_id, *free, starts};
    granted_uid = uid;
  };
  for (const auto& run : queued)
    if (!uid_of_.count(run.run_id)) consider(run.run_id, run.uid, true);
  for (const auto& [run_id, wants] : wanted_)
    if (held[run_id] < wants) consider(run_id, uid_of_.at(run_id), false);
  if (!best) return std::nullopt;

  holder_[*free] = grant.run_id;
  last_served_[granted_uid] = ++grants_;
  if (grant.starts_run) {
    for (const auto& run : queued)
      if (run.run_id == grant.run_id) uid_of_[run.run_id] = run.uid;
    wanted_[grant.run_id] = 1;
  }
  return grant;
}

void CheckoutPool::want(const std::string& run_id, size_t count) {
  if (uid_of_.count(run_id)) wanted_[run_id] = count;
}

size_t CheckoutPool::wanted_by(const std::string& run_id) const {
  auto it = wanted_.find(run_id);
  return it == wanted_.end() ? 0 : it->second;
}

void CheckoutPool::release(const std::string& run_id, size_t index) {
  if (index < holder_.size() && holder_[index] == run_id) holder_[index].reset();
}

void CheckoutPool::release(const std::string& run_id) {
  for (auto& holder : holder_)
    if (holder == run_id) holder.reset();
  uid_of_.erase(run_id);
  wanted_.erase(run_id);
}

std::vector<size_t> CheckoutPool::held_by(const std::string& run_id) const {
  std::vector<size_t> out;
  for (size_t i = 0; i < holder_.size(); ++i)
    if (holder_[i] == run_id) out.push_back(i);
  return out;
}

std::optional<std::string> CheckoutPool::none_usable(const Unusable& unusable) const {
  if (checkouts_.empty()) return "maced has no checkout";
  if (!unusable) return std::nullopt;
  std::set<std::string> seen;
  std::string reasons;
  for (const auto& checkout : checkouts_) {
    auto why = unusable(checkout);
    if (!why) return std::nullopt;
    if (!seen.insert(*why).second) continue;
    reasons += (reasons.empty() ? "" : "; ") + *why;
  }
  return reasons;
}

}  // namespace mace::service
