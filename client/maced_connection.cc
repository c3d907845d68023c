#include "maced_connection.h"

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <capnp/rpc-twoparty.h>

#include "exit_codes.h"
#include "maced_socket.h"

namespace mace::client {

namespace {

std::string connected_path;

// maced names the field of its API a refusal is about ("runId: no run named 'x'"); a
// person typed a run ID, not a field: the message loses the field's name and gains the
// next step.
std::string in_users_words(std::string text) {
  for (const char* field : {"runId: ", "batchId: "})
    if (text.rfind(field, 0) == 0) text.erase(0, std::char_traits<char>::length(field));
  if (text.rfind("no run named ", 0) == 0)
    text += "\n  `mace list` shows the runs you may see.";
  return text;
}

// Connects to the first of the candidate sockets that answers; on failure says, on
// standard error, every place tried and why each did not answer.
kj::Own<kj::AsyncIoStream> connect_to_maced(const std::string& socket_option,
                                            kj::AsyncIoContext& io) {
  const auto places = socket_candidates(socket_option, [](const char* name) {
    return std::getenv(name);
  });
  std::vector<std::string> failures;
  for (const SocketCandidate& place : places) {
    std::string why;
    const int fd = connect_unix_socket(place.path, why);
    if (fd >= 0) {
      connected_path = place.path;
      return io.lowLevelProvider->wrapSocketFd(
          fd, kj::LowLevelAsyncIoProvider::TAKE_OWNERSHIP);
    }
    failures.push_back(place.path + " (" + place.origin + "): " + why);
  }
  if (places.size() == 1) {
    std::cerr << "mace: cannot reach maced at " << failures.front() << "\n"
              << "  Is maced running there? Without --socket and MACE_SOCKET, mace looks in "
                 "the usual places.\n";
  } else {
    std::cerr << "mace: cannot reach maced; tried:\n";
    for (const auto& failure : failures) std::cerr << "  " << failure << "\n";
    std::cerr << "  Start one (scripts/quickstart.sh does), or name its socket with --socket "
                 "PATH or MACE_SOCKET.\n";
  }
  return {};  // no stream
}

}  // namespace

const std::string& connected_socket_path() { return connected_path; }

int with_maced(const std::string& socket_path,
               const std::function<int(api::Maced::Client&, kj::AsyncIoContext&)>& body) {
  auto io = kj::setupAsyncIo();
  kj::Own<kj::AsyncIoStream> stream = connect_to_maced(socket_path, io);
  if (stream.get() == nullptr) return kExitUnreachable;
  capnp::TwoPartyClient rpc(*stream);
  auto maced = rpc.bootstrap().castAs<api::Maced>();
  try {
    return body(maced, io);
  } catch (const kj::Exception& e) {
    // maced's refusals ("runId: no run named ...") travel as the exception text, after
    // KJ's own "remote exception: " prefix.
    std::string text = e.getDescription().cStr();
    const std::string prefix = "remote exception: ";
    const bool from_maced = text.rfind(prefix, 0) == 0;
    if (from_maced) text = text.substr(prefix.size());
    if (e.getType() == kj::Exception::Type::DISCONNECTED) {
      // maced ended the connection and said why ("maced: too many connections (limit
      // 256); try again"): its words are the message.
      if (from_maced && text.rfind("maced: ", 0) == 0)
        std::cerr << text << "\n";
      else
        std::cerr << "mace: lost the connection to maced at " << connected_path << ": "
                  << e.getDescription().cStr() << "\n";
      return kExitUnreachable;
    }
    std::cerr << "mace: " << in_users_words(text) << "\n";
    return text.rfind("maced internal error", 0) == 0 ? kExitDaemonError : kExitBadInput;
  }
}

}  // namespace mace::client
