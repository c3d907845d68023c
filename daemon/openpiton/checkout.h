#pragma once
// One OpenPiton checkout, where its commands run, and the environment its tools need: what
// `piton/piton_settings.bash` sets, reproduced without a shell so that nothing from the
// daemon's own environment leaks into a build (an inherited CONFIG_L1D_SIZE would change
// the model; see docs/openpiton-findings.md).

#include <filesystem>
#include <map>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include "os/cancel_token.h"
#include "os/command_runner.h"
#include "os/process_group.h"

namespace mace::openpiton {

class Checkout {
 public:
  // `root` is the checkout's top (it holds piton/). Throws std::invalid_argument naming
  // what is missing when it does not look like an OpenPiton checkout.
  explicit Checkout(std::filesystem::path root);
  // The same, with its builds, simulations and unit-test builds run by `runner` (on the
  // machine that holds the checkout) instead of here. Its files are still read and written
  // at `root`, which must be the same directory on both machines.
  Checkout(std::filesystem::path root, std::shared_ptr<const os::CommandRunner> runner);

  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path dv_root() const { return root_ / "piton"; }
  std::filesystem::path model_root() const { return root_ / "build"; }
  // build/manycore/<build_id>
  std::filesystem::path model_dir(const std::string& build_id) const;
  // build/manycore/<build_id>/obj_dir/Vcmp_top
  std::filesystem::path model_binary(const std::string& build_id) const;
  // Removes every model MACE built here (build/<system>/mace_*, whatever the system, so a
  // unit-test environment's too) and returns them as paths relative to root(), in order.
  // Throws std::filesystem::filesystem_error, naming the path, when one cannot be removed.
  std::vector<std::string> remove_mace_models() const;

  // The environment for sims: PITON_ROOT, DV_ROOT, MODEL_DIR, PATH with piton/tools/bin
  // first, and the rest of piton_settings.bash, on top of a minimal base (HOME, USER,
  // LANG, TMPDIR, and PATH from `base`). Nothing else of `base` is kept.
  std::map<std::string, std::string> environment(
      const std::map<std::string, std::string>& base) const;

  // Runs one of the checkout's commands where the checkout's work runs.
  os::ProcessResult run(const os::ProcessSpec& spec, const os::CancelToken* cancel) const {
    return runner_->run(spec, cancel);
  }
  const os::CommandRunner& runner() const { return *runner_; }
  // This checkout, its commands also named after `label` (a task ID).
  Checkout labelled(const std::string& label) const;
  // This checkout for up to `at_once` commands side by side (os::CommandRunner::
  // side_by_side): what its runner holds for them is released when the copy goes. Nullopt,
  // with `why` said, when that cannot be had.
  std::optional<Checkout> side_by_side(std::size_t at_once, const os::CancelToken* cancel,
                                       std::string& why) const;

 private:
  std::filesystem::path root_;
  std::shared_ptr<const os::CommandRunner> runner_;
};

}  // namespace mace::openpiton
