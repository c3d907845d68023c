// A Cap'n Proto client written against schema/mace.capnp alone, as a script in another
// language would be: the structured spec, a listener of its own, and every method.

#include <capnp/rpc-twoparty.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <kj/async-io.h>

#include <map>

#include "mace.capnp.h"
#include "support/maced_instance.h"

namespace mace::testing {
namespace {

using ::testing::HasSubstr;

class RecordingListener final : public api::RunListener::Server {
 public:
  RecordingListener(std::vector<std::string>& kinds, kj::Own<kj::PromiseFulfiller<api::RunState>> done)
      : kinds_(kinds), done_(kj::mv(done)) {}

 protected:
  kj::Promise<void> event(EventContext context) override {
    auto e = context.getParams().getEvent();
    kinds_.push_back(std::to_string(e.getSeq()) + ":" +
                     std::to_string(static_cast<int>(e.getKind())));
    return kj::READY_NOW;
  }
  kj::Promise<void> done(DoneContext context) override {
    done_->fulfill(context.getParams().getResult().getSummary().getState());
    return kj::READY_NOW;
  }

 private:
  std::vector<std::string>& kinds_;
  kj::Own<kj::PromiseFulfiller<api::RunState>> done_;
};

class RpcClientTest : public ::testing::Test {
 protected:
  // KJ's members may throw from destructors; a test fixture may not.
  ~RpcClientTest() noexcept override {}

  void SetUp() override {
    maced_ = std::make_unique<MacedInstance>(dir_);
    auto address = io_.provider->getNetwork()
                       .parseAddress("unix:" + maced_->socket_path())
                       .wait(io_.waitScope);
    stream_ = address->connect().wait(io_.waitScope);
    client_ = kj::heap<capnp::TwoPartyClient>(*stream_);
    maced_cap_ = client_->bootstrap().castAs<api::Maced>();
  }

  std::string submit_structured() {
    auto request = maced_cap_.submitRequest();
    auto spec = request.initSpec().initSpec();
    spec.setCore("sparc");
    spec.setMeshX(2);
    spec.setMeshY(2);
    auto workloads = spec.initWorkloads(1);
    workloads.set(0, "princeton-test-test.s");
    spec.setObjective("four sparc tiles");
    auto response = request.send().wait(io_.waitScope);
    EXPECT_EQ(response.getErrors().size(), 0u);
    return response.getRunId().cStr();
  }

  TempDir dir_;
  std::unique_ptr<MacedInstance> maced_;
  kj::AsyncIoContext io_ = kj::setupAsyncIo();
  kj::Own<kj::AsyncIoStream> stream_;
  kj::Own<capnp::TwoPartyClient> client_;
  api::Maced::Client maced_cap_ = nullptr;
};

TEST_F(RpcClientTest, VersionReportsTheApiVersion) {
  auto response = maced_cap_.versionRequest().send().wait(io_.waitScope);
  EXPECT_EQ(response.getApiVersion(), api::API_VERSION);
  EXPECT_STREQ(response.getDaemonVersion().cStr(), MACE_VERSION);
}

TEST_F(RpcClientTest, StructuredSpecGetsSchemaDefaults) {  // REQ-PLAN-2, REQ-BUD-1
  std::string id = submit_structured();
  auto request = maced_cap_.statusRequest();
  request.setRunId(id);
  // The response owns what the reader points into: kept for as long as the reader is used.
  auto response = request.send().wait(io_.waitScope);
  auto run = response.getRun();
  EXPECT_EQ(run.getSummary().getState(), api::RunState::QUEUED);
  EXPECT_STREQ(run.getSummary().getCore().cStr(), "sparc");
  std::string spec = run.getSpecJson().cStr();
  EXPECT_THAT(spec, HasSubstr("\"max_iterations\":10"));
  EXPECT_THAT(spec, HasSubstr("\"max_usd\":20.0"));
  EXPECT_THAT(spec, HasSubstr("\"mesh\":[2,2]"));
}

TEST_F(RpcClientTest, StructuredSpecIsValidatedWithJsonFieldPaths) {  // REQ-PLAN-3, REQ-PLAN-4
  auto request = maced_cap_.submitRequest();
  auto spec = request.initSpec().initSpec();
  spec.setCore("arm");
  spec.setMeshX(257);
  spec.initWorkloads(0);
  auto response = request.send().wait(io_.waitScope);
  EXPECT_STREQ(response.getRunId().cStr(), "");
  std::vector<std::string> paths;
  for (auto e : response.getErrors()) paths.push_back(e.getPath().cStr());
  EXPECT_THAT(paths, ::testing::IsSupersetOf({"core", "workloads", "objective"}));
  bool mesh_named = false;
  for (auto& p : paths) mesh_named |= p.rfind("mesh", 0) == 0;
  EXPECT_TRUE(mesh_named);
}

// spec-hardening finding 1: the wire's WorkloadArgs carries a program's own limits in new
// fields (@3, @4), so older clients, which leave them zero, keep working.
TEST_F(RpcClientTest, StructuredSpecCarriesAWorkloadsOwnLimits) {
  auto request = maced_cap_.submitRequest();
  auto spec = request.initSpec().initSpec();
  spec.setCore("sparc");
  spec.initWorkloads(1).set(0, "simple_br.s");
  spec.setObjective("one tile, the diag list's limits");
  auto args = spec.initWorkloadArgs(1)[0];
  args.setProgram("simple_br.s");
  args.setRtlTimeout(50000);
  args.setMaxCycle(400000);
  args.initOptions(1).set(0, "-midas_args=-DTHREAD_COUNT=1");
  auto response = request.send().wait(io_.waitScope);
  ASSERT_EQ(response.getErrors().size(), 0u) << response.getErrors()[0].getMessage().cStr();
  auto status = maced_cap_.statusRequest();
  status.setRunId(response.getRunId());
  std::string stored = status.send().wait(io_.waitScope).getRun().getSpecJson().cStr();
  EXPECT_THAT(stored,
              HasSubstr(R"("simple_br.s":{"finish_mask":null,"rtl_timeout":50000,)"
                        R"("max_cycle":400000,"options":["-midas_args=-DTHREAD_COUNT=1"]})"));
}

// spec-hardening findings 1-3 through the structured form: the same rules, the JSON
// form's field paths.
TEST_F(RpcClientTest, StructuredSpecIsBoundedAndItsTextChecked) {
  auto request = maced_cap_.submitRequest();
  auto spec = request.initSpec().initSpec();
  spec.setCore("pico");
  spec.initWorkloads(1).set(0, "add.S");
  spec.setObjective("run add");
  spec.initBudget().setMaxIterations(4294967295u);
  spec.setModel("m\xe2\x80\xae");
  auto args = spec.initWorkloadArgs(1)[0];
  args.setProgram("add.S");
  args.setMaxCycle(4294967297ull);
  args.initOptions(1).set(0, "-model=/tmp/mallory");
  auto response = request.send().wait(io_.waitScope);
  std::map<std::string, std::string> errors;
  for (auto e : response.getErrors()) errors[e.getPath().cStr()] = e.getMessage().cStr();
  EXPECT_EQ(errors["budget.max_iterations"], "must be an integer from 1 to 10000, got 4294967295");
  EXPECT_THAT(errors["model"], ::testing::StartsWith("must be printable text, got U+202E"));
  EXPECT_EQ(errors["workload_args.add.S.max_cycle"],
            "must be an integer from 1 to 2147483647, got 4294967297");
  EXPECT_THAT(errors["workload_args.add.S.options[0]"], ::testing::StartsWith("-model is not"));
  EXPECT_EQ(errors.size(), 4u);

  // Wire text is bytes: what is not UTF-8 is refused, not turned into U+FFFD.
  auto bad = maced_cap_.submitRequest();
  auto bad_spec = bad.initSpec().initSpec();
  bad_spec.initWorkloads(1).set(0, "add.S");
  bad_spec.setObjective("caf\xe9");
  auto bad_response = bad.send().wait(io_.waitScope);
  ASSERT_EQ(bad_response.getErrors().size(), 1u);
  EXPECT_STREQ(bad_response.getErrors()[0].getPath().cStr(), "objective");
  EXPECT_STREQ(bad_response.getErrors()[0].getMessage().cStr(),
               "must be UTF-8 text, got bytes that are not UTF-8 at byte 3");
}

TEST_F(RpcClientTest, WatchStreamsEventsInOrderThenDoneOnCancel) {
  std::string id = submit_structured();
  std::vector<std::string> events;
  auto paf = kj::newPromiseAndFulfiller<api::RunState>();
  auto request = maced_cap_.watchRequest();
  request.setRunId(id);
  request.setListener(kj::heap<RecordingListener>(events, kj::mv(paf.fulfiller)));
  auto subscription = request.send().wait(io_.waitScope).getSubscription();

  auto cancel = maced_cap_.cancelRequest();
  cancel.setRunId(id);
  auto cancelled = cancel.send().wait(io_.waitScope);
  EXPECT_TRUE(cancelled.getChanged());
  EXPECT_EQ(cancelled.getState(), api::RunState::CANCELLED);

  EXPECT_EQ(paf.promise.wait(io_.waitScope), api::RunState::CANCELLED);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0], "1:" + std::to_string(static_cast<int>(api::EventKind::SUBMITTED)));
  EXPECT_EQ(events[1], "2:" + std::to_string(static_cast<int>(api::EventKind::STATE_CHANGED)));
}

TEST_F(RpcClientTest, LateWatcherStartsAfterTheSeqItAlreadyHas) {
  std::string id = submit_structured();
  auto cancel = maced_cap_.cancelRequest();
  cancel.setRunId(id);
  cancel.send().wait(io_.waitScope);

  std::vector<std::string> events;
  auto paf = kj::newPromiseAndFulfiller<api::RunState>();
  auto request = maced_cap_.watchRequest();
  request.setRunId(id);
  request.setAfterSeq(1);
  request.setListener(kj::heap<RecordingListener>(events, kj::mv(paf.fulfiller)));
  auto subscription = request.send().wait(io_.waitScope).getSubscription();
  EXPECT_EQ(paf.promise.wait(io_.waitScope), api::RunState::CANCELLED);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].substr(0, 2), "2:");
}

TEST_F(RpcClientTest, ListFiltersByState) {
  std::string queued = submit_structured();
  std::string cancelled = submit_structured();
  auto cancel = maced_cap_.cancelRequest();
  cancel.setRunId(cancelled);
  cancel.send().wait(io_.waitScope);

  auto request = maced_cap_.listRequest();
  request.initFilter().initStates(1).set(0, api::RunState::CANCELLED);
  auto response = request.send().wait(io_.waitScope);  // owns what `runs` reads
  auto runs = response.getRuns();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_STREQ(runs[0].getRunId().cStr(), cancelled.c_str());
}

TEST_F(RpcClientTest, DisconnectingWatcherLeavesTheDaemonHealthy) {
  std::string id = submit_structured();
  {
    // A second connection that watches and then vanishes without a word.
    auto address = io_.provider->getNetwork()
                       .parseAddress("unix:" + maced_->socket_path())
                       .wait(io_.waitScope);
    auto stream = address->connect().wait(io_.waitScope);
    capnp::TwoPartyClient other(*stream);
    auto cap = other.bootstrap().castAs<api::Maced>();
    std::vector<std::string> events;
    auto paf = kj::newPromiseAndFulfiller<api::RunState>();
    auto request = cap.watchRequest();
    request.setRunId(id);
    request.setListener(kj::heap<RecordingListener>(events, kj::mv(paf.fulfiller)));
    request.send().wait(io_.waitScope);
  }
  auto cancel = maced_cap_.cancelRequest();
  cancel.setRunId(id);
  EXPECT_TRUE(cancel.send().wait(io_.waitScope).getChanged());
  EXPECT_TRUE(maced_->process().running());
  EXPECT_EQ(maced_->mace({"status", id}).exit_code, 0);
}

// Refusals as values: a client that asks for them (version(errorsAsValues)) gets the
// schema's Error in the results, its kind and field apart from the message, and nothing
// else; one that does not gets the exception clients built before that know.
TEST_F(RpcClientTest, ARefusalIsAStructuredErrorForAClientThatAskedForIt) {
  auto hello = maced_cap_.versionRequest();
  hello.setErrorsAsValues(true);
  hello.send().wait(io_.waitScope);

  auto status = maced_cap_.statusRequest();
  status.setRunId("no-such-run");
  auto response = status.send().wait(io_.waitScope);
  ASSERT_TRUE(response.hasError());
  EXPECT_EQ(response.getError().getKind(), api::ErrorKind::NOT_FOUND);
  EXPECT_EQ(std::string(response.getError().getField().cStr()), "runId");
  EXPECT_EQ(std::string(response.getError().getMessage().cStr()), "no run named 'no-such-run'");
  EXPECT_FALSE(response.hasRun()) << "nothing but the error";

  auto failures = maced_cap_.failuresRequest();
  failures.initQuery().setMaxRuns(1u << 30);
  auto refused = failures.send().wait(io_.waitScope);
  ASSERT_TRUE(refused.hasError());
  EXPECT_EQ(refused.getError().getKind(), api::ErrorKind::INVALID);
  EXPECT_EQ(std::string(refused.getError().getField().cStr()), "query.maxRuns");

  auto report = maced_cap_.evalReportRequest();
  report.setBatchId("no-such-batch");
  report.setFormat("text");
  auto batch = report.send().wait(io_.waitScope);
  ASSERT_TRUE(batch.hasError());
  EXPECT_EQ(std::string(batch.getError().getField().cStr()), "batchId");

  auto tools = maced_cap_.listToolsRequest();
  tools.setSession("no-such-session");
  auto session = tools.send().wait(io_.waitScope);
  ASSERT_TRUE(session.hasError());
  EXPECT_EQ(session.getError().getKind(), api::ErrorKind::NOT_FOUND);
  EXPECT_EQ(std::string(session.getError().getField().cStr()), "session");

  // An answer that is not refused carries no error.
  EXPECT_FALSE(maced_cap_.checkoutsRequest().send().wait(io_.waitScope).hasError());
}

TEST_F(RpcClientTest, AClientThatDidNotAskGetsTheExceptionNamingTheField) {
  auto status = maced_cap_.statusRequest();
  status.setRunId("no-such-run");
  try {
    status.send().wait(io_.waitScope);
    ADD_FAILURE() << "refused without an exception";
  } catch (const kj::Exception& e) {
    EXPECT_THAT(std::string(e.getDescription().cStr()), HasSubstr("runId: no run named 'no-such-run'"));
  }
}

// The client's exit code comes from the refusal's kind: 2 for the caller's doing (an
// unknown run, with the next step; a value maced does not accept, naming its field).
TEST_F(RpcClientTest, TheClientsExitCodeAndWordsComeFromTheKind) {
  auto unknown = maced_->mace({"status", "no-such-run"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.err, "mace: no run named 'no-such-run'\n  `mace list` shows the runs you may see.\n");
  auto bad = maced_->mace({"failures", "--max-runs", "999999"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_THAT(bad.err, HasSubstr("mace: query.maxRuns: must be")) << "a field the person did not type is named";
}

}  // namespace
}  // namespace mace::testing
