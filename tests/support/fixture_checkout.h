#pragma once
// A disposable OpenPiton checkout for tests: a copy of tests/fixtures/openpiton (its fake
// `sims`, settings and a few design files; see the README there) in a fresh temporary
// directory, made a git repository with one commit, and removed again on destruction.
//
// The fake sims keeps its state in <root>/.fake_sims/ (git-ignored, so it never dirties the
// checkout): `control` (key=value lines it reads at every invocation), `invocations` (one
// line per invocation), `pids` (processes a hang leaves behind). This class reads and
// writes those files.

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

namespace mace::testing {

// What the copy holds of scripts/patch_openpiton.sh's changes.
enum class FixtureState {
  // Its testbench fix for Verilator 5 applied (`--only testbench`), as every checkout maced
  // takes must have it on a machine with Verilator 5; the other steps not.
  patched_for_verilator,
  // The files as OpenPiton has them: for the patch script's own tests, and for what maced
  // and `mace doctor` say of an unpatched checkout.
  as_in_openpiton,
};

class FixtureCheckout {
 public:
  // Copies $MACE_SOURCE_ROOT/tests/fixtures/openpiton into a new directory under the
  // system's temporary directory, patched as `state` says, and commits it (fixed author,
  // committer and dates, so two checkouts have the same commit ID). Throws
  // std::runtime_error when that fails.
  explicit FixtureCheckout(FixtureState state = FixtureState::patched_for_verilator);
  // Kills (SIGKILL) every process listed in .fake_sims/pids that is still the process that
  // was recorded there, then removes the directory with everything in it.
  ~FixtureCheckout();
  FixtureCheckout(const FixtureCheckout&) = delete;
  FixtureCheckout& operator=(const FixtureCheckout&) = delete;

  // The checkout root ($PITON_ROOT): absolute, no trailing '/'.
  const std::string& root() const { return root_; }
  // root()/piton/tools/bin/sims.
  std::string sims() const;
  // The variables piton/piton_settings.bash sets for this checkout (PITON_ROOT, DV_ROOT,
  // MODEL_DIR, TRE_*, PERL_*, PATH with piton/tools/bin first, ...), for running the fake
  // directly as a program that drives sims would; inherited PATH after the checkout's.
  std::map<std::string, std::string> environment() const;

  // Sets `key=value` in .fake_sims/control, replacing an earlier value of `key`.
  void set_control(const std::string& key, const std::string& value);
  // Removes .fake_sims/control: default behaviour again.
  void clear_control();

  // Invocations of sims so far; with a mode ("build", "run" or "other"), only those.
  int invocations(const std::string& mode = "") const;
  // The arguments (argv[1..], unescaped) of each invocation so far, oldest first.
  std::vector<std::vector<std::string>> invocation_args() const;
  // The processes a hang recorded in .fake_sims/pids.
  std::vector<pid_t> recorded_pids() const;

  // The content of root()/relative; throws std::runtime_error when it cannot be read.
  std::string read(const std::string& relative) const;
  // Writes root()/relative, creating its directories. Throws when it cannot.
  void write(const std::string& relative, const std::string& content) const;

 private:
  std::string state_file(const std::string& name) const;

  std::string root_;
};

}  // namespace mace::testing
