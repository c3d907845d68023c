// Call tags (REQ-REPLAY-1) and the cached values of each function, which must bring back
// everything the executor and the loop use of a call's return value.

#include <cstdint>
#include <optional>

#include <gtest/gtest.h>

#include "replay/tag.h"
#include "replay/values.h"

namespace mace::replay {
namespace {

TEST(CallTag, HasTheSpecsFormForEveryPhase) {  // REQ-REPLAY-1
  const std::string run = "20261130-121530-123-9f3a1c";
  EXPECT_EQ(call_tag(run, 1, "t1", "prompt"), run + "/iter1/t1/prompt");
  EXPECT_EQ(call_tag(run, 2, "t1", "build"), run + "/iter2/t1/build");
  // The first gate workload's run is `run`, each later one `run:<workload>`.
  EXPECT_EQ(run_phase(0, "hello"), "run");
  EXPECT_EQ(run_phase(1, "memstress"), "run:memstress");
  EXPECT_EQ(run_phase(2, "add.S"), "run:add.S");
  EXPECT_EQ(call_tag(run, 12, "cfg_a", run_phase(1, "memstress")), run + "/iter12/cfg_a/run:memstress");
}

TEST(CallTag, ANarrowingRebuildHasPhasesOfItsOwn) {  // REQ-FAIL-12 beside REQ-REPLAY-1
  EXPECT_EQ(narrowing_phase("build", ""), "build");
  EXPECT_EQ(narrowing_phase("build", "undo define X"), "build[undo define X]");
  EXPECT_EQ(narrowing_phase(run_phase(1, "hello"), "undo l1d 16384 B 4-way"),
            "run:hello[undo l1d 16384 B 4-way]");
}

TEST(CallTag, MovesToAnotherRun) {
  EXPECT_EQ(with_run_id("A/iter3/t/run:x", "B"), "B/iter3/t/run:x");
}

TEST(CachedValues, ABuildComesBackAsTheExecutorUsesIt) {
  openpiton::BuildResult b;
  b.build_id = "mace_0123456789abcdef";
  b.success = false;
  b.reused = false;
  b.failure_reason = openpiton::Failure::build_failed;
  b.message = "sims exited 1";
  b.exit_code = 1;
  b.wall_seconds = 12.5;
  b.error_lines = {"%Error: a.v:3: syntax error", "make: *** Error 1"};
  b.tail = std::string(kCachedBuildTailBytes + 10, 'x') + "the end";
  b.log_path = "/c/build/manycore/mace_0123456789abcdef/mace_build.log";
  b.model_dir = "/c/build/manycore/mace_0123456789abcdef";
  b.verilator = {5, 6, "Verilator 5.006 2023-01-22"};
  b.fingerprint.digest = std::string(64, 'a');
  openpiton::BuildResult back = parse_build_value(build_value(b));
  EXPECT_EQ(back.build_id, b.build_id);
  EXPECT_EQ(back.success, b.success);
  EXPECT_EQ(back.reused, b.reused);
  EXPECT_EQ(back.failure_reason, b.failure_reason);
  EXPECT_EQ(back.message, b.message);
  EXPECT_EQ(back.exit_code, 1);
  EXPECT_EQ(back.wall_seconds, 12.5);
  EXPECT_EQ(back.error_lines, b.error_lines);
  // Triage reads the last 16 KiB of the tail; that much is kept.
  EXPECT_EQ(back.tail.size(), kCachedBuildTailBytes);
  EXPECT_EQ(back.tail.substr(back.tail.size() - 7), "the end");
  EXPECT_EQ(back.log_path, b.log_path);
  EXPECT_EQ(back.model_dir, b.model_dir);
  EXPECT_EQ(back.verilator, b.verilator);
  EXPECT_EQ(back.fingerprint.digest, b.fingerprint.digest);
}

// The model store: where a reused model came from is kept; values cached before the store say
// nothing, and their reuse was in place.
TEST(CachedValues, AReusedBuildKeepsWhereItsModelCameFrom) {
  openpiton::BuildResult b;
  b.build_id = "mace_0123456789abcdef";
  b.success = true;
  b.reused = true;
  b.reused_from = "store";
  b.origin = "/m/entries/x, built in /c on n1 at 2026-12-01 10:00:00 UTC";
  openpiton::BuildResult back = parse_build_value(build_value(b));
  EXPECT_EQ(back.reused_from, "store");
  EXPECT_EQ(back.origin, b.origin);

  std::string older = build_value(b);
  const std::vector<std::string> keys = {R"(,"reused_from":"store")",
                                         R"(,"origin":")" + b.origin + "\""};
  for (const std::string& key : keys) {
    const auto at = older.find(key);
    ASSERT_NE(at, std::string::npos) << older;
    older.erase(at, key.size());
  }
  back = parse_build_value(older);
  EXPECT_EQ(back.reused_from, "checkout");
  EXPECT_EQ(back.origin, "");
}

TEST(CachedValues, AWorkloadRunComesBackWithItsStatusLog) {
  executor::WorkloadCall call;
  call.result.passed = false;
  call.result.failure_reason = openpiton::Failure::workload_failed;
  call.result.failure_detail = "add.S: verdict fail";
  call.status_log = "Diag: add.S-1  FAIL\n";
  openpiton::WorkloadRunResult run;
  run.workload = "add.S";
  run.run_dir = "/c/build/manycore/mace_x/runs/add.S-1";
  run.verdict = openpiton::Verdict::fail;
  run.returncode = 0;
  run.timed_out = true;
  run.cancelled = false;
  run.launch_failed = true;
  run.sims_invoked = true;
  run.error = "odd \"quotes\"\n and a newline";
  run.wall_seconds = 0.25;
  run.marker_line = "4498250 : Simulation -> FAIL(HIT BAD TRAP)";
  run.sim_log_tail = "line 1\nline 2\n";
  run.status_line = "Diag: add.S-1  FAIL";
  run.passed = false;
  call.result.runs = {run};
  executor::WorkloadCall back = parse_run_value(run_value(call));
  EXPECT_EQ(back.status_log, call.status_log);
  EXPECT_EQ(back.result.passed, false);
  EXPECT_EQ(back.result.failure_reason, openpiton::Failure::workload_failed);
  EXPECT_EQ(back.result.failure_detail, "add.S: verdict fail");
  ASSERT_EQ(back.result.runs.size(), 1u);
  const auto& r = back.result.runs[0];
  EXPECT_EQ(r.workload, run.workload);
  EXPECT_EQ(r.run_dir, run.run_dir);
  EXPECT_EQ(r.verdict, openpiton::Verdict::fail);
  EXPECT_EQ(r.returncode, 0);
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.cancelled);
  EXPECT_TRUE(r.launch_failed);
  EXPECT_TRUE(r.sims_invoked);
  EXPECT_EQ(r.error, run.error);
  EXPECT_EQ(r.wall_seconds, 0.25);
  EXPECT_EQ(r.marker_line, run.marker_line);
  // Read again from the marker line, so values cached before they were kept have them.
  EXPECT_EQ(r.verdict_time, std::optional<int64_t>(4498250));
  EXPECT_EQ(r.cycles, std::optional<int64_t>(8996));
  EXPECT_EQ(r.sim_log_tail, run.sim_log_tail);
  EXPECT_EQ(r.status_line, run.status_line);
}

// A replayed build reports what the build it replays cost; one cached before that was
// measured, or a reused model, reports nothing measured.
TEST(CachedValues, ABuildKeepsWhatItsSimsUsed) {
  openpiton::BuildResult b;
  b.build_id = "mace_0123456789abcdef";
  b.success = true;
  b.wall_seconds = 54.5;
  b.usage = os::ResourceUsage{96.5, int64_t{269092} * 1024};
  openpiton::BuildResult back = parse_build_value(build_value(b));
  ASSERT_TRUE(back.usage.has_value());
  EXPECT_DOUBLE_EQ(back.usage->cpu_seconds, 96.5);
  EXPECT_EQ(back.usage->peak_rss_bytes, int64_t{269092} * 1024);
  EXPECT_DOUBLE_EQ(back.wall_seconds, 54.5);

  b.usage.reset();
  const std::string unmeasured = build_value(b);
  EXPECT_EQ(unmeasured.find("usage"), std::string::npos) << unmeasured;
  EXPECT_FALSE(parse_build_value(unmeasured).usage.has_value());
}

TEST(CachedValues, APromptReplyComesBack) {
  loop::PlannerReply reply{true, "TASK: a", 0.0125, ""};
  loop::PlannerReply back = parse_prompt_value(prompt_value(reply));
  EXPECT_TRUE(back.ok);
  EXPECT_EQ(back.text, "TASK: a");
  EXPECT_EQ(back.cost_usd, 0.0125);
  EXPECT_EQ(back.error, "");
}

TEST(CachedValues, AValueThisMaceCannotReadNamesWhatIsWrong) {
  EXPECT_THROW(parse_build_value("not json"), ValueError);
  try {
    parse_run_value(R"({"passed": "yes"})");
    FAIL() << "no error";
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(), R"(the cached run value's "passed" is not true or false)");
  }
  try {
    parse_prompt_value(R"({"ok": true})");
    FAIL() << "no error";
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(), R"(the cached prompt value has no "text")");
  }
}

}  // namespace
}  // namespace mace::replay
