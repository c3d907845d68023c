#pragma once
// A run's environment as it was recorded when it started (run/run_environment.h writes the
// JSON: MACE's version and commit, the host, the LLM, and per checkout its OpenPiton
// commit, source fingerprint and Verilator), read back for people (`mace status`, the
// report, JUnit) and for a reproduction (core/repro.h).

#include <string>
#include <string_view>
#include <vector>

namespace mace {

struct RunEnvironment {
  std::string mace_version, mace_commit, host, backend, model;
  struct Checkout {
    std::string path, commit, source_fingerprint, verilator;
  };
  std::vector<Checkout> checkouts;
  // The checkout at `path`; nullptr when the run did not start on it.
  const Checkout* checkout(const std::string& path) const;
};

// Every field "" (and no checkout) when `json` is empty or not an object; a field that is
// missing or not a string reads "".
RunEnvironment read_run_environment(std::string_view json);

}  // namespace mace
