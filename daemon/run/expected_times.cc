#include "run/expected_times.h"

#include "executor/adapter_bridge.h"
#include "executor/rtl_task.h"
#include "openpiton/edit_set.h"

namespace mace::run {

ExpectedTimes::ExpectedTimes(RunRecorder& recorder, const RunSpec& spec,
                             const openpiton::ModelStore* store, bool fault_edits)
    : recorder_(recorder), spec_(spec), store_(store), fault_edits_(fault_edits) {}

std::string ExpectedTimes::model_of(const loop::TaskJob& job) const {
  if (fault_edits_ || job.task.kind == TaskKind::rtl || job.task.kind == TaskKind::unit_test)
    return "";
  openpiton::BuildConfig config = executor::build_config_for(spec_, job);
  // As the executor gives it: an edited design has a build ID of its own.
  if (!job.edits.empty()) config.rtl_edits_hash = openpiton::edits_hash(executor::to_edit_set(job.edits));
  try {
    return openpiton::build_id(config);
  } catch (const std::exception&) {
    return "";  // a configuration the adapter refuses: it fails at once, whatever it waits for
  }
}

double ExpectedTimes::build_seconds(const std::string& model, std::string& basis) const {
  const std::string core(to_string(spec_.core));
  std::optional<double> seconds;
  if (!model.empty()) {
    seconds = recorder_.with_store([&](store::Store& s) { return s.last_build_seconds(model); });
    if (seconds) basis = "its last build";
  }
  if (!seconds) {
    seconds = recorder_.with_store(
        [&](store::Store& s) { return s.typical_build_seconds(core, spec_.mesh_x, spec_.mesh_y); });
    if (seconds)
      basis = core + " " + std::to_string(spec_.mesh_x) + "x" + std::to_string(spec_.mesh_y) + " builds";
  }
  if (!seconds) {
    basis = "no build of its kind recorded";
    return kUnrecordedBuildSeconds;
  }
  return *seconds;
}

double ExpectedTimes::simulation_seconds() const {
  const std::string core(to_string(spec_.core));
  double total = 0;
  for (const auto& workload : spec_.workloads)
    total += recorder_
                 .with_store([&](store::Store& s) {
                   return s.typical_simulation_seconds(core, spec_.mesh_x, spec_.mesh_y, workload);
                 })
                 .value_or(0);
  return total;
}

loop::ExpectedTime ExpectedTimes::operator()(const loop::TaskJob& job) const {
  loop::ExpectedTime expected;
  expected.model = model_of(job);
  if (!expected.model.empty() && store_ && store_->holds_build(expected.model)) {
    expected.model_ready = true;
    expected.seconds = kStoreHitSeconds;
    expected.basis = "the model store";
  } else {
    expected.seconds = build_seconds(expected.model, expected.basis);
  }
  if (job.simulate && job.task.kind != TaskKind::unit_test) expected.seconds += simulation_seconds();
  return expected;
}

}  // namespace mace::run
