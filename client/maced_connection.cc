#include "maced_connection.h"

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <capnp/rpc-twoparty.h>

#include "exit_codes.h"
#include "maced_refusal.h"
#include "maced_socket.h"

namespace mace::client {

namespace {

std::string connected_path;

// An older maced names the field of its API a refusal is about in the exception's text
// ("runId: no run named 'x'"); a person typed a run ID, not a field: the message loses the
// field's name and gains the next step.
std::string in_users_words(std::string text) {
  for (const char* field : {"runId: ", "batchId: "})
    if (text.rfind(field, 0) == 0) text.erase(0, std::char_traits<char>::length(field));
  if (text.rfind("no run named ", 0) == 0)
    text += "\n  `mace list` shows the runs you may see.";
  return text;
}

// A refusal as a person reads it: the message, with the field when it is not one the
// person typed as an argument (a run or batch ID), and the next step for a run not found.
std::string in_users_words(const MacedRefusal& refusal) {
  const std::string& field = refusal.field();
  std::string text = field.empty() || field == "runId" || field == "batchId"
                         ? std::string(refusal.what())
                         : field + ": " + refusal.what();
  if (refusal.kind() == api::ErrorKind::NOT_FOUND && field == "runId")
    text += "\n  `mace list` shows the runs you may see.";
  if (refusal.kind() == api::ErrorKind::INTERNAL) text = "maced internal error: " + text;
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

int exit_code_of(api::ErrorKind kind) {
  switch (kind) {
    case api::ErrorKind::INVALID:
    case api::ErrorKind::NOT_FOUND:
    case api::ErrorKind::NOT_PERMITTED:
      return kExitBadInput;
    case api::ErrorKind::UNAVAILABLE:
    case api::ErrorKind::INTERNAL:
      return kExitDaemonError;
  }
  return kExitDaemonError;  // a kind newer than this client
}

int with_maced(const std::string& socket_path,
               const std::function<int(api::Maced::Client&, kj::AsyncIoContext&)>& body) {
  auto io = kj::setupAsyncIo();
  kj::Own<kj::AsyncIoStream> stream = connect_to_maced(socket_path, io);
  if (stream.get() == nullptr) return kExitUnreachable;
  capnp::TwoPartyClient rpc(*stream);
  auto maced = rpc.bootstrap().castAs<api::Maced>();
  try {
    // Refusals come back as values (MacedRefusal) from here on; a maced older than that
    // ignores the ask and throws them, as below.
    auto hello = maced.versionRequest();
    hello.setErrorsAsValues(true);
    hello.send().wait(io.waitScope);
    return body(maced, io);
  } catch (const MacedRefusal& refusal) {
    std::cerr << "mace: " << in_users_words(refusal) << "\n";
    return exit_code_of(refusal.kind());
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
