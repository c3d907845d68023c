// The replay cache (migration 3): each tagged call's value with what produced it.

#include "store/sqlite.h"
#include "store/store.h"

namespace mace::store {

namespace {

constexpr const char* kSelectCacheEntry = R"sql(
SELECT tag, run_id, function, value_json, mace_version, checkout_fingerprint,
       verilator_version, created_at_ms
FROM call_cache
)sql";

CacheEntryRecord read_cache_entry(const Statement& s) {
  return {s.text(0), s.text(1), s.text(2), s.text(3), s.text(4), s.text(5), s.text(6),
          s.int64(7)};
}

}  // namespace

void Store::put_cache_entry(const CacheEntryRecord& e) {
  auto stmt = db_->prepare(R"sql(
INSERT OR REPLACE INTO call_cache (tag, run_id, function, value_json, mace_version,
                                   checkout_fingerprint, verilator_version, created_at_ms)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
)sql");
  stmt.bind(1, e.tag)
      .bind(2, e.run_id)
      .bind(3, e.function)
      .bind(4, e.value_json)
      .bind(5, e.mace_version)
      .bind(6, e.checkout_fingerprint)
      .bind(7, e.verilator_version)
      .bind(8, e.created_at_ms);
  stmt.run();
}

std::optional<CacheEntryRecord> Store::find_cache_entry(const std::string& tag) const {
  auto stmt = db_->prepare(std::string(kSelectCacheEntry) + "WHERE tag = ?1");
  stmt.bind(1, tag);
  if (!stmt.step()) return std::nullopt;
  return read_cache_entry(stmt);
}

std::vector<CacheEntryRecord> Store::cache_entries(const std::string& run_id) const {
  auto stmt = db_->prepare(std::string(kSelectCacheEntry) + "WHERE run_id = ?1 ORDER BY tag");
  stmt.bind(1, run_id);
  std::vector<CacheEntryRecord> out;
  while (stmt.step()) out.push_back(read_cache_entry(stmt));
  return out;
}

}  // namespace mace::store
