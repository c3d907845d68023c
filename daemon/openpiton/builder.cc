#include "openpiton/builder.h"

#include "openpiton/rtl_edits.h"
#include "os/environment.h"
#include "os/file_io.h"
#include "os/program_search.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <system_error>

namespace mace::openpiton {
namespace {

namespace fs = std::filesystem;

std::string_view trim_left(std::string_view line) {
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  return line;
}

BuildResult failed_before_start(BuildResult result, std::string_view reason, std::string message) {
  result.success = false;
  result.failure_reason = std::string(reason);
  result.error_lines = {message};
  result.message = std::move(message);
  return result;
}

// The first line of a marker is the fingerprint digest; the rest is there for people.
std::optional<std::string> marker_digest(const fs::path& marker) {
  std::ifstream in(marker);
  std::string digest;
  if (!in || !std::getline(in, digest) || digest.empty()) return std::nullopt;
  return digest;
}

// Written to a temporary name and renamed, so a crash mid-write never leaves a marker
// that a later build could take for a good one.
std::string write_marker(const fs::path& marker, const BuildConfig& config,
                         const SourceFingerprint& fingerprint) {
  const fs::path temporary = marker.string() + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << fingerprint.digest << "\n"
        << "# The source fingerprint this model was built from, then its configuration.\n"
        << fingerprint.text() << canonical_text(config);
    out.flush();
    if (!out) {
      std::error_code ignored;
      fs::remove(temporary, ignored);
      return "cannot write " + temporary.string();
    }
  }
  std::error_code error;
  fs::rename(temporary, marker, error);
  if (error) {
    fs::remove(temporary, error);
    return "cannot rename " + temporary.string() + " to " + marker.string();
  }
  return "";
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

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", seconds);
  return text;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Appends a line to the build's transcript: what the store did is part of the build's
// story, and a store failure must be seen somewhere a person looks.
void note_in_log(const BuildResult& result, const std::string& line,
                 std::ios::openmode mode = std::ios::app) {
  std::ofstream log(result.log_path, mode);
  log << "mace: " << line << "\n";
}

// Step 5 of build(): true when the model came from the store (result filled in).
bool take_from_store(const ModelStore& store, const Checkout& checkout, const BuildConfig& config,
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

bool is_build_error_line(std::string_view line) {
  const std::string_view text = trim_left(line);
  // Verilator: "%Error: file.v:12:3: ..." and "%Error-NEEDTIMINGOPT: ..."; never %Warning.
  if (text.starts_with("%Error")) return true;
  // sims: its own fatal errors, "DIE. ..." or, through its __DIE__ handler,
  // "sims: Caught a SIGDIE. failed building model at .../sims,2.0 line 1572.".
  if (text.starts_with("DIE.") || text.find("Caught a SIGDIE.") != std::string_view::npos) {
    return true;
  }
  // g++: "file.cpp:3:1: error: ..." / "fatal error: ...".
  if (text.find(": error: ") != std::string_view::npos ||
      text.find(": fatal error: ") != std::string_view::npos) {
    return true;
  }
  // make: "make[1]: *** [Vcmp_top.mk:60: Vcmp_top] Error 1".
  if (text.starts_with("make") && text.find("*** ") != std::string_view::npos &&
      text.find("Error") != std::string_view::npos) {
    return true;
  }
  return false;
}

BuildResult build(const Checkout& checkout, const BuildConfig& config,
                  const BuildOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  BuildResult result;
  result.build_id = build_id(config);
  const fs::path model_dir = checkout.model_dir(result.build_id);
  const fs::path binary = checkout.model_binary(result.build_id);
  const fs::path marker = model_dir / std::string(kBuildMarkerName);
  result.model_dir = model_dir.string();
  result.log_path = options.log_path.empty() ? (model_dir / std::string(kBuildLogName)).string()
                                             : options.log_path;

  if (auto cache = way_rule_violation(config)) {
    return failed_before_start(std::move(result), build_failure::way_rule,
                               way_rule_message(config, *cache));
  }
  if (options.timeout <= std::chrono::milliseconds::zero()) {
    return failed_before_start(std::move(result), build_failure::budget_exhausted,
                               "no time left in the run's budget to build " + result.build_id);
  }
  if (options.cancel != nullptr && options.cancel->cancelled()) {
    return failed_before_start(std::move(result), build_failure::cancelled,
                               "cancelled before the build started");
  }

  // REQ-EXEC-17: a build that carries no edits must not build what a killed task left
  // applied. (A build with edits gets them applied by its caller, which restores leftovers
  // first: see apply_edits.)
  if (config.rtl_edits_hash.empty()) {
    RestoreReport leftovers = restore_leftover_edits(checkout.root());
    if (!leftovers.ok()) {
      std::string why;
      for (const auto& error : leftovers.errors) why += (why.empty() ? "" : "; ") + error;
      return failed_before_start(std::move(result), build_failure::leftover_edits,
                                 "cannot restore the RTL edits an interrupted task left: " + why);
    }
    result.restored_leftover_edits = leftovers.restored;
    result.restored_leftover_edits.insert(result.restored_leftover_edits.end(),
                                          leftovers.removed.begin(), leftovers.removed.end());
  }

  const auto base = options.base_environment ? *options.base_environment : os::inherited_environment();
  auto env = checkout.environment(base);
  // sims finds its way back with $ENV{PWD} (sims,2.0 create_model_path, pre_build).
  env["PWD"] = checkout.root().string();

  try {
    result.verilator =
        options.verilator ? *options.verilator
                          : detect_verilator_version(env, options.cancel, checkout.runner());
  } catch (const os::HostStopped& stopped) {  // the node, not the build
    return failed_before_start(std::move(result), os::to_string(stopped.stop()), stopped.what());
  } catch (const std::exception& error) {
    if (options.cancel != nullptr && options.cancel->cancelled()) {
      return failed_before_start(std::move(result), build_failure::cancelled,
                                 "cancelled before the build started");
    }
    return failed_before_start(std::move(result), build_failure::launch_failed, error.what());
  }
  try {
    result.argv = sims_build_argv(config, result.verilator);
  } catch (const std::invalid_argument& error) {
    return failed_before_start(std::move(result), build_failure::invalid_config, error.what());
  }

  // Taken before the build: whatever changes while it runs makes the next build redo it.
  try {
    result.fingerprint = source_fingerprint(checkout, result.verilator.text, options.cancel);
  } catch (const std::exception& error) {
    if (options.cancel != nullptr && options.cancel->cancelled()) {
      return failed_before_start(std::move(result), build_failure::cancelled,
                                 "cancelled before the build started");
    }
    result.fingerprint_error = error.what();
  }

  std::error_code error;
  if (!result.fingerprint.digest.empty() && fs::exists(binary, error)) {
    const auto recorded = marker_digest(marker);
    if (recorded && *recorded == result.fingerprint.digest) {
      result.success = true;
      result.reused = true;
      result.reused_from = std::string(reuse_source::checkout);
      result.exit_code = 0;
      // The transcript says where this task's model came from; the build's own stays with
      // the run that built it.
      note_in_log(result, "model " + result.build_id + " reused in place: built earlier in this checkout "
                          "from the same sources (source fingerprint " + result.fingerprint.digest.substr(0, 12) + ")",
                  std::ios::trunc);
      // A model built before the store existed, or evicted since, serves others too.
      if (options.model_store != nullptr) publish_if_absent(*options.model_store, checkout, result);
      if (options.on_started) options.on_started(result.log_path);
      result.wall_seconds = seconds_since(start);
      return result;
    }
  }

  // A stale marker must not survive a failed rebuild, nor may an old binary pass for the
  // product of this build.
  fs::remove(marker, error);
  if (error) {
    return failed_before_start(std::move(result), build_failure::launch_failed,
                               "cannot remove the old " + marker.string() + ": " + error.message());
  }
  fs::remove(binary, error);
  fs::create_directories(model_dir, error);
  if (error) {
    return failed_before_start(std::move(result), build_failure::launch_failed,
                               "cannot create " + model_dir.string() + ": " + error.message());
  }
  if (!options.log_path.empty()) {
    fs::create_directories(fs::path(options.log_path).parent_path(), error);
  }
  // Held to the end of the build: another task of this process wanting the same model
  // waits here, then finds it in the store instead of building it a second time.
  std::optional<ModelStore::Claim> claim;
  if (options.model_store != nullptr && !result.fingerprint.digest.empty()) {
    try {
      claim = options.model_store->claim({result.build_id, result.fingerprint.digest},
                                         options.cancel);
    } catch (const std::invalid_argument&) {
      // A build ID the store cannot hold: take_from_store says so.
    }
    if (!claim && options.cancel != nullptr && options.cancel->cancelled()) {
      return failed_before_start(std::move(result), build_failure::cancelled,
                                 "cancelled while another task built the same model");
    }
    if (take_from_store(*options.model_store, checkout, config, result)) {
      if (options.on_started) options.on_started(result.log_path);
      result.wall_seconds = seconds_since(start);
      return result;
    }
  }
  if (!options.compiler_cache_dir.empty()) {
    if (auto problem = use_compiler_cache(options, checkout, env); !problem.empty())
      result.store_notes.push_back(problem);
  }
  if (options.max_parallelism > 0) {
    auto [wrapper_dir, problem] = make_wrapper(model_dir, env["PATH"], options.max_parallelism);
    if (!problem.empty()) {
      return failed_before_start(std::move(result), build_failure::launch_failed, problem);
    }
    env["PATH"] = wrapper_dir + ":" + env["PATH"];
  }

  os::ProcessSpec spec;
  spec.argv = result.argv;
  spec.env = std::move(env);
  spec.working_dir = checkout.root().string();
  spec.timeout = options.timeout;
  spec.kill_grace = options.kill_grace;
  spec.log_path = result.log_path;
  spec.tail_bytes = 64 * 1024;
  BuildProgressReader progress;
  if (options.on_progress) {
    spec.on_line = [&options, &progress](std::string_view line) {
      if (options.on_line) options.on_line(line);
      if (progress.feed(line)) options.on_progress(progress.progress());
    };
  } else {
    spec.on_line = options.on_line;
  }
  spec.is_error_line = is_build_error_line;
  spec.purpose = "build";
  if (options.on_started) options.on_started(result.log_path);
  if (options.on_progress) options.on_progress(progress.progress());  // sims starts: verilating
  const os::ProcessResult run = checkout.run(spec, options.cancel);

  result.exit_code = run.exit_code;
  result.tail = run.tail;
  result.error_lines = run.error_lines;
  result.wall_seconds = seconds_since(start);
  result.usage = run.usage;
  if (run.launch_failed) {
    result.failure_reason = build_failure::launch_failed;
    result.message = run.error;
  } else if (run.host_stop != os::HostStop::none) {
    result.failure_reason = os::to_string(run.host_stop);
    result.message = run.host_stop_detail;
    result.error_lines.push_back(run.host_stop_detail);
  } else if (run.cancelled) {
    result.failure_reason = build_failure::cancelled;
    result.message = "the build was cancelled after " + seconds_text(run.wall_seconds);
  } else if (run.timed_out) {
    result.failure_reason = build_failure::timeout;
    result.message = "the build did not finish within " +
                     seconds_text(static_cast<double>(options.timeout.count()) / 1000.0);
  } else if (run.exit_code != 0) {
    result.failure_reason = build_failure::build_failed;
    result.message = run.term_signal != 0
                         ? "sims was killed by signal " + std::to_string(run.term_signal)
                         : "sims exited with status " + std::to_string(run.exit_code);
  } else if (!fs::exists(binary, error)) {
    result.failure_reason = build_failure::no_model_binary;
    result.message = "sims exited 0 but left no " + binary.string();
  } else {
    result.success = true;
    if (!result.fingerprint.digest.empty()) {
      if (auto problem = write_marker(marker, config, result.fingerprint); !problem.empty()) {
        result.message = problem + "; the next build of this configuration will not reuse it";
      } else if (options.model_store != nullptr) {
        publish_to_store(*options.model_store, checkout, result);
      }
    }
  }
  if (!run.log_error.empty()) {
    result.message += (result.message.empty() ? "" : "; ") + run.log_error;
  }
  return result;
}

}  // namespace mace::openpiton
