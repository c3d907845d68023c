#pragma once
// The replay cache's entries as the store keeps them (store/call_cache_records.cc).

#include <cstdint>
#include <string>

namespace mace::store {

// One entry of the replay cache (REQ-REPLAY-2): the return value of a tagged call, and
// what produced it, so a replay elsewhere can say what differs.
struct CacheEntryRecord {
  std::string tag;       // <run ID>/iter<i>/<task id>/<phase>
  std::string run_id;    // the run the tag belongs to
  std::string function;  // prompt, build, run
  std::string value_json;
  std::string mace_version;
  std::string checkout_fingerprint;  // "" for a prompt
  std::string verilator_version;     // "" for a prompt
  int64_t created_at_ms = 0;
  bool operator==(const CacheEntryRecord&) const = default;
};

}  // namespace mace::store
