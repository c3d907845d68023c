#pragma once
// The replay cache of one run (REQ-REPLAY-2..4), over injected storage so it knows
// nothing of the store's thread or the event loop.
//
//   cache   functions whose tagged calls' return values are stored under the run's tags;
//   bypass  functions whose tagged calls are served from the cache instead of executing,
//           looked up under the source run's tags (the original of a `mace replay`, or a
//           spec's `replay.from`): a call with no entry fails with CacheMiss naming the
//           tag, and nothing runs.
//
// Each entry records what produced it (MACE's version, the checkout's source fingerprint,
// Verilator's version). An entry served on another checkout or by another MACE is still
// served, because the replay reproduces what the original saw, not what this checkout
// would build; but the run is told, once per difference, so nobody mistakes it for a
// result of this checkout.

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "store/store.h"

namespace mace::replay {

struct CallPolicy {
  std::set<std::string, std::less<>> cache;
  std::set<std::string, std::less<>> bypass;
  std::string run_id;         // the run making the calls: the tags entries are stored under
  std::string source_run_id;  // whose entries bypassed calls are served from
};

struct Provenance {
  std::string mace_version;
  std::string checkout_fingerprint;  // "" where no checkout decides the value (a prompt)
  std::string verilator_version;
};

class CacheMiss : public std::runtime_error {
 public:
  explicit CacheMiss(const std::string& tag)
      : std::runtime_error("cache miss: no cache entry for tag " + tag), tag_(tag) {}
  const std::string& tag() const { return tag_; }

 private:
  std::string tag_;
};

class CallCache {
 public:
  struct Storage {
    std::function<std::optional<store::CacheEntryRecord>(const std::string& tag)> find;
    std::function<void(const store::CacheEntryRecord&)> put;
  };

  // `mace_version` is this MACE's; the checkout's fingerprint is asked through
  // `checkout_fingerprint`, once per checkout per run.
  CallCache(CallPolicy policy, Storage storage, std::function<int64_t()> now_ms,
            std::string mace_version);

  bool caches(std::string_view function) const { return policy_.cache.count(function) > 0; }
  bool bypasses(std::string_view function) const { return policy_.bypass.count(function) > 0; }
  // The run's own tag of a call.
  std::string tag(int iteration, std::string_view task_id, std::string_view phase) const;

  // The entry serving a bypassed call whose own tag is `tag` (REQ-REPLAY-3). Throws
  // CacheMiss, naming the source run's tag, when there is none (REQ-REPLAY-4), after
  // telling on_miss. `checkout_root` ("" for none) is where the call would have run: an
  // entry made on a checkout with another fingerprint is reported through on_notice.
  store::CacheEntryRecord serve(std::string_view function, const std::string& tag,
                                const std::string& checkout_root);

  // Stores the return value of a call when `function` is cached (REQ-REPLAY-2). A store
  // that fails is reported through on_notice; the call's result stands.
  void store(std::string_view function, const std::string& tag, const std::string& value_json,
             const Provenance& produced_by);

  // Told, each once, what differs between an entry's producer and this replay, and a
  // store that failed. Called from the calling thread; may be empty.
  std::function<void(const std::string& message)> on_notice;
  // Told of every miss before CacheMiss is thrown.
  std::function<void(const std::string& tag)> on_miss;
  // The fingerprint of the checkout at a root, as its builds would record it; "" when it
  // cannot be taken. Unset: fingerprints are not compared.
  std::function<std::string(const std::string& checkout_root)> checkout_fingerprint;

 private:
  void notice_once(const std::string& key, const std::string& message);
  std::string fingerprint_of(const std::string& checkout_root);

  CallPolicy policy_;
  Storage storage_;
  std::function<int64_t()> now_ms_;
  std::string mace_version_;
  std::mutex mutex_;  // calls come from the executor's threads
  std::set<std::string> noticed_;
  std::map<std::string, std::string> fingerprints_;  // by checkout root
};

// The policy of a run from its spec's `replay` settings and maced's default cache list:
// `spec_cache` unset takes `default_cache`; `from` unset serves from the run itself.
CallPolicy call_policy(const std::string& run_id,
                       const std::optional<std::vector<std::string>>& spec_cache,
                       const std::vector<std::string>& spec_bypass,
                       const std::optional<std::string>& from,
                       const std::vector<std::string>& default_cache);

// A `mace replay` of `original`: builds and runs served from its entries, nothing stored.
CallPolicy replay_policy(const std::string& run_id, const std::string& original_run_id);

}  // namespace mace::replay
