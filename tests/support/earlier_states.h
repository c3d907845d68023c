#pragma once
// The state directories earlier MACEs wrote, kept in tests/store/upgrade/v<schema>/ (made by
// tests/store/upgrade/make_state.sh with the code of that version: the database as SQL text
// and the runs' kept logs), laid out again for a test to open with today's MACE.

#include <filesystem>
#include <string>
#include <vector>

namespace mace::testing {

struct EarlierState {
  int schema_version = 0;
  std::filesystem::path dir;  // tests/store/upgrade/v<N>
  std::string made_by;        // its made_by file: the commit and when
};

// Every one kept, oldest schema first.
std::vector<EarlierState> earlier_states();

// Writes `earlier` into `state_dir` as that MACE left it: mace.db at its own schema
// version (not migrated), runs/ with the kept logs, every path it stored pointing into
// `state_dir` (and `checkout_dir` for the checkout it ran on).
void lay_out(const EarlierState& earlier, const std::filesystem::path& state_dir,
             const std::filesystem::path& checkout_dir);

}  // namespace mace::testing
