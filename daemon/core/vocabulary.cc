// The names of the vocabulary enums (task_kind.h, task_stage.h, event_kind.h, verdict.h,
// build_outcome.h, failure_reason.h, dispatch.h, eval_method.h, eval_state.h,
// run_outcome.h), in one place. Switches without a default: an enumerator without a name
// does not compile (-Werror=switch).
#include "core/build_outcome.h"
#include "core/check_finding.h"
#include "core/cost_source.h"
#include "core/dispatch.h"
#include "core/diagnosis_source.h"
#include "core/enum_text.h"
#include "core/eval_method.h"
#include "core/eval_state.h"
#include "core/event_kind.h"
#include "core/failure_reason.h"
#include "core/llm_error_class.h"
#include "core/llm_phase.h"
#include "core/run_outcome.h"
#include "core/task_kind.h"
#include "core/task_stage.h"
#include "core/tile_figures.h"
#include "core/verdict.h"

namespace mace {

std::string_view to_string(TaskKind kind) {
  switch (kind) {
    case TaskKind::config: return "config";
    case TaskKind::workload: return "workload";
    case TaskKind::unit_test: return "unit_test";
    case TaskKind::rtl: return "rtl";
  }
  return "";
}
std::optional<TaskKind> task_kind_from_string(std::string_view text) {
  return enum_from_string<TaskKind>(text);
}

std::string_view to_string(TaskStage stage) {
  switch (stage) {
    case TaskStage::pending: return "pending";
    case TaskStage::waiting: return "waiting";
    case TaskStage::prompting: return "prompting";
    case TaskStage::building: return "building";
    case TaskStage::running: return "running";
    case TaskStage::passed: return "passed";
    case TaskStage::failed: return "failed";
    case TaskStage::skipped: return "skipped";
  }
  return "";
}
std::optional<TaskStage> task_stage_from_string(std::string_view text) {
  return enum_from_string<TaskStage>(text);
}

std::string_view to_string(EventKind kind) {
  switch (kind) {
    case EventKind::submitted: return "submitted";
    case EventKind::state_changed: return "state_changed";
    case EventKind::iteration_started: return "iteration_started";
    case EventKind::level_started: return "level_started";
    case EventKind::task_stage: return "task_stage";
    case EventKind::verdict: return "verdict";
    case EventKind::iteration_finished: return "iteration_finished";
    case EventKind::message: return "message";
    case EventKind::build_progress: return "build_progress";
    case EventKind::workload_started: return "workload_started";
  }
  return "";
}
std::optional<EventKind> event_kind_from_string(std::string_view text) {
  return enum_from_string<EventKind>(text);
}

std::string_view to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::none: return "none";
    case Verdict::pass: return "pass";
    case Verdict::fail: return "fail";
    case Verdict::timeout: return "timeout";
    case Verdict::maxcycles: return "maxcycles";
  }
  return "";
}
std::optional<Verdict> verdict_from_string(std::string_view text) {
  return enum_from_string<Verdict>(text);
}

std::string_view to_string(BuildOutcome outcome) {
  switch (outcome) {
    // "" names the first enumerator: enum_from_string stops at the first "" after it.
    case BuildOutcome::none: return "";
    case BuildOutcome::failed: return "failed";
    case BuildOutcome::succeeded: return "succeeded";
    case BuildOutcome::reused: return "reused";
  }
  return "";
}
std::optional<BuildOutcome> build_outcome_from_string(std::string_view text) {
  return enum_from_string<BuildOutcome>(text);
}
std::string_view describe(BuildOutcome outcome) {
  return outcome == BuildOutcome::none ? "not built" : to_string(outcome);
}

std::string_view to_string(LlmErrorClass c) {
  switch (c) {
    case LlmErrorClass::none: return "none";
    case LlmErrorClass::rate_limit: return "rate_limit";
    case LlmErrorClass::authentication: return "authentication";
    case LlmErrorClass::billing: return "billing";
    case LlmErrorClass::invalid_request: return "invalid_request";
    case LlmErrorClass::server: return "server";
    case LlmErrorClass::output_limit: return "output_limit";
    case LlmErrorClass::blocked: return "blocked";
    case LlmErrorClass::timeout: return "timeout";
    case LlmErrorClass::unknown: return "unknown";
  }
  return "unknown";
}

std::string_view to_string(CostSource s) {
  switch (s) {
    case CostSource::reported: return "reported";
    case CostSource::priced: return "priced";
    case CostSource::estimated: return "estimated";
    case CostSource::unknown: return "unknown";
  }
  return "unknown";
}

std::string_view to_string(LlmPhase phase) {
  switch (phase) {
    case LlmPhase::planning: return "planning";
    case LlmPhase::task: return "task";
    case LlmPhase::diagnosis: return "diagnosis";
    case LlmPhase::post_mortem: return "post_mortem";
  }
  return "";
}

std::string_view to_string(DiagnosisSource source) {
  switch (source) {
    case DiagnosisSource::narrowing: return "narrowing";
    case DiagnosisSource::llm: return "llm";
    case DiagnosisSource::rule: return "rule";
    case DiagnosisSource::fallback: return "fallback";
  }
  return "";
}

std::string_view to_string(FailureReason reason) {
  switch (reason) {
    case FailureReason::none: return "";
    case FailureReason::way_rule: return "way_rule";
    case FailureReason::invalid_config: return "invalid_config";
    case FailureReason::budget_exhausted: return "budget_exhausted";
    case FailureReason::cancelled: return "cancelled";
    case FailureReason::timeout: return "timeout";
    case FailureReason::launch_failed: return "launch_failed";
    case FailureReason::build_failed: return "build_failed";
    case FailureReason::no_model_binary: return "no_model_binary";
    case FailureReason::leftover_edits: return "leftover_edits";
    case FailureReason::invalid_request: return "invalid_request";
    case FailureReason::no_workloads: return "no_workloads";
    case FailureReason::workload_failed: return "workload_failed";
    case FailureReason::workload_not_found: return "workload_not_found";
    case FailureReason::workload_not_built: return "workload_not_built";
    case FailureReason::sims_option_rejected: return "sims_option_rejected";
    case FailureReason::unit_test_bad_module_path: return "unit_test_bad_module_path";
    case FailureReason::unit_test_scaffold_failed: return "unit_test_scaffold_failed";
    case FailureReason::unit_test_build_failed: return "unit_test_build_failed";
    case FailureReason::testbench_mismatch: return "testbench_mismatch";
    case FailureReason::executor_error: return "executor_error";
    case FailureReason::no_checkout: return "no_checkout";
    case FailureReason::rtl_edits_failed: return "rtl_edits_failed";
    case FailureReason::cache_miss: return "cache_miss";
    case FailureReason::node_failure: return "node_failure";
    case FailureReason::out_of_memory: return "out_of_memory";
    case FailureReason::never_started: return "never_started";
    case FailureReason::killed_by_scheduler: return "killed_by_scheduler";
    case FailureReason::wrong_first_request: return "wrong_first_request";
  }
  return "";
}
std::optional<FailureReason> failure_reason_from_string(std::string_view text) {
  return enum_from_string<FailureReason>(text);
}

bool lost_to_infrastructure(FailureReason reason) {
  return reason == FailureReason::node_failure || reason == FailureReason::never_started ||
         reason == FailureReason::killed_by_scheduler;
}

bool says_nothing_about_the_design(FailureReason reason) {
  switch (reason) {
    case FailureReason::budget_exhausted:
    case FailureReason::cancelled:
    case FailureReason::executor_error:
    case FailureReason::no_checkout:
    case FailureReason::cache_miss:
    case FailureReason::node_failure:
    case FailureReason::never_started:
    case FailureReason::killed_by_scheduler:
      return true;
    default:
      return no_replan_can_change(reason);
  }
}

bool no_replan_can_change(FailureReason reason) {
  switch (reason) {
    case FailureReason::workload_not_found:
    case FailureReason::workload_not_built:
    case FailureReason::sims_option_rejected:
      return true;
    default:
      return false;
  }
}

std::string_view to_string(Dispatch dispatch) {
  switch (dispatch) {
    case Dispatch::queue: return "queue";
    case Dispatch::batches: return "batches";
  }
  return "";
}
std::optional<Dispatch> dispatch_from_string(std::string_view text) {
  return enum_from_string<Dispatch>(text);
}

std::string_view to_string(EvalMethod method) {
  switch (method) {
    case EvalMethod::mace: return "mace";
    case EvalMethod::baseline: return "baseline";
    case EvalMethod::baseline_retry: return "baseline_retry";
    case EvalMethod::fault_check: return "fault_check";
    case EvalMethod::codesign: return "codesign";
    case EvalMethod::seeded_fault: return "seeded_fault";
    case EvalMethod::codesign_llm: return "codesign_llm";
  }
  return "";
}
std::optional<EvalMethod> eval_method_from_string(std::string_view text) {
  return enum_from_string<EvalMethod>(text);
}

std::string_view to_string(EvalBatchState state) {
  switch (state) {
    case EvalBatchState::running: return "running";
    case EvalBatchState::done: return "done";
    case EvalBatchState::cancelled: return "cancelled";
  }
  return "";
}
std::optional<EvalBatchState> eval_batch_state_from_string(std::string_view text) {
  return enum_from_string<EvalBatchState>(text);
}

std::string_view to_string(EvalJobState state) {
  switch (state) {
    case EvalJobState::pending: return "pending";
    case EvalJobState::done: return "done";
    case EvalJobState::gave_up: return "gave_up";
  }
  return "";
}
std::optional<EvalJobState> eval_job_state_from_string(std::string_view text) {
  return enum_from_string<EvalJobState>(text);
}

std::string_view to_string(PlannerKind planner) {
  switch (planner) {
    case PlannerKind::llm: return "llm";
    case PlannerKind::direct: return "direct";
    case PlannerKind::replay: return "replay";
    case PlannerKind::fault_check: return "fault_check";
    case PlannerKind::codesign: return "codesign";
  }
  return "";
}

std::optional<PlannerKind> planner_kind_from_string(std::string_view text) {
  return enum_from_string<PlannerKind>(text);
}

std::string_view describe(PlannerKind planner) {
  switch (planner) {
    case PlannerKind::llm: return "planned by the LLM towards the objective";
    case PlannerKind::direct:
      return "direct planner: built the spec's designs (without any, its core and mesh with "
             "OpenPiton's defaults) and ran the gate workloads; it did not try to meet the objective";
    case PlannerKind::replay: return "a replay: the original run's decisions, served from its record";
    case PlannerKind::fault_check:
      return "fault check: the suite's expert configuration with a seeded fault, no LLM";
    case PlannerKind::codesign: return "co-design search: the designs the search enumerated, no LLM";
  }
  return "";
}

std::string_view to_string(RunOutcome outcome) {
  switch (outcome) {
    // "" names the first enumerator: enum_from_string stops at the first "" after it.
    case RunOutcome::none: return "";
    case RunOutcome::caught: return "caught";
    case RunOutcome::missed: return "missed";
  }
  return "";
}

std::optional<RunOutcome> run_outcome_from_string(std::string_view text) {
  return enum_from_string<RunOutcome>(text);
}


std::string_view to_string(CheckTopic topic) {
  switch (topic) {
    case CheckTopic::maced: return "maced";
    case CheckTopic::checkout: return "checkout";
    case CheckTopic::tool: return "tool";
    case CheckTopic::workloads: return "workloads";
    case CheckTopic::disk: return "disk";
    case CheckTopic::slurm_node: return "slurm_node";
    case CheckTopic::llm_backend: return "llm_backend";
  }
  return "";
}

std::optional<CheckTopic> check_topic_from_string(std::string_view text) {
  return enum_from_string<CheckTopic>(text);
}

std::string_view to_string(CheckLevel level) {
  switch (level) {
    case CheckLevel::ok: return "ok";
    case CheckLevel::warning: return "warning";
    case CheckLevel::failure: return "failure";
  }
  return "";
}

std::optional<CheckLevel> check_level_from_string(std::string_view text) {
  return enum_from_string<CheckLevel>(text);
}

CheckLevel worst_level(const std::vector<CheckFinding>& findings) {
  CheckLevel worst = CheckLevel::ok;
  for (const auto& f : findings)
    if (static_cast<int>(f.level) > static_cast<int>(worst)) worst = f.level;
  return worst;
}

std::string_view to_string(TileCounter counter) {
  switch (counter) {
    case TileCounter::core_requests: return "core_requests";
    case TileCounter::l15_requests_to_l2: return "l15_requests_to_l2";
    case TileCounter::l2_lookup_hits: return "l2_lookup_hits";
    case TileCounter::l2_lookup_misses: return "l2_lookup_misses";
    case TileCounter::noc1_flits: return "noc1_flits";
    case TileCounter::noc2_flits: return "noc2_flits";
    case TileCounter::noc3_flits: return "noc3_flits";
  }
  return "";
}

std::optional<TileCounter> tile_counter_from_string(std::string_view text) {
  return enum_from_string<TileCounter>(text);
}

std::string_view counter_title(TileCounter counter) {
  switch (counter) {
    case TileCounter::core_requests: return "core requests";
    case TileCounter::l15_requests_to_l2: return "L1.5 requests to L2";
    case TileCounter::l2_lookup_hits: return "L2 lookup hits";
    case TileCounter::l2_lookup_misses: return "L2 lookup misses";
    case TileCounter::noc1_flits: return "NoC1 flits";
    case TileCounter::noc2_flits: return "NoC2 flits";
    case TileCounter::noc3_flits: return "NoC3 flits";
  }
  return "";
}

}  // namespace mace
