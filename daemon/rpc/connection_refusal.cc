#include "rpc/connection_refusal.h"

#include <capnp/message.h>
#include <capnp/rpc.capnp.h>
#include <capnp/serialize-async.h>

namespace mace::rpc {
namespace {

kj::Promise<void> discard_until_end(kj::AsyncInputStream& stream, kj::Array<kj::byte> buffer) {
  auto read = stream.tryRead(buffer.begin(), 1, buffer.size());
  return read.then([&stream, buffer = kj::mv(buffer)](size_t n) mutable -> kj::Promise<void> {
    if (n == 0) return kj::READY_NOW;
    return discard_until_end(stream, kj::mv(buffer));
  });
}

}  // namespace

kj::Promise<void> refuse_connection(kj::AsyncIoStream& stream, const std::string& reason) {
  auto message = kj::heap<capnp::MallocMessageBuilder>();
  auto abort = message->initRoot<capnp::rpc::Message>().initAbort();
  abort.setReason(reason);
  abort.setType(capnp::rpc::Exception::Type::OVERLOADED);
  auto written = capnp::writeMessage(stream, *message);
  return written.attach(kj::mv(message)).then([&stream]() {
    stream.shutdownWrite();
    return discard_until_end(stream, kj::heapArray<kj::byte>(4096));
  });
}

}  // namespace mace::rpc
