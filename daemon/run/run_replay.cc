#include "run/run_replay.h"

#include "replay/tag.h"
#include "replay/values.h"
#include "service/clock.h"

namespace mace::run {
namespace {

// A replay's tasks ask the replay planner, which answers from the original's record.
class RecordedTaskLlm final : public executor::TaskLlm {
 public:
  explicit RecordedTaskLlm(replay::ReplayPlanner& planner) : planner_(planner) {}
  double prompt(int iteration, const loop::TaskJob& job) override {
    return planner_.task(iteration, job.task.id).cost_usd;
  }
  loop::PlannerReply agent(int iteration, const loop::TaskJob& job, const std::string&,
                           std::vector<llm::Tool>) override {
    return planner_.task(iteration, job.task.id);
  }

 private:
  replay::ReplayPlanner& planner_;
};

}  // namespace

RunReplay::RunReplay(RunRecorder& recorder, const store::RunRecord& record, const RunSpec& spec,
                     const std::vector<std::string>& default_cache)
    : recorder_(recorder), state_(static_cast<int>(record.replay_until)) {
  replay::CallPolicy policy;
  if (!record.replay_of.empty()) {
    original_ = recorder_.with_store(
        [&](store::Store& s) { return replay::load_original_run(s, record.replay_of); });
    policy = replay::replay_policy(record.id, record.replay_of);
  } else {
    policy = replay::call_policy(record.id, spec.replay.cache, spec.replay.bypass,
                                 spec.replay.from, default_cache);
  }
  replay::CallCache::Storage storage;
  storage.find = [this](const std::string& tag) {
    return recorder_.with_store([&](store::Store& s) { return s.find_cache_entry(tag); });
  };
  storage.put = [this](const store::CacheEntryRecord& entry) {
    recorder_.with_store([&](store::Store& s) { s.put_cache_entry(entry); });
  };
  cache_ = std::make_unique<replay::CallCache>(std::move(policy), std::move(storage),
                                               system_now_ms, MACE_VERSION);
  cache_->on_notice = [this](const std::string& message) { recorder_.message(message); };
  cache_->checkout_fingerprint = replay::current_checkout_fingerprint;
  if (is_replay()) {
    // In a replay every call has an entry, so a miss is a call the original did not make.
    cache_->on_miss = [this](const std::string& tag) {
      state_.diverge("replay diverged: the original has no cache entry for tag " + tag +
                     " (it made no such call)");
    };
  }
  task_calls_ = std::make_unique<replay::CachedTaskCalls>(*cache_, direct_, MACE_VERSION);
}

RunReplay::~RunReplay() = default;

std::unique_ptr<loop::Planner> RunReplay::replay_planner(const RunSpec& spec,
                                                         std::function<int()> iteration) {
  auto record = [this](const store::LlmCallRecord& call) {
    recorder_.with_store([&](store::Store& s) { s.record_llm_call(call); });
  };
  auto planner = std::make_unique<replay::ReplayPlanner>(
      *original_, spec, state_, recorder_.run_id(), std::move(iteration), record, system_now_ms);
  planner_ = planner.get();
  replay_task_llm_ = std::make_unique<RecordedTaskLlm>(*planner_);
  return planner;
}

loop::PlannerReply RunReplay::prompt(int iteration, const std::string& task_id,
                                     const std::function<loop::PlannerReply()>& call) {
  const std::string tag = cache_->tag(iteration, task_id, replay::kPromptFunction);
  loop::PlannerReply reply;
  if (cache_->bypasses(replay::kPromptFunction)) {
    try {
      reply = replay::parse_prompt_value(cache_->serve(replay::kPromptFunction, tag, "").value_json);
    } catch (const std::exception& e) {  // CacheMiss, ValueError: REQ-REPLAY-4, nothing is called
      return {false, "", 0, e.what()};
    }
  } else {
    reply = call();
  }
  cache_->store(replay::kPromptFunction, tag, replay::prompt_value(reply), {MACE_VERSION, "", ""});
  return reply;
}

loop::LoopObserver& RunReplay::observer(loop::LoopObserver& recording) {
  if (!is_replay()) return recording;
  observer_ = std::make_unique<replay::ReplayObserver>(*original_, state_, recording);
  return *observer_;
}

std::pair<RunState, std::string> RunReplay::conclude(const loop::LoopResult& result) const {
  if (!is_replay()) return {result.state, result.reason};
  replay::Conclusion c = replay::conclude(*original_, state_, result,
                                          planner_ ? planner_->unasked() : std::vector<std::string>{});
  return {c.state, c.reason};
}

}  // namespace mace::run
