#pragma once
// A run's one door to the store and to the watchers of its events. The run's loop runs on
// a thread of its own, while the store keeps one writer and the watchers live on maced's
// event loop; so every record passes through `on_service_thread`, which maced points at
// its event loop (kj::Executor::executeSync) and tests run in place. Nothing here knows
// about KJ, sockets or threads.

#include <functional>
#include <string>
#include <utility>

#include "core/event_kind.h"
#include "core/task_stage.h"
#include "core/verdict.h"
#include "service/run_service.h"
#include "store/store.h"

namespace mace::run {

class RunRecorder {
 public:
  // Runs `work` where the store and the service live, and returns when it is done.
  using OnServiceThread = std::function<void(const std::function<void()>& work)>;

  RunRecorder(service::RunService& service, store::Store& store, OnServiceThread on_service_thread,
              std::string run_id);

  const std::string& run_id() const { return run_id_; }

  // `work(store)` on the service thread, its result handed back.
  template <typename Fn>
  auto with_store(Fn&& work) -> decltype(work(std::declval<store::Store&>())) {
    using Result = decltype(work(std::declval<store::Store&>()));
    if constexpr (std::is_void_v<Result>) {
      on_service_thread_([&] { work(store_); });
    } else {
      std::optional<Result> result;
      on_service_thread_([&] { result.emplace(work(store_)); });
      return std::move(*result);
    }
  }

  // A progress event of the run, recorded and shown to its watchers.
  void event(EventKind kind, int iteration, const std::string& task_id,
             std::optional<TaskStage> stage, const std::string& message,
             const std::string& workload = "", std::optional<Verdict> verdict = std::nullopt);
  // An event filled in by the caller (its run ID and seq are set here).
  void record(store::EventRecord event);
  // A message event for people (`mace logs`).
  void message(int iteration, const std::string& task_id, const std::string& text);
  void message(const std::string& text) { message(0, "", text); }

  // The run's record as the service has it.
  store::RunRecord run_record();

 private:
  service::RunService& service_;
  store::Store& store_;
  OnServiceThread on_service_thread_;
  std::string run_id_;
};

}  // namespace mace::run
