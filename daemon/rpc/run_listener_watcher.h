#pragma once
// Forwards one run's events to a client's RunListener, in order and one at a time, so
// the stream's flow control holds back a slow client instead of buffering in its socket.

#include <deque>
#include <optional>

#include <kj/async.h>

#include "mace.capnp.h"
#include "service/run_service.h"

namespace mace::rpc {

class RunListenerWatcher final : public service::RunWatcher {
 public:
  RunListenerWatcher(service::RunService& service, api::RunListener::Client listener,
                     service::Caller caller);
  ~RunListenerWatcher() noexcept override;

  // Registers with the service; history is queued at once.
  void start(const std::string& run_id, int64_t after_seq);

  void on_event(const store::EventRecord& event) override;
  void on_done(const store::RunRecord& run) override;

 private:
  void pump();
  void on_broken();

  struct SendFailed final : kj::TaskSet::ErrorHandler {
    explicit SendFailed(RunListenerWatcher& w) : watcher(w) {}
    void taskFailed(kj::Exception&&) override { watcher.on_broken(); }
    RunListenerWatcher& watcher;
  };

  service::RunService& service_;
  api::RunListener::Client listener_;
  service::Caller caller_;
  std::optional<service::RunService::WatchToken> token_;
  std::deque<store::EventRecord> pending_;
  std::optional<store::RunRecord> done_;
  bool sending_ = false;
  bool broken_ = false;
  SendFailed send_failed_{*this};
  kj::TaskSet tasks_;
};

}  // namespace mace::rpc
