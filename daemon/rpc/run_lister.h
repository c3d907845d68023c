#pragma once
// Where `list` and `failures` answers come from: reads across many runs. Without one,
// MacedServer asks the service on the event loop; maced gives it a reader on a thread of its
// own (maced/listing_thread.h), so that a user listing a long queue over and over never holds
// the loop other users' calls wait on.

#include <kj/async.h>

#include "service/caller.h"
#include "service/failures_across_runs.h"
#include "service/run_listing.h"
#include "store/store.h"

namespace mace::rpc {

class RunLister {
 public:
  virtual ~RunLister() = default;
  // A page of the listing (service/run_listing.h), resolved on the calling thread's loop.
  // Fails with a kj::Exception whose text starts "maced internal error: " when the store
  // cannot be read.
  virtual kj::Promise<service::RunPage> list_page(store::RunFilter filter, service::Caller caller) = 0;
  // Failures across runs (service/failures_across_runs.h), the same way; a request it
  // refuses fails with the RequestError's text.
  virtual kj::Promise<service::FailureHistory> failures(service::FailureQuery query, service::Caller caller) = 0;
};

}  // namespace mace::rpc
