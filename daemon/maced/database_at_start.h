#pragma once
// maced's database, checked before maced trusts it (store/database_check.h). A damaged one
// refuses the start with what was found and how to recover, instead of a maced that answers
// every call with "database disk image is malformed".

#include <chrono>
#include <filesystem>
#include <ostream>

namespace mace {

// How long the check at start may take; past it maced starts on what was read (and says so).
inline constexpr std::chrono::seconds kDatabaseCheckLimit{60};

// True when maced may open `database`; otherwise says on `log` what is wrong and how to
// recover, and returns false.
bool database_is_usable(const std::filesystem::path& database, std::ostream& log,
                        std::chrono::milliseconds limit = kDatabaseCheckLimit);

}  // namespace mace
