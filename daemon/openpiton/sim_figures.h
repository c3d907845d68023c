#pragma once
// What a simulation's transcript says about how long the simulated design took, beside its
// verdict: the simulation time at which the testbench decided, and that time in clock
// cycles.
//
// OpenPiton's testbench stamps its verdict line with Verilog's $time, for every core alike
// (pico, sparc, ariane and the Generic Tile share pc_cmp.v and monitor.v):
//
//   6943250: Simulation -> PASS (HIT GOOD TRAP)                       pc_cmp.v,  "%0d: "
//       4498250 : Simulation -> FAIL(HIT BAD TRAP)                    monitor.v, "%d : "
//   750000250 : Simulation -> (terminated by reaching max cycles = 1500000)
//
// That number is a time, not a cycle count. Under Verilator the time is kept by
// OpenPiton's driver (piton/tools/verilator/my_top.cpp), which advances it by 250 at each
// edge of the clock: 500 per cycle, rising edges at 250, 750, .... So cycles = time / 500,
// rounded down: the clock cycles since the simulation started, reset included. OpenPiton's
// own `perf` tool counts the same way (the time divided by the clock period), and the
// max-cycles line above, printed when monitor.v's cycle counter reaches its limit of
// 1,500,000, reads exactly that limit (750000250 / 500). MACE builds every model with
// Verilator (`-vlt_build`), so the divisor holds for every model it simulates.
//
// A verdict decided by something else (the per-thread "-> timeout happen" notices, a
// wall-clock limit), or a marker line cut before its stamp, has no time: the figures are
// then absent, never estimated.
//
// Instructions retired: no transcript of the pinned OpenPiton prints a count (PicoRV32's
// counters are not displayed, sparc's pipe trace is off by default), so none is read.
//
// Only the C++ standard library (REQ-PLAT-9).

#include <cstdint>
#include <optional>
#include <string_view>

namespace mace::openpiton {

// Simulation time per clock cycle under OpenPiton's Verilator driver (see above).
inline constexpr std::int64_t kVerilatorTimePerCycle = 500;

struct SimulationFigures {
  // The $time stamp of the verdict line, as printed; unset when the line has none.
  std::optional<std::int64_t> verdict_time;
  // verdict_time / kVerilatorTimePerCycle; unset with it.
  std::optional<std::int64_t> cycles;
};

// The figures of the line that decided a verdict (VerdictScanner::marker_line): leading
// blanks, up to 18 digits, blanks, ':', blanks, then "Simulation". Anything else (the
// "Info: spc(0) thread(1) -> timeout happen" notice, an empty line) gives none.
SimulationFigures figures_from_verdict_line(std::string_view line);

}  // namespace mace::openpiton
