// The srun command a checkout's command becomes, and the names its job carries.
#include "slurm/srun_command.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace mace::slurm {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::Not;

Placement placement() {
  return {.run_id = "20261201-120000-abcd", .core = "sparc", .node = "n7",
          .checkout = "/scratch/piton-a", .label = "t1"};
}

os::ProcessSpec build_spec() {
  os::ProcessSpec spec;
  spec.argv = {"sims", "-sys=manycore", "-vlt_build"};
  spec.working_dir = "/scratch/piton-a";
  spec.purpose = os::CommandPurpose::build;
  spec.timeout = std::chrono::minutes(90);
  return spec;
}

TEST(JobName, CarriesRunTaskAndPurpose) {
  EXPECT_EQ(job_name(placement(), os::CommandPurpose::build), "mace:20261201-120000-abcd:t1:build");
  Placement unlabelled = placement();
  unlabelled.label = "";
  EXPECT_EQ(job_name(unlabelled, os::CommandPurpose::verilator_version),
            "mace:20261201-120000-abcd:verilator-version")
      << "a job of the run itself has three fields, a task's four";
  EXPECT_EQ(allocation_name(placement()), "mace:20261201-120000-abcd:t1:workloads");
}

TEST(JobName, AColonInATaskCannotAddAField) {
  Placement p = placement();
  p.label = "a:b";
  EXPECT_EQ(job_name(p, os::CommandPurpose::simulate), "mace:20261201-120000-abcd:a_b:simulate");
}

TEST(JobName, KeepsOnlySafeBytesAndIsBounded) {
  Placement p = placement();
  p.label = "a b;$(rm)\n" + std::string(500, 'x');
  const std::string name = job_name(p, os::CommandPurpose::build);
  EXPECT_EQ(name.size(), 200u);
  EXPECT_EQ(name.find_first_not_of(
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-"),
            std::string::npos);
}

TEST(TimeLimit, RoundsUpToMinutesAndTakesTheSmallerOfTaskAndCap) {
  EXPECT_EQ(time_limit(std::chrono::seconds(1), 0), "1");
  EXPECT_EQ(time_limit(std::chrono::seconds(61), 0), "2");
  EXPECT_EQ(time_limit(std::chrono::minutes(90), 30), "30");
  EXPECT_EQ(time_limit(std::chrono::minutes(10), 30), "10");
  EXPECT_EQ(time_limit(std::chrono::milliseconds(0), 30), "30");
  EXPECT_EQ(time_limit(std::chrono::milliseconds(0), 0), "");
}

TEST(SrunArgv, PinsTheJobToTheCheckoutsNodeWithItsStepsResources) {
  SlurmSettings settings;
  settings.partition = "piton";
  settings.account = "arch";
  settings.qos = "normal";
  settings.gres = "openpiton:1";
  settings.build = {.cpus = 2, .memory_mb = 4096, .time_limit_min = 0};
  settings.build_by_core["sparc"] = {.cpus = 8, .memory_mb = 16384, .time_limit_min = 120};
  settings.srun_options = {"--exclusive"};
  const auto argv = srun_argv(settings, placement(), build_spec(), "/usr/bin/srun", "mace:i:1");
  EXPECT_THAT(argv, Contains("--nodelist=n7"));
  EXPECT_THAT(argv, Contains("--job-name=mace:20261201-120000-abcd:t1:build"));
  EXPECT_THAT(argv, Contains("--comment=mace:i:1"));
  EXPECT_THAT(argv, Contains("--cpus-per-task=8"));
  EXPECT_THAT(argv, Contains("--mem=16384"));
  EXPECT_THAT(argv, Contains("--time=90")) << "the task's limit, under the sparc cap of 120";
  EXPECT_THAT(argv, Contains("--partition=piton"));
  EXPECT_THAT(argv, Contains("--account=arch"));
  EXPECT_THAT(argv, Contains("--qos=normal"));
  EXPECT_THAT(argv, Contains("--gres=openpiton:1"));
  EXPECT_THAT(argv, Contains("--chdir=/scratch/piton-a"));
  EXPECT_EQ(argv.front(), "/usr/bin/srun");
  // The command comes last, whole, after "--": nothing of it is read as an srun option.
  ASSERT_GE(argv.size(), 4u);
  EXPECT_THAT(std::vector<std::string>(argv.end() - 4, argv.end()),
              ElementsAre("--", "sims", "-sys=manycore", "-vlt_build"));
  // The administrator's options come after MACE's, before the command.
  const auto exclusive = std::find(argv.begin(), argv.end(), "--exclusive");
  const auto separator = std::find(argv.begin(), argv.end(), "--");
  EXPECT_LT(exclusive, separator);
}

TEST(SrunArgv, ASimulationAsksForTheSimulateResources) {
  SlurmSettings settings;
  settings.simulate = {.cpus = 1, .memory_mb = 1024, .time_limit_min = 0};
  os::ProcessSpec spec = build_spec();
  spec.purpose = os::CommandPurpose::simulate;
  spec.timeout = std::chrono::milliseconds(0);
  Placement p = placement();
  p.core = "pico";
  const auto argv = srun_argv(settings, p, spec, "srun", "c");
  EXPECT_THAT(argv, Contains("--cpus-per-task=1"));
  EXPECT_THAT(argv, Contains("--mem=1024"));
  for (const auto& arg : argv) EXPECT_FALSE(arg.starts_with("--time=")) << arg;
  EXPECT_THAT(argv, Not(Contains("--gres=openpiton:1")));
}

TEST(SallocArgv, HoldsThatManySimulateStepsOnTheNodeUntilCancelled) {
  SlurmSettings settings;
  settings.gres = "openpiton:1";
  settings.partition = "piton";
  settings.simulate_by_core["pico"] = {.cpus = 2, .memory_mb = 512, .time_limit_min = 30};
  Placement p = placement();
  p.core = "pico";
  const auto argv = salloc_argv(settings, p, 3, "/usr/bin/salloc", "mace:i:2", std::chrono::seconds(600));
  EXPECT_EQ(argv.front(), "/usr/bin/salloc");
  EXPECT_THAT(argv, Contains("--no-shell")) << "it outlives salloc, until maced cancels it";
  EXPECT_THAT(argv, Contains("--job-name=mace:20261201-120000-abcd:t1:workloads"));
  EXPECT_THAT(argv, Contains("--comment=mace:i:2"));
  EXPECT_THAT(argv, Contains("--nodelist=n7"));
  EXPECT_THAT(argv, Contains("--ntasks=3"));
  EXPECT_THAT(argv, Contains("--cpus-per-task=2"));
  EXPECT_THAT(argv, Contains("--mem=1536")) << "three steps' memory";
  EXPECT_THAT(argv, Contains("--time=30"));
  EXPECT_THAT(argv, Contains("--immediate=600")) << "it gives up after the pending limit";
  EXPECT_THAT(argv, Contains("--gres=openpiton:1")) << "the allocation holds the checkout";
  EXPECT_THAT(argv, Contains("--partition=piton"));
}

TEST(StepArgv, IsOneStepOfTheAllocationWithOneSimulationsResourcesAndNoGres) {
  SlurmSettings settings;
  settings.gres = "openpiton:1";
  settings.simulate = {.cpus = 1, .memory_mb = 256, .time_limit_min = 0};
  settings.srun_options = {"--cpu-bind=cores"};
  os::ProcessSpec spec = build_spec();
  spec.purpose = os::CommandPurpose::simulate;
  const auto argv = step_argv(settings, placement(), spec, "srun", "42", "mace:r:t1:simulate:9-1");
  EXPECT_THAT(argv, Contains("--jobid=42"));
  EXPECT_THAT(argv, Contains("--job-name=mace:r:t1:simulate:9-1"));
  EXPECT_THAT(argv, Contains("--ntasks=1"));
  EXPECT_THAT(argv, Contains("--cpus-per-task=1"));
  EXPECT_THAT(argv, Contains("--exact")) << "only its own CPUs, so the others run beside it";
  EXPECT_THAT(argv, Contains("--mem=256"));
  EXPECT_THAT(argv, Contains("--gres=none")) << "else each step takes all of the job's and they queue";
  EXPECT_THAT(argv, Contains("--time=90"));
  EXPECT_THAT(argv, Contains("--cpu-bind=cores"));
  for (const auto& arg : argv) EXPECT_FALSE(arg.starts_with("--nodelist") || arg.starts_with("--comment")) << arg;
  ASSERT_GE(argv.size(), 4u);
  EXPECT_THAT(std::vector<std::string>(argv.end() - 4, argv.end()),
              ElementsAre("--", "sims", "-sys=manycore", "-vlt_build"));
}

TEST(Complaint, IsTheCommandsLastOwnLineElseTheTail) {
  EXPECT_EQ(complaint("x\nsalloc: error: first\nsalloc: error: Unable to allocate\n", "salloc"),
            "salloc: error: Unable to allocate");
  EXPECT_EQ(complaint("  something else  \n", "srun"), "something else");
}

TEST(SrunEnvironment, DropsWhatSrunWouldReadAsOptionsAndAddsTheSlurmVariables) {
  const auto env = srun_environment(
      {{"PATH", "/piton/bin:/usr/bin"}, {"SLURM_JOB_ID", "9"}, {"SBATCH_PARTITION", "x"},
       {"SRUN_CPUS_PER_TASK", "64"}, {"SALLOC_ACCOUNT", "y"}, {"DV_ROOT", "/piton"}},
      {{"SLURM_CONF", "/etc/slurm-test/slurm.conf"}, {"PATH", "/opt/slurm/bin"}});
  EXPECT_EQ(env, (std::map<std::string, std::string>{
                     {"DV_ROOT", "/piton"},
                     {"PATH", "/piton/bin:/usr/bin"},
                     {"SLURM_CONF", "/etc/slurm-test/slurm.conf"}}));
}

TEST(StepKind, BuildsAreBuildsAndEverythingElseSimulates) {
  using os::CommandPurpose;
  EXPECT_EQ(step_kind(CommandPurpose::build), StepKind::build);
  EXPECT_EQ(step_kind(CommandPurpose::unit_test_build), StepKind::build);
  for (CommandPurpose other : {CommandPurpose::command, CommandPurpose::simulate, CommandPurpose::compile_workload,
                               CommandPurpose::verilator_version, CommandPurpose::coverage})
    EXPECT_EQ(step_kind(other), StepKind::simulate) << os::to_string(other);
}

}  // namespace
}  // namespace mace::slurm
