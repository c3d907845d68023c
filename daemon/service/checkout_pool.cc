#include "service/checkout_pool.h"

#include <algorithm>
#include <tuple>

namespace mace::service {

CheckoutPool::CheckoutPool(std::vector<PooledCheckout> checkouts)
    : checkouts_(std::move(checkouts)), holder_(checkouts_.size()) {}

size_t CheckoutPool::free_count() const {
  return static_cast<size_t>(std::count(holder_.begin(), holder_.end(), std::nullopt));
}

std::optional<Lease> CheckoutPool::lease_next(const std::vector<QueuedRun>& queued,
                                              const Usable& usable) {
  auto leasable = [&](size_t i) { return !holder_[i] && (!usable || usable(checkouts_[i])); };
  size_t free = 0;
  for (size_t i = 0; i < holder_.size(); ++i) free += leasable(i) ? 1 : 0;
  if (free == 0 || queued.empty()) return std::nullopt;

  std::map<uint32_t, size_t> in_use;  // checkouts held per user
  for (const auto& holder : holder_)
    if (holder) ++in_use[uid_of_.at(*holder)];

  // Fewest checkouts in use first, then the oldest run: a user with a long queue cannot
  // keep everyone else waiting.
  const QueuedRun* next = nullptr;
  for (const auto& run : queued) {
    if (uid_of_.count(run.run_id)) continue;  // already running
    auto key = [&](const QueuedRun& r) { return std::make_tuple(in_use[r.uid], r.run_id); };
    if (next == nullptr || key(run) < key(*next)) next = &run;
  }
  if (next == nullptr) return std::nullopt;

  size_t want = next->wants > 0 ? static_cast<size_t>(next->wants) : free;
  Lease lease{next->run_id, {}};
  for (size_t i = 0; i < holder_.size() && lease.checkouts.size() < want; ++i) {
    if (!leasable(i)) continue;
    holder_[i] = next->run_id;
    lease.checkouts.push_back(i);
  }
  uid_of_[next->run_id] = next->uid;
  return lease;
}

void CheckoutPool::release(const std::string& run_id) {
  for (auto& holder : holder_)
    if (holder == run_id) holder.reset();
  uid_of_.erase(run_id);
}

std::vector<size_t> CheckoutPool::held_by(const std::string& run_id) const {
  std::vector<size_t> out;
  for (size_t i = 0; i < holder_.size(); ++i)
    if (holder_[i] == run_id) out.push_back(i);
  return out;
}

}  // namespace mace::service
