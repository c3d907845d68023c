#include "executor/unit_test_task.h"

#include <filesystem>

#include "core/agent_prompts.h"
#include "executor/adapter_bridge.h"
#include "executor/task_calls.h"
#include "openpiton/unit_test_env.h"
#include "os/file_io.h"
#include "tools/testbench_tool.h"

namespace mace::executor {
namespace {

constexpr std::size_t kTailBytes = 16 * 1024;

std::string file_tail(const std::filesystem::path& path) { return os::read_file_end(path, kTailBytes); }

}  // namespace

loop::TaskOutcome run_unit_test_task(int iteration, const loop::TaskJob& job, const RunSpec& spec,
                                     const openpiton::Checkout& checkout, const Agent& agent,
                                     const os::CancelToken* cancel) {
  loop::TaskOutcome outcome;
  outcome.task_id = job.task.id;
  outcome.checkout = checkout.root().string();
  const std::string module = unit_test_module(job.task);

  // REQ-EXEC-12: a bad module path fails the task before anything is scaffolded.
  auto checked = openpiton::validate_unit_test_module(checkout.root(), module);
  if (!checked.ok) {
    outcome.failure_reason = FailureReason::unit_test_bad_module_path;
    outcome.evidence = {checked.error};
    return outcome;
  }
  const std::string env_name = openpiton::unit_test_env_name(job.task.id);
  const auto work_dir = checkout.root() / "build" / ".mace_unit_test" / env_name;
  std::filesystem::remove_all(work_dir);
  std::filesystem::create_directories(work_dir);

  openpiton::ScaffoldOptions scaffold;
  scaffold.checkout_root = checkout.root();
  scaffold.env_name = env_name;
  scaffold.module_path = module;
  scaffold.work_dir = work_dir;
  scaffold.cancel = cancel;
  openpiton::ScaffoldResult scaffolded = openpiton::scaffold_unit_test_env(scaffold);
  if (!scaffolded.ok()) {
    outcome.failure_reason = loop_failure_reason(scaffolded.failure_reason);
    outcome.evidence = {scaffolded.error};
    return outcome;
  }
  openpiton::UnitTestEnv& env = *scaffolded.env;

  // REQ-EXEC-8: the agent gets the module's ports and a tool over this task's testbench.
  if (agent) {
    llm::Tool tool = tools::make_testbench_tool(job.task.id, env.testbench(), env.module_source());
    std::string prompt = unit_test_prompt(spec, job.task, env.module_relative(),
                                          openpiton::format_module_interface(scaffolded.module),
                                          tool.name);
    loop::PlannerReply reply = agent(iteration, job, prompt, {tool});
    outcome.llm_cost_usd += reply.cost_usd;
    outcome.agent_reply = reply.ok ? reply.text : "the agent call failed: " + reply.error;
  }

  openpiton::UnitTestBuildOptions build;
  build.work_dir = work_dir;
  build.timeout = job.build_limit;
  build.cancel = cancel;
  build.runner = &checkout.runner();
  openpiton::UnitTestBuildResult built = openpiton::build_unit_test_env(env, build);
  outcome.build_id = env_name;
  outcome.build_log = built.log_path.string();
  outcome.built = built.ok;
  outcome.passed = built.ok;  // REQ-VER-6
  if (!built.ok) {
    outcome.failure_reason = loop_failure_reason(built.failure_reason);
    if (lost_to_infrastructure(outcome.failure_reason)) outcome.lost_detail = built.error;
    outcome.evidence = built.error_lines;
    if (outcome.evidence.empty() && !built.error.empty()) outcome.evidence = {built.error};
    outcome.build_output_tail = file_tail(built.log_path);
  }
  for (const auto& problem : env.restore()) outcome.evidence.push_back("restoring the checkout: " + problem);
  std::error_code ignored;
  std::filesystem::remove_all(work_dir, ignored);
  return outcome;
}

}  // namespace mace::executor
