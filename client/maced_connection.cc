#include "maced_connection.h"

#include <sys/stat.h>

#include <cstdlib>
#include <iostream>

#include <capnp/rpc-twoparty.h>

#include "exit_codes.h"

namespace mace::client {

std::string default_socket_path() {
  if (const char* env = std::getenv("MACE_SOCKET"); env && *env) return env;
  if (const char* xdg = std::getenv("XDG_RUNTIME_DIR"); xdg && *xdg) {
    std::string user_socket = std::string(xdg) + "/maced/maced.sock";
    struct stat st {};
    if (::stat(user_socket.c_str(), &st) == 0) return user_socket;
  }
  return "/run/maced/maced.sock";
}

int with_maced(const std::string& socket_path,
               const std::function<int(api::Maced::Client&, kj::AsyncIoContext&)>& body) {
  auto io = kj::setupAsyncIo();
  kj::Own<kj::AsyncIoStream> stream;
  try {
    auto address = io.provider->getNetwork().parseAddress("unix:" + socket_path).wait(io.waitScope);
    stream = address->connect().wait(io.waitScope);
  } catch (const kj::Exception& e) {
    std::cerr << "mace: cannot reach maced at " << socket_path << ": "
              << e.getDescription().cStr()
              << "\n  (is maced running? set --socket or MACE_SOCKET to its socket)\n";
    return kExitUnreachable;
  }
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
        std::cerr << "mace: lost the connection to maced at " << socket_path << ": "
                  << e.getDescription().cStr() << "\n";
      return kExitUnreachable;
    }
    std::cerr << "mace: " << text << "\n";
    return text.rfind("maced internal error", 0) == 0 ? kExitDaemonError : kExitBadInput;
  }
}

}  // namespace mace::client
