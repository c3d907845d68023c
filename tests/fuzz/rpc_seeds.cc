// rpc_seeds SOURCE_ROOT OUT_DIR: writes the rpc_frames fuzz target's seeds, one file per
// session: the bytes a Cap'n Proto client of maced's schema puts on the socket for each
// method (the bootstrap, the call, then the finish and release when it hangs up), with the
// project's own test inputs as arguments (the pico spec and the shipped suite of the
// fuzz corpus). Nothing answers: a client pipelines its call on the bootstrap, so every
// byte of the request is written without a reply.
//
//   meson compile -C build rpc_seeds
//   build/tests/fuzz/rpc_seeds . tests/fuzz/corpus/rpc_frames

#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <capnp/rpc-twoparty.h>
#include <kj/async-io.h>

#include "mace.capnp.h"

namespace {

namespace fs = std::filesystem;
using mace::api::Maced;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A run ID of the right shape that no store holds, and a session token of the right shape.
constexpr const char* kRunId = "20261130-121530-123-9f3a1c";
const std::string kSession(64, 'a');

// A listener that is never called: `watch` needs one to send.
class QuietListener final : public mace::api::RunListener::Server {};

// What the client writes for the requests `send` makes, until it hangs up.
std::string session_bytes(kj::AsyncIoContext& io, const std::function<void(Maced::Client&, kj::Vector<kj::Promise<void>>&)>& send) {
  auto pipe = io.provider->newTwoWayPipe();
  {
    capnp::TwoPartyClient client(*pipe.ends[0]);
    {
      Maced::Client maced = client.bootstrap().castAs<Maced>();
      kj::Vector<kj::Promise<void>> calls;
      send(maced, calls);
      for (int i = 0; i < 10; ++i) io.waitScope.poll();
    }  // the calls dropped (finish), then the capability (release)
    for (int i = 0; i < 10; ++i) io.waitScope.poll();
  }
  pipe.ends[0] = nullptr;  // hung up
  std::string bytes;
  kj::byte buffer[4096];
  for (;;) {
    size_t n = pipe.ends[1]->tryRead(buffer, 1, sizeof buffer).wait(io.waitScope);
    if (n == 0) break;
    bytes.append(reinterpret_cast<const char*>(buffer), n);
  }
  return bytes;
}

template <typename Request>
void keep(kj::Vector<kj::Promise<void>>& calls, Request&& request) {
  calls.add(request.send().ignoreResult().catch_([](kj::Exception&&) {}));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: rpc_seeds SOURCE_ROOT OUT_DIR\n";
    return 2;
  }
  const fs::path root = argv[1], out = argv[2];
  const std::string spec = read_file(root / "tests/fuzz/corpus/spec/pico-1x1-hello.json");
  const std::string suite = read_file(root / "tests/fuzz/corpus/suite/shipped.json");
  auto io = kj::setupAsyncIo();

  using Calls = kj::Vector<kj::Promise<void>>;
  std::vector<std::pair<std::string, std::function<void(Maced::Client&, Calls&)>>> sessions = {
      {"version", [](Maced::Client& m, Calls& c) { keep(c, m.versionRequest()); }},
      {"submit", [&](Maced::Client& m, Calls& c) {
         auto r = m.submitRequest();
         r.initSpec().setJson(spec);
         keep(c, r);
       }},
      {"check_spec", [&](Maced::Client& m, Calls& c) {
         auto r = m.checkSpecRequest();
         r.initSpec().setJson(spec);
         r.setBackend("direct");
         keep(c, r);
       }},
      {"watch", [](Maced::Client& m, Calls& c) {
         auto r = m.watchRequest();
         r.setRunId(kRunId);
         r.setListener(kj::heap<QuietListener>());
         keep(c, r);
       }},
      {"status", [](Maced::Client& m, Calls& c) {
         auto r = m.statusRequest();
         r.setRunId(kRunId);
         keep(c, r);
       }},
      {"list", [](Maced::Client& m, Calls& c) {
         auto r = m.listRequest();
         auto states = r.initFilter().initStates(2);
         states.set(0, mace::api::RunState::QUEUED);
         states.set(1, mace::api::RunState::RUNNING);
         keep(c, r);
       }},
      {"logs", [](Maced::Client& m, Calls& c) {
         auto r = m.logsRequest();
         r.setRunId(kRunId);
         r.setLimit(10);
         keep(c, r);
       }},
      {"metrics", [](Maced::Client& m, Calls& c) {
         auto r = m.metricsRequest();
         r.setRunId(kRunId);
         keep(c, r);
       }},
      {"cancel", [](Maced::Client& m, Calls& c) {
         auto r = m.cancelRequest();
         r.setRunId(kRunId);
         keep(c, r);
       }},
      {"tools", [](Maced::Client& m, Calls& c) {
         auto list = m.listToolsRequest();
         list.setSession(kSession);
         keep(c, list);
         auto call = m.callToolRequest();
         call.setSession(kSession);
         call.setTool("diagnostics");
         call.setMethod("read_file");
         call.setArgumentsJson(R"({"path":"build/sims.log"})");
         keep(c, call);
       }},
      {"replay", [](Maced::Client& m, Calls& c) {
         auto r = m.replayRequest();
         r.setRunId(kRunId);
         r.setUntilIteration(1);
         keep(c, r);
       }},
      {"calls", [](Maced::Client& m, Calls& c) {
         auto r = m.callsRequest();
         r.setRunId(kRunId);
         keep(c, r);
       }},
      {"checkouts", [](Maced::Client& m, Calls& c) { keep(c, m.checkoutsRequest()); }},
      {"read_log", [](Maced::Client& m, Calls& c) {
         auto r = m.readLogRequest();
         r.setRunId(kRunId);
         auto q = r.initQuery();
         q.setWorkload("hello");
         q.setOffset(-1);
         q.setTailLines(20);
         keep(c, r);
       }},
      {"log_files", [](Maced::Client& m, Calls& c) {
         auto r = m.logFilesRequest();
         r.setRunId(kRunId);
         keep(c, r);
       }},
      {"eval_submit", [&](Maced::Client& m, Calls& c) {
         auto r = m.evalSubmitRequest();
         r.setSuiteJson(suite);
         auto request = r.initRequest();
         request.initMethods(1).set(0, "baseline");
         request.setSeed(7);
         keep(c, r);
       }},
      {"eval_report_cancel", [](Maced::Client& m, Calls& c) {
         auto report = m.evalReportRequest();
         report.setBatchId("b-1");
         report.setFormat("json");
         keep(c, report);
         auto cancel = m.evalCancelRequest();
         cancel.setBatchId("b-1");
         keep(c, cancel);
       }},
      // What `mace submit --watch` does: the submit, then a status and a watch pipelined.
      {"submit_status_list", [&](Maced::Client& m, Calls& c) {
         auto submit = m.submitRequest();
         submit.initSpec().setJson(spec);
         keep(c, submit);
         auto status = m.statusRequest();
         status.setRunId(kRunId);
         keep(c, status);
         keep(c, m.listRequest());
       }},
  };
  fs::create_directories(out);
  for (const auto& [name, send] : sessions) {
    const std::string bytes = session_bytes(io, send);
    std::ofstream(out / name, std::ios::binary) << bytes;
    std::cout << name << ": " << bytes.size() << " bytes\n";
  }
  return 0;
}
