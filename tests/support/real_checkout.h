#pragma once
// The real OpenPiton checkout some tests need, from MACE_TEST_PITON_ROOT.

#include <optional>
#include <string>

namespace mace::testing {

// MACE_TEST_PITON_ROOT as maced's configuration takes a checkout path: absolute, normalised,
// without a trailing '/'. nullopt when it is unset or empty; the caller skips, saying why.
std::optional<std::string> real_checkout_root();

}  // namespace mace::testing
