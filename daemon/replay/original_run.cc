#include "replay/original_run.h"

#include <stdexcept>

namespace mace::replay {

OriginalRun load_original_run(const store::Store& store, const std::string& run_id) {
  OriginalRun original;
  auto run = store.find_run(run_id);
  if (!run) throw std::runtime_error("the replayed run " + run_id + " is no longer in the store");
  original.run = *run;
  original.llm_calls = store.llm_calls(run_id);
  original.iterations = store.iterations(run_id);
  original.tasks = store.tasks(run_id);
  original.diagnoses = store.diagnoses(run_id);
  original.narrowing_builds = store.narrowing_builds(run_id);
  original.post_mortem = store.post_mortem(run_id);
  return original;
}

}  // namespace mace::replay
