#include "replay/call_cache.h"

#include "replay/tag.h"

namespace mace::replay {

CallCache::CallCache(CallPolicy policy, Storage storage, std::function<int64_t()> now_ms,
                     std::string mace_version)
    : policy_(std::move(policy)),
      storage_(std::move(storage)),
      now_ms_(std::move(now_ms)),
      mace_version_(std::move(mace_version)) {}

std::string CallCache::tag(int iteration, std::string_view task_id, std::string_view phase) const {
  return call_tag(policy_.run_id, iteration, task_id, phase);
}

store::CacheEntryRecord CallCache::serve(std::string_view function, const std::string& tag,
                                         const std::string& checkout_root) {
  std::string source_tag = with_run_id(tag, policy_.source_run_id);
  std::optional<store::CacheEntryRecord> entry = storage_.find(source_tag);
  if (!entry || entry->function != function) {
    if (on_miss) on_miss(source_tag);
    throw CacheMiss(source_tag);
  }
  if (entry->mace_version != mace_version_) {
    notice_once("mace " + entry->mace_version,
                "cache entries such as " + source_tag + " were made by MACE " +
                    entry->mace_version + "; this is MACE " + mace_version_ +
                    ": they are served as recorded");
  }
  if (!entry->checkout_fingerprint.empty() && checkout_fingerprint && !checkout_root.empty()) {
    std::string current = fingerprint_of(checkout_root);
    if (current != entry->checkout_fingerprint) {
      notice_once("fingerprint " + entry->checkout_fingerprint + " " + checkout_root,
                  "cache entry " + source_tag + " was made on a checkout with source fingerprint " +
                      entry->checkout_fingerprint.substr(0, 12) +
                      (entry->verilator_version.empty() ? "" : " (" + entry->verilator_version + ")") +
                      "; " + checkout_root + " has " +
                      (current.empty() ? std::string("none that could be taken")
                                       : current.substr(0, 12)) +
                      ": its builds and runs are served as recorded, not as this checkout "
                      "would make them");
    }
  }
  return *entry;
}

void CallCache::store(std::string_view function, const std::string& tag,
                      const std::string& value_json, const Provenance& produced_by) {
  if (!caches(function)) return;
  store::CacheEntryRecord entry;
  entry.tag = tag;
  entry.run_id = policy_.run_id;
  entry.function = std::string(function);
  entry.value_json = value_json;
  entry.mace_version = produced_by.mace_version.empty() ? mace_version_ : produced_by.mace_version;
  entry.checkout_fingerprint = produced_by.checkout_fingerprint;
  entry.verilator_version = produced_by.verilator_version;
  entry.created_at_ms = now_ms_();
  try {
    storage_.put(entry);
  } catch (const std::exception& e) {
    notice_once("store " + tag, "the cache entry " + tag + " was not stored: " + e.what());
  }
}

std::string CallCache::fingerprint_of(const std::string& checkout_root) {
  {
    std::lock_guard lock(mutex_);
    if (auto it = fingerprints_.find(checkout_root); it != fingerprints_.end()) return it->second;
  }
  std::string digest = checkout_fingerprint(checkout_root);
  std::lock_guard lock(mutex_);
  return fingerprints_.emplace(checkout_root, digest).first->second;
}

void CallCache::notice_once(const std::string& key, const std::string& message) {
  {
    std::lock_guard lock(mutex_);
    if (!noticed_.insert(key).second) return;
  }
  if (on_notice) on_notice(message);
}

CallPolicy call_policy(const std::string& run_id,
                       const std::optional<std::vector<std::string>>& spec_cache,
                       const std::vector<std::string>& spec_bypass,
                       const std::optional<std::string>& from,
                       const std::vector<std::string>& default_cache) {
  CallPolicy policy;
  for (const auto& f : spec_cache.value_or(default_cache)) policy.cache.insert(f);
  for (const auto& f : spec_bypass) policy.bypass.insert(f);
  policy.run_id = run_id;
  policy.source_run_id = from.value_or(run_id);
  return policy;
}

CallPolicy replay_policy(const std::string& run_id, const std::string& original_run_id) {
  CallPolicy policy;
  policy.bypass = {std::string(kBuildFunction), std::string(kRunFunction)};
  policy.run_id = run_id;
  policy.source_run_id = original_run_id;
  return policy;
}

}  // namespace mace::replay
