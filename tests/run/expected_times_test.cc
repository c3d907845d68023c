// What a task is expected to take before it starts: from the model store, the build
// history of its model, then of its core and mesh, plus its workloads' simulations.

#include "run/expected_times.h"

#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "executor/adapter_bridge.h"
#include "service/run_service.h"
#include "store/store.h"
#include "support/child_process.h"

namespace mace::run {
namespace {

class ExpectedTimesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = store::Store::open(dir_.file("mace.db"));
    service_ = std::make_unique<service::RunService>(*store_);
    auto outcome = service_->submit_json(
        R"({"core": "pico", "mesh": [2, 1], "workloads": ["add.S"], "objective": "o", "backend": "direct"})",
        service::Caller{1000});
    run_id_ = outcome.run_id;
    spec_.core = Core::pico;
    spec_.mesh_x = 2;
    spec_.workloads = {"add.S"};
    recorder_ = std::make_unique<RunRecorder>(
        *service_, *store_, [](const std::function<void()>& work) { work(); }, run_id_);
  }

  loop::TaskJob job(const std::string& id, int64_t l2_size, TaskKind kind = TaskKind::config) {
    loop::TaskJob j;
    j.task.id = id;
    j.task.kind = kind;
    j.caches = {{"l1i", {16384, 4}}, {"l1d", {8192, 4}}, {"l15", {8192, 4}}, {"l2", {l2_size, 4}}};
    return j;
  }
  std::string model_of(const loop::TaskJob& j) {
    return openpiton::build_id(executor::build_config_for(spec_, j));
  }
  void built(const std::string& build_id, double seconds, int64_t at_ms) {
    store_->record_build_time({run_id_, build_id, "pico", 2, 1, seconds, 0, at_ms});
  }
  // An entry of model `build_id` published in the model store under dir_/models.
  void publish(const std::string& build_id) {
    const auto entry = std::filesystem::path(dir_.file("models")) / "entries" /
                       (build_id + "-" + std::string(64, 'a'));
    std::filesystem::create_directories(entry);
    std::ofstream(entry / "MANIFEST") << "mace-model-store 1\n";
  }

  mace::testing::TempDir dir_;
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<service::RunService> service_;
  std::unique_ptr<RunRecorder> recorder_;
  std::string run_id_;
  RunSpec spec_;
};

TEST_F(ExpectedTimesTest, AModelsOwnLastBuildComesBeforeItsKindsAndTheStoreBeforeBoth) {
  const openpiton::ModelStore models({.directory = dir_.file("models")});
  const ExpectedTimes expected(*recorder_, spec_, &models, false);
  const auto own = job("own", 131072), other = job("other", 32768), stored = job("stored", 262144);
  built(model_of(own), 300, 1);
  built("mace_something_else", 80, 2);
  built("mace_another", 100, 3);
  publish(model_of(stored));

  const loop::ExpectedTime a = expected(own);
  EXPECT_EQ(a.model, model_of(own));
  EXPECT_DOUBLE_EQ(a.seconds, 300);
  EXPECT_EQ(a.basis, "its last build");
  EXPECT_FALSE(a.model_ready);

  const loop::ExpectedTime b = expected(other);  // the median of pico 2x1's: 80, 100, 300
  EXPECT_DOUBLE_EQ(b.seconds, 100);
  EXPECT_EQ(b.basis, "pico 2x1 builds");

  const loop::ExpectedTime c = expected(stored);
  EXPECT_TRUE(c.model_ready);
  EXPECT_DOUBLE_EQ(c.seconds, kStoreHitSeconds);
  EXPECT_EQ(c.basis, "the model store");
}

TEST_F(ExpectedTimesTest, NothingRecordedIsAssumedLongAndSimulationsAddTheirRecordedTimes) {
  const ExpectedTimes expected(*recorder_, spec_, nullptr, false);
  const loop::ExpectedTime none = expected(job("t", 65536));
  EXPECT_DOUBLE_EQ(none.seconds, kUnrecordedBuildSeconds);
  EXPECT_EQ(none.basis, "no build of its kind recorded");

  store::TaskRecord task;
  task.run_id = run_id_;
  task.iteration = 1;
  task.task_id = "earlier";
  task.core = "pico";
  task.mesh_x = 2;
  task.mesh_y = 1;
  task.finished_at_ms = 5;
  task.results = {{0, "add.S", Verdict::pass, 0, "/r", 12.5}};
  store_->upsert_task(task);
  EXPECT_DOUBLE_EQ(expected(job("t", 65536)).seconds, kUnrecordedBuildSeconds + 12.5);
  loop::TaskJob build_only = job("t", 65536);
  build_only.simulate = false;
  EXPECT_DOUBLE_EQ(expected(build_only).seconds, kUnrecordedBuildSeconds);
}

TEST_F(ExpectedTimesTest, AModelNotKnownBeforeTheTaskRunsIsNeverShared) {
  const ExpectedTimes expected(*recorder_, spec_, nullptr, false);
  EXPECT_EQ(expected(job("r", 65536, TaskKind::rtl)).model, "") << "its agent decides its edits";
  EXPECT_EQ(expected(job("u", 65536, TaskKind::unit_test)).model, "");
  const ExpectedTimes faulted(*recorder_, spec_, nullptr, true);
  EXPECT_EQ(faulted(job("c", 65536)).model, "") << "a seeded source fault's edits are per checkout";
  EXPECT_NE(expected(job("c", 65536)).model, "");
}

}  // namespace
}  // namespace mace::run
