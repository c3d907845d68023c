#pragma once
// One run from its record to its end: the pieces a run is made of (its planner, executor,
// observer, replay wiring and tools) assembled and handed to the loop (loop/run_loop.h).
// maced calls this on the run's own thread; tests call it directly with a store of their
// own. Nothing here knows about KJ, sockets or the event loop: every record goes through
// the RunRecorder.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "executor/failure_waveform.h"
#include "core/run_state.h"
#include "evidence/evidence_archive.h"
#include "llm/backend_factory.h"
#include "llm/llm.h"
#include "llm/retry.h"
#include "openpiton/checkout.h"
#include "openpiton/model_store.h"
#include "os/cancel_token.h"
#include "run/leased_runner.h"
#include "run/run_recorder.h"
#include "service/checkout_pool.h"
#include "slurm/job_observer.h"
#include "slurm/slurm_settings.h"
#include "tools/command_tool.h"

namespace mace::run {

// What maced gives every run: the same for all of them.
struct RunSettings {
  std::filesystem::path workloads_dir;
  // The tools maced's configuration declares; a run gets those its spec names (REQ-EXEC-7).
  std::vector<tools::CommandToolConfig> tools;
  // What a run caches when its spec's `replay.cache` is unset (REQ-REPLAY-2).
  std::vector<std::string> replay_cache = {"build", "run"};
  // Prices and, for the CLI agents, how their tools reach maced.
  llm::BackendOptions backend_options;
  llm::RetryPolicy retry;
  llm::EnvLookup environment = llm::process_environment();
  // Makes a run's backend; unset: llm::make_backend with `environment` and
  // `backend_options`. Throws llm::BackendError when it cannot.
  std::function<std::unique_ptr<llm::Backend>(const llm::BackendChoice&)> make_backend;
  // Set when checkouts run their work on Slurm nodes (maced's `executor.kind` "slurm"):
  // every command of a checkout becomes a job on its node (slurm/slurm_runner.h). Null:
  // every checkout runs its commands here.
  std::shared_ptr<const slurm::SlurmSettings> slurm;
  // Told of every Slurm job of every run and of nodes found down: maced's keeper, its
  // view of the checkouts, its scheduler. May be null.
  std::shared_ptr<slurm::JobObserver> cluster_observer;
  // Where builds take finished models from and publish them to; null: none.
  std::shared_ptr<const openpiton::ModelStore> model_store;
  // The ccache directory builds compile through, and its size limit; empty: none.
  std::string compiler_cache_dir;
  std::int64_t compiler_cache_max_mb = 0;
  // Where each run keeps its own copies of its logs (run/log_keeper.h); null: nowhere, the
  // store records where they were written and nothing more.
  std::shared_ptr<const evidence::EvidenceArchive> evidence;
  // Whether a run's simulation directories stay in the checkouts after their logs are kept
  // in its evidence (run/log_keeper.h); by default they are removed when the run ends.
  bool keep_run_dirs = false;
  // The largest file one simulation may write, in bytes; 0: no limit (openpiton/simulator.h).
  std::uint64_t max_sim_output_bytes = 0;
  // The waveform around a failure (executor/failure_waveform.h); unset: maced's
  // configuration turned it off. A spec's "waveform": false turns it off for its run.
  std::optional<executor::WaveformSettings> waveform;
  // The most gate workloads of one task simulating side by side; 0: the task's share of the
  // machine (executor/gate_workloads.h).
  std::size_t parallel_workloads = 0;
  // How a level's tasks go onto the checkouts when a spec does not say (`executor.dispatch`
  // in maced's configuration), and how often a task lost to the infrastructure runs again.
  Dispatch dispatch = Dispatch::queue;
  int infrastructure_retries = 3;
};

struct RunEnding {
  RunState state = RunState::error;
  std::string reason;
};

// Plans, builds, simulates and triages the run `recorder` names on the checkouts of
// `lease` (it starts with at least one and asks for more as its levels need them; each
// runs where its node is, see RunSettings::slurm) until it ends, recording every step.
// Never throws: whatever goes wrong ends the run in `error` with the reason (REQ-BUD-10:
// maced goes on). `cancel` stops its builds and simulations at once.
RunEnding execute_run(RunRecorder& recorder, const RunSettings& settings, RunLease lease,
                      const os::CancelToken& cancel);

}  // namespace mace::run
