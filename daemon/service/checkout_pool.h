#pragma once
// The OpenPiton checkouts maced owns, leased to runs. A run holds at most as many as its
// spec's `checkouts` asks (all free ones when it asks for none), and at least one; one
// task at a time runs on a checkout (REQ-EXEC-2), so a checkout belongs to one run at a
// time. Which queued run goes next is fair between users: the user with the fewest
// checkouts in use goes first, and among one user's runs the oldest.
//
// Plain bookkeeping, called from one thread; no knowledge of threads or sockets.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mace::service {

struct PooledCheckout {
  std::string path;
  std::string node;
};

struct QueuedRun {
  std::string run_id;        // IDs sort by submission time
  uint32_t uid = 0;
  int64_t wants = 0;         // the spec's `checkouts`; 0: as many as are free
};

struct Lease {
  std::string run_id;
  std::vector<size_t> checkouts;  // indexes into the pool, in order: task i of a batch
                                  // runs on checkouts[i]
};

class CheckoutPool {
 public:
  explicit CheckoutPool(std::vector<PooledCheckout> checkouts);

  size_t size() const { return checkouts_.size(); }
  size_t free_count() const;
  const PooledCheckout& at(size_t index) const { return checkouts_.at(index); }

  // Whether a checkout can be given to a run now (its node is up); unset: every one.
  using Usable = std::function<bool(const PooledCheckout&)>;

  // Picks the next run to start among `queued` and leases it checkouts, or nullopt when
  // no usable checkout is free or nothing is queued. A run whose spec asks for more
  // checkouts than the pool has gets what there is.
  std::optional<Lease> lease_next(const std::vector<QueuedRun>& queued, const Usable& usable = {});

  // The run holding checkout `index`, if any.
  std::optional<std::string> holder(size_t index) const { return holder_.at(index); }

  // Gives back every checkout `run_id` holds.
  void release(const std::string& run_id);

  std::vector<size_t> held_by(const std::string& run_id) const;

 private:
  std::vector<PooledCheckout> checkouts_;
  std::vector<std::optional<std::string>> holder_;  // run holding each checkout
  std::map<std::string, uint32_t> uid_of_;          // runs holding checkouts
};

}  // namespace mace::service
