#pragma once
// A moment as MACE writes it for people in files and messages that outlive a terminal's
// time zone: "2026-12-02 07:05:02 UTC".

#include <cstdint>
#include <string>

namespace mace::os {

// `unix_ms`: milliseconds since the Unix epoch.
std::string utc_text(std::int64_t unix_ms);

// The same as ISO 8601 without a zone, as JUnit XML's timestamps are: "2026-12-02T07:05:02".
std::string utc_iso8601(std::int64_t unix_ms);

}  // namespace mace::os
