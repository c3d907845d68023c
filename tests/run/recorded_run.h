#pragma once
// A run as the run layer's parts see it, without maced: a real SQLite store in a temporary
// directory, the run service, one submitted run and its recorder, whose work runs in place.

#include <memory>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "run/run_recorder.h"
#include "service/run_service.h"
#include "store/store.h"
#include "support/child_process.h"

namespace mace::run::testing {

class RecordedRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = store::Store::open(dir_.file("mace.db"));
    service_ = std::make_unique<service::RunService>(*store_);
    auto outcome = service_->submit_json(
        R"({"core": "pico", "mesh": [1, 1], "workloads": ["add.S"], "objective": "run add", "backend": "direct"})",
        service::Caller{1000});
    ASSERT_THAT(outcome.errors, ::testing::IsEmpty());
    run_id_ = outcome.run_id;
    recorder_ = std::make_unique<RunRecorder>(
        *service_, *store_, [](const std::function<void()>& work) { work(); }, run_id_);
  }

  // The run's log, as `mace logs` has its messages: one per line.
  std::string messages() const {
    std::string text;
    for (const auto& e : store_->events_after(run_id_, 0, 1000)) text += e.message + "\n";
    return text;
  }

  mace::testing::TempDir dir_;
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<service::RunService> service_;
  std::unique_ptr<RunRecorder> recorder_;
  std::string run_id_;
};

}  // namespace mace::run::testing
