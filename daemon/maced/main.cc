// maced: the MACE daemon. Owns the SQLite store, the OpenPiton checkouts and every build
// and simulation, and serves the Maced capability (schema/mace.capnp) on a Unix socket.

#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <kj/async-io.h>
#include <kj/async-unix.h>

#include "llm/backend_factory.h"
#include "llm/retry.h"
#include "llm/setup_error.h"
#include "llm/tool_sessions.h"
#include "maced/accept_loop.h"
#include "maced/client_connections.h"
#include "maced/cluster_jobs.h"
#include "maced/config.h"
#include "maced/host_platform.h"
#include "openpiton/checkout_pin.h"
#include "maced/keeper.h"
#include "maced/listen_socket.h"
#include "maced/listing_thread.h"
#include "maced/peer_caller.h"
#include "maced/recovery.h"
#include "maced/run_supervisor.h"
#include "maced/workload_check.h"
#include "maced/systemd_notify.h"
#include "os/sha256.h"
#include "os/unique_fd.h"
#include "service/eval_service.h"
#include "service/evidence_retention.h"
#include "service/run_service.h"
#include "store/store.h"

namespace {

constexpr const char* kUsage =
    "usage: maced [--socket PATH] [--state-dir DIR] [--config FILE]\n"
    "\n"
    "  --socket PATH     Unix socket to listen on when systemd passes none\n"
    "                    (default $RUNTIME_DIRECTORY/maced.sock, else /run/maced/maced.sock)\n"
    "  --state-dir DIR   where mace.db and run directories live\n"
    "                    (default $STATE_DIRECTORY, else /var/lib/maced)\n"
    "  --config FILE     configuration file (JSON; see docs/operating-maced.md)\n"
    "  --workloads DIR   the gate workloads (default $MACE_WORKLOADS_DIR, else the installed\n"
    "                    " MACE_DEFAULT_WORKLOADS_DIR ")\n"
    "  --version         print the version and exit\n";

struct Options {
  std::string socket_path;
  std::string state_dir;
  std::string config_path;
  std::string workloads_dir;
};

const char* env_or_null(const char* name) { return std::getenv(name); }

// The `mace` client next to this maced (an install puts maced in sbin or bin and mace in
// bin; a build tree in daemon/maced and client), overridden by MACE_CLIENT; else "mace"
// from PATH. The CLI agents start it as their MCP server (`mace mcp`).
std::string find_mace_client() {
  if (const char* override_path = std::getenv("MACE_CLIENT"); override_path && *override_path)
    return override_path;
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    auto dir = self.parent_path();
    for (auto candidate : {dir / "mace", dir / ".." / "bin" / "mace", dir / ".." / ".." / "client" / "mace"})
      if (::access(candidate.c_str(), X_OK) == 0) return candidate.lexically_normal().string();
  }
  return "mace";
}

// What every run gets from maced: its workloads, tools, replay default, the backends'
// prices and wiring, the retry policy (read once, here).
mace::run::RunSettings run_settings(const mace::MacedConfig& config, const Options& options,
                                    const std::string& socket_path,
                                    mace::llm::ToolSessions& sessions) {
  mace::run::RunSettings settings;
  settings.workloads_dir = options.workloads_dir;
  settings.tools = config.tools;
  settings.replay_cache = config.replay_cache;
  if (!config.llm_prices_json.empty())  // checked when the config was read
    settings.backend_options.prices.apply_overrides_json("{\"prices\":" + config.llm_prices_json + "}");
  settings.backend_options.unreported_cost = config.unreported_cost;
  settings.backend_options.cli.mace_binary = find_mace_client();
  settings.backend_options.cli.maced_socket = socket_path;
  settings.backend_options.cli.sessions = &sessions;
  settings.retry = mace::llm::RetryPolicy::from_environment(mace::llm::process_environment());
  settings.dispatch = config.executor.dispatch;
  settings.infrastructure_retries = config.executor.infrastructure_retries;
  // Under Slurm the compiles run on the checkouts' nodes, which need not see maced's state
  // directory: there only a configured (shared) path is used.
  const bool on_slurm = config.executor.kind == mace::ExecutorConfig::Kind::slurm;
  if (config.compiler_cache.enabled && !(on_slurm && config.compiler_cache.path.empty())) {
    settings.compiler_cache_dir =
        config.compiler_cache.path.empty()
            ? (std::filesystem::path(options.state_dir) / "ccache").string()
            : config.compiler_cache.path;
    settings.compiler_cache_max_mb = config.compiler_cache.max_mb;
  }
  if (config.model_store.enabled) {
    const std::string path = config.model_store.path.empty()
                                 ? (std::filesystem::path(options.state_dir) / "models").string()
                                 : config.model_store.path;
    settings.model_store = std::make_shared<const mace::openpiton::ModelStore>(
        mace::openpiton::ModelStoreSettings{
            .directory = path,
            .max_bytes = static_cast<std::uint64_t>(config.model_store.max_mb) << 20});
  }
  return settings;
}

// Where each run keeps its own logs, and how much (`evidence` of the configuration).
std::shared_ptr<const mace::evidence::EvidenceArchive> evidence_archive(const mace::MacedConfig& config,
                                                                        const Options& options) {
  mace::evidence::EvidenceSettings settings;
  settings.root = config.evidence.path.empty() ? std::filesystem::path(options.state_dir) / "runs"
                                               : std::filesystem::path(config.evidence.path);
  settings.root = std::filesystem::absolute(settings.root);
  settings.keep.max_log_bytes = static_cast<std::uint64_t>(config.evidence.max_log_mb) << 20;
  settings.retention.max_total_bytes = static_cast<std::uint64_t>(config.evidence.max_mb) << 20;
  settings.retention.protect_recent_ms = config.evidence.keep_recent_hours * 3600 * 1000;
  return std::make_shared<const mace::evidence::EvidenceArchive>(std::move(settings));
}

// Tags this maced's Slurm jobs: the same for every maced with this state directory (and so
// this store), different for another maced on the same cluster.
std::string instance_of(const std::string& state_dir) {
  std::error_code ec;
  const auto absolute = std::filesystem::absolute(state_dir, ec).lexically_normal().string();
  return mace::os::sha256_hex(ec ? state_dir : absolute).substr(0, 12);
}

std::vector<mace::service::PooledCheckout> pooled(const mace::MacedConfig& config) {
  std::vector<mace::service::PooledCheckout> out;
  for (const auto& c : config.checkouts) out.push_back({c.path, c.node});
  return out;
}

// systemd may list several directories separated by ':'; the first is ours.
std::string first_dir(const char* list) {
  std::string s = list;
  return s.substr(0, s.find(':'));
}

int parse_args(int argc, char** argv, Options& options) {
  std::vector<std::string> args(argv + 1, argv + argc);
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](std::string& into) {
      if (i + 1 >= args.size()) {
        std::cerr << "maced: " << a << " needs a value\n" << kUsage;
        return false;
      }
      into = args[++i];
      return true;
    };
    if (a == "--socket") {
      if (!value(options.socket_path)) return 2;
    } else if (a == "--state-dir") {
      if (!value(options.state_dir)) return 2;
    } else if (a == "--config") {
      if (!value(options.config_path)) return 2;
    } else if (a == "--workloads") {
      if (!value(options.workloads_dir)) return 2;
    } else if (a == "--version") {
      std::cout << "maced " << MACE_VERSION << "\n";
      return 0;
    } else if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      return 0;
    } else {
      std::cerr << "maced: unknown argument " << a << "\n" << kUsage;
      return 2;
    }
  }
  if (options.socket_path.empty()) {
    const char* runtime = env_or_null("RUNTIME_DIRECTORY");
    options.socket_path =
        runtime ? first_dir(runtime) + "/maced.sock" : std::string("/run/maced/maced.sock");
  }
  if (options.workloads_dir.empty()) {
    const char* dir = env_or_null("MACE_WORKLOADS_DIR");
    options.workloads_dir = dir && *dir ? dir : MACE_DEFAULT_WORKLOADS_DIR;
  }
  if (options.state_dir.empty()) {
    const char* state = env_or_null("STATE_DIRECTORY");
    options.state_dir = state ? first_dir(state) : std::string("/var/lib/maced");
  }
  return -1;
}

bool load_config(const Options& options, mace::MacedConfig& config) {
  mace::FieldErrors errors;
  if (!options.config_path.empty()) {
    std::ifstream in(options.config_path);
    if (!in) {
      std::cerr << "maced: cannot read config file " << options.config_path << "\n";
      return false;
    }
    std::stringstream text;
    text << in.rdbuf();
    auto parsed = mace::parse_maced_config(text.str());
    if (!parsed.config) {
      for (const auto& e : parsed.errors)
        std::cerr << "maced: " << options.config_path << ": " << e.to_string() << "\n";
      return false;
    }
    config = *parsed.config;
  }
  errors = mace::apply_environment(config, env_or_null);
  for (const auto& e : errors) std::cerr << "maced: " << e.to_string() << "\n";
  return errors.empty();
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

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (int rc = parse_args(argc, argv, options); rc >= 0) return rc;

  // REQ-PLAT-1: before anything is read or started.
  if (auto problems = mace::this_host_platform_problems(); !problems.empty()) {
    for (const auto& problem : problems) std::cerr << "maced: " << problem << "\n";
    return 1;
  }

  mace::MacedConfig config;
  if (!load_config(options, config)) return 2;
  const bool on_slurm = config.executor.kind == mace::ExecutorConfig::Kind::slurm;
  if (on_slurm) config.executor.slurm.instance = instance_of(options.state_dir);

  // While maced has a single thread: the keeper runs ordinary C++ after fork, which is
  // only safe before any other thread exists.
  try {
    mace::start_keeper(on_slurm ? std::optional(config.executor.slurm) : std::nullopt);
  } catch (const std::runtime_error& e) {
    std::cerr << "maced: " << e.what() << "\n";
    return 1;
  }

  try {
    std::filesystem::create_directories(options.state_dir);
    auto store = mace::store::Store::open(std::filesystem::path(options.state_dir) / "mace.db");
    mace::service::ServiceSettings settings;
    settings.backend = config.llm_backend;
    settings.model = config.llm_model;
    settings.others_see = config.others_see;
    settings.queue = config.queue;
    const std::optional<gid_t> admin_gid = mace::resolve_admin_group(config.admin_group);
    settings.tool_names = mace::tool_names(config);
    // At submit: the backend can be made (credentials, CLI), can authenticate as far as
    // that can be known without a call, and its costs can be counted (REQ-BUD-5).
    mace::llm::BackendOptions check_options;
    if (!config.llm_prices_json.empty())
      check_options.prices.apply_overrides_json("{\"prices\":" + config.llm_prices_json + "}");
    check_options.unreported_cost = config.unreported_cost;
    settings.check_backend = [check_options](const std::string& backend,
                                             const std::string& model) -> std::optional<std::string> {
      return mace::llm::check_backend({backend, model}, mace::llm::process_environment(),
                                      check_options);
    };
    // A misspelt gate workload is refused at submit, naming where it was looked for.
    settings.check_workloads = [&config, &options](const mace::RunSpec& spec) {
      return mace::check_spec_workloads(spec, options.workloads_dir, config.checkouts);
    };
    mace::service::RunService service(*store, settings);
    const auto evidence = evidence_archive(config, options);
    // A run left running by a maced that died cannot be resumed safely yet.
    std::vector<std::string> interrupted;
    for (const auto& run : store->runs_in_states({mace::RunState::running})) {
      service.set_state(run.id, mace::RunState::error, "maced restarted during the run");
      interrupted.push_back(run.id);
    }
    // REQ-PLAT-2: every checkout must be on this machine; say so at once, not at the
    // first run that leases it.
    // REQ-TOOL-8: and whether it is the OpenPiton MACE was verified on.
    for (const auto& checkout : config.checkouts) {
      if (std::error_code ec; !std::filesystem::is_directory(checkout.path, ec)) {
        std::cerr << "maced: checkout " << checkout.path
                  << " is not a directory on this machine; runs given it will fail\n";
        continue;
      }
      for (const auto& note : mace::openpiton::checkout_pin_notes(checkout.path))
        std::cerr << "maced: checkout " << checkout.path << " " << note << "\n";
    }
    // Such a run may have left Slurm jobs running in its checkouts: they go first, before
    // anything touches those checkouts.
    if (on_slurm) mace::cancel_leftover_jobs(config.executor.slurm, *store, std::cerr);
    // Their logs are still where they were written: they go into their runs' evidence
    // before any other run writes there.
    mace::keep_interrupted_logs(*store, *evidence, interrupted, std::cerr);
    // It may also have left RTL edits applied to a checkout (REQ-EXEC-17).
    mace::restore_interrupted_edits(config, std::cerr);
    // The tools of the LLM calls in flight, for the `mace mcp` forwarders their agents start.
    mace::llm::ToolSessions tool_sessions;

    // Signals must be captured before the event loop starts any thread.
    kj::UnixEventPort::captureSignal(SIGTERM);
    kj::UnixEventPort::captureSignal(SIGINT);
    std::signal(SIGPIPE, SIG_IGN);
    auto io = kj::setupAsyncIo();

    mace::ListenSocket listen = mace::systemd_listen_socket();
    if (listen.fd < 0) listen = mace::create_listen_socket(options.socket_path, 0660);
    std::string where = listen.from_systemd ? "the socket systemd passed" : listen.path;

    // With Slurm: every job of every run, the nodes found down, and the keeper told.
    std::shared_ptr<mace::ClusterJobs> cluster;
    auto settings_for_runs = run_settings(config, options, listen.path, tool_sessions);
    settings_for_runs.evidence = evidence;
    if (on_slurm) {
      cluster = std::make_shared<mace::ClusterJobs>(config.executor.slurm);
      settings_for_runs.slurm = std::make_shared<const mace::slurm::SlurmSettings>(config.executor.slurm);
      settings_for_runs.cluster_observer = cluster;
    }
    // A checkout whose node was found down is not leased until the node is back.
    auto unusable = [cluster](const mace::service::PooledCheckout& checkout) {
      return cluster ? cluster->node_down(checkout.node) : std::nullopt;
    };
    mace::RunSupervisor supervisor(service, *store, pooled(config), std::move(settings_for_runs),
                                   unusable);
    service.set_checkouts_source(on_slurm ? "slurm" : "local", [&supervisor, cluster] {
      auto checkouts = supervisor.checkouts();
      if (cluster) {
        for (auto& checkout : checkouts) {
          checkout.node_down = cluster->node_down(checkout.node).value_or("");
          if (auto job = cluster->job_on(checkout.path)) {
            checkout.job_id = job->id;
            checkout.job_name = job->name;
            checkout.job_purpose = job->purpose;
          }
        }
      }
      return checkouts;
    });
    service.set_hooks([&](const std::string&) { supervisor.start_queued(); },
                      [&](const std::string& run_id) { supervisor.cancel(run_id); });
    // Evaluation batches: the next job is queued whenever a run ends, and a batch a dead
    // maced left resumes now (its interrupted run was recorded error above; REQ-EVAL-3).
    mace::service::EvalService evaluations(*store, service);
    // The evidence archive's retention rule, whenever a run ends and once now.
    mace::service::EvidenceRetention retention(*store, service, *evidence, std::cerr);
    auto apply_retention = [&retention] {
      try {
        retention.apply();
      } catch (const std::exception& e) {
        std::cerr << "maced: cannot apply the evidence retention rule now: " << e.what() << "\n";
      }
    };
    service.set_on_final([&](const std::string&) {
      apply_retention();
      try {
        evaluations.advance();
      } catch (const std::exception& e) {
        // The run's end is recorded; the batch moves on at the next run end or restart.
        std::cerr << "maced: cannot start the next evaluation job now: " << e.what() << "\n";
      }
    });
    apply_retention();
    try {
      evaluations.advance();
    } catch (const std::exception& e) {
      std::cerr << "maced: cannot resume evaluation batches now: " << e.what() << "\n";
    }

    // Listings are read off the loop: a user listing a long queue over and over must not
    // hold everyone else's calls.
    mace::ListingThread listings(std::filesystem::path(options.state_dir) / "mace.db",
                                 config.others_see);
    mace::ClientConnections connections(service, tool_sessions, io.provider->getTimer(),
                                        config.connections, admin_gid, std::cerr);
    connections.set_eval_service(&evaluations);
    connections.set_run_lister(&listings);
    mace::AcceptLoop accept_loop(mace::os::UniqueFd(listen.fd), io.unixEventPort,
                                 *io.lowLevelProvider, io.provider->getTimer(), std::cerr,
                                 [&](kj::Own<kj::AsyncIoStream> stream) {
                                   connections.add(kj::mv(stream));
                                 });
    LoggingErrorHandler error_handler;
    kj::TaskSet background(error_handler);
    background.add(accept_loop.run());
    background.add(refresh_status(io.provider->getTimer(), service, supervisor, where));
    if (auto interval = mace::watchdog_ping_interval())
      background.add(watchdog_pings(io.provider->getTimer(), *interval));

    std::cerr << "maced " << MACE_VERSION << ": " << where << ", state in "
              << options.state_dir << ", " << config.checkouts.size() << " checkout(s)\n";
    mace::notify_ready(status_line(service, where));
    supervisor.start_queued();  // runs queued before a restart

    auto stop = io.unixEventPort.onSignal(SIGTERM)
                    .exclusiveJoin(io.unixEventPort.onSignal(SIGINT))
                    .wait(io.waitScope);
    mace::notify_stopping();
    std::cerr << "maced: signal " << stop.si_signo << ", shutting down\n";
    // Stop every build and simulation and record their runs before going.
    supervisor.stop_all()
        .exclusiveJoin(io.provider->getTimer().afterDelay(60 * kj::SECONDS))
        .wait(io.waitScope);
    if (!listen.from_systemd) ::unlink(listen.path.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "maced: " << e.what() << "\n";
    return 1;
  } catch (const kj::Exception& e) {
    std::cerr << "maced: " << e.getDescription().cStr() << "\n";
    return 1;
  }
}
