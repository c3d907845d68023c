#pragma once
// An LLM backend for the run's unit tests: answers each call with the next scripted reply
// (a failed "unknown" reply once the script runs out) and keeps every request it got.

#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "llm/llm.h"

namespace mace::run::testing {

class ScriptedBackend final : public llm::Backend {
 public:
  std::string name() const override { return "scripted"; }
  std::string model() const override { return "scripted-1"; }

  llm::Reply call(const llm::Request& request) override {
    std::lock_guard lock(mutex_);
    requests_.push_back(request);
    if (replies_.empty()) {
      llm::Reply r;
      r.error_class = llm::ErrorClass::unknown;
      r.error = "the script has no more replies";
      return r;
    }
    llm::Reply r = replies_.front();
    replies_.pop_front();
    return r;
  }

  static llm::Reply text(const std::string& text, double cost_usd = 0.01) {
    llm::Reply r;
    r.ok = true;
    r.text = text;
    r.usage.input_tokens = 100;
    r.usage.output_tokens = 10;
    r.usage.cost_usd = cost_usd;
    r.usage.cost_source = llm::CostSource::reported;  // as a CLI that reports its cost
    return r;
  }
  static llm::Reply rate_limited() {
    llm::Reply r;
    r.error_class = llm::ErrorClass::rate_limit;
    r.error = "429: slow down";
    return r;
  }

  // The script and the log stay the test's: the run owns (and destroys) the backend.
  ScriptedBackend(std::deque<llm::Reply>& replies, std::vector<llm::Request>& requests,
                  std::mutex& mutex)
      : replies_(replies), requests_(requests), mutex_(mutex) {}

 private:
  std::deque<llm::Reply>& replies_;
  std::vector<llm::Request>& requests_;
  std::mutex& mutex_;
};

}  // namespace mace::run::testing
