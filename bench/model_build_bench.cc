// model_build_bench CHECKOUT [options]: builds one pico model in CHECKOUT through the
// builder, as a task would, and prints `key=value` lines for bench/model_store.sh:
// build_id, how the model came (built, checkout, store), the wall and CPU time, and the
// largest process of the build.
//
//   --x=N --y=N             the mesh (default 1x1)
//   --l1d=BYTES             the L1D size (default: the checkout's own); a stand-in for a
//   --l15=BYTES             task's change, as narrowing undoes it
//   --store=DIR             take from and publish to a model store there
//   --ccache=DIR            compile through ccache with that cache directory
//   --jobs=N                bound sims' make -j to N (0: sims' own unbounded -j)
//   --fresh                 remove the model directory first (no reuse in place)

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <string_view>

#include "openpiton/builder.h"
#include "openpiton/cache_defaults.h"

namespace {

bool option(std::string_view arg, std::string_view name, std::string& value) {
  if (!arg.starts_with(name) || arg.size() <= name.size() || arg[name.size()] != '=') return false;
  value = std::string(arg.substr(name.size() + 1));
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace mace::openpiton;
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CHECKOUT [--x=N] [--y=N] [--l1d=B] [--l15=B] [--store=DIR] "
                         "[--ccache=DIR] [--jobs=N] [--fresh]\n", argv[0]);
    return 2;
  }
  try {
    const Checkout checkout(argv[1]);
    BuildConfig config;
    config.core = Core::pico;
    const auto defaults = read_cache_defaults(checkout, Core::pico);
    if (!defaults.caches) throw std::runtime_error(defaults.error);
    config.caches = *defaults.caches;
    config.rtl_defines = normalise_defines({});
    BuildOptions options;
    options.timeout = std::chrono::minutes(60);
    std::string store_dir;
    bool fresh = false;
    for (int i = 2; i < argc; ++i) {
      const std::string_view arg = argv[i];
      std::string value;
      if (option(arg, "--x", value)) config.x_tiles = std::stoi(value);
      else if (option(arg, "--y", value)) config.y_tiles = std::stoi(value);
      else if (option(arg, "--l1d", value)) config.caches.l1d.size_bytes = std::stoi(value);
      else if (option(arg, "--l15", value)) config.caches.l15.size_bytes = std::stoi(value);
      else if (option(arg, "--store", value)) store_dir = value;
      else if (option(arg, "--ccache", value)) options.compiler_cache_dir = value;
      else if (option(arg, "--jobs", value)) options.max_parallelism = std::stoi(value);
      else if (arg == "--fresh") fresh = true;
      else throw std::invalid_argument("unknown option " + std::string(arg));
    }
    std::optional<ModelStore> store;
    if (!store_dir.empty()) {
      store.emplace(ModelStoreSettings{.directory = store_dir});
      options.model_store = &*store;
    }
    if (fresh) std::filesystem::remove_all(checkout.model_dir(build_id(config)));
    const BuildResult result = build(checkout, config, options);
    rusage usage{}, own{};
    getrusage(RUSAGE_CHILDREN, &usage);
    getrusage(RUSAGE_SELF, &own);  // a store hit's copy and hashing happen in here
    std::printf("build_id=%s\n", result.build_id.c_str());
    std::printf("success=%d\n", result.success ? 1 : 0);
    std::printf("source=%s\n", result.reused_from.empty() ? "built" : result.reused_from.c_str());
    std::printf("seconds=%.3f\n", result.wall_seconds);
    // CPU time of the build, this process's included: steadier than wall time on a shared
    // machine.
    auto seconds = [](const rusage& u) {
      return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
             static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
    };
    const double cpu = seconds(usage) + seconds(own);
    std::printf("cpu_seconds=%.3f\n", cpu);
    // The largest single process of the build (ru_maxrss of waited-for descendants).
    std::printf("largest_process_mb=%ld\n", usage.ru_maxrss / 1024);
    for (const auto& note : result.store_notes) std::printf("note=%s\n", note.c_str());
    if (!result.success) {
      std::fprintf(stderr, "%s: %s\n%s\n", std::string(to_string(result.failure_reason)).c_str(),
                   result.message.c_str(),
                   result.tail.c_str());
      return 1;
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
  return 0;
}
