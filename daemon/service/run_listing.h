#pragma once
// A page of a listing of runs (`mace list`, `mace status` without a run), with what its
// caller may see of each (caller.h). Reads only the store it is given, so the listing can be
// answered from a connection and a thread of its own (maced/listing_thread.h) as well as
// from the service's.

#include <string>
#include <vector>

#include "service/caller.h"
#include "store/store.h"

namespace mace::service {

struct RunPage {
  std::vector<store::RunRecord> runs;
  std::string next;  // RunFilter::before of the next page; "": none follows
};

// The runs `filter` selects from filter.before on, newest first, up to its limit, as much
// as one answer holds (answer_pages.h), read a run at a time so that a full page reads no
// further run.
RunPage list_runs_page(const store::Store& store, OthersSee others_see,
                       const store::RunFilter& filter, const Caller& caller);

// Clears what `caller` may not see of another's run in a listing.
void show_only_what_caller_may_see(store::RunRecord& run, OthersSee others_see,
                                   const Caller& caller);

}  // namespace mace::service
