// makespan_bench [--scale S] [--seed N] [--configs N] [--hits N] [--no-slurm]
//
// How long an exploration takes against the least any dispatch could take, for the queue
// and for the seeds' batches side by side in one run. An exploration of N configurations
// (one level of config tasks, planned by the fake Vertex server) runs on K = 2, 3 and 4
// fixture checkouts, with the local executor and on the three-node test Slurm
// (tests/support/slurm_cluster.sh; needs root, slurm-wlm and munge). Each configuration's
// build takes a time drawn (with the seed) from build times measured on a real checkout,
// times S; some configurations are already in the model store (a hit costs about a
// second). Every measured maced starts from the same state: the build history a previous
// exploration of these configurations left (so expected times are known) and a model
// store holding only the hits.
//
// For each run: makespan = last task's end - first task's start, and the lower bound
// max(longest task, total task time / K) from the same run's own task times. Printed as a
// table of makespan / lower bound. Run it through bench/makespan.sh, which sets
// MACE_SOURCE_ROOT and MACE_BUILD_ROOT.

#include <signal.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "llm/fake_vertex_server.h"
#include "support/child_process.h"
#include "support/fixture_checkout.h"
#include "support/maced_instance.h"
#include "support/slurm_cluster.h"

namespace {

namespace fs = std::filesystem;
using mace::llm::testing::FakeVertexServer;
using mace::testing::FixtureCheckout;
using mace::testing::MacedInstance;
using mace::testing::MacedOptions;
using mace::testing::TempDir;

// Wall times of real builds on this project's machines (docs/openpiton-findings.md and
// README "Building each model once"): what a configuration's build is drawn from.
struct MeasuredBuild {
  double seconds;
  const char* what;
};
constexpr MeasuredBuild kMeasured[] = {
    {49, "pico 1x1"},           {54, "pico 1x1"},          {87, "pico 2x1"},
    {101, "pico 2x1, loaded"},  {195, "pico 1x1, loaded"}, {263, "pico 2x2, loaded"},
    {401, "sparc 1x1"},
};

// Cache geometries an exploration of a pico tile might try: one per configuration.
constexpr const char* kGeometries[] = {
    "",  // OpenPiton's defaults
    "l15=16384,4", "l15=4096,4", "l15=8192,8", "l15=32768,4", "l2=131072,4", "l2=32768,4",
    "l2=65536,8", "l2=262144,4", "l15=16384,4 l2=131072,4", "l15=4096,2", "l2=32768,8",
};

struct Configuration {
  std::string id;
  std::string caches;
  const MeasuredBuild* drawn = nullptr;
  double build_seconds = 0;  // the drawn time, scaled
  bool store_hit = false;
};

struct Options {
  double scale = 0.1;
  unsigned seed = 7;
  std::size_t configs = 10;
  std::size_t hits = 3;
  bool slurm = true;
};

std::vector<Configuration> draw(const Options& options) {
  std::mt19937 random(options.seed);
  std::vector<Configuration> out;
  for (std::size_t i = 0; i < options.configs; ++i) {
    Configuration c;
    c.id = "c" + std::to_string(i + 1);
    c.caches = kGeometries[i];
    c.drawn = &kMeasured[random() % std::size(kMeasured)];
    c.build_seconds = c.drawn->seconds * options.scale;
    out.push_back(c);
  }
  for (std::size_t hit = 0; hit < options.hits && hit < out.size();) {
    Configuration& c = out[random() % out.size()];
    if (!c.store_hit) c.store_hit = true, ++hit;
  }
  return out;
}

std::string plan_of(const std::vector<Configuration>& configs, bool hits_only = false) {
  std::string plan;
  for (const auto& c : configs) {
    if (hits_only && !c.store_hit) continue;
    plan += "TASK: " + c.id + " | deps= | kind=config | try " + (c.caches.empty() ? "the defaults" : c.caches) + "\n";
    if (!c.caches.empty()) plan += "CACHES: " + c.id + " | " + c.caches + "\n";
  }
  return plan;
}

std::vector<std::vector<std::string>> query(const std::string& db_path, const std::string& sql) {
  std::vector<std::vector<std::string>> rows;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK) {
      while (sqlite3_step(stmt) == SQLITE_ROW) {
        std::vector<std::string> row;
        for (int i = 0; i < sqlite3_column_count(stmt); ++i) {
          const auto* text = sqlite3_column_text(stmt, i);
          row.emplace_back(text ? reinterpret_cast<const char*>(text) : "");
        }
        rows.push_back(std::move(row));
      }
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return rows;
}

// One maced of the bench: its own directory, checkouts, model store and executor.
class Bench {
 public:
  Bench(const Options& options, std::vector<Configuration> configs)
      : options_(options), configs_(std::move(configs)) {
    vertex_.set_handler([this](const auto&) { return FakeVertexServer::text(plan_); });
  }

  // Each configuration's build ID, from a run that builds them all at once.
  void discover_build_ids() {
    TempDir dir;
    Maced maced = start(dir, checkouts(1), R"({"kind": "local"})", "", false);
    const std::string id = run(maced, plan_of(configs_), "queue");
    for (const auto& row : query(dir.file("state/mace.db"),
                                 "SELECT task_id, build_id FROM tasks WHERE run_id = '" + id + "'"))
      build_ids_[row.at(0)] = row.at(1);
    for (const auto& c : configs_)
      if (build_ids_[c.id].empty()) throw std::runtime_error("no build ID found for " + c.id);
  }

  // The models of the hits, published into a store every measured maced starts from.
  void seed_store() {
    TempDir dir;
    Maced maced = start(dir, checkouts(2), R"({"kind": "local"})", store_.file("models"), false);
    run(maced, plan_of(configs_, true), "queue");
  }

  // A previous exploration of these configurations, with their build times: the build
  // history every measured maced starts from.
  void record_history() {
    Maced maced = start(history_, checkouts(4), R"({"kind": "local"})", "", true);
    run(maced, plan_of(configs_), "queue");
    maced.instance->process().signal(SIGTERM);
    maced.instance->process().wait(std::chrono::seconds(60));
  }

  struct Result {
    double makespan = 0, lower_bound = 0;
    double ratio() const { return makespan / lower_bound; }
  };

  // One exploration on `k` checouts of `executor`, dispatched as `mode`.
  Result measure(const std::string& executor, std::size_t k, const std::string& mode) {
    TempDir dir;
    fs::create_directories(dir.file("state"));
    for (const char* file : {"mace.db", "mace.db-wal"})
      if (fs::exists(history_.file(std::string("state/") + file)))
        fs::copy_file(history_.file(std::string("state/") + file), dir.file(std::string("state/") + file));
    fs::copy(store_.file("models"), dir.file("models"), fs::copy_options::recursive);
    std::string executor_json = R"({"kind": "local"})";
    std::vector<std::string> nodes(k, "local");
    if (executor == "slurm") {
      auto& cluster = mace::testing::SlurmCluster::shared();
      for (std::size_t i = 0; i < k; ++i) nodes[i] = cluster.nodes()[i % cluster.nodes().size()];
      executor_json = R"({"kind": "slurm", "slurm": {"gres": "openpiton:1",
        "build": {"cpus": 1, "memory_mb": 200}, "simulate": {"cpus": 1, "memory_mb": 200},
        "environment": {"SLURM_CONF": ")" + cluster.conf() + R"("}}})";
    }
    Maced maced = start(dir, checkouts(k, nodes), executor_json, dir.file("models"), true);
    const std::string id = run(maced, plan_of(configs_), mode);
    Result result;
    double first = 1e300, last = 0, total = 0, longest = 0;
    for (const auto& row : query(dir.file("state/mace.db"),
                                 "SELECT started_at_ms, finished_at_ms FROM tasks WHERE run_id = '" + id + "'")) {
      const double start = std::stod(row.at(0)) / 1000, end = std::stod(row.at(1)) / 1000;
      first = std::min(first, start);
      last = std::max(last, end);
      total += end - start;
      longest = std::max(longest, end - start);
    }
    result.makespan = last - first;
    result.lower_bound = std::max(longest, total / static_cast<double>(k));
    return result;
  }

 private:
  struct Maced {
    std::vector<std::unique_ptr<FixtureCheckout>> checkouts;
    std::unique_ptr<MacedInstance> instance;
  };
  struct Placed {
    std::vector<std::unique_ptr<FixtureCheckout>> checkouts;
    std::vector<std::string> nodes;
  };

  // `k` fresh fixture checkouts whose builds take each configuration's time.
  Placed checkouts(std::size_t k, std::vector<std::string> nodes = {}) {
    Placed placed;
    nodes.resize(k, "local");
    placed.nodes = nodes;
    for (std::size_t i = 0; i < k; ++i) {
      placed.checkouts.push_back(std::make_unique<FixtureCheckout>());
      for (const auto& c : configs_)
        if (auto it = build_ids_.find(c.id); it != build_ids_.end())
          placed.checkouts.back()->set_control("build_sleep." + it->second, std::to_string(c.build_seconds));
    }
    return placed;
  }

  Maced start(const TempDir& dir, Placed placed, const std::string& executor, const std::string& store,
              bool store_enabled) {
    std::string list;
    for (std::size_t i = 0; i < placed.checkouts.size(); ++i)
      list += std::string(i ? ", " : "") + R"({"path": ")" + placed.checkouts[i]->root() +
              R"(", "node": ")" + placed.nodes[i] + R"("})";
    std::string store_json = store_enabled || !store.empty()
                                 ? R"({"path": ")" + (store.empty() ? dir.file("models") : store) + R"("})"
                                 : R"({"enabled": false})";
    dir.write("maced.json", R"({"checkouts": [)" + list + R"(], "executor": )" + executor +
                                R"(, "model_store": )" + store_json + "}");
    MacedOptions maced_options;
    maced_options.extra_args = {"--config", dir.file("maced.json"), "--workloads",
                                mace::testing::source_root() + "/workloads"};
    maced_options.process.set_env["MACE_VERTEX_ENDPOINT"] = vertex_.base_url();
    Maced maced;
    maced.checkouts = std::move(placed.checkouts);
    maced.instance = std::make_unique<MacedInstance>(dir, maced_options);
    return maced;
  }

  // Submits the exploration, waits for it to pass, returns its run ID.
  std::string run(Maced& maced, const std::string& plan, const std::string& mode) {
    plan_ = plan;
    TempDir spec_dir;
    spec_dir.write("spec.json", R"({"core": "pico", "mesh": [1, 1], "workloads": ["add.S"],
      "objective": "Explore the L1.5 and L2 of a pico tile", "dispatch": ")" + mode + R"(",
      "budget": {"max_iterations": 1, "max_wall_s": 7200}})");
    auto submitted = maced.instance->mace({"submit", spec_dir.file("spec.json")});
    if (submitted.exit_code != 0) throw std::runtime_error("submit failed: " + submitted.err);
    const std::string id = submitted.out.substr(0, submitted.out.find('\n'));
    mace::testing::ProcessOptions wait;
    wait.timeout = std::chrono::hours(2);
    auto watched = maced.instance->mace({"watch", id}, wait);
    if (watched.exit_code != 0)
      throw std::runtime_error("run " + id + " did not pass:\n" + maced.instance->mace({"logs", id}).out);
    return id;
  }

  const Options& options_;
  std::vector<Configuration> configs_;
  FakeVertexServer vertex_;
  std::string plan_;
  std::map<std::string, std::string> build_ids_;
  TempDir history_, store_;
};

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--scale") options.scale = std::stod(value());
    else if (arg == "--seed") options.seed = static_cast<unsigned>(std::stoul(value()));
    else if (arg == "--configs") options.configs = std::stoul(value());
    else if (arg == "--hits") options.hits = std::stoul(value());
    else if (arg == "--no-slurm") options.slurm = false;
    else throw std::invalid_argument("unknown option " + arg);
  }
  if (options.configs < 1 || options.configs > std::size(kGeometries))
    throw std::invalid_argument("--configs must be from 1 to " + std::to_string(std::size(kGeometries)));
  if (options.scale <= 0 || options.scale > 1) throw std::invalid_argument("--scale must be in (0, 1]");
  return options;
}

void print_configurations(const std::vector<Configuration>& configs, const Options& options) {
  std::printf("%zu configurations (seed %u, build times x %.2f):\n", configs.size(), options.seed,
              options.scale);
  for (const auto& c : configs)
    std::printf("  %-4s %-26s %s\n", c.id.c_str(), c.caches.empty() ? "(defaults)" : c.caches.c_str(),
                c.store_hit ? "model store hit"
                            : (std::to_string(static_cast<int>(c.drawn->seconds)) + " s measured (" +
                               c.drawn->what + ") -> " + std::to_string(c.build_seconds).substr(0, 5) + " s")
                                  .c_str());
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options options = parse(argc, argv);
    const auto configs = draw(options);
    print_configurations(configs, options);
    std::vector<std::string> executors = {"local"};
    if (options.slurm) {
      auto& cluster = mace::testing::SlurmCluster::shared();
      if (cluster.available())
        executors.push_back("slurm");
      else
        std::printf("(no Slurm: %s)\n", cluster.why_not().c_str());
    }
    Bench bench(options, configs);
    bench.discover_build_ids();
    bench.seed_store();
    bench.record_history();
    std::printf("\n%-8s %2s  %28s  %28s\n", "executor", "K", "batches: makespan / bound", "queue: makespan / bound");
    for (const auto& executor : executors) {
      for (std::size_t k : {2, 3, 4}) {
        const auto batches = bench.measure(executor, k, "batches");
        const auto queue = bench.measure(executor, k, "queue");
        std::printf("%-8s %2zu  %7.1f s / %6.1f s = %5.2f  %7.1f s / %6.1f s = %5.2f\n", executor.c_str(), k,
                    batches.makespan, batches.lower_bound, batches.ratio(), queue.makespan,
                    queue.lower_bound, queue.ratio());
        std::fflush(stdout);
      }
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "makespan_bench: " << e.what() << "\n";
    return 1;
  }
}
