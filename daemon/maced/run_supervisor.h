#pragma once
// Starts queued runs when checkouts are free and runs each one's loop on a thread of its
// own: the loop is sequential and blocks on builds and simulations, so a thread per
// active run keeps it reading like the spec. Everything the thread reports comes back to
// the event-loop thread (kj::Executor::executeSync), where the service, the store and the
// watchers live; so the store keeps one writer.

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <kj/async.h>

#include "llm/tool_sessions.h"
#include "maced/config.h"
#include "os/process_group.h"
#include "service/checkout_pool.h"
#include "service/run_service.h"

namespace mace {

// What the LLM calls of a run need from the daemon around them.
struct LlmWiring {
  // For the CLI agents: their MCP configuration starts `mace_binary --socket
  // maced_socket mcp --session TOKEN`, which finds the call's tools in `sessions`.
  std::string mace_binary = "mace";
  std::string maced_socket;
  llm::ToolSessions* sessions = nullptr;
};

// The `mace` client next to this maced (an install puts maced in sbin or bin and mace in
// bin; a build tree in daemon/maced and client), overridden by MACE_CLIENT; else "mace"
// from PATH.
std::string find_mace_client();

class RunSupervisor {
 public:
  RunSupervisor(service::RunService& service, const MacedConfig& config,
                std::filesystem::path workloads_dir, LlmWiring wiring = {});
  ~RunSupervisor();

  // Event-loop thread only. Starts queued runs while checkouts are free.
  void start_queued();
  // Stops a run's builds and simulations at once.
  void cancel(const std::string& run_id);
  // Stops every run (maced is shutting down); resolves when their threads ended.
  kj::Promise<void> stop_all();
  size_t active() const { return active_.size(); }

 private:
  struct ActiveRun {
    std::unique_ptr<os::CancelToken> cancel;
    std::thread thread;
  };
  void run_thread(std::string run_id, std::vector<size_t> checkouts, ActiveRun* active);
  void report_end(const std::string& run_id, RunState state, std::string reason);
  void finished(const std::string& run_id);

  service::RunService& service_;
  const MacedConfig& config_;
  std::filesystem::path workloads_dir_;
  LlmWiring wiring_;
  service::CheckoutPool pool_;
  const kj::Executor& loop_;
  std::map<std::string, ActiveRun> active_;
  std::vector<std::thread> ended_;  // joined on the next start_queued or at the end
  kj::Own<kj::PromiseFulfiller<void>> all_stopped_;
  bool stopping_ = false;
  bool told_no_checkouts_ = false;
};

}  // namespace mace
