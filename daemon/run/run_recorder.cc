#include "run/run_recorder.h"

namespace mace::run {

RunRecorder::RunRecorder(service::RunService& service, store::Store& store,
                         OnServiceThread on_service_thread, std::string run_id)
    : service_(service),
      store_(store),
      on_service_thread_(std::move(on_service_thread)),
      run_id_(std::move(run_id)) {}

void RunRecorder::event(EventKind kind, int iteration, const std::string& task_id,
                        std::optional<TaskStage> stage, const std::string& message,
                        const std::string& workload, std::optional<Verdict> verdict) {
  record({.kind = kind, .iteration = iteration, .task_id = task_id, .stage = stage,
          .workload = workload, .verdict = verdict, .message = message});
}

void RunRecorder::record(store::EventRecord event) {
  event.run_id = run_id_;
  on_service_thread_([&] { service_.record_event(event); });
}

void RunRecorder::message(int iteration, const std::string& task_id, const std::string& text) {
  event(EventKind::message, iteration, task_id, std::nullopt, text);
}

store::RunRecord RunRecorder::run_record() {
  store::RunRecord record;
  on_service_thread_([&] { record = service_.run(run_id_); });
  return record;
}

}  // namespace mace::run
