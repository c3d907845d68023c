#include "openpiton/simulator.h"

#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "os/environment.h"
#include "support/child_process.h"
#include "support/fixture_checkout.h"

namespace mace::openpiton {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

void write_file(const fs::path& path, const std::string& content, bool executable = false) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << content;
  if (executable) fs::permissions(path, fs::perms::owner_all, fs::perm_options::add);
}

// --- simulation_argv -----------------------------------------------------------------

// The smallest directory Checkout accepts; argv construction needs nothing else.
struct MinimalCheckout {
  mace::testing::TempDir dir;
  Checkout checkout;
  MinimalCheckout() : checkout(make(dir)) {}
  static fs::path make(const mace::testing::TempDir& d) {
    write_file(fs::path(d.path()) / "piton/piton_settings.bash", "");
    write_file(fs::path(d.path()) / "piton/tools/bin/sims", "#!/bin/sh\n", true);
    return d.path();
  }
};

SimulationRequest request_for(const Checkout& checkout) {
  return SimulationRequest{.checkout = checkout, .build_id = "mace_x", .core = Core::pico,
                           .x_tiles = 2, .y_tiles = 1};
}

TEST(SimulatorArgvTest, DefaultsAndOrder) {  // REQ-VER-7, REQ-VER-8
  MinimalCheckout c;
  auto r = request_for(c.checkout);
  auto argv = simulation_argv(r, "hello", "hello.S", {"-asm_diag_path=/w", "-x_prep"}, "sims",
                              {{"PATH", "/nonexistent"}});
  EXPECT_THAT(argv, ElementsAre("sims", "-sys=manycore", "-x_tiles=2", "-y_tiles=1", "-vlt_run",
                                "-build_id=mace_x", "-pico", "-rtl_timeout=1000000",
                                "-finish_mask=11", "-asm_diag_path=/w", "-x_prep", "hello.S"));
}

TEST(SimulatorArgvTest, MaxCycleOnlyWhenSetAndOwnMaskAndOptionsWin) {  // REQ-VER-7, REQ-VER-16
  MinimalCheckout c;
  auto r = request_for(c.checkout);
  r.core = Core::sparc;
  r.rtl_timeout = 5000;
  r.max_cycle = 777;
  r.per_workload["t.s"] = WorkloadOverrides{"ff", {"-sim_run_args=+x", "-finish_mask=3"}};
  auto argv = simulation_argv(r, "t.s", "t.s", {}, "sims", {});
  EXPECT_THAT(argv, ElementsAre("sims", "-sys=manycore", "-x_tiles=2", "-y_tiles=1", "-vlt_run",
                                "-build_id=mace_x", "-rtl_timeout=5000", "-max_cycle=777",
                                "-finish_mask=ff", "-sim_run_args=+x", "-finish_mask=3", "t.s"));
  r.core = Core::ariane;
  argv = simulation_argv(r, "other", "other.c", {}, "sims", {});
  EXPECT_THAT(argv, ElementsAre("sims", "-sys=manycore", "-x_tiles=2", "-y_tiles=1", "-vlt_run",
                                "-build_id=mace_x", "-ariane", "-rtl_timeout=5000",
                                "-max_cycle=777", "-finish_mask=11", "other.c"));
}

// spec-hardening finding 1: a workload's own -rtl_timeout and -max_cycle (as OpenPiton's
// diag lists give single diags theirs) replace the request's for that workload only.
TEST(SimulatorArgvTest, AWorkloadsOwnLimitsReplaceTheRequestsForItAlone) {
  MinimalCheckout c;
  auto r = request_for(c.checkout);
  r.core = Core::sparc;
  r.rtl_timeout = 1000;
  r.per_workload["simple_br.s"] = WorkloadOverrides{.rtl_timeout = 50000, .max_cycle = 400000};
  r.per_workload["nop.s"] = WorkloadOverrides{.max_cycle = 50000};
  EXPECT_THAT(simulation_argv(r, "simple_br.s", "simple_br.s", {}, "sims", {}),
              ElementsAre("sims", "-sys=manycore", "-x_tiles=2", "-y_tiles=1", "-vlt_run",
                          "-build_id=mace_x", "-rtl_timeout=50000", "-max_cycle=400000",
                          "-finish_mask=11", "simple_br.s"));
  EXPECT_THAT(simulation_argv(r, "nop.s", "nop.s", {}, "sims", {}),
              ElementsAre("sims", "-sys=manycore", "-x_tiles=2", "-y_tiles=1", "-vlt_run",
                          "-build_id=mace_x", "-rtl_timeout=1000", "-max_cycle=50000",
                          "-finish_mask=11", "nop.s"));
  EXPECT_THAT(simulation_argv(r, "other.s", "other.s", {}, "sims", {}),
              ElementsAre("sims", "-sys=manycore", "-x_tiles=2", "-y_tiles=1", "-vlt_run",
                          "-build_id=mace_x", "-rtl_timeout=1000", "-finish_mask=11", "other.s"));
  // With a request-wide max_cycle, a workload's own still wins for it.
  r.max_cycle = 777;
  EXPECT_THAT(simulation_argv(r, "nop.s", "nop.s", {}, "sims", {}),
              ::testing::Contains("-max_cycle=50000"));
  EXPECT_THAT(simulation_argv(r, "other.s", "other.s", {}, "sims", {}),
              ::testing::Contains("-max_cycle=777"));
}

TEST(SimulatorRequestTest, AWorkloadsLimitsMustBePositive) {  // spec-hardening finding 1
  MinimalCheckout c;
  auto r = request_for(c.checkout);
  r.workloads = {"hello"};
  r.per_workload["hello"].max_cycle = 0;
  auto result = simulate_workloads(r);
  EXPECT_EQ(result.failure_reason, Failure::invalid_request);
  EXPECT_THAT(result.failure_detail, HasSubstr("hello: max_cycle must be positive"));
  r.per_workload["hello"] = WorkloadOverrides{.rtl_timeout = -1};
  EXPECT_THAT(simulate_workloads(r).failure_detail,
              HasSubstr("hello: rtl_timeout must be positive"));
  EXPECT_TRUE(simulate_workloads(r).runs.empty());
}

TEST(SimulatorArgvTest, Rv32TripleOnlyWhenOnlyTheRiscv64CompilerExists) {
  MinimalCheckout c;
  mace::testing::TempDir tools;
  const fs::path only64 = fs::path(tools.path()) / "only64";
  const fs::path both = fs::path(tools.path()) / "both";
  write_file(only64 / "riscv64-unknown-elf-gcc", "#!/bin/sh\n", true);
  write_file(both / "riscv64-unknown-elf-gcc", "#!/bin/sh\n", true);
  write_file(both / "riscv32-unknown-elf-gcc", "#!/bin/sh\n", true);
  auto r = request_for(c.checkout);
  auto has_triple = [](const std::vector<std::string>& argv) {
    return std::count(argv.begin(), argv.end(), "-rv32_target_triple=riscv64-unknown-elf");
  };
  EXPECT_EQ(has_triple(simulation_argv(r, "a", "a.S", {}, "sims",
                                       {{"PATH", "/x:" + only64.string()}})),
            1);
  EXPECT_EQ(has_triple(simulation_argv(r, "a", "a.S", {}, "sims",
                                       {{"PATH", both.string() + ":" + only64.string()}})),
            0);
  EXPECT_EQ(has_triple(simulation_argv(r, "a", "a.S", {}, "sims", {{"PATH", "/x"}})), 0);
  // A workload that names its own triple keeps it, alone.
  r.per_workload["a"].options = {"-rv32_target_triple=riscv32-foo-elf"};
  EXPECT_EQ(has_triple(simulation_argv(r, "a", "a.S", {}, "sims", {{"PATH", only64.string()}})),
            0);
  // sparc never gets it.
  r.core = Core::sparc;
  EXPECT_EQ(has_triple(simulation_argv(r, "b", "b.s", {}, "sims", {{"PATH", only64.string()}})),
            0);
}

TEST(SimulatorRequestTest, InvalidRequestsStartNothing) {
  MinimalCheckout c;
  auto r = request_for(c.checkout);
  r.workloads = {"hello"};
  r.per_workload["hello"].finish_mask = "0x11";
  auto result = simulate_workloads(r);
  EXPECT_FALSE(result.passed);
  EXPECT_EQ(result.failure_reason, Failure::invalid_request);
  EXPECT_THAT(result.failure_detail, HasSubstr("0x11"));
  EXPECT_TRUE(result.runs.empty());

  r.per_workload.clear();
  r.per_workload["hello"].options = {"+plusarg"};
  EXPECT_EQ(simulate_workloads(r).failure_reason, Failure::invalid_request);
  r.per_workload.clear();
  r.build_id = "../escape";
  EXPECT_EQ(simulate_workloads(r).failure_reason, Failure::invalid_request);
  r.build_id = "mace_x";
  r.rtl_timeout = 0;
  EXPECT_EQ(simulate_workloads(r).failure_reason, Failure::invalid_request);
  r.rtl_timeout = 10;
  r.workloads.clear();
  EXPECT_EQ(simulate_workloads(r).failure_reason, Failure::no_workloads);
  EXPECT_FALSE(fs::exists(c.checkout.model_dir("mace_x")));
}

// --- simulate_workloads on the fixture checkout (tests/fixtures/openpiton) --------------

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Alive and not a zombie (a zombie has been killed; only its reaping is pending).
bool alive(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(in, text)) return false;
  auto paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] != 'Z';
}

// A copy of the fixture checkout, the workloads folder of this source tree, and models
// built the way the builder builds them: the fake sims run directly with the checkout's
// environment (the builder has its own tests; these need only a model to exist).
class SimulatorFixtureTest : public ::testing::Test {
 protected:
  mace::testing::FixtureCheckout fx;
  Checkout checkout{fx.root()};
  fs::path workloads_dir = fs::path(mace::testing::source_root()) / "workloads";

  std::map<std::string, std::string> environment() const {
    return checkout.environment(os::inherited_environment());
  }

  void build_model(const std::string& build_id, int x, int y) {
    os::ProcessSpec spec;
    spec.argv = {fx.sims(), "-sys=manycore", "-x_tiles=" + std::to_string(x),
                 "-y_tiles=" + std::to_string(y), "-vlt_build", "-pico",
                 "-build_id=" + build_id, "-vlt_build_args=--no-timing"};
    spec.env = environment();
    spec.working_dir = fx.root();
    spec.timeout = 60s;
    os::ProcessResult r = os::run_process_group(spec);
    ASSERT_TRUE(r.succeeded()) << r.tail;
    ASSERT_TRUE(fs::exists(checkout.model_binary(build_id)));
  }

  // Another stock pico diag, so that runs can be told apart by name (control run.<name>).
  void add_stock_diag(const std::string& name) {
    fx.write("piton/verif/diag/assembly/riscv/pico/" + name,
             fx.read("piton/verif/diag/assembly/riscv/pico/add.S"));
  }

  SimulationRequest request(const std::string& build_id, int x, int y,
                            std::vector<std::string> workloads) const {
    return SimulationRequest{.checkout = checkout, .build_id = build_id, .core = Core::pico,
                             .x_tiles = x, .y_tiles = y, .workloads = std::move(workloads),
                             .workloads_dir = workloads_dir, .kill_grace = 500ms};
  }

  // Whether simulation_argv adds the triple on this machine: decided by the toolchain on
  // the checkout environment's PATH, which the fake does not care about.
  bool machine_needs_triple() const {
    auto env = environment();
    auto argv = simulation_argv(request("b", 1, 1, {}), "w", "w.S", {}, "sims", env);
    return std::count(argv.begin(), argv.end(), "-rv32_target_triple=riscv64-unknown-elf") == 1;
  }

  std::vector<std::string> last_run_args() const {
    auto all = fx.invocation_args();
    return all.empty() ? std::vector<std::string>{} : all.back();
  }
};

TEST_F(SimulatorFixtureTest, ExactArgvWithDefaults) {  // REQ-VER-7, REQ-VER-8
  build_model("mace_fx2x1", 2, 1);
  fx.set_control("run", "pass");
  auto result = simulate_workloads(request("mace_fx2x1", 2, 1, {"add.S"}));
  ASSERT_TRUE(result.passed) << result.failure_detail;

  std::vector<std::string> expected = {"-sys=manycore", "-x_tiles=2", "-y_tiles=1", "-vlt_run",
                                       "-build_id=mace_fx2x1", "-pico", "-rtl_timeout=1000000",
                                       "-finish_mask=11"};
  if (machine_needs_triple()) expected.push_back("-rv32_target_triple=riscv64-unknown-elf");
  expected.push_back("-asm_diag_root=" + workloads_dir.string());
  expected.push_back("add.S");
  EXPECT_THAT(last_run_args(), ElementsAreArray(expected));
  EXPECT_EQ(fx.invocations("run"), 1);

  ASSERT_EQ(result.runs.size(), 1u);
  const auto& run = result.runs[0];
  EXPECT_EQ(run.argv[0], checkout.root() / "piton/tools/bin/sims");
  EXPECT_EQ(run.run_dir, checkout.model_dir("mace_fx2x1") / "runs" / "add.S-1");
  EXPECT_EQ(run.verdict, Verdict::pass);
  EXPECT_EQ(run.returncode, 0);
  EXPECT_TRUE(run.passed);
  EXPECT_TRUE(run.error.empty()) << run.error;
  EXPECT_EQ(run.marker_line, "7110750: Simulation -> PASS (HIT GOOD TRAP)");
  EXPECT_THAT(run.status_line, StartsWith("Diag: add.S-1"));
  EXPECT_THAT(run.status_line, HasSubstr("PASS"));
  EXPECT_THAT(run.sim_log_tail, HasSubstr("Verilog $finish"));
  {
    std::string whole = read_all(run.run_dir / "sim.log");
    std::size_t at = whole.size() - 1, lines = 0;
    while (at > 0 && lines < kSimLogTailLines) {
      if (whole[--at] == '\n') ++lines;
    }
    EXPECT_EQ(run.sim_log_tail, whole.substr(lines == kSimLogTailLines ? at + 1 : 0));
  }
  EXPECT_TRUE(fs::exists(run.run_dir / "sim.log"));
  EXPECT_TRUE(fs::exists(run.run_dir / "sims.log"));
  EXPECT_GT(run.wall_seconds, 0);
  EXPECT_EQ(result.failure_reason, Failure::none);
}

TEST_F(SimulatorFixtureTest, MaxCycleWhenSetAndTheWorkloadsOwnMaskAndOptionsWin) {
  // REQ-VER-7, REQ-VER-8, REQ-VER-16
  build_model("mace_fx2x1", 2, 1);
  fx.set_control("run", "maxcycles");
  auto req = request("mace_fx2x1", 2, 1, {"add.S"});
  req.rtl_timeout = 5000;
  req.max_cycle = 2000;
  req.per_workload["add.S"] = WorkloadOverrides{"1", {"-sim_run_args=+mace_extra", "-gzip"}};
  auto result = simulate_workloads(req);

  std::vector<std::string> expected = {"-sys=manycore", "-x_tiles=2", "-y_tiles=1", "-vlt_run",
                                       "-build_id=mace_fx2x1", "-pico", "-rtl_timeout=5000",
                                       "-max_cycle=2000", "-finish_mask=1"};
  if (machine_needs_triple()) expected.push_back("-rv32_target_triple=riscv64-unknown-elf");
  expected.insert(expected.end(), {"-asm_diag_root=" + workloads_dir.string(),
                                   "-sim_run_args=+mace_extra", "-gzip", "add.S"});
  EXPECT_THAT(last_run_args(), ElementsAreArray(expected));
  ASSERT_EQ(result.runs.size(), 1u);
  // The testbench saw our limit: the max-cycles line names it.
  EXPECT_EQ(result.runs[0].verdict, Verdict::maxcycles);
  EXPECT_THAT(result.runs[0].marker_line, HasSubstr("max cycles = 2000"));
  EXPECT_FALSE(result.passed);
  EXPECT_EQ(result.failure_reason, Failure::workload_failed);
  EXPECT_THAT(result.failure_detail, HasSubstr("add.S: verdict maxcycles"));
}

TEST_F(SimulatorFixtureTest, AWorkloadsOwnMaxCycleReachesTheTestbench) {
  // spec-hardening finding 1: the fake testbench prints the limit it was given.
  build_model("mace_fx2x1", 2, 1);
  fx.set_control("run", "maxcycles");
  auto req = request("mace_fx2x1", 2, 1, {"add.S"});
  req.max_cycle = 2000;
  req.per_workload["add.S"] =
      WorkloadOverrides{.finish_mask = "1", .rtl_timeout = 40000, .max_cycle = 3000};
  auto result = simulate_workloads(req);
  EXPECT_THAT(last_run_args(), ::testing::IsSupersetOf({"-rtl_timeout=40000", "-max_cycle=3000"}));
  EXPECT_THAT(last_run_args(), ::testing::Not(::testing::Contains("-max_cycle=2000")));
  ASSERT_EQ(result.runs.size(), 1u);
  EXPECT_THAT(result.runs[0].marker_line, HasSubstr("max cycles = 3000"));
}

TEST_F(SimulatorFixtureTest, DefaultMaskMakesEveryTileCount) {  // REQ-VER-7
  // A stock diag runs on tile 0 only; with one finish bit per tile a 2x1 run of it cannot
  // pass. With the workload's own mask (tile 0 alone) it does.
  build_model("mace_fx2x1", 2, 1);
  auto result = simulate_workloads(request("mace_fx2x1", 2, 1, {"add.S"}));
  ASSERT_EQ(result.runs.size(), 1u);
  EXPECT_EQ(result.runs[0].verdict, Verdict::timeout);
  EXPECT_FALSE(result.passed);

  auto req = request("mace_fx2x1", 2, 1, {"add.S"});
  req.per_workload["add.S"].finish_mask = "1";
  EXPECT_TRUE(simulate_workloads(req).passed);
}

TEST_F(SimulatorFixtureTest, PicoCProgramWakesEveryTile) {  // REQ-VER-7
  // prepare_workload compiles workloads/hello.c and adds the wake-up events; the fake
  // passes a 2x1 run with mask 11 only when diag.ev wakes tile 1.
  if (!fs::exists(workloads_dir / "hello.c")) GTEST_SKIP() << "no workloads/hello.c";
  build_model("mace_fx2x1", 2, 1);
  std::vector<std::string> started;
  auto req = request("mace_fx2x1", 2, 1, {"hello"});
  req.on_workload_started = [&](const std::string& w) { started.push_back(w); };
  auto result = simulate_workloads(req);
  ASSERT_EQ(result.runs.size(), 1u);
  const auto& run = result.runs[0];
  if (!run.sims_invoked && run.error.find("riscv") != std::string::npos)
    GTEST_SKIP() << "no RISC-V compiler here: " << run.error;
  EXPECT_TRUE(result.passed) << result.failure_detail;
  EXPECT_THAT(started, ElementsAre("hello"));
  EXPECT_THAT(run.argv, ::testing::Contains("-finish_mask=11"));
  EXPECT_THAT(run.argv, ::testing::Contains(StartsWith("-pre_process_cmd=")));
  EXPECT_EQ(run.argv.back(), "hello.S");
  EXPECT_EQ(run.run_dir.filename(), "hello-1");
}

TEST_F(SimulatorFixtureTest, EveryRunGetsANewDirectory) {
  build_model("mace_fx1x1", 1, 1);
  auto first = simulate_workloads(request("mace_fx1x1", 1, 1, {"add.S"}));
  ASSERT_TRUE(first.passed) << first.failure_detail;
  const fs::path runs = checkout.model_dir("mace_fx1x1") / "runs";
  const std::string first_log = read_all(runs / "add.S-1" / "sim.log");
  // A directory someone left (or a run of another process) is skipped, never reused.
  fs::create_directories(runs / "add.S-7");
  auto second = simulate_workloads(request("mace_fx1x1", 1, 1, {"add.S", "add.S"}));
  ASSERT_TRUE(second.passed) << second.failure_detail;
  ASSERT_EQ(second.runs.size(), 2u);
  EXPECT_EQ(second.runs[0].run_dir, runs / "add.S-8");
  EXPECT_EQ(second.runs[1].run_dir, runs / "add.S-9");
  EXPECT_EQ(read_all(runs / "add.S-1" / "sim.log"), first_log);
  EXPECT_THAT(second.runs[1].status_line, StartsWith("Diag: add.S-9"));
}

TEST_F(SimulatorFixtureTest, StopsAtTheFirstWorkloadThatDoesNotPass) {  // REQ-VER-1, REQ-VER-5
  build_model("mace_fx1x1", 1, 1);
  add_stock_diag("first.S");
  add_stock_diag("second.S");
  add_stock_diag("third.S");
  fx.set_control("run.second", "fail");
  std::vector<std::string> started, finished;
  auto req = request("mace_fx1x1", 1, 1, {"first.S", "second.S", "third.S"});
  req.on_workload_started = [&](const std::string& w) { started.push_back(w); };
  req.on_workload_finished = [&](const WorkloadRunResult& r) { finished.push_back(r.workload); };
  auto result = simulate_workloads(req);
  EXPECT_FALSE(result.passed);
  EXPECT_EQ(result.failure_reason, Failure::workload_failed);
  EXPECT_THAT(result.failure_detail, HasSubstr("second.S: verdict fail"));
  EXPECT_EQ(fx.invocations("run"), 2);  // third.S never invoked
  ASSERT_EQ(result.runs.size(), 2u);
  EXPECT_TRUE(result.runs[0].passed);
  EXPECT_FALSE(result.runs[1].passed);
  EXPECT_THAT(started, ElementsAre("first.S", "second.S"));
  EXPECT_THAT(finished, ElementsAre("first.S", "second.S"));
  EXPECT_FALSE(fs::exists(checkout.model_dir("mace_fx1x1") / "runs" / "third.S-1"));

  fx.set_control("run.second", "pass");
  EXPECT_TRUE(simulate_workloads(req).passed);
  EXPECT_EQ(fx.invocations("run"), 5);
}

TEST_F(SimulatorFixtureTest, RunEveryWorkloadGoesOnPastFailures) {  // REQ-VER-5
  build_model("mace_fx1x1", 1, 1);
  add_stock_diag("first.S");
  add_stock_diag("second.S");
  add_stock_diag("third.S");
  add_stock_diag("fourth.S");
  fx.set_control("run.second", "fail");
  fx.set_control("run.fourth", "maxcycles");
  auto req = request("mace_fx1x1", 1, 1, {"first.S", "second.S", "third.S", "fourth.S"});
  req.run_every_workload = true;
  std::vector<std::string> finished;
  req.on_workload_finished = [&](const WorkloadRunResult& r) { finished.push_back(r.workload); };
  auto result = simulate_workloads(req);
  EXPECT_THAT(finished, ElementsAre("first.S", "second.S", "third.S", "fourth.S"));
  EXPECT_EQ(fx.invocations("run"), 4);
  EXPECT_FALSE(result.passed);
  // The first failure decides; the others are in their runs.
  EXPECT_EQ(result.failure_reason, Failure::workload_failed);
  EXPECT_THAT(result.failure_detail, HasSubstr("second.S: verdict fail"));
  ASSERT_EQ(result.runs.size(), 4u);
  EXPECT_EQ(deciding_failure(result), &result.runs[1]);
  EXPECT_TRUE(result.runs[2].passed);
  EXPECT_EQ(result.runs[3].verdict, Verdict::maxcycles);

  // Each failed run says what went wrong, and shows its transcript around it.
  EXPECT_EQ(result.runs[1].error_line, "4498250 : Simulation -> FAIL(HIT BAD TRAP)");
  EXPECT_THAT(result.runs[1].excerpt, HasSubstr(": 4498250 : Simulation -> FAIL(HIT BAD TRAP)\n"));
  EXPECT_THAT(result.runs[1].excerpt, HasSubstr("monitor.tmp.v:91: Verilog $finish"));
  EXPECT_THAT(result.runs[3].error_line, HasSubstr("Simulation -> (terminated by reaching max cycles"));
  EXPECT_TRUE(result.runs[0].error_line.empty());  // a pass has nothing to explain
  EXPECT_TRUE(result.runs[0].excerpt.empty());
}

TEST_F(SimulatorFixtureTest, RunEveryWorkloadReportsAWorkloadThatCannotRunFirst) {
  build_model("mace_fx1x1", 1, 1);
  add_stock_diag("first.S");
  fx.set_control("run.first", "fail");
  auto req = request("mace_fx1x1", 1, 1, {"first.S", "gone.S", "add.S"});
  req.run_every_workload = true;
  auto result = simulate_workloads(req);
  ASSERT_EQ(result.runs.size(), 3u);
  // No design will ever run gone.S: that is what the run must hear, whatever failed first.
  EXPECT_EQ(result.failure_reason, Failure::workload_not_found);
  EXPECT_EQ(deciding_failure(result), &result.runs[1]);
  EXPECT_THAT(result.runs[1].error_line, HasSubstr("no diag with name gone.S found"));
  EXPECT_TRUE(result.runs[1].excerpt.empty());  // sims stopped before any transcript
}

TEST_F(SimulatorFixtureTest, RunEveryWorkloadStillStopsOnCancel) {
  build_model("mace_fx1x1", 1, 1);
  fx.set_control("run", "fail");
  os::CancelToken cancel;
  auto req = request("mace_fx1x1", 1, 1, {"add.S", "add.S", "add.S"});
  req.run_every_workload = true;
  req.cancel = &cancel;
  req.on_workload_finished = [&](const WorkloadRunResult&) { cancel.cancel(); };
  auto result = simulate_workloads(req);
  EXPECT_EQ(result.failure_reason, Failure::cancelled);
  EXPECT_EQ(result.runs.size(), 1u);
}

// Each verdict with the cycles its line gives (the fixture's add.S ends where the real one
// does on pico 1x1, 7110750); none where the transcript has no verdict line.
TEST_F(SimulatorFixtureTest, EveryVerdictMapsToPassOrFail) {  // REQ-VER-2, REQ-VER-3, REQ-VER-5
  build_model("mace_fx1x1", 1, 1);
  struct Case {
    std::string outcome;
    Verdict verdict;
    bool passed;
    std::optional<int64_t> cycles;
  };
  for (const Case& c : {Case{"pass", Verdict::pass, true, 14221},
                        Case{"fail", Verdict::fail, false, 8996},
                        Case{"timeout", Verdict::timeout, false, 55338},
                        Case{"maxcycles", Verdict::maxcycles, false, 1500000},
                        Case{"none", Verdict::none, false, std::nullopt},
                        Case{"crash", Verdict::none, false, std::nullopt}}) {
    SCOPED_TRACE(c.outcome);
    fx.set_control("run", c.outcome);
    auto result = simulate_workloads(request("mace_fx1x1", 1, 1, {"add.S"}));
    ASSERT_EQ(result.runs.size(), 1u);
    const auto& run = result.runs[0];
    EXPECT_EQ(run.verdict, c.verdict);
    EXPECT_EQ(run.passed, c.passed);
    EXPECT_EQ(result.passed, c.passed);
    EXPECT_EQ(run.cycles, c.cycles);
    EXPECT_EQ(run.verdict_time.has_value(), c.cycles.has_value());
    EXPECT_FALSE(run.timed_out);
    if (c.outcome != "crash") {
      EXPECT_EQ(run.returncode, 0);  // sims exits 0 whatever the program did
    } else {
      EXPECT_NE(run.returncode, 0);
      EXPECT_THAT(run.error, HasSubstr("DIE."));
    }
    if (c.verdict == Verdict::none) {
      EXPECT_FALSE(run.error.empty());
    }
  }
}

TEST_F(SimulatorFixtureTest, HangIsStoppedAtTheTimeLimitAsTimeout) {  // REQ-VER-3
  build_model("mace_fx1x1", 1, 1);
  fx.set_control("run", "hang");
  auto req = request("mace_fx1x1", 1, 1, {"add.S", "add.S"});
  req.time_limit = 1500ms;
  req.kill_grace = 300ms;
  auto start = Clock::now();
  auto result = simulate_workloads(req);
  EXPECT_LT(seconds_since(start), 15.0);
  ASSERT_EQ(result.runs.size(), 1u);
  const auto& run = result.runs[0];
  EXPECT_TRUE(run.timed_out);
  EXPECT_EQ(run.verdict, Verdict::timeout);
  EXPECT_FALSE(run.cycles.has_value()) << "a wall-clock timeout has no cycle count";
  EXPECT_EQ(run.returncode, -1);
  EXPECT_FALSE(run.passed);
  EXPECT_EQ(run.time_limit, 1500ms);
  EXPECT_THAT(run.error, HasSubstr("wall-clock limit"));
  EXPECT_GE(run.wall_seconds, 1.4);
  EXPECT_EQ(fx.invocations("run"), 1);
  // sims and the grandchild it left, both deaf to SIGTERM, are gone.
  auto pids = fx.recorded_pids();
  ASSERT_EQ(pids.size(), 2u);
  for (pid_t pid : pids)
    EXPECT_TRUE(mace::testing::eventually([&] { return !alive(pid); }, 5000ms)) << pid;
}

TEST_F(SimulatorFixtureTest, VerdictWrittenBeforeTheLimitStands) {  // REQ-VER-3, REQ-VER-5
  build_model("mace_fx1x1", 1, 1);
  fx.set_control("run", "hang");
  // The fake hangs after the first half of its transcript; a helper the diag's
  // pre-processing leaves behind adds a PASS line once that half is there.
  auto req = request("mace_fx1x1", 1, 1, {"add.S"});
  req.per_workload["add.S"].options = {
      "-pre_process_cmd=(until grep -q 'Reset complete' sim.log 2>/dev/null; do sleep 0.1; "
      "done; echo '7110750: Simulation -> PASS (HIT GOOD TRAP)' >> sim.log) "
      ">/dev/null 2>&1 &"};
  req.time_limit = 2500ms;
  req.kill_grace = 300ms;
  auto result = simulate_workloads(req);
  ASSERT_EQ(result.runs.size(), 1u);
  const auto& run = result.runs[0];
  EXPECT_TRUE(run.timed_out);
  EXPECT_EQ(run.verdict, Verdict::pass);  // the transcript's verdict, not timeout
  EXPECT_EQ(run.marker_line, "7110750: Simulation -> PASS (HIT GOOD TRAP)");
  EXPECT_EQ(run.returncode, -1);
  EXPECT_FALSE(run.passed);  // decide(): returncode -1 never passes
  EXPECT_FALSE(result.passed);
}

TEST_F(SimulatorFixtureTest, NoTimeLeftStartsNothing) {  // REQ-BUD-11
  build_model("mace_fx1x1", 1, 1);
  for (auto limit : {0ms, -5000ms}) {
    auto req = request("mace_fx1x1", 1, 1, {"add.S"});
    req.time_limit = limit;
    auto result = simulate_workloads(req);
    EXPECT_FALSE(result.passed);
    EXPECT_EQ(result.failure_reason, Failure::budget_exhausted);
    EXPECT_TRUE(result.runs.empty());
  }
  auto req = request("mace_fx1x1", 1, 1, {"add.S"});
  req.deadline = Clock::now() - 1s;
  EXPECT_EQ(simulate_workloads(req).failure_reason, Failure::budget_exhausted);
  EXPECT_EQ(fx.invocations("run"), 0);
  EXPECT_FALSE(fs::exists(checkout.model_dir("mace_fx1x1") / "runs"));
}

TEST_F(SimulatorFixtureTest, DeadlineCapsEachSimulation) {  // REQ-BUD-11
  build_model("mace_fx1x1", 1, 1);
  fx.set_control("run", "hang");
  auto req = request("mace_fx1x1", 1, 1, {"add.S"});
  req.deadline = Clock::now() + 1500ms;  // time_limit stays one hour
  req.kill_grace = 300ms;
  auto start = Clock::now();
  auto result = simulate_workloads(req);
  EXPECT_LT(seconds_since(start), 15.0);
  ASSERT_EQ(result.runs.size(), 1u);
  EXPECT_TRUE(result.runs[0].timed_out);
  EXPECT_LE(result.runs[0].time_limit, 1500ms);
  EXPECT_EQ(result.runs[0].verdict, Verdict::timeout);

  // Budget left for the first workload only: the second is not started.
  fx.set_control("run", "pass");
  fx.set_control("run_sleep", "1");
  req.workloads = {"add.S", "add.S"};
  req.deadline = Clock::now() + 800ms;
  result = simulate_workloads(req);
  EXPECT_EQ(result.failure_reason, Failure::workload_failed);  // the first ran into the deadline
  ASSERT_EQ(result.runs.size(), 1u);
  EXPECT_TRUE(result.runs[0].timed_out);
  EXPECT_EQ(fx.invocations("run"), 2);
}

TEST_F(SimulatorFixtureTest, CancelStopsTheRunAndStartsNoOther) {
  build_model("mace_fx1x1", 1, 1);
  os::CancelToken before;
  before.cancel();
  auto req = request("mace_fx1x1", 1, 1, {"add.S"});
  req.cancel = &before;
  auto result = simulate_workloads(req);
  EXPECT_EQ(result.failure_reason, Failure::cancelled);
  EXPECT_TRUE(result.runs.empty());
  EXPECT_EQ(fx.invocations("run"), 0);

  fx.set_control("run", "hang");
  os::CancelToken during;
  std::thread canceller;
  auto req2 = request("mace_fx1x1", 1, 1, {"add.S", "add.S"});
  req2.cancel = &during;
  req2.kill_grace = 300ms;
  req2.on_workload_started = [&](const std::string&) {
    canceller = std::thread([&] {
      std::this_thread::sleep_for(700ms);
      during.cancel();
    });
  };
  auto start = Clock::now();
  result = simulate_workloads(req2);
  canceller.join();
  EXPECT_LT(seconds_since(start), 15.0);
  EXPECT_EQ(result.failure_reason, Failure::cancelled);
  ASSERT_EQ(result.runs.size(), 1u);
  EXPECT_TRUE(result.runs[0].cancelled);
  EXPECT_EQ(result.runs[0].returncode, -1);
  EXPECT_FALSE(result.runs[0].passed);
  EXPECT_EQ(fx.invocations("run"), 1);
  for (pid_t pid : fx.recorded_pids())
    EXPECT_TRUE(mace::testing::eventually([&] { return !alive(pid); }, 5000ms)) << pid;
}

TEST_F(SimulatorFixtureTest, MissingModelFailsWithSimsDieLine) {
  auto result = simulate_workloads(request("mace_never_built", 1, 1, {"add.S", "add.S"}));
  EXPECT_FALSE(result.passed);
  EXPECT_EQ(result.failure_reason, Failure::workload_failed);
  ASSERT_EQ(result.runs.size(), 1u);
  const auto& run = result.runs[0];
  EXPECT_TRUE(run.sims_invoked);
  EXPECT_EQ(run.verdict, Verdict::none);
  EXPECT_NE(run.returncode, 0);
  EXPECT_THAT(run.error, HasSubstr("DIE."));
  // The line sims printed just before dying says why: the model's flist is missing.
  EXPECT_THAT(run.error, HasSubstr("cannot stat"));
  EXPECT_THAT(run.error, HasSubstr("mace_never_built/flist"));
  EXPECT_THAT(result.failure_detail, HasSubstr("DIE."));
  EXPECT_EQ(fx.invocations("run"), 1);
}

TEST_F(SimulatorFixtureTest, AMissingModelIsNotAWorkloadThatCannotRun) {
  auto result = simulate_workloads(request("mace_never_built", 1, 1, {"add.S"}));
  EXPECT_EQ(result.failure_reason, Failure::workload_failed);
  ASSERT_EQ(result.runs.size(), 1u);
  EXPECT_EQ(result.runs[0].cannot_run, Failure::none);
}

// What fails on every model alike is told apart, so the run can end with it at once.
TEST_F(SimulatorFixtureTest, AWorkloadThatCannotRunOnAnyModelSaysWhy) {
  build_model("mace_fx1x1", 1, 1);
  auto missing = simulate_workloads(request("mace_fx1x1", 1, 1, {"nosuch.S"}));
  EXPECT_EQ(missing.failure_reason, Failure::workload_not_found);
  EXPECT_THAT(missing.failure_detail, HasSubstr("no diag with name nosuch.S found"));
  auto own = simulate_workloads(request("mace_fx1x1", 1, 1, {"no_such_program"}));
  EXPECT_EQ(own.failure_reason, Failure::workload_not_found);
  auto options = request("mace_fx1x1", 1, 1, {"add.S"});
  options.per_workload["add.S"] = WorkloadOverrides{.options = {"-sas"}};
  auto refused = simulate_workloads(options);
  EXPECT_EQ(refused.failure_reason, Failure::sims_option_rejected);
  EXPECT_THAT(refused.failure_detail, HasSubstr("Unprocessed argument: -sas"));
}

TEST_F(SimulatorFixtureTest, PrepareErrorRunsNoSims) {
  build_model("mace_fx1x1", 1, 1);
  auto result = simulate_workloads(request("mace_fx1x1", 1, 1, {"no_such_program", "add.S"}));
  EXPECT_FALSE(result.passed);
  ASSERT_EQ(result.runs.size(), 1u);
  EXPECT_FALSE(result.runs[0].sims_invoked);
  EXPECT_TRUE(result.runs[0].argv.empty());
  EXPECT_EQ(result.runs[0].returncode, -1);
  EXPECT_THAT(result.runs[0].error, HasSubstr("no_such_program"));
  EXPECT_EQ(fx.invocations("run"), 0);
}

TEST_F(SimulatorFixtureTest, HugeTranscriptIsJudgedWithoutReadingItWhole) {
  build_model("mace_fx1x1", 1, 1);
  fx.set_control("run", "huge");
  fx.set_control("huge_mb", "200");
  auto start = Clock::now();
  auto result = simulate_workloads(request("mace_fx1x1", 1, 1, {"add.S"}));
  const double total = seconds_since(start);
  ASSERT_EQ(result.runs.size(), 1u);
  const auto& run = result.runs[0];
  EXPECT_TRUE(result.passed) << result.failure_detail;
  EXPECT_GT(fs::file_size(run.run_dir / "sim.log"), 200u * 1000 * 1000);
  EXPECT_LE(run.sim_log_tail.size(), kSimLogTailBytes);
  EXPECT_THAT(run.sim_log_tail, HasSubstr("Verilog $finish"));
  // Our part (verdict over 200 MB, tail, status) on top of the fake writing it.
  EXPECT_LT(total - run.wall_seconds, 20.0);
  std::cout << "huge: sims " << run.wall_seconds << " s, total " << total << " s\n";
}

}  // namespace
}  // namespace mace::openpiton
