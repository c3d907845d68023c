#include "rpc_frames_target.h"

#include <signal.h>
#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

#include <kj/async-io.h>

#include "llm/tool_sessions.h"
#include "mace.capnp.h"
#include "maced/client_connections.h"
#include "maced/connection_limits.h"
#include "service/eval_service.h"
#include "service/run_service.h"
#include "store/store.h"
#include "targets.h"

namespace mace::fuzz {
namespace {

namespace fs = std::filesystem;

// maced answers a client in milliseconds; a connection still open this long after its client
// has sent everything and hung up is one maced would keep for ever.
constexpr auto kCloseWithin = 3 * kj::SECONDS;

// kj allows one event loop per thread: the target's, made on first use and kept.
kj::AsyncIoContext& event_loop() {
  static kj::AsyncIoContext io = [] {
    ::signal(SIGPIPE, SIG_IGN);  // as maced: a client gone is an error return, not a signal
    return kj::setupAsyncIo();
  }();
  return io;
}

// Where each input's store is made; removed when the process exits normally.
const fs::path& scratch_directory() {
  static const fs::path dir = [] {
    std::string pattern = (fs::temp_directory_path() / "mace-fuzz-rpc.XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("cannot make a scratch directory");
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(scratch_directory(), ec);
    });
    return fs::path(pattern);
  }();
  return dir;
}

// Reads whatever maced sends until it closes the connection.
kj::Promise<void> read_to_end(kj::AsyncIoStream& stream, kj::ArrayPtr<kj::byte> buffer) {
  return stream.tryRead(buffer.begin(), 1, buffer.size())
      .then([&stream, buffer](size_t n) -> kj::Promise<void> {
        if (n == 0) return kj::READY_NOW;
        return read_to_end(stream, buffer);
      });
}

}  // namespace

void check_rpc_frames(std::string_view input) {
  kj::AsyncIoContext& io = event_loop();
  // A store of its own for every input, so that what one input submitted is not what the
  // next reads: a failure replays from its input alone.
  const fs::path db = scratch_directory() / "mace.db";
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(db.string() + suffix);
  auto store = store::Store::open(db);
  service::RunService runs(*store);
  service::EvalService evaluations(*store, runs);
  llm::ToolSessions tool_sessions;
  std::ostringstream log;
  ClientConnections connections(runs, tool_sessions, io.provider->getTimer(), ConnectionLimits{},
                                std::nullopt, log);
  connections.set_eval_service(&evaluations);

  // A socket pair, as a client's connection is (the bootstrap asks SO_PEERCRED who it is).
  auto pipe = io.provider->newTwoWayPipe();
  connections.add(kj::mv(pipe.ends[0]));
  kj::AsyncIoStream& client = *pipe.ends[1];

  // The client sends every byte and hangs up its sending side, while reading what maced
  // answers; maced may close first (a frame it refuses), which ends the sending early.
  auto buffer = kj::heapArray<kj::byte>(1 << 16);
  // Each side evaluated eagerly: a joined promise runs its branches' continuations only
  // once every branch is ready, so the hang-up after the write would wait for the answers'
  // end, which waits for the hang-up.
  auto send = client.write(input.data(), input.size())
                  .then([&client] { client.shutdownWrite(); })
                  .catch_([](kj::Exception&&) {})
                  .eagerlyEvaluate(nullptr);
  auto answers = read_to_end(client, buffer).catch_([](kj::Exception&&) {}).eagerlyEvaluate(nullptr);
  bool closed = false;
  fprintf(stderr, "DBG before poll\n");
  io.waitScope.poll();
  fprintf(stderr, "DBG after poll\n");
  kj::joinPromises(kj::arr(kj::mv(send), kj::mv(answers)))
      .then([&closed] { closed = true; })
      .exclusiveJoin(io.provider->getTimer().afterDelay(kCloseWithin))
      .wait(io.waitScope);
  if (!closed)
    throw Violation("maced kept a connection open for 3 s after its client had sent everything and hung up");
  // Closing the socket and forgetting the connection happen together; let the loop finish.
  io.waitScope.poll();
  if (connections.served() != 0)
    throw Violation("maced counts a closed connection as still served (" +
                    std::to_string(connections.served()) + ")");
}

std::vector<std::string> rpc_frames_dictionary() {
  auto little_endian = [](uint64_t id) {
    std::string bytes(8, '\0');
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>(id >> (8 * i));
    return bytes;
  };
  return {little_endian(capnp::typeId<api::Maced>()),
          little_endian(capnp::typeId<api::RunListener>()),
          little_endian(capnp::typeId<api::Subscription>()),
          std::string("\0\0\0\0", 4),  // a frame of one segment
          std::string("\x01\0\0\0", 4)};
}

}  // namespace mace::fuzz
