#include "core/diagnosis.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace mace {
namespace {

using ::testing::HasSubstr;

RunSpec pico_spec() {
  RunSpec spec;
  spec.core = Core::pico;
  spec.mesh_x = 2;
  spec.workloads = {"hello", "memstress"};
  spec.objective = "Double the L2";
  return spec;
}

FailedTaskReport failed_run_report() {
  FailedTaskReport r;
  r.task_id = "big_l2";
  r.kind = TaskKind::config;
  r.instruction = "Build with a 128 KiB L2";
  r.build_flags = {"l2 131072 B 4-way", "define PITON_EXTRA"};
  r.build_outcome = BuildOutcome::succeeded;
  r.verdict = Verdict::fail;
  r.failure_reason = FailureReason::workload_failed;
  r.sim_log_tail = "4498250 : Simulation -> FAIL(HIT BAD TRAP)";
  r.status_log = "Simulation status: FAIL";
  return r;
}

// REQ-FAIL-2: the diagnosis call gets the task's id, kind, instruction, build flags, build
// outcome and verdict, and the failure reason with the run's log tail and status log.
TEST(DiagnosisPrompt, CarriesEveryFieldOfAFailedRun) {
  std::string p = diagnosis_prompt(pico_spec(), failed_run_report(), false);
  for (const char* expected :
       {"id: big_l2", "kind: config", "Build with a 128 KiB L2", "l2 131072 B 4-way",
        "define PITON_EXTRA", "build outcome: succeeded", "verdict: fail",
        "failure reason: workload_failed", "FAIL(HIT BAD TRAP)", "Simulation status: FAIL",
        "DIAGNOSIS:", "FIX:", "core pico, mesh 2x1", "memstress"})
    EXPECT_THAT(p, HasSubstr(expected));
  EXPECT_THAT(p, ::testing::Not(HasSubstr("diagnostic tools")));
}

// The waveform around the failure (docs/failures.md): the prompt says it exists, over
// which times, which signals near the top changed last, and how the tools read it.
TEST(DiagnosisPrompt, SaysAWaveformExistsAndWhichSignalsChangedLast) {
  FailedTaskReport r = failed_run_report();
  r.waveform = FailedTaskReport::Waveform{"hello", 0, 4498250,
                                          {"TOP.cmp_top.monitor.fail_flag -> 1 at 4498250",
                                           "TOP.cmp_top.system.chip.tile0.l15_state -> 4'ha at 4496750"}};
  const std::string p = diagnosis_prompt(pico_spec(), r, true);
  EXPECT_THAT(p, HasSubstr("A waveform of hello exists"));
  EXPECT_THAT(p, HasSubstr("times 0 to 4498250"));
  EXPECT_THAT(p, HasSubstr("  - TOP.cmp_top.monitor.fail_flag -> 1 at 4498250\n"
                           "  - TOP.cmp_top.system.chip.tile0.l15_state -> 4'ha at 4496750\n"));
  EXPECT_THAT(p, HasSubstr("wave_signals"));
  EXPECT_THAT(p, HasSubstr("wave_values"));
  // Without one, neither the paragraph nor the methods.
  const std::string plain = diagnosis_prompt(pico_spec(), failed_run_report(), true);
  EXPECT_THAT(plain, ::testing::Not(HasSubstr("waveform")));
}

// REQ-FAIL-2: a failed build's error lines and output tail.
TEST(DiagnosisPrompt, CarriesAFailedBuildsErrorLinesAndTail) {
  FailedTaskReport r;
  r.task_id = "t";
  r.kind = TaskKind::workload;
  r.build_outcome = BuildOutcome::failed;
  r.failure_reason = FailureReason::build_failed;
  r.error_lines = {"%Error: tile.v:12: syntax error"};
  r.build_output_tail = std::string(20000, 'x') + "\nmake: *** [Vcmp] Error 1";
  std::string p = diagnosis_prompt(pico_spec(), r, true);
  EXPECT_THAT(p, HasSubstr("%Error: tile.v:12: syntax error"));
  EXPECT_THAT(p, HasSubstr("make: *** [Vcmp] Error 1"));
  EXPECT_THAT(p, HasSubstr("verdict: none"));
  EXPECT_THAT(p, HasSubstr("diagnostic tools"));
  EXPECT_LT(p.size(), 16000u) << "a huge build log is cut to its tail";
}

TEST(DiagnosisReply, ReadsLabelAndFixInMarkdown) {
  auto d = parse_diagnosis(
      "Looking at the log...\n\n**DIAGNOSIS:** `L2_Too_Small` because the mesh grew\n"
      "- fix: raise l2 to 262144,4\n  and keep l1d\n\nThanks");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->label, "l2_too_small");
  EXPECT_EQ(d->fix, "raise l2 to 262144,4\n  and keep l1d");
  EXPECT_EQ(d->source, DiagnosisSource::llm);
}

// REQ-FAIL-4: no diagnosis line → unknown / retry with more context.
TEST(DiagnosisReply, WithoutADiagnosisLineFallsBackToUnknown) {
  EXPECT_FALSE(parse_diagnosis("I think the L2 is too small.\nFIX: bigger L2"));
  EXPECT_FALSE(parse_diagnosis("DIAGNOSIS:   \nFIX: x"));
  EXPECT_FALSE(parse_diagnosis("Diagnoses: none"));
  Diagnosis f = fallback_diagnosis();
  EXPECT_EQ(f.label, "unknown");
  EXPECT_EQ(f.fix, "retry with more context");
  EXPECT_EQ(f.source, DiagnosisSource::fallback);
}

// REQ-FAIL-4: a label cut at a character boundary to nothing (a long run of bytes that
// continue a character none began, found by libFuzzer) is no label: no diagnosis, so the
// fallback, rather than a diagnosis labelled "".
TEST(DiagnosisReply, ALabelOfNothingButContinuationBytesIsNoDiagnosis) {
  const std::string bytes(100, '\xb2');
  EXPECT_FALSE(parse_diagnosis("DIAGNOSIS: " + bytes + "\nFIX: x"));
  auto d = parse_diagnosis("DIAGNOSIS: " + bytes + "\nDIAGNOSIS: l2_too_small\nFIX: x");
  ASSERT_TRUE(d) << "a later label is read";
  EXPECT_EQ(d->label, "l2_too_small");
}

TEST(DiagnosisReply, AMissingFixIsEmptyAndTheFirstLabelWins) {
  auto d = parse_diagnosis("1. DIAGNOSIS: first\n2. DIAGNOSIS: second");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->label, "first");
  EXPECT_EQ(d->fix, "");
}

// REQ-FAIL-3
TEST(RuleDiagnosis, PinNotFoundInAUnitTestBuildIsTestbenchMismatch) {
  FailedTaskReport r;
  r.kind = TaskKind::unit_test;
  r.build_outcome = BuildOutcome::failed;
  r.build_output_tail = "%Error-PINNOTFOUND: tb.v:40: Pin not found: 'clk_i'";
  auto d = rule_diagnosis(r);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->label, "testbench_mismatch");
  EXPECT_EQ(d->source, DiagnosisSource::rule);

  r.kind = TaskKind::config;
  EXPECT_FALSE(rule_diagnosis(r)) << "only unit_test builds";
  r.kind = TaskKind::unit_test;
  r.build_output_tail = "%Error: other";
  EXPECT_FALSE(rule_diagnosis(r));
  r.error_lines = {"%Error-PINNOTFOUND: tb.v:3: Pin not found"};
  EXPECT_TRUE(rule_diagnosis(r));
}

}  // namespace
}  // namespace mace
