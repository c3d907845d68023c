#include "openpiton/build_attempt.h"

#include <fstream>
#include <system_error>

#include "openpiton/build_classification.h"
#include "openpiton/build_marker.h"
#include "openpiton/rtl_edits.h"
#include "os/environment.h"
#include "os/file_io.h"
#include "os/program_search.h"

namespace mace::openpiton {
namespace {

namespace fs = std::filesystem;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// See BuildOptions::max_parallelism. Returns the directory to put first on PATH, or an
// error message.
std::pair<std::string, std::string> make_wrapper(const fs::path& model_dir,
                                                 const std::string& path_list, int jobs) {
  const auto real_make = os::find_program("make", path_list);
  if (!real_make) return {"", "no make in the build environment's PATH"};
  const fs::path dir = model_dir / ".mace_tools";
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) return {"", "cannot create " + dir.string() + ": " + error.message()};
  const fs::path wrapper = dir / "make";
  const fs::path temporary = wrapper.string() + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << "#!/bin/sh\n"
        << "# Written by MACE: bounds sims' unbounded `make -j`; the last -j wins.\n"
        << "exec '" << real_make->string() << "' \"$@\" -j" << jobs << "\n";
    if (!out.flush()) return {"", "cannot write " + temporary.string()};
  }
  fs::permissions(temporary,
                  fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                      fs::perms::others_read | fs::perms::others_exec,
                  error);
  if (!error) fs::rename(temporary, wrapper, error);
  if (error) return {"", "cannot install " + wrapper.string() + ": " + error.message()};
  return {dir.string(), ""};
}

// See BuildOptions::compiler_cache_dir. Returns why the cache is not used, or "".
std::string use_compiler_cache(const BuildOptions& options, const Checkout& checkout,
                               std::map<std::string, std::string>& env) {
  if (!os::find_program("ccache", env["PATH"]))
    return "compiler cache: no ccache in the build environment's PATH; compiling without it";
  env["OBJCACHE"] = "ccache";
  env["CCACHE_DIR"] = options.compiler_cache_dir;
  // Paths under the checkout are hashed relative to it, and the working directory (the
  // model's obj_dir, inside the checkout) not at all: two checkouts share entries.
  env["CCACHE_BASEDIR"] = checkout.root().string();
  env["CCACHE_NOHASHDIR"] = "true";
  if (options.compiler_cache_max_mb > 0)
    env["CCACHE_MAXSIZE"] = std::to_string(options.compiler_cache_max_mb) + "M";
  return "";
}

// Appends a line to the build's transcript: what the store did is part of the build's
// story, and a store failure must be seen somewhere a person looks.
void note_in_log(const BuildResult& result, const std::string& line,
                 std::ios::openmode mode = std::ios::app) {
  std::ofstream log(result.log_path, mode);
  log << "mace: " << line << "\n";
}

// True when the model came from the store (result filled in).
bool fetch_from_store(const ModelStore& store, const Checkout& checkout, const BuildConfig& config,
                     BuildResult& result) {
  const ModelKey key{result.build_id, result.fingerprint.digest};
  StoreFetch fetched;
  try {
    fetched = store.fetch(key, result.model_dir, checkout.root());
  } catch (const std::exception& error) {  // a key the store refuses: build instead
    fetched.problem = std::string("model store: ") + error.what();
  }
  // Noted in the transcript after the build (which starts it afresh) or with the hit.
  if (!fetched.problem.empty()) result.store_notes.push_back(fetched.problem);
  if (!fetched.hit) return false;
  const fs::path marker = fs::path(result.model_dir) / std::string(kBuildMarkerName);
  if (auto problem = write_marker(marker, config, result.fingerprint); !problem.empty()) {
    result.store_notes.push_back(problem);
    return false;
  }
  result.success = true;
  result.reused = true;
  result.reused_from = std::string(reuse_source::store);
  result.origin = fetched.entry + ", " + fetched.origin;
  result.exit_code = 0;
  note_in_log(result, "model taken from the store: " + result.origin, std::ios::trunc);
  return true;
}

// The checkout root the model's files name: the one it was built in, which is not this
// checkout's when the checkout was copied with its models (cp -a). sims starts flist with
// "<root>/build/manycore/<build_id>/config.v".
fs::path built_in_root(const Checkout& checkout, const BuildResult& result) {
  const std::string first = os::read_first_line(fs::path(result.model_dir) / "flist");
  const std::string tail = "/build/manycore/" + result.build_id + "/config.v";
  if (first.size() > tail.size() && first.starts_with("/") && first.ends_with(tail))
    return first.substr(0, first.size() - tail.size());
  return checkout.root();
}

void publish_to_store(const ModelStore& store, const Checkout& checkout, BuildResult& result) {
  const ModelKey key{result.build_id, result.fingerprint.digest};
  StorePublish published;
  try {
    published = store.publish(key, result.model_dir, built_in_root(checkout, result));
  } catch (const std::exception& error) {
    published.problem = std::string("model store: ") + error.what();
  }
  for (const auto& note : result.store_notes) note_in_log(result, note);
  if (!published.problem.empty()) {
    result.store_notes.push_back(published.problem);
    note_in_log(result, published.problem + "; the model stays in this checkout");
  } else if (published.published) {
    note_in_log(result, "model published to the store: " + store.entry_path(key).string());
  }
  for (const auto& name : published.evicted) note_in_log(result, "evicted from the store: " + name);
}

void publish_if_absent(const ModelStore& store, const Checkout& checkout, BuildResult& result) {
  try {
    if (fs::exists(store.entry_path({result.build_id, result.fingerprint.digest}) / "MANIFEST"))
      return;
  } catch (const std::exception&) {
    return;  // a build ID the store cannot hold
  }
  publish_to_store(store, checkout, result);
}

}  // namespace

BuildAttempt::BuildAttempt(const Checkout& checkout, const BuildConfig& config,
                           const BuildOptions& options)
    : checkout_(checkout),
      config_(config),
      options_(options),
      start_(std::chrono::steady_clock::now()),
      model_dir_(checkout.model_dir(build_id(config))),
      binary_(checkout.model_binary(build_id(config))),
      marker_(model_dir_ / std::string(kBuildMarkerName)) {
  result_.build_id = build_id(config);
  result_.model_dir = model_dir_.string();
  result_.log_path = options.log_path.empty() ? (model_dir_ / std::string(kBuildLogName)).string()
                                              : options.log_path;
}

BuildResult BuildAttempt::failed_before_start(Failure reason, std::string message) {
  BuildResult result = std::move(result_);
  result.success = false;
  result.failure_reason = reason;
  result.error_lines = {message};
  result.message = std::move(message);
  return result;
}

BuildResult BuildAttempt::finished_without_compiling() {
  if (options_.on_started) options_.on_started(result_.log_path);
  result_.wall_seconds = seconds_since(start_);
  return std::move(result_);
}

std::optional<BuildResult> BuildAttempt::refuse_what_cannot_start() {
  if (auto cache = way_rule_violation(config_))
    return failed_before_start(Failure::way_rule, way_rule_message(config_, *cache));
  if (options_.timeout <= std::chrono::milliseconds::zero())
    return failed_before_start(Failure::budget_exhausted,
                               "no time left in the run's budget to build " + result_.build_id);
  if (cancelled()) return failed_before_start(Failure::cancelled, "cancelled before the build started");
  return std::nullopt;
}

std::optional<BuildResult> BuildAttempt::restore_leftover_edits() {
  // A build with edits gets them applied by its caller, which restores leftovers first
  // (see apply_edits); one without must not build what a killed task left applied.
  if (!config_.rtl_edits_hash.empty()) return std::nullopt;
  RestoreReport leftovers = openpiton::restore_leftover_edits(checkout_.root());
  if (!leftovers.ok()) {
    std::string why;
    for (const auto& error : leftovers.errors) why += (why.empty() ? "" : "; ") + error;
    return failed_before_start(Failure::leftover_edits,
                               "cannot restore the RTL edits an interrupted task left: " + why);
  }
  result_.restored_leftover_edits = leftovers.restored;
  result_.restored_leftover_edits.insert(result_.restored_leftover_edits.end(),
                                         leftovers.removed.begin(), leftovers.removed.end());
  return std::nullopt;
}

std::optional<BuildResult> BuildAttempt::read_toolchain() {
  const auto base = options_.base_environment ? *options_.base_environment : os::inherited_environment();
  env_ = checkout_.environment(base);
  // sims finds its way back with $ENV{PWD} (sims,2.0 create_model_path, pre_build).
  env_["PWD"] = checkout_.root().string();
  try {
    result_.verilator = options_.verilator
                            ? *options_.verilator
                            : detect_verilator_version(env_, options_.cancel, checkout_.runner());
  } catch (const os::HostStopped& stopped) {  // the node, not the build
    return failed_before_start(failure_of(stopped.stop()), stopped.what());
  } catch (const std::exception& error) {
    if (cancelled()) return failed_before_start(Failure::cancelled, "cancelled before the build started");
    return failed_before_start(Failure::launch_failed, error.what());
  }
  try {
    result_.argv = sims_build_argv(config_, result_.verilator);
    result_.environment = env_;
  } catch (const std::invalid_argument& error) {
    return failed_before_start(Failure::invalid_config, error.what());
  }
  return std::nullopt;
}

void BuildAttempt::take_fingerprint() {
  // Taken before the build: whatever changes while it runs makes the next build redo it.
  // Without one the model is neither reused nor published, and the build goes on.
  try {
    result_.fingerprint = source_fingerprint(checkout_, result_.verilator.text, options_.cancel);
  } catch (const std::exception& error) {
    result_.fingerprint_error = error.what();
  }
}

std::optional<BuildResult> BuildAttempt::reuse_in_place() {
  if (cancelled()) return failed_before_start(Failure::cancelled, "cancelled before the build started");
  std::error_code error;
  if (result_.fingerprint.digest.empty() || !fs::exists(binary_, error)) return std::nullopt;
  const auto recorded = marker_digest(marker_);
  if (!recorded || *recorded != result_.fingerprint.digest) return std::nullopt;
  result_.success = true;
  result_.reused = true;
  result_.reused_from = std::string(reuse_source::checkout);
  result_.exit_code = 0;
  // The transcript says where this task's model came from; the build's own stays with
  // the run that built it.
  note_in_log(result_, "model " + result_.build_id + " reused in place: built earlier in this checkout "
                       "from the same sources (source fingerprint " + result_.fingerprint.digest.substr(0, 12) + ")",
              std::ios::trunc);
  // A model built before the store existed, or evicted since, serves others too.
  if (options_.model_store != nullptr) publish_if_absent(*options_.model_store, checkout_, result_);
  return finished_without_compiling();
}

std::optional<BuildResult> BuildAttempt::clear_old_model() {
  std::error_code error;
  fs::remove(marker_, error);
  if (error)
    return failed_before_start(Failure::launch_failed,
                               "cannot remove the old " + marker_.string() + ": " + error.message());
  fs::remove(binary_, error);
  fs::create_directories(model_dir_, error);
  if (error)
    return failed_before_start(Failure::launch_failed,
                               "cannot create " + model_dir_.string() + ": " + error.message());
  if (!options_.log_path.empty()) fs::create_directories(fs::path(options_.log_path).parent_path(), error);
  return std::nullopt;
}

std::optional<BuildResult> BuildAttempt::take_from_store() {
  if (options_.model_store == nullptr || result_.fingerprint.digest.empty()) return std::nullopt;
  try {
    claim_ = options_.model_store->claim({result_.build_id, result_.fingerprint.digest}, options_.cancel);
  } catch (const std::invalid_argument&) {
    // A build ID the store cannot hold: fetch_from_store says so.
  }
  if (!claim_ && cancelled())
    return failed_before_start(Failure::cancelled, "cancelled while another task built the same model");
  if (fetch_from_store(*options_.model_store, checkout_, config_, result_)) return finished_without_compiling();
  return std::nullopt;
}

std::optional<BuildResult> BuildAttempt::bound_the_compiles() {
  if (!options_.compiler_cache_dir.empty()) {
    if (auto problem = use_compiler_cache(options_, checkout_, env_); !problem.empty())
      result_.store_notes.push_back(problem);
  }
  if (options_.max_parallelism > 0) {
    auto [wrapper_dir, problem] = make_wrapper(model_dir_, env_["PATH"], options_.max_parallelism);
    if (!problem.empty()) return failed_before_start(Failure::launch_failed, problem);
    env_["PATH"] = wrapper_dir + ":" + env_["PATH"];
  }
  return std::nullopt;
}

BuildResult BuildAttempt::compile() {
  os::ProcessSpec spec;
  spec.argv = result_.argv;
  spec.env = std::move(env_);
  spec.working_dir = checkout_.root().string();
  spec.timeout = options_.timeout;
  spec.kill_grace = options_.kill_grace;
  spec.log_path = result_.log_path;
  spec.tail_bytes = 64 * 1024;
  BuildProgressReader progress;
  if (options_.on_progress) {
    spec.on_line = [this, &progress](std::string_view line) {
      if (options_.on_line) options_.on_line(line);
      if (progress.feed(line)) options_.on_progress(progress.progress());
    };
  } else {
    spec.on_line = options_.on_line;
  }
  spec.is_error_line = is_build_error_line;
  spec.purpose = os::CommandPurpose::build;
  if (options_.on_started) options_.on_started(result_.log_path);
  if (options_.on_progress) options_.on_progress(progress.progress());  // sims starts: verilating
  const os::ProcessResult run = checkout_.run(spec, options_.cancel);

  BuildResult result = std::move(result_);
  result.exit_code = run.exit_code;
  result.tail = run.tail;
  result.error_lines = run.error_lines;
  result.wall_seconds = seconds_since(start_);
  result.usage = run.usage;
  BuildClassification classified = classify_build(run, options_.timeout, binary_);
  result.failure_reason = classified.failure_reason;
  result.message = std::move(classified.message);
  if (run.host_stop != os::HostStop::none) result.error_lines.push_back(run.host_stop_detail);
  result.success = result.failure_reason == Failure::none;
  if (result.success && !result.fingerprint.digest.empty()) {
    if (auto problem = write_marker(marker_, config_, result.fingerprint); !problem.empty()) {
      result.message = problem + "; the next build of this configuration will not reuse it";
    } else if (options_.model_store != nullptr) {
      publish_to_store(*options_.model_store, checkout_, result);
    }
  }
  if (!run.log_error.empty()) result.message += (result.message.empty() ? "" : "; ") + run.log_error;
  return result;
}

}  // namespace mace::openpiton
