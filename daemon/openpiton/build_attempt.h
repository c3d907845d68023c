#pragma once
// One model build (builder.h's build) as the steps it takes, in order. Each step reads and
// fills in what the build has so far; one that ends the build returns its result, and
// nullopt lets the build go on to the next:
//
//   refuse_what_cannot_start  the way rule, no time left, cancelled
//   restore_leftover_edits    what a killed task left applied (REQ-EXEC-17)
//   read_toolchain            the Verilator version and the sims command
//   take_fingerprint          the sources the model will be built from
//   reuse_in_place            this checkout's model of those sources (REQ-VER-12)
//   clear_old_model           no stale marker or binary may pass for this build's
//   take_from_store           another checkout's, run's or node's model of those sources
//   bound_the_compiles        ccache and a bounded `make -j`
//   compile                   sims, then what its end says (build_classification.h),
//                             the marker, and the model published to the store

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "openpiton/builder.h"

namespace mace::openpiton {

class BuildAttempt {
 public:
  BuildAttempt(const Checkout& checkout, const BuildConfig& config, const BuildOptions& options);

  std::optional<BuildResult> refuse_what_cannot_start();
  std::optional<BuildResult> restore_leftover_edits();
  std::optional<BuildResult> read_toolchain();
  void take_fingerprint();
  std::optional<BuildResult> reuse_in_place();
  std::optional<BuildResult> clear_old_model();
  std::optional<BuildResult> take_from_store();
  std::optional<BuildResult> bound_the_compiles();
  BuildResult compile();

 private:
  // The build ends before sims runs: `reason`, said by `message`.
  BuildResult failed_before_start(Failure reason, std::string message);
  // The build ends with a model it did not compile (reused in place or from the store).
  BuildResult finished_without_compiling();
  bool cancelled() const { return options_.cancel != nullptr && options_.cancel->cancelled(); }

  const Checkout& checkout_;
  const BuildConfig& config_;
  const BuildOptions& options_;
  const std::chrono::steady_clock::time_point start_;
  const std::filesystem::path model_dir_;
  const std::filesystem::path binary_;
  const std::filesystem::path marker_;
  BuildResult result_;
  std::map<std::string, std::string> env_;
  // Held to the end of the build: another task of this process wanting the same model
  // waits, then finds it in the store instead of building it a second time.
  std::optional<ModelStore::Claim> claim_;
};

}  // namespace mace::openpiton
