// The replay cache (migration 3): each tagged call's value with what produced it.

#include "store/columns.h"
#include "store/sqlite.h"
#include "store/store.h"

namespace mace::store {
namespace {

const auto kCacheColumns = columns(
    column("tag", &CacheEntryRecord::tag), column("run_id", &CacheEntryRecord::run_id),
    column("function", &CacheEntryRecord::function), column("value_json", &CacheEntryRecord::value_json),
    column("mace_version", &CacheEntryRecord::mace_version),
    column("checkout_fingerprint", &CacheEntryRecord::checkout_fingerprint),
    column("verilator_version", &CacheEntryRecord::verilator_version),
    column("created_at_ms", &CacheEntryRecord::created_at_ms));

}  // namespace

void Store::put_cache_entry(const CacheEntryRecord& e) {
  auto stmt = db_->prepare(kCacheColumns.insert_sql("call_cache", "INSERT OR REPLACE"));
  kCacheColumns.bind(stmt, 1, e).run();
}

std::optional<CacheEntryRecord> Store::find_cache_entry(const std::string& tag) const {
  auto stmt = db_->prepare(kCacheColumns.select_sql("call_cache", "WHERE tag = ?1"));
  return kCacheColumns.read_first(*db_, stmt.bind(1, tag));
}

std::vector<CacheEntryRecord> Store::cache_entries(const std::string& run_id) const {
  auto stmt = db_->prepare(kCacheColumns.select_sql("call_cache", "WHERE run_id = ?1 ORDER BY tag"));
  return kCacheColumns.read_all(*db_, stmt.bind(1, run_id));
}

}  // namespace mace::store
