#pragma once
// Run IDs: unique, and ordered as strings by submission time, so `ls`, SQL `ORDER BY id`
// and people all agree on which run came first. Shape: 20261130-121530-123-9f3a1c
// (UTC date, time, milliseconds, 24 random bits).

#include <cstdint>
#include <mutex>
#include <string>

namespace mace {

class RunIdGenerator {
 public:
  // `now_ms` is the Unix time in milliseconds. IDs issued by one generator strictly
  // increase even when the clock stalls or steps back.
  std::string next(int64_t now_ms);

 private:
  std::mutex mu_;
  int64_t last_ms_ = 0;
};

bool looks_like_run_id(const std::string& s);

// An ID a client sent, as an error message echoes it: whole when short, else its start and
// its length ("abcabc... (102400 bytes)"), so a message never carries a client's megabyte.
std::string id_for_message(const std::string& id);

}  // namespace mace
