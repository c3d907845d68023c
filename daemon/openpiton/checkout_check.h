#pragma once
// Whether a directory can serve as one of maced's checkouts, judged from its files alone,
// before any build: what `mace doctor` reports and what maced refuses a checkout for at
// start. Each problem is a word of a closed list, so whoever reports it says what to do
// about it by a switch the compiler checks.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mace::openpiton {

enum class CheckoutProblem {
  missing,           // nothing at the path
  inaccessible,      // this process may not look at the path (a directory on the way is closed)
  not_a_directory,
  not_openpiton,     // no piton/piton_settings.bash or piton/tools/bin/sims
  unusable_path,     // a path OpenPiton's tools cannot take ("-B", a space, ...)
  not_writable,      // builds write build/ and pyHP output beside the design's sources
  testbench_unpatched,  // the Verilator 5 fix of scripts/patch_openpiton.sh is missing
  testbench_unknown,    // ciop_iob.v.pyv is neither the file the patch knows nor patched
  tile_unpatched,       // no Generic Tile, no first-request line (generic cores)
  coverage_unpatched,   // the testbench main writes no coverage.dat
  pal_unpatched,        // sparc .pal diags want a /usr/tmp
};

struct CheckoutFinding {
  CheckoutProblem problem;
  std::string detail;  // what was found: the file, the character, the missing entry
};

// What is wrong with `root` as a checkout, most fundamental first: when it is missing or
// not an OpenPiton checkout nothing else is looked at. `verilator_major` is the installed
// Verilator's major version (nullopt: unknown); with 5 or later an unpatched testbench is a
// problem, before that it is not needed. Reads only; never throws.
std::vector<CheckoutFinding> check_checkout(const std::filesystem::path& root,
                                            std::optional<int> verilator_major);

// The first reason OpenPiton's tools cannot work under `path`, or nullopt. Its bw_cpp (the
// preprocessor of sims.config) deletes every "-B" from its arguments, so under a directory
// named "x-By" sims dies with "could not find manycore in sims.config"; its shell scripts
// split words at white space and expand the rest. An allowlist: letters, digits and
// "/._+-,@=" only.
std::optional<std::string> unusable_path_reason(std::string_view path);

}  // namespace mace::openpiton
