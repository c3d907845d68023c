#pragma once
// A recorded task's build configuration (core/design_configuration.h): its core, mesh,
// caches, network, defines and the files its RTL edits change, each cache marked default
// where it is the run's checkout's own (RunRecord::default_caches). What status, the
// report, `mace compare` and the evaluation results say of a design.

#include "core/design_configuration.h"
#include "core/plan_checks.h"
#include "store/store.h"

namespace mace::store {

// A cache the task recorded as 0 (NULL, "the core's default") is filled from
// `default_caches`. Caches in reading order (l1i, l1d, l15, l2).
DesignConfiguration task_configuration(const TaskRecord& task, const CacheGeometry& default_caches);

// Whether the task builds a design at all (a unit_test task does not) and its
// configuration was recorded (tasks recorded before caches were kept may lack it).
bool has_configuration(const TaskRecord& task);

}  // namespace mace::store
