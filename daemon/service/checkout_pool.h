#pragma once
// The OpenPiton checkouts maced owns, leased to runs. A run holds what it can use: it
// starts with one checkout, asks for more as its levels need them (want) and gives back
// what it has nothing left for (release), so concurrent runs share the pool; one task at a
// time runs on a checkout (REQ-EXEC-2), so a checkout belongs to one run at a time. Who
// gets the next free checkout is fair between users (docs/operating-maced.md, "Fair
// shares"): the user with the fewest checkouts in use goes first; among users holding as
// many, the one served longest ago (a user never served first of all), so turns alternate
// between users however long one user's queue is; among one user's runs, one holding none
// (a queued run, which then starts), then the oldest. One user's queue so delays another
// user's run by at most one task per checkout.
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
  std::string run_id;  // IDs sort by submission time
  uint32_t uid = 0;
};

// One checkout handed out.
struct Grant {
  std::string run_id;
  size_t checkout = 0;      // its index in the pool
  bool starts_run = false;  // to a queued run, which starts with it
};

class CheckoutPool {
 public:
  explicit CheckoutPool(std::vector<PooledCheckout> checkouts);

  size_t size() const { return checkouts_.size(); }
  size_t free_count() const;
  const PooledCheckout& at(size_t index) const { return checkouts_.at(index); }

  // Why a checkout cannot be given to a run now (its node is down); nullopt: it can.
  // Unset: every one can.
  using Unusable = std::function<std::optional<std::string>(const PooledCheckout&)>;

  // The next free, usable checkout, to a queued run (which starts with it) or to a running
  // run holding fewer than it wants; nullopt when none is free or nobody wants one.
  std::optional<Grant> grant_next(const std::vector<QueuedRun>& queued, const Unusable& unusable = {});

  // How many checkouts in all a running run could use now; it is never given more.
  void want(const std::string& run_id, size_t count);
  size_t wanted_by(const std::string& run_id) const;

  // Gives back checkout `index`, held by `run_id`; nothing when it does not hold it.
  void release(const std::string& run_id, size_t index);
  // Gives back every checkout `run_id` holds, and forgets the run (it ended).
  void release(const std::string& run_id);

  // The run holding checkout `index`, if any.
  std::optional<std::string> holder(size_t index) const { return holder_.at(index); }
  std::vector<size_t> held_by(const std::string& run_id) const;

  // Why no checkout of the pool can be given to any run now (every node down): each
  // distinct reason, "; "-joined. nullopt when one can, even if another run holds it.
  std::optional<std::string> none_usable(const Unusable& unusable) const;

 private:
  std::vector<PooledCheckout> checkouts_;
  std::vector<std::optional<std::string>> holder_;  // run holding each checkout
  std::map<std::string, uint32_t> uid_of_;          // runs under way
  std::map<std::string, size_t> wanted_;            // what each run under way could use
  // When each user was last given a checkout, in grants made (not time: nothing here
  // depends on a clock); a user absent was never served.
  std::map<uint32_t, uint64_t> last_served_;
  uint64_t grants_ = 0;
};

}  // namespace mace::service
