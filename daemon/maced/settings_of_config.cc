#include "maced/settings_of_config.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "llm/backend_factory.h"
#include "llm/retry.h"
#include "maced/workload_check.h"
#include "os/sha256.h"

namespace mace {
namespace {

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

// The configured prices and the policy for costs a vendor does not report, as every
// backend of this maced counts them.
void apply_cost_settings(const MacedConfig& config, llm::BackendOptions& options) {
  if (!config.llm_prices_json.empty())  // checked when the config was read
    options.prices.apply_overrides_json("{\"prices\":" + config.llm_prices_json + "}");
  options.unreported_cost = config.unreported_cost;
}

}  // namespace

std::filesystem::path under_state_dir_unless(const std::string& configured,
                                             const MacedOptions& options, const char* name) {
  return configured.empty() ? std::filesystem::path(options.state_dir) / name
                            : std::filesystem::path(configured);
}

service::ServiceSettings service_settings(const MacedConfig& config, const MacedOptions& options) {
  service::ServiceSettings settings;
  settings.backend = config.llm_backend;
  settings.model = config.llm_model;
  settings.others_see = config.others_see;
  settings.queue = config.queue;
  settings.tool_names = tool_names(config);
  // At submit: the backend can be made (credentials, CLI), can authenticate as far as
  // that can be known without a call, and its costs can be counted (REQ-BUD-5).
  llm::BackendOptions check_options;
  apply_cost_settings(config, check_options);
  settings.check_backend = [check_options](const std::string& backend,
                                           const std::string& model) -> std::optional<std::string> {
    return llm::check_backend({backend, model}, llm::process_environment(), check_options);
  };
  // A misspelt gate workload is refused at submit, naming where it was looked for.
  settings.check_workloads = [workloads_dir = options.workloads_dir,
                              checkouts = config.checkouts](const RunSpec& spec) {
    return check_spec_workloads(spec, workloads_dir, checkouts);
  };
  return settings;
}

run::RunSettings run_settings(const MacedConfig& config, const MacedOptions& options,
                              const std::string& socket_path, llm::ToolSessions& sessions) {
  run::RunSettings settings;
  settings.workloads_dir = options.workloads_dir;
  settings.tools = config.tools;
  settings.replay_cache = config.replay_cache;
  apply_cost_settings(config, settings.backend_options);
  settings.backend_options.cli.mace_binary = find_mace_client();
  settings.backend_options.cli.maced_socket = socket_path;
  settings.backend_options.cli.sessions = &sessions;
  settings.retry = llm::RetryPolicy::from_environment(llm::process_environment());
  settings.dispatch = config.executor.dispatch;
  settings.infrastructure_retries = config.executor.infrastructure_retries;
  settings.parallel_workloads = static_cast<std::size_t>(config.executor.parallel_workloads);
  // Under Slurm the compiles run on the checkouts' nodes, which need not see maced's state
  // directory: there only a configured (shared) path is used.
  const bool on_slurm = config.executor.kind == ExecutorConfig::Kind::slurm;
  if (config.compiler_cache.enabled && !(on_slurm && config.compiler_cache.path.empty())) {
    settings.compiler_cache_dir =
        under_state_dir_unless(config.compiler_cache.path, options, "ccache").string();
    settings.compiler_cache_max_mb = config.compiler_cache.max_mb;
  }
  settings.keep_run_dirs = config.evidence.keep_run_dirs;
  settings.max_sim_output_bytes = static_cast<std::uint64_t>(config.evidence.max_sim_output_mb) << 20;
  if (config.evidence.waveform)
    settings.waveform = executor::WaveformSettings{
        .window_cycles = config.evidence.waveform_cycles,
        .max_bytes = static_cast<std::uint64_t>(config.evidence.max_waveform_mb) << 20};
  if (config.model_store.enabled) {
    settings.model_store = std::make_shared<const openpiton::ModelStore>(openpiton::ModelStoreSettings{
        .directory = under_state_dir_unless(config.model_store.path, options, "models"),
        .max_bytes = static_cast<std::uint64_t>(config.model_store.max_mb) << 20});
  }
  return settings;
}

std::shared_ptr<const evidence::EvidenceArchive> evidence_archive(const MacedConfig& config,
                                                                  const MacedOptions& options) {
  evidence::EvidenceSettings settings;
  settings.root = std::filesystem::absolute(under_state_dir_unless(config.evidence.path, options, "runs"));
  settings.keep.max_log_bytes = static_cast<std::uint64_t>(config.evidence.max_log_mb) << 20;
  settings.retention.max_total_bytes = static_cast<std::uint64_t>(config.evidence.max_mb) << 20;
  settings.retention.protect_recent_ms = config.evidence.keep_recent_hours * 3600 * 1000;
  return std::make_shared<const evidence::EvidenceArchive>(std::move(settings));
}

std::string slurm_instance_of(const std::string& state_dir) {
  std::error_code ec;
  const auto absolute = std::filesystem::absolute(state_dir, ec).lexically_normal().string();
  return os::sha256_hex(ec ? state_dir : absolute).substr(0, 12);
}

std::vector<service::PooledCheckout> pooled_checkouts(const MacedConfig& config) {
  std::vector<service::PooledCheckout> out;
  for (const auto& c : config.checkouts) out.push_back({c.path, c.node});
  return out;
}

}  // namespace mace
