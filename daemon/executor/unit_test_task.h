#pragma once
// A unit_test task (REQ-EXEC-8, 9, 12, REQ-VER-6): scaffold an OpenPiton unit-test
// environment for the module the task names, let the agent reconcile the scaffolded
// testbench with the module through its ut_edit tool, and build it. The task passes when
// the environment builds. Whatever happens, the checkout is restored before this returns.

#include <functional>
#include <string>

#include "core/run_spec.h"
#include "executor/task_llm.h"
#include "openpiton/checkout.h"
#include "os/process_group.h"

namespace mace::executor {

loop::TaskOutcome run_unit_test_task(int iteration, const loop::TaskJob& job, const RunSpec& spec,
                                     const openpiton::Checkout& checkout, const Agent& agent,
                                     const os::CancelToken* cancel);

}  // namespace mace::executor
