#pragma once
// The Maced bootstrap capability: one per client connection, so each knows who its peer
// is (SO_PEERCRED): its uid goes with the runs it submits, every method shows or changes
// only what that caller may see or change (service/caller.h), and it tells the
// connection's activity what it has under way (calls, subscriptions, a tool session).

#include <cstdint>
#include <memory>

#include "llm/tool_sessions.h"
#include "mace.capnp.h"
#include "rpc/check_up_source.h"
#include "rpc/connection_activity.h"
#include "rpc/run_lister.h"
#include "rpc/refusal.h"
#include "service/eval_service.h"
#include "service/run_service.h"

namespace mace::rpc {

class MacedServer final : public api::Maced::Server {
 public:
  MacedServer(service::RunService& service, service::Caller caller,
              llm::ToolSessions& tool_sessions, std::shared_ptr<ConnectionActivity> activity,
              service::EvalService* eval = nullptr, RunLister* lister = nullptr,
              CheckUpSource* check_up = nullptr)
      : service_(service),
        caller_(caller),
        tool_sessions_(tool_sessions),
        activity_(std::move(activity)),
        eval_(eval),
        lister_(lister),
        check_up_(check_up) {}

  // Every call, whichever its method, keeps the connection busy until it is answered.
  DispatchCallResult dispatchCall(uint64_t interface_id, uint16_t method_id,
                                  capnp::CallContext<capnp::AnyPointer, capnp::AnyPointer> context)
      override;

 protected:
  kj::Promise<void> version(VersionContext context) override;
  kj::Promise<void> submit(SubmitContext context) override;
  kj::Promise<void> watch(WatchContext context) override;
  kj::Promise<void> status(StatusContext context) override;
  kj::Promise<void> list(ListContext context) override;
  kj::Promise<void> logs(LogsContext context) override;
  kj::Promise<void> readLog(ReadLogContext context) override;
  kj::Promise<void> logFiles(LogFilesContext context) override;
  kj::Promise<void> checkSpec(CheckSpecContext context) override;
  kj::Promise<void> metrics(MetricsContext context) override;
  kj::Promise<void> calls(CallsContext context) override;
  kj::Promise<void> checkouts(CheckoutsContext context) override;
  kj::Promise<void> cancel(CancelContext context) override;
  kj::Promise<void> replay(ReplayContext context) override;
  kj::Promise<void> checkUp(CheckUpContext context) override;
  kj::Promise<void> failures(FailuresContext context) override;
  kj::Promise<void> repro(ReproContext context) override;
  // In tool_methods.cc: the tools of LLM calls in flight, for `mace mcp` (REQ-EXEC-7).
  kj::Promise<void> listTools(ListToolsContext context) override;
  kj::Promise<void> callTool(CallToolContext context) override;
  // Evaluation batches (REQ-EVAL-*).
  kj::Promise<void> evalSubmit(EvalSubmitContext context) override;
  kj::Promise<void> evalReport(EvalReportContext context) override;
  kj::Promise<void> evalCancel(EvalCancelContext context) override;

 private:
  service::EvalService& eval_service();

  // Runs `fn`, which fills the results; what it throws is refused (refuse()).
  template <typename Context, typename Fn>
  kj::Promise<void> answer(Context& context, Fn&& fn) {
    try {
      fn();
      return kj::READY_NOW;
    } catch (...) {
      return refuse(context, refusal_of(std::current_exception()));
    }
  }
  // `refusal` as this connection's client asked for it: the results' error alone, or the
  // exception.
  template <typename Context>
  kj::Promise<void> refuse(Context& context, const Refusal& refusal) {
    if (!errors_as_values_) return as_exception(refusal);
    fill(context.initResults().initError(), refusal);
    return kj::READY_NOW;
  }
  // A promise's failure refused the same way.
  template <typename Context>
  kj::Promise<void> refusing_failures(Context context, kj::Promise<void> promise) {
    return promise.catch_([this, context](kj::Exception&& e) mutable -> kj::Promise<void> {
      return refuse(context, refusal_of(std::make_exception_ptr(kj::mv(e))));
    });
  }

  service::RunService& service_;
  service::Caller caller_;
  llm::ToolSessions& tool_sessions_;
  std::shared_ptr<ConnectionActivity> activity_;
  service::EvalService* eval_;  // null: this maced has no evaluation harness (tests)
  RunLister* lister_;           // null: listings are read by the service, on the loop
  CheckUpSource* check_up_;     // null: this maced cannot check itself (tests)
  // The client asked for refusals as values (version(errorsAsValues = true)).
  bool errors_as_values_ = false;
};

}  // namespace mace::rpc
