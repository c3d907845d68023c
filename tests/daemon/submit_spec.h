#pragma once
// A run spec submitted through the real `mace submit`, as a user would: written to
// spec.json in the test's directory, its run ID the first line mace prints.

#include <string>

#include <gtest/gtest.h>

#include "support/child_process.h"
#include "support/maced_instance.h"

namespace mace::testing {

inline std::string submit_spec(const MacedInstance& maced, const TempDir& dir, const std::string& spec_json) {
  dir.write("spec.json", spec_json);
  const auto r = maced.mace({"submit", dir.file("spec.json")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out.substr(0, r.out.find('\n'));
}

}  // namespace mace::testing
