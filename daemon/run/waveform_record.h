#pragma once
// The waveform around a failed task's deciding workload (executor/failure_waveform.h) into
// the run's record: the VCD kept with the run's evidence (its LogKeeper), what it covers,
// what it cost or why there is none in the store (waveforms), and a line in the run's log.

#include <cstdint>
#include <string>

#include "executor/task_calls.h"
#include "loop/task_job.h"
#include "run/log_keeper.h"
#include "run/run_recorder.h"

namespace mace::run {

void record_waveform(RunRecorder& recorder, LogKeeper& logs, const executor::TaskCallSite& site,
                     const loop::FailureWaveform& waveform, int64_t now_ms);

// "waveform of hello: cycles 8996 to 9997 (1.2 MiB), the traced model built in 52 s,
// simulated in 3 s"; or why there is none. For the run's log and people.
std::string waveform_line(const loop::FailureWaveform& waveform);

}  // namespace mace::run
