#include "openpiton/builder.h"

#include "openpiton/build_attempt.h"

namespace mace::openpiton {
namespace {

std::string_view trim_left(std::string_view line) {
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  return line;
}

}  // namespace

bool is_build_error_line(std::string_view line) {
  const std::string_view text = trim_left(line);
  // Verilator: "%Error: file.v:12:3: ..." and "%Error-NEEDTIMINGOPT: ..."; never %Warning.
  if (text.starts_with("%Error")) return true;
  // sims: its own fatal errors, "DIE. ..." or, through its __DIE__ handler,
  // "sims: Caught a SIGDIE. failed building model at .../sims,2.0 line 1572.".
  if (text.starts_with("DIE.") || text.find("Caught a SIGDIE.") != std::string_view::npos) {
    return true;
  }
  // g++: "file.cpp:3:1: error: ..." / "fatal error: ...".
  if (text.find(": error: ") != std::string_view::npos ||
      text.find(": fatal error: ") != std::string_view::npos) {
    return true;
  }
  // make: "make[1]: *** [Vcmp_top.mk:60: Vcmp_top] Error 1".
  if (text.starts_with("make") && text.find("*** ") != std::string_view::npos &&
      text.find("Error") != std::string_view::npos) {
    return true;
  }
  return false;
}

BuildResult build(const Checkout& checkout, const BuildConfig& config,
                  const BuildOptions& options) {
  BuildAttempt build(checkout, config, options);
  if (auto ended = build.refuse_what_cannot_start()) return *ended;
  if (auto ended = build.restore_leftover_edits()) return *ended;
  if (auto ended = build.read_toolchain()) return *ended;
  build.take_fingerprint();
  if (auto ended = build.reuse_in_place()) return *ended;
  if (auto ended = build.clear_old_model()) return *ended;
  if (auto ended = build.take_from_store()) return *ended;
  if (auto ended = build.bound_the_compiles()) return *ended;
  return build.compile();
}

}  // namespace mace::openpiton
