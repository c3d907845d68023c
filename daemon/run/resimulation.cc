#include "run/resimulation.h"

#include "run/workload_result.h"

namespace mace::run {

loop::TaskJob resimulation_job(const RecordingObserver::AcceptedDesign& design) {
  loop::TaskJob job = design.job;
  job.simulate = true;
  job.prompt = false;
  job.narrowing.clear();
  if (job.task.kind == TaskKind::rtl) {
    job.task.kind = TaskKind::config;
    job.edits = design.outcome.applied_edits;
  }
  return job;
}

namespace {

// Nothing to record per job: the caller records the verdicts.
class ResimulationCalls final : public loop::DispatchCalls {
 public:
  explicit ResimulationCalls(const std::function<bool()>& cancelled) : cancelled_(cancelled) {}
  bool cancelled() override { return cancelled_ && cancelled_(); }
  bool prepare(loop::TaskJob&) override { return true; }

 private:
  const std::function<bool()>& cancelled_;
};

}  // namespace

std::vector<store::EvalResimulationRecord> resimulate_accepted(
    loop::TaskRunner& runner, int iteration,
    const std::vector<RecordingObserver::AcceptedDesign>& designs,
    const std::vector<std::string>& workloads, const std::function<bool()>& cancelled) {
  std::vector<loop::TaskJob> jobs;
  for (const auto& design : designs) jobs.push_back(resimulation_job(design));
  ResimulationCalls calls(cancelled);
  const loop::DispatchResult done =
      jobs.empty() ? loop::DispatchResult{} : loop::dispatch(runner, iteration, jobs, {}, {}, calls);
  std::vector<store::EvalResimulationRecord> out;
  for (size_t i = 0; i < designs.size(); ++i) {
    const loop::TaskOutcome* outcome =
        i < done.finished.size() && done.finished[i] ? &done.finished[i]->outcome : nullptr;
    store::EvalResimulationRecord record{designs[i].job.task.id,
                                         outcome && !outcome->build_id.empty()
                                             ? outcome->build_id
                                             : designs[i].outcome.build_id,
                                         {}};
    for (size_t w = 0; w < workloads.size(); ++w) {
      // A workload without a verdict (the design did not build again) is kept as none.
      store::WorkloadResultRecord r{static_cast<int64_t>(w), workloads[w], Verdict::none,
                                    std::nullopt, "", 0};
      if (outcome)
        for (const auto& v : outcome->verdicts)
          if (v.workload == workloads[w]) r = workload_result(static_cast<int64_t>(w), v);
      record.results.push_back(std::move(r));
    }
    out.push_back(std::move(record));
  }
  return out;
}

std::string verdicts_text(const store::EvalResimulationRecord& design) {
  std::string text;
  for (const auto& r : design.results)
    text += (text.empty() ? "" : " ") + r.workload + "=" + std::string(to_string(r.verdict));
  return text;
}

}  // namespace mace::run
