// maced: the MACE daemon. Owns the SQLite store, the OpenPiton checkouts and every build
// and simulation, and serves the Maced capability (schema/mace.capnp) on a Unix socket.
// main reads as maced's life: check the host, read the configuration, start the keeper,
// recover what a previous maced left, wire the parts, serve until a signal, stop.

#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <kj/async-io.h>
#include <kj/async-unix.h>

#include "llm/tool_sessions.h"
#include "maced/accept_loop.h"
#include "maced/check_up.h"
#include "maced/check_up_thread.h"
#include "maced/client_connections.h"
#include "maced/cluster_jobs.h"
#include "maced/command_line.h"
#include "maced/config.h"
#include "maced/database_at_start.h"
#include "maced/host_platform.h"
#include "maced/keeper.h"
#include "maced/listen_socket.h"
#include "maced/listing_thread.h"
#include "maced/peer_caller.h"
#include "maced/recovery.h"
#include "maced/run_supervisor.h"
#include "maced/settings_of_config.h"
#include "maced/state_backup.h"
#include "maced/state_lock.h"
#include "maced/state_permissions.h"
#include "maced/systemd_notify.h"
#include "os/file_io.h"
#include "os/text.h"
#include "os/unique_fd.h"
#include "service/eval_service.h"
#include "service/evidence_retention.h"
#include "service/run_service.h"
#include "store/store.h"

namespace {

using mace::MacedConfig;
using mace::MacedOptions;

// A configuration is a page of JSON; more is a mistake (a log named by accident).
constexpr std::size_t kMaxConfigBytes = 4 << 20;
// The state cannot be served as it is (a damaged database, another maced on it): starting
// again will not help, so systemd does not (RestartPreventExitStatus=).
constexpr int kExitStateUnusable = 3;

const char* env_or_null(const char* name) { return std::getenv(name); }

bool on_slurm(const MacedConfig& config) {
  return config.executor.kind == mace::ExecutorConfig::Kind::slurm;
}

bool load_config(const MacedOptions& options, MacedConfig& config) {
  if (!options.config_path.empty()) {
    std::string text;
    try {
      text = mace::os::read_file(options.config_path, kMaxConfigBytes);
    } catch (const mace::os::FileError& e) {
      std::cerr << "maced: cannot read config file " << options.config_path << ": " << e.what() << "\n";
      return false;
    }
    auto parsed = mace::parse_maced_config(text);
    if (!parsed.config) {
      for (const auto& e : parsed.errors)
        std::cerr << "maced: " << options.config_path << ": " << e.to_string() << "\n";
      return false;
    }
    config = *parsed.config;
  }
  const mace::FieldErrors errors = mace::apply_environment(config, env_or_null);
  for (const auto& e : errors) std::cerr << "maced: " << e.to_string() << "\n";
  return errors.empty();
}

// REQ-PLAT-2: every checkout must be on this machine, an OpenPiton checkout maced can
// write, patched for the installed Verilator, on a path OpenPiton's tools can take; REQ-TOOL-8:
// and whether it is the OpenPiton MACE was verified on. Said at once, not at the first run
// that leases it: each checkout that cannot work is refused, with why and what to do, and
// never leased (`mace status` and `mace doctor` show it).
std::map<std::string, std::string> check_checkouts_at_start(const MacedConfig& config) {
  const auto findings = mace::check_checkouts(config);
  for (const auto& f : findings) {
    if (f.level == mace::CheckLevel::ok) continue;
    std::cerr << "maced: checkout " << f.subject
              << (f.level == mace::CheckLevel::failure ? " refused: " : ": ") << f.what;
    if (!f.fix.empty()) std::cerr << " (fix: " << f.fix << ")";
    std::cerr << "\n";
  }
  return mace::refused_checkouts(findings);
}

// What a submit is told when every configured checkout was refused at start.
std::string no_checkout_can_run(const std::map<std::string, std::string>& refused) {
  std::string text = "no checkout of this maced can run it: every one was refused when maced started (";
  std::size_t shown = 0;
  for (const auto& [path, why] : refused) {
    if (shown++ == 3) {
      text += "; ...";
      break;
    }
    text += (shown > 1 ? "; " : "") + path + ": " + why;
  }
  return text + "); nothing was queued. `mace doctor` says how to fix them; maced checks them again when it restarts";
}

// What a maced that died left: its running runs (which cannot be resumed safely yet) end
// in error; their Slurm jobs are cancelled before anything touches their checkouts; their
// logs go into their evidence before another run writes there; their RTL edits are undone
// (REQ-EXEC-17).
void recover_from_previous_maced(const MacedConfig& config, mace::store::Store& store,
                                 mace::service::RunService& service,
                                 const mace::evidence::EvidenceArchive& evidence) {
  std::vector<std::string> interrupted;
  for (const auto& run : store.runs_in_states({mace::RunState::running})) {
    service.set_state(run.id, mace::RunState::error, "maced restarted during the run");
    interrupted.push_back(run.id);
  }
  if (on_slurm(config)) mace::cancel_leftover_jobs(config.executor.slurm, store, std::cerr);
  mace::keep_interrupted_logs(store, evidence, interrupted, std::cerr);
  mace::restore_interrupted_edits(config, std::cerr);
}

// The checkouts as `mace checkouts` shows them: with Slurm, whether each one's node is
// down and which job holds it; last, those refused at start, with why.
void show_checkouts(mace::service::RunService& service, mace::RunSupervisor& supervisor,
                    std::shared_ptr<mace::ClusterJobs> cluster, const MacedConfig& config,
                    const std::map<std::string, std::string>& refused) {
  std::vector<mace::service::CheckoutStatus> refused_rows;
  for (const auto& c : config.checkouts)
    if (auto it = refused.find(c.path); it != refused.end())
      refused_rows.push_back({.path = c.path, .node = c.node, .held_by = "", .node_down = "", .job_id = "", .job_name = "", .job_purpose = "", .refused = it->second});
  service.set_checkouts_source(cluster ? "slurm" : "local", [&supervisor, cluster, refused_rows] {
    auto checkouts = supervisor.checkouts();
    checkouts.insert(checkouts.end(), refused_rows.begin(), refused_rows.end());
    if (!cluster) return checkouts;
    for (auto& checkout : checkouts) {
      checkout.node_down = cluster->node_down(checkout.node).value_or("");
      if (auto job = cluster->job_on(checkout.path)) {
        checkout.job_id = job->id;
        checkout.job_name = job->name;
        checkout.job_purpose = job->purpose;
      }
    }
    return checkouts;
  });
}

// Whenever a run ends, and once now: the evidence retention rule, and the next job of
// every evaluation batch (a batch a dead maced left resumes; REQ-EVAL-3). Neither may stop
// maced: the run's end is recorded, and the next run end or restart tries again.
void after_each_run(mace::service::RunService& service, mace::service::EvidenceRetention& retention,
                    mace::service::EvalService& evaluations) {
  auto apply = [&retention, &evaluations] {
    try {
      retention.apply();
    } catch (const std::exception& e) {
      std::cerr << "maced: cannot apply the evidence retention rule now: " << e.what() << "\n";
    }
    try {
      evaluations.advance();
    } catch (const std::exception& e) {
      std::cerr << "maced: cannot start the next evaluation job now: " << e.what() << "\n";
    }
  };
  service.set_on_final([apply](const std::string&) { apply(); });
  apply();
}

std::string status_line(mace::service::RunService& service, const std::string& where) {
  auto counts = service.counts_by_state();
  return "listening on " + where + "; " + std::to_string(counts[mace::RunState::queued]) +
         " queued, " + std::to_string(counts[mace::RunState::running]) + " running";
}

// Background work (the accept loop, status, watchdog) is not meant to fail; if it does,
// say so.
class LoggingErrorHandler : public kj::TaskSet::ErrorHandler {
 public:
  void taskFailed(kj::Exception&& exception) override {
    std::cerr << "maced: " << exception.getDescription().cStr() << "\n";
  }
};

// Every few seconds: systemd's status line, and the ends of runs the store refused while
// it was full, so none stays `running` once space returns.
kj::Promise<void> refresh_status(kj::Timer& timer, mace::service::RunService& service,
                                 mace::RunSupervisor& supervisor, const std::string& where) {
  return timer.afterDelay(5 * kj::SECONDS).then([&timer, &service, &supervisor, where]() {
    try {
      // Also the turn in which a queued run gets a checkout whose node came back.
      supervisor.start_queued();
      mace::notify_status(status_line(service, where));
    } catch (const std::exception& e) {
      std::cerr << "maced: " << e.what() << "\n";  // the store; the next turn tries again
    }
    return refresh_status(timer, service, supervisor, where);
  });
}

// On the main event loop on purpose: if the loop hangs, the pings stop and systemd
// (WatchdogSec=) restarts maced.
kj::Promise<void> watchdog_pings(kj::Timer& timer, std::chrono::microseconds interval) {
  mace::notify_watchdog();
  return timer.afterDelay(interval.count() * kj::MICROSECONDS).then([&timer, interval]() {
    return watchdog_pings(timer, interval);
  });
}

// Where this maced's runs keep their logs (evidence.path, else <state>/runs).
std::filesystem::path evidence_root(const MacedOptions& options, const MacedConfig& config) {
  return std::filesystem::absolute(mace::under_state_dir_unless(config.evidence.path, options, "runs"));
}

int back_up(const MacedOptions& options, const MacedConfig& config) {
  try {
    const auto summary = mace::back_up_state(options.state_dir, evidence_root(options, config), options.backup_to, std::cerr);
    std::cout << "backed up " << summary.runs << " runs (schema " << summary.schema_version << ") and "
              << summary.files << " kept files (" << mace::os::mib_text(summary.bytes) << ") into "
              << options.backup_to << "\n";
    if (!summary.gone.empty())
      std::cout << summary.gone.size() << " kept files were removed by the retention rule before they were copied "
                << "(listed in backup.json)\n";
    if (!summary.outside.empty())
      std::cout << summary.outside.size() << " kept files lie outside the evidence root and were not copied "
                << "(listed in backup.json), the first: " << summary.outside.front() << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "maced: backup failed: " << e.what() << "\n";
    return 1;
  }
}

int restore(const MacedOptions& options, const MacedConfig& config) {
  try {
    const auto summary = mace::restore_state(options.restore_from, options.state_dir, evidence_root(options, config), std::cerr);
    std::cout << "restored " << summary.runs << " runs (schema " << summary.schema_version << ") and "
              << summary.files << " kept files (" << mace::os::mib_text(summary.bytes) << ") into "
              << options.state_dir << "; start maced to serve them\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "maced: restore failed: " << e.what() << "\n";
    return 1;
  }
}

// Everything from opening the store to the end of the last run at shutdown.
int serve(const MacedOptions& options, const MacedConfig& config) {
  std::filesystem::create_directories(options.state_dir);
  // What the group may see is the API's to say, not the disk's.
  mace::secure_state(options.state_dir, options.socket_path, {evidence_root(options, config)}, std::cerr);
  const auto db = std::filesystem::path(options.state_dir) / "mace.db";
  if (!mace::database_is_usable(db, std::cerr)) return kExitStateUnusable;
  auto store = mace::store::Store::open(db);
  const std::optional<gid_t> admin_gid = mace::resolve_admin_group(config.admin_group);
  // What runs see of the configuration: the checkouts maced takes, none it refused.
  const auto refused = check_checkouts_at_start(config);
  MacedConfig usable = config;
  std::erase_if(usable.checkouts, [&](const mace::CheckoutConfig& c) { return refused.count(c.path) > 0; });
  mace::service::ServiceSettings service_settings = mace::service_settings(usable, options);
  if (usable.checkouts.empty() && !config.checkouts.empty())
    service_settings.no_checkout_can_run = no_checkout_can_run(refused);
  mace::service::RunService service(*store, std::move(service_settings));
  const auto evidence = mace::evidence_archive(config, options);
  recover_from_previous_maced(config, *store, service, *evidence);
  // The tools of the LLM calls in flight, for the `mace mcp` forwarders their agents start.
  mace::llm::ToolSessions tool_sessions;

  // Signals must be captured before the event loop starts any thread.
  kj::UnixEventPort::captureSignal(SIGTERM);
  kj::UnixEventPort::captureSignal(SIGINT);
  std::signal(SIGPIPE, SIG_IGN);
  auto io = kj::setupAsyncIo();
  mace::ListenSocket listen = mace::systemd_listen_socket();
  if (listen.fd < 0) listen = mace::create_listen_socket(options.socket_path, 0660);
  const std::string where = listen.from_systemd ? "the socket systemd passed" : listen.path;

  // With Slurm: every job of every run, the nodes found down, and the keeper told.
  std::shared_ptr<mace::ClusterJobs> cluster;
  auto settings_for_runs = mace::run_settings(usable, options, listen.path, tool_sessions);
  settings_for_runs.evidence = evidence;
  if (on_slurm(config)) {
    cluster = std::make_shared<mace::ClusterJobs>(config.executor.slurm);
    settings_for_runs.slurm = std::make_shared<const mace::slurm::SlurmSettings>(config.executor.slurm);
    settings_for_runs.cluster_observer = cluster;
  }
  // A checkout whose node was found down is not leased until the node is back.
  auto unusable = [cluster](const mace::service::PooledCheckout& checkout) {
    return cluster ? cluster->node_down(checkout.node) : std::nullopt;
  };
  mace::RunSupervisor supervisor(service, *store, mace::pooled_checkouts(usable),
                                 std::move(settings_for_runs), unusable);
  show_checkouts(service, supervisor, cluster, config, refused);
  service.set_hooks([&](const std::string&) { supervisor.start_queued(); },
                    [&](const std::string& run_id) { supervisor.cancel(run_id); });
  mace::service::EvalService evaluations(*store, service);
  mace::service::EvidenceRetention retention(*store, service, *evidence, std::cerr);
  after_each_run(service, retention, evaluations);

  // Listings are read off the loop: a user listing a long queue over and over must not
  // hold everyone else's calls.
  mace::ListingThread listings(db, config.others_see);
  // `mace doctor`: the same checks as at start and more, on a thread of their own.
  mace::CheckUpThread check_ups(config, options);
  mace::ClientConnections connections(service, tool_sessions, io.provider->getTimer(),
                                      config.connections, admin_gid, std::cerr);
  connections.set_eval_service(&evaluations);
  connections.set_run_lister(&listings);
  connections.set_check_up_source(&check_ups);
  mace::AcceptLoop accept_loop(mace::os::UniqueFd(listen.fd), io.unixEventPort,
                               *io.lowLevelProvider, io.provider->getTimer(), std::cerr,
                               [&](kj::Own<kj::AsyncIoStream> stream) { connections.add(kj::mv(stream)); });
  LoggingErrorHandler error_handler;
  kj::TaskSet background(error_handler);
  background.add(accept_loop.run());
  background.add(refresh_status(io.provider->getTimer(), service, supervisor, where));
  if (auto interval = mace::watchdog_ping_interval())
    background.add(watchdog_pings(io.provider->getTimer(), *interval));

  std::cerr << "maced " << MACE_VERSION << ": " << where << ", state in " << options.state_dir
            << ", " << config.checkouts.size() << " checkout(s)"
            << (refused.empty() ? "" : ", " + std::to_string(refused.size()) + " refused (`mace doctor` says why)")
            << "\n";
  mace::notify_ready(status_line(service, where));
  supervisor.start_queued();  // runs queued before a restart

  auto stop = io.unixEventPort.onSignal(SIGTERM).exclusiveJoin(io.unixEventPort.onSignal(SIGINT)).wait(io.waitScope);
  mace::notify_stopping();
  std::cerr << "maced: signal " << stop.si_signo << ", shutting down\n";
  // Stop every build and simulation and record their runs before going.
  supervisor.stop_all().exclusiveJoin(io.provider->getTimer().afterDelay(60 * kj::SECONDS)).wait(io.waitScope);
  if (!listen.from_systemd) ::unlink(listen.path.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const mace::CommandLine line = mace::parse_command_line(
      std::vector<std::string>(argv + 1, argv + argc), env_or_null, MACE_DEFAULT_WORKLOADS_DIR);
  if (line.exit_code) {
    std::cout << line.out;
    std::cerr << line.err;
    return *line.exit_code;
  }
  const MacedOptions& options = line.options;
  // Every file maced and its children make is its user's alone (maced/state_permissions.h).
  mace::restrict_new_files();

  // REQ-PLAT-1: before anything is read or started.
  if (auto problems = mace::this_host_platform_problems(); !problems.empty()) {
    for (const auto& problem : problems) std::cerr << "maced: " << problem << "\n";
    return 1;
  }
  MacedConfig config;
  if (!load_config(options, config)) return 2;
  if (on_slurm(config)) config.executor.slurm.instance = mace::slurm_instance_of(options.state_dir);
  if (!options.backup_to.empty()) return back_up(options, config);

  // One maced per state directory, before anything of it is touched (the keeper of a second
  // one would cancel the first one's Slurm jobs when it exits).
  std::optional<mace::StateLock> lock;
  try {
    lock.emplace(options.state_dir, options.restore_from.empty() ? options.socket_path : "(restoring a backup)");
  } catch (const std::runtime_error& e) {
    std::cerr << "maced: " << e.what() << "\n";
    return kExitStateUnusable;
  }
  if (!options.restore_from.empty()) return restore(options, config);
  // While maced has a single thread: the keeper runs ordinary C++ after fork, which is
  // only safe before any other thread exists.
  try {
    mace::start_keeper(on_slurm(config) ? std::optional(config.executor.slurm) : std::nullopt);
  } catch (const std::runtime_error& e) {
    std::cerr << "maced: " << e.what() << "\n";
    return 1;
  }
  try {
    return serve(options, config);
  } catch (const std::exception& e) {
    std::cerr << "maced: " << e.what() << "\n";
    return 1;
  } catch (const kj::Exception& e) {
    std::cerr << "maced: " << e.getDescription().cStr() << "\n";
    return 1;
  }
}
