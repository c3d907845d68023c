// The reproduction script (core/repro.h) as text: every recorded value stays one word that
// the shell does not interpret, a here-document cannot be ended early by the text it holds,
// the run directory becomes the reproduction's own, the build ID its own, and the script is
// valid sh whatever it holds.

#include "core/repro.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/child_process.h"

namespace mace {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using mace::testing::run_process;
using mace::testing::TempDir;

ReproFacts facts() {
  ReproFacts f;
  f.run_id = "r1";
  f.iteration = 2;
  f.task_id = "t1";
  f.workload = "hello";
  f.checkout = "/srv/openpiton";
  f.checkout_commit = "0123456789abcdef0123456789abcdef01234567";
  f.build_id = "mace_0011";
  f.build_argv = {"sims", "-vlt_build", "-build_id=mace_0011"};
  f.build_environment = {"PATH=/usr/bin:/bin", "PITON_ROOT=/srv/openpiton"};
  f.sim_argv = {"/srv/openpiton/piton/tools/bin/sims", "-vlt_run", "-build_id=mace_0011",
                "-asm_diag_path=/srv/openpiton/build/manycore/mace_0011/runs/hello-1", "hello.S"};
  f.sim_environment = f.build_environment;
  f.run_dir = "/srv/openpiton/build/manycore/mace_0011/runs/hello-1";
  f.inputs = {{"hello.S", "main:\n  j main\n"}, {"sub/bytes.bin", std::string("\0\xff\x01", 3)}};
  f.verdict = Verdict::fail;
  f.verdict_time = 4498250;
  return f;
}

TEST(ShellQuoted, EveryStringComesBackAsOneWordUnchanged) {
  for (const std::string text : {"plain", "it's", "$(touch /tmp/x)", "`id`", "a b\tc\nd", "'", "''\\'", ""}) {
    const auto r = run_process({"/bin/sh", "-c", "printf '%s' " + shell_quoted(text)});
    EXPECT_EQ(r.out, text);
  }
}

TEST(ReproScript, UsesItsOwnBuildIdAndRunDirectory) {
  const std::string s = repro_script(facts());
  EXPECT_THAT(s, HasSubstr("'-build_id=repro_mace_0011'"));
  EXPECT_THAT(s, Not(HasSubstr("'-build_id=mace_0011'")));
  EXPECT_THAT(s, HasSubstr("'-asm_diag_path='\"$run\""));
  EXPECT_THAT(s, HasSubstr("base64 -d >\"$run\"/'sub/bytes.bin'"));
  EXPECT_THAT(s, HasSubstr("&& [ \"$time\" = '4498250' ]"));
  EXPECT_THAT(s, Not(HasSubstr("git apply"))) << "no RTL edits, nothing to apply";
}

// A diff whose text holds the here-document's delimiter and shell syntax: still one
// document, and the script is valid sh.
TEST(ReproScript, RtlEditsThatHoldTheDelimiterStayInTheirDocument) {
  ReproFacts f = facts();
  f.rtl_edits = "--- a/x.v\n+++ b/x.v\n@@ -1 +1 @@\n-MACE_REPRO_END\n+$(rm -rf /) `id` 'q'\n";
  f.error_line = "line one\nline two";
  f.build_environment.push_back("EVIL=$(touch /tmp/mace-repro-pwned)");
  const std::string s = repro_script(f);
  EXPECT_THAT(s, HasSubstr("<<'MACE_REPRO_END_'\n"));
  EXPECT_THAT(s, HasSubstr("git apply \"$work/rtl_edits.patch\""));
  EXPECT_THAT(s, HasSubstr("'EVIL=$(touch /tmp/mace-repro-pwned)'"));
  EXPECT_THAT(s, Not(HasSubstr("\nline two"))) << "a comment stays one line";
  TempDir dir;
  dir.write("repro.sh", s);
  const auto syntax = run_process({"/bin/sh", "-n", dir.file("repro.sh")});
  EXPECT_EQ(syntax.exit_code, 0) << syntax.err;
}

// Run end to end against stand-ins for sims (a build that does nothing, a simulation that
// prints the recorded verdict line and what its run directory holds): the embedded files
// come back byte for byte, the verdict compares, and a checkout that is not there stops it.
TEST(ReproScript, RunAgainstStandInsItRecreatesTheInputsAndComparesTheVerdict) {
  TempDir dir;
  ReproFacts f = facts();
  f.checkout = dir.file("checkout");
  dir.write("checkout/.keep", "");
  dir.write("bin/sims", "#!/bin/sh\nexit 0\n");
  dir.write("bin/run-sims",
            "#!/bin/sh\nfind . -type f -name '*.*' | sort | xargs cat > inputs.seen\n"
            "echo '4498250 : Simulation -> FAIL(HIT BAD TRAP)' > sim.log\n");
  run_process({"chmod", "+x", dir.file("bin/sims"), dir.file("bin/run-sims")});
  f.build_environment = {"PATH=" + dir.file("bin") + ":/usr/bin:/bin"};
  f.sim_environment = f.build_environment;
  f.sim_argv[0] = dir.file("bin/run-sims");
  dir.write("repro.sh", repro_script(f));
  mace::testing::ProcessOptions options;
  options.set_env["MACE_REPRO_DIR"] = dir.file("work");
  const auto r = run_process({"/bin/sh", dir.file("repro.sh")}, options);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("mace repro: reproduced"));
  const auto seen = run_process({"cat", dir.file("work/run/inputs.seen")});
  EXPECT_EQ(seen.out, std::string("main:\n  j main\n") + std::string("\0\xff\x01", 3));

  f.verdict_time = 1;  // another time stamp: not the same failure
  dir.write("repro2.sh", repro_script(f));
  const auto other = run_process({"/bin/sh", dir.file("repro2.sh")}, options);
  EXPECT_EQ(other.exit_code, 1) << other.out << other.err;

  f.checkout = dir.file("nonexistent");
  dir.write("repro3.sh", repro_script(f));
  const auto missing = run_process({"/bin/sh", dir.file("repro3.sh")}, options);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("no checkout at " + dir.file("nonexistent")));
}

}  // namespace
}  // namespace mace
