#pragma once
// A run's progress events as the store keeps them (store/event_records.cc).

#include <cstdint>
#include <optional>
#include <string>

#include "core/event_kind.h"
#include "core/run_state.h"
#include "core/task_stage.h"
#include "core/verdict.h"

namespace mace::store {

// A progress event as stored (its words as their to_string names).
struct EventRecord {
  std::string run_id = {};
  int64_t seq = 0;  // assigned by append_event: 1, 2, ... per run
  int64_t at_ms = 0;
  EventKind kind = EventKind::message;
  std::optional<RunState> state = {};
  int64_t iteration = 0;
  std::string task_id = {};
  std::optional<TaskStage> stage = {};
  std::string workload = {};
  std::optional<Verdict> verdict = {};
  std::string message = {};
  // build_progress only (0 and -1 otherwise): see schema/mace.capnp Event.
  int64_t objects_done = 0;
  int64_t objects_total = 0;
  int64_t elapsed_ms = 0;
  int64_t estimate_left_ms = -1;
  // verdict only: the verdict line's simulation time and clock cycles; none when the
  // transcript gave none.
  std::optional<int64_t> verdict_time = {};
  std::optional<int64_t> cycles = {};
};

}  // namespace mace::store
