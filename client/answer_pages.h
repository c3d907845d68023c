#pragma once
// maced answers a listing, a run's detail, its log and its LLM calls a page at a time, so
// that no answer can pass the size of a message (schema/mace.capnp: list, status, logs,
// calls); these ask
// for pages until the command has what it wants. Each page's response is kept, so readers
// into it stay valid while the command shows them.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <capnp/capability.h>
#include <capnp/message.h>
#include <kj/async.h>

#include "mace.capnp.h"

namespace mace::client {

using ListPages = std::vector<capnp::Response<api::Maced::ListResults>>;
using CallPages = std::vector<capnp::Response<api::Maced::CallsResults>>;

// The runs of the filter `select` sets up (states, user), newest first, at most `limit`
// of them (0: every one).
ListPages list_pages(api::Maced::Client& maced, kj::WaitScope& wait, uint32_t limit,
                     const std::function<void(api::ListFilter::Builder)>& select);

// The run's whole detail: every page of `status`, their lists joined, in a message of the
// client's own (no message limit bounds it); read it with getRoot<api::RunDetail>().
kj::Own<capnp::MallocMessageBuilder> whole_run_detail(api::Maced::Client& maced, kj::WaitScope& wait,
                                                      const std::string& run_id);

// Every LLM call of the run, oldest first.
CallPages call_pages(api::Maced::Client& maced, kj::WaitScope& wait, const std::string& run_id);

// Each entry of the run's log, oldest first, as its page arrives.
void each_log_entry(api::Maced::Client& maced, kj::WaitScope& wait, const std::string& run_id,
                    const std::function<void(api::LogEntry::Reader)>& each);

}  // namespace mace::client
