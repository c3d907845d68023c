#include "rpc/run_listener_watcher.h"

#include "rpc/conversions.h"

namespace mace::rpc {

RunListenerWatcher::RunListenerWatcher(service::RunService& service,
                                       api::RunListener::Client listener, service::Caller caller)
    : service_(service), listener_(kj::mv(listener)), caller_(caller), tasks_(send_failed_) {}

RunListenerWatcher::~RunListenerWatcher() noexcept {
  if (token_) service_.unwatch(*token_);
}

void RunListenerWatcher::start(const std::string& run_id, int64_t after_seq) {
  token_ = service_.watch(run_id, after_seq, *this, caller_);
}

void RunListenerWatcher::on_event(const store::EventRecord& event) {
  pending_.push_back(event);
  pump();
}

void RunListenerWatcher::on_done(const store::RunRecord& run) {
  done_ = run;
  token_.reset();  // the service has already forgotten this watch
  pump();
}

void RunListenerWatcher::pump() {
  if (sending_ || broken_) return;
  if (!pending_.empty()) {
    auto request = listener_.eventRequest();
    fill(request.initEvent(), pending_.front());
    pending_.pop_front();
    sending_ = true;
    tasks_.add(request.send().then([this]() {
      sending_ = false;
      pump();
    }));
    return;
  }
  if (done_) {
    auto request = listener_.doneRequest();
    fill(request.initResult().initSummary(), *done_);
    done_.reset();
    tasks_.add(request.send().ignoreResult());
  }
}

void RunListenerWatcher::on_broken() {
  // The client went away or its listener threw: stop telling it anything.
  broken_ = true;
  pending_.clear();
  if (token_) {
    service_.unwatch(*token_);
    token_.reset();
  }
}

}  // namespace mace::rpc
