#pragma once
// A run's logs from where they are written to the run's own evidence: each build's
// transcript and each simulation's sim.log is recorded where it is written as soon as it
// starts (so `mace logs --follow` can read it while it grows), and copied into the run's
// directory the moment its build or simulation ends, before anything else can run in
// that checkout and write over it (evidence/evidence_archive.h). The store's row then
// points at the copy. What could not be copied says why; at the run's end whatever was
// not yet kept (a task that threw, a cancel) is kept from where it was written.
// The executor calls this from its tasks' threads; the copy is made there, and only its
// record goes through the recorder.
//
// A simulation's directory in the checkout (`<model dir>/runs/<workload>-<n>`) outlives its
// task: the run's later diagnoses read it, as the failed run or as a passing reference. So
// the directories are removed when the run ends, once their logs are kept (unless maced is
// told to keep them), and the run's log says what was removed: otherwise every simulation
// ever run stays in the checkout, and one that wrote gigabytes keeps them there.

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "evidence/evidence_archive.h"
#include "executor/task_calls.h"
#include "openpiton/coverage.h"
#include "run/run_recorder.h"
#include "service/clock.h"

namespace mace::run {

class LogKeeper {
 public:
  // `archive` null: logs are recorded where they are written and never copied (and so no
  // simulation directory is ever removed).
  LogKeeper(RunRecorder& recorder, std::shared_ptr<const evidence::EvidenceArchive> archive,
            Clock now_ms = system_now_ms);

  // A build's transcript (workload "") or a workload's sim.log is being written at `path`.
  void started(const executor::TaskCallSite& site, const std::string& workload,
               const std::filesystem::path& path);
  // Its build or simulation has ended: the copy is made now.
  void finished(const executor::TaskCallSite& site, const std::string& workload);
  // Keeps every log of the run still not kept (the run is ending).
  void keep_remaining();
  // Removes from the checkouts the run's simulation directories whose logs are kept, and
  // says in the run's log what was removed (how many, how much) and what could not be. Call
  // when the run ends, after keep_remaining().
  void remove_kept_run_dirs();

  // A task's merged coverage (openpiton/coverage.h): its merged data and each annotated
  // source file, recorded and kept at once (they are complete). Where they are now.
  struct KeptCoverage {
    std::string data_path;      // the kept coverage.dat, else where it was made
    std::string annotated_dir;  // the kept annotated directory, else where it was made
    int64_t data_file_id = 0;   // its log_files row
  };
  KeptCoverage keep_coverage(const executor::TaskCallSite& site, const openpiton::CoverageResult& coverage);

  // A failed workload's waveform (executor/failure_waveform.h), written at `path` in the
  // traced simulation's run directory: recorded and kept at once, and that directory
  // removed with the run's others when the run ends. Its log_files row and where it is now.
  struct KeptWaveform {
    int64_t file_id = 0;
    std::string path;
  };
  KeptWaveform keep_waveform(const executor::TaskCallSite& site, const std::string& workload,
                             const std::filesystem::path& path);

 private:
  struct Pending {
    int64_t row_id = 0;
    evidence::EvidencePlace place;
    std::filesystem::path source;
  };
  // Records a file of `kind` (`name` in the workload column) written at `path`.
  Pending record(const executor::TaskCallSite& site, evidence::EvidenceKind kind,
                 const std::string& name, const std::filesystem::path& path);
  // The kept copy's path; nothing when it was not kept (the row says why).
  std::optional<std::filesystem::path> keep(const Pending& log);

  RunRecorder& recorder_;
  std::shared_ptr<const evidence::EvidenceArchive> archive_;
  Clock now_ms_;
  std::mutex mutex_;                         // tasks of a batch log at once
  std::map<std::string, Pending> pending_;   // by call site and workload
  // The run's simulation directories, each with whether every log written there is kept.
  std::map<std::filesystem::path, bool> run_dirs_;
};

}  // namespace mace::run
