// The waveform around a failure, end to end with a real maced and mace on the fixture
// checkout: a failed task's deciding workload is simulated again on a traced model and the
// cycles before its failure kept with the run's evidence; nothing is traced for a pass or
// when the spec says no; the size limit cuts it and says so; `mace wave` writes it out as a
// VCD; the retention rule removes it with the run's logs; another user may not read it.

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include "support/checkout_files.h"
#include "support/fixture_checkout.h"
#include "support/maced_instance.h"

namespace mace::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

class WaveformTest : public ::testing::Test {
 protected:
  // As a user makes a checkout ready: scripts/patch_openpiton.sh, every step.
  void SetUp() override {
    const auto r = run_process({source_root() + "/scripts/patch_openpiton.sh", checkout_.root()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  void start(const std::string& evidence = "") {
    dir_.write("maced.json", R"({"checkouts": [{"path": ")" + checkout_.root() + R"("}])" +
                                 (evidence.empty() ? "" : ", \"evidence\": " + evidence) + "}");
    MacedOptions options;
    options.extra_args = {"--config", dir_.file("maced.json"), "--workloads", source_root() + "/workloads"};
    maced_ = std::make_unique<MacedInstance>(dir_, options);
  }
  // add.S then hello on a design the fixture's FAKE_BREAK_RUN breaks (add.S fails first),
  // or on OpenPiton's own design, which passes.
  std::string run(bool broken, const std::string& extra = "") {
    dir_.write("spec.json", std::string(R"({"core": "pico", "mesh": [1, 1], "backend": "direct", "baseline": false,
        "objective": "a design", "workloads": ["add.S", "hello"])") +
                                (broken ? R"(, "designs": [{"name": "broken", "config_rtl": ["FAKE_BREAK_RUN"]}])"
                                        : "") +
                                extra + "}");
    ProcessOptions options;
    options.timeout = std::chrono::seconds(120);
    const auto r = maced_->mace({"submit", dir_.file("spec.json"), "--watch"}, options);
    EXPECT_EQ(r.exit_code, broken ? 1 : 0) << r.out << r.err;
    return r.out.substr(0, r.out.find('\n'));
  }
  std::string status_json(const std::string& id) {
    const auto r = maced_->mace({"--json", "status", id});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  }
  int traced_builds() {
    int n = 0;
    for (const auto& args : checkout_.invocation_args())
      for (const auto& a : args) n += a == "-vlt_build_args=--trace";
    return n;
  }

  TempDir dir_;
  FixtureCheckout checkout_;
  std::unique_ptr<MacedInstance> maced_;
};

TEST_F(WaveformTest, TheFailedWorkloadIsTracedOnceAndItsWaveformWrittenOutAsAVcd) {
  start();
  const std::string id = run(true);
  EXPECT_EQ(traced_builds(), 1) << "one traced model, for the one failure";
  const std::string json = status_json(id);
  simdjson::dom::parser parser;
  const simdjson::dom::element detail = parser.parse(json);
  const simdjson::dom::array waves = detail["waveforms"];
  ASSERT_EQ(waves.size(), 1u) << json;
  const simdjson::dom::element w = waves.at(0);
  EXPECT_EQ(std::string_view(w["workload"]), "add.S");
  EXPECT_GT(uint64_t(w["file_id"]), 0u);
  EXPECT_EQ(int64_t(w["from_time"]), 0) << "10000 cycles before 4498250 is the start";
  EXPECT_EQ(int64_t(w["to_time"]), 4498750);
  EXPECT_EQ(int64_t(w["last_time"]), 4498250) << "the simulation ended at its failure";
  EXPECT_EQ(std::string_view(w["end"]), "finish");
  EXPECT_THAT(std::string(std::string_view(w["build_id"])), ::testing::StartsWith("mace_"));
  // What changed last near the top: the L1.5's state 3 cycles before, then the fail flag.
  const simdjson::dom::array changed = w["changed_last"];
  ASSERT_EQ(changed.size(), 2u);
  EXPECT_EQ(std::string_view(changed.at(0)), "TOP.cmp_top.monitor.fail_flag -> 1 at 4498250");
  EXPECT_EQ(std::string_view(changed.at(1)), "TOP.cmp_top.system.chip.tile0.l15_state -> 4'ha at 4496750");

  const auto human = maced_->mace({"status", id});
  EXPECT_THAT(human.out, HasSubstr("mace wave " + id + " --iteration 1 --task broken --workload add.S -o add.S.vcd"));
  EXPECT_THAT(maced_->mace({"logs", id, "--list"}).out, HasSubstr("waveform of add.S"));
  EXPECT_THAT(maced_->mace({"logs", id}).out, HasSubstr("waveform of add.S: cycles 0 to 8996"));

  const std::string out = dir_.file("add.vcd");
  const auto wave = maced_->mace({"wave", id, "--workload", "add.S", "-o", out});
  ASSERT_EQ(wave.exit_code, 0) << wave.err;
  const std::string vcd = read_file(out);
  EXPECT_THAT(vcd, ::testing::StartsWith("$version"));
  EXPECT_THAT(vcd, HasSubstr("$enddefinitions $end"));
  EXPECT_THAT(vcd, HasSubstr("\n#4498250\n"));
  // Never over a file that exists; a workload without one says what the run has.
  EXPECT_EQ(maced_->mace({"wave", id, "-o", out}).exit_code, 2);
  const auto none = maced_->mace({"wave", id, "--workload", "hello"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_THAT(none.err, HasSubstr("has no waveform of hello; it has:"));
  // The traced simulation's directory leaves the checkout with the others.
  for (const auto& entry : fs::recursive_directory_iterator(checkout_.root() + "/build"))
    EXPECT_NE(entry.path().filename(), "mace_wave.vcd") << entry.path();
}

TEST_F(WaveformTest, AnUnpatchedMainSaysWhyThereIsNoWaveform) {
  const std::string main = "piton/tools/verilator/my_top.cpp";
  checkout_.write(main, read_file(source_root() + "/tests/fixtures/openpiton/" + main));
  start();
  const std::string id = run(true);
  const std::string status = maced_->mace({"status", id}).out;
  EXPECT_THAT(status, HasSubstr("iter1 broken add.S: the traced model wrote no waveform (is the checkout's "
                                "testbench main patched? scripts/patch_openpiton.sh --only wave)"));
  const auto wave = maced_->mace({"wave", id});
  EXPECT_EQ(wave.exit_code, 2);
  EXPECT_THAT(wave.err, HasSubstr("add.S has no waveform: the traced model wrote no waveform"));
}

TEST_F(WaveformTest, NothingIsTracedForAPassOrWhenTheSpecOrMacedSaysNo) {
  start();
  const std::string passed = run(false);
  EXPECT_THAT(status_json(passed), HasSubstr(R"("waveforms":[])"));
  const std::string declined = run(true, R"(, "waveform": false)");
  EXPECT_THAT(status_json(declined), HasSubstr(R"("waveforms":[])"));
  EXPECT_EQ(traced_builds(), 0);
  maced_.reset();
  start(R"({"waveform": false})");
  const std::string off = run(true);
  EXPECT_THAT(status_json(off), HasSubstr(R"("waveforms":[])"));
  EXPECT_EQ(traced_builds(), 0);
}

TEST_F(WaveformTest, TheSizeLimitCutsTheWaveformAndSaysSo) {
  start(R"({"max_waveform_mb": 1})");
  checkout_.set_control("wave_filler", "100");  // about 4 KiB a cycle
  const std::string id = run(true, R"(, "waveform_cycles": 5000)");
  simdjson::dom::parser parser;
  const simdjson::dom::element w = parser.parse(status_json(id))["waveforms"].at(0);
  EXPECT_EQ(std::string_view(w["end"]), "size");
  EXPECT_EQ(int64_t(w["from_time"]), 4498250 - 5000 * 500);
  EXPECT_LT(int64_t(w["last_time"]), 4498250);
  EXPECT_LE(uint64_t(w["bytes"]), (1u << 20) + (64u << 10)) << "stopped soon after the limit";
  EXPECT_THAT(maced_->mace({"status", id}).out, HasSubstr("cut at the size limit before the failure"));
}

TEST_F(WaveformTest, TheRetentionRuleRemovesTheWaveformWithTheRunsLogs) {
  // Three sim.logs a run (the task's, narrowing's two) no compressor shrinks: 1.5 MiB.
  start(R"({"max_mb": 2, "keep_recent_hours": 0})");
  checkout_.set_control("noise_kb", "500");
  const std::string a = run(true);
  const auto first = maced_->mace({"wave", a, "-o", dir_.file("a.vcd")});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  run(true);
  run(true);
  const auto removed = maced_->mace({"wave", a, "-o", dir_.file("again.vcd")});
  EXPECT_EQ(removed.exit_code, 2);
  EXPECT_THAT(removed.err, HasSubstr("was removed by the retention rule"));
  EXPECT_FALSE(fs::exists(dir_.file("again.vcd")));
  EXPECT_FALSE(fs::exists(dir_.file("again.vcd.part")));
}

// Another user's waveform is not theirs to read.
TEST_F(WaveformTest, AnotherUserMayNotReadTheWaveform) {
  if (::getuid() != 0) GTEST_SKIP() << "needs root to act as another user";
  start();
  const std::string id = run(true);
  ::chmod(dir_.path().c_str(), 0755);
  ::chmod(maced_->socket_path().c_str(), 0666);
  ProcessOptions nobody;
  nobody.uid = 65534;
  const auto r = maced_->mace({"wave", id, "-o", "-"}, nobody);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_THAT(r.out, Not(HasSubstr("$enddefinitions")));
}

}  // namespace
}  // namespace mace::testing
