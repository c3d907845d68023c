#pragma once
// What a task is expected to take before it starts, and the model it needs, so a level's
// longest tasks start first and a task that needs a model another is building waits for
// it (loop/dispatcher.h). Found, in this order, from:
//   the model store     an entry of the task's build ID: a hit, which costs seconds;
//   the build history   the last recorded build of the same build ID, else the median of
//                       recent builds of the run's core and mesh (store build_times);
//   nothing recorded    a build assumed longer than any recorded one of its kind, so
//                       unknown work goes before known short work;
// plus the recorded simulations of each gate workload on that core and mesh. An rtl task's
// model is not known before its agent has edited (it never waits for another's), nor is
// one carrying a seeded source fault.

#include <string>

#include "core/run_spec.h"
#include "loop/dispatcher.h"
#include "openpiton/model_store.h"
#include "run/run_recorder.h"

namespace mace::run {

// What a build that was taken from the model store is expected to cost: a copy of the
// model's files (about a second for pico, a few for sparc, measured).
inline constexpr double kStoreHitSeconds = 5;
// A build nothing is recorded of: longer than a real pico 1x1 build (about 50 s) and than
// any store hit, so it is started before them.
inline constexpr double kUnrecordedBuildSeconds = 600;

class ExpectedTimes {
 public:
  // `store` may be null (no model store). `fault_edits`: every build carries a seeded
  // source fault, whose build IDs are only known in a checkout.
  ExpectedTimes(RunRecorder& recorder, const RunSpec& spec, const openpiton::ModelStore* store,
                bool fault_edits);

  loop::ExpectedTime operator()(const loop::TaskJob& job) const;

 private:
  // The build ID the job's build will have; "" when not known before it runs.
  std::string model_of(const loop::TaskJob& job) const;
  double build_seconds(const std::string& model, std::string& basis) const;
  double simulation_seconds() const;

  RunRecorder& recorder_;
  const RunSpec& spec_;
  const openpiton::ModelStore* store_;
  bool fault_edits_;
};

}  // namespace mace::run
