#include "rpc/connection_activity.h"

namespace mace::rpc {

ConnectionActivity::Hold::Hold(std::shared_ptr<ConnectionActivity> activity)
    : activity_(std::move(activity)) {
  ++activity_->holds_;
  activity_->last_change_ = Clock::now();
}

ConnectionActivity::Hold::~Hold() {
  if (!activity_) return;  // moved from
  --activity_->holds_;
  activity_->last_change_ = Clock::now();
}

bool ConnectionActivity::busy() const {
  return holds_ > 0 || (!session_.empty() && tool_sessions_.find(session_) != nullptr);
}

}  // namespace mace::rpc
