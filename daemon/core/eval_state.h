#pragma once
// Where an evaluation batch and each of its jobs are (REQ-EVAL-3): a batch runs until each
// job is done or gave up, or it is cancelled; a job is pending until a run of it ends in a
// final state other than `error` (done), or its runs ran out (gave_up).

#include <optional>
#include <string_view>

#include "core/enum_text.h"

namespace mace {

enum class EvalBatchState { running, done, cancelled };
enum class EvalJobState { pending, done, gave_up };

std::string_view to_string(EvalBatchState state);
std::optional<EvalBatchState> eval_batch_state_from_string(std::string_view text);
std::string_view to_string(EvalJobState state);
std::optional<EvalJobState> eval_job_state_from_string(std::string_view text);

}  // namespace mace
