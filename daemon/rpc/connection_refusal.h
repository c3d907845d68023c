#pragma once
// Refusing a client connection in words the client shows: Cap'n Proto's RPC protocol has
// one message for ending a connection with a reason, Abort, and a KJ client fails its
// calls with that reason ("remote exception: <reason>").
//
// Closing the socket right after the Abort would often lose it: the client has usually
// written its first requests by then, and its write to a closed socket fails (a broken
// pipe), which KJ reports instead of the Abort still unread. So the refusal stops
// writing and waits for the client to hang up, discarding what it sends; the caller
// bounds that wait.

#include <string>

#include <kj/async-io.h>

namespace mace::rpc {

// Resolves once the client has closed its end.
kj::Promise<void> refuse_connection(kj::AsyncIoStream& stream, const std::string& reason);

}  // namespace mace::rpc
