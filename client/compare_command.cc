// mace compare RUN[:TASK] RUN[:TASK] ...: designs side by side (design_comparison.h), each
// read from its run's status.

#include <iostream>

#include "answer_pages.h"
#include "commands.h"
#include "design_comparison.h"
#include "exit_codes.h"
#include "maced_connection.h"
#include "render.h"
#include "capnp_text.h"

namespace mace::client {
namespace {

// More designs than a table can show side by side are a mistake, not a comparison.
constexpr std::size_t kMaxDesigns = 16;

struct DesignName {
  std::string run_id;
  std::string task_id;  // "": the run's own (see pick_task)
};

std::optional<DesignName> parse_design_name(const std::string& arg) {
  const std::size_t colon = arg.find(':');
  DesignName name{arg.substr(0, colon), colon == std::string::npos ? "" : arg.substr(colon + 1)};
  if (name.run_id.empty() || (colon != std::string::npos && name.task_id.empty())) return std::nullopt;
  return name;
}

// The task a design names: TASK's last iteration; without TASK, the run's last task that
// passed, else its last task that simulated anything. Throws std::invalid_argument saying
// what the run has instead.
api::TaskState::Reader pick_task(api::RunDetail::Reader run, const DesignName& name) {
  std::optional<api::TaskState::Reader> picked;
  std::string known;
  for (auto t : run.getTasks()) {
    known += (known.empty() ? "" : ", ") + text(t.getTaskId());
    if (!name.task_id.empty()) {
      if (t.getTaskId() == name.task_id.c_str()) picked = t;
    } else if (t.getResults().size() > 0 || t.getStage() == api::TaskStage::PASSED) {
      if (!picked || t.getStage() == api::TaskStage::PASSED || picked->getStage() != api::TaskStage::PASSED)
        picked = t;
    }
  }
  if (picked) return *picked;
  if (!name.task_id.empty())
    throw std::invalid_argument("run " + name.run_id + " has no task " + name.task_id +
                                (known.empty() ? "" : " (its tasks: " + known + ")"));
  throw std::invalid_argument("run " + name.run_id + " has no task that simulated its workloads" +
                              (known.empty() ? "" : " (its tasks: " + known + "); name one as RUN:TASK"));
}

ComparedDesign compared_design(api::RunDetail::Reader run, api::TaskState::Reader t) {
  ComparedDesign d;
  d.run_id = text(run.getSummary().getRunId());
  d.task_id = text(t.getTaskId());
  d.iteration = t.getIteration();
  d.run_state = state_name(run.getSummary().getState());
  if (has_configuration(t)) d.configuration = design_configuration(t);
  d.build = build_figures_text(t);
  for (auto w : run.getSummary().getWorkloads()) d.gate_workloads.push_back(text(w));
  for (auto r : t.getResults()) {
    ComparedResult result;
    result.workload = text(r.getWorkload());
    result.verdict = verdict_name(r.getVerdict());
    if (r.getCycles() >= 0) result.cycles = r.getCycles();
    if (r.getVerdictTime() >= 0) result.verdict_time = r.getVerdictTime();
    result.wall_s = r.getWallS();
    d.results.push_back(std::move(result));
  }
  return d;
}

}  // namespace

int cmd_compare(const GlobalOptions& global, const Arguments& args) {
  const char* usage = "usage: mace compare RUN[:TASK] RUN[:TASK]... [--csv]\n";
  if (args.positional.size() < 2 || args.positional.size() > kMaxDesigns) {
    std::cerr << usage << "(two to " << kMaxDesigns << " designs)\n";
    return kExitBadInput;
  }
  if (global.json && args.has("--csv")) {
    std::cerr << "mace compare: --json and --csv are two outputs; choose one\n";
    return kExitBadInput;
  }
  std::vector<DesignName> names;
  for (const auto& arg : args.positional) {
    auto name = parse_design_name(arg);
    if (!name) {
      std::cerr << "mace compare: \"" << arg << "\" is not RUN or RUN:TASK\n" << usage;
      return kExitBadInput;
    }
    names.push_back(*name);
  }
  return with_maced(global.socket_path, [&](api::Maced::Client& maced, kj::AsyncIoContext& io) {
    std::vector<ComparedDesign> designs;
    for (const auto& name : names) {
      // Every task of the run, however many pages its detail takes.
      auto whole = whole_run_detail(maced, io.waitScope, name.run_id);
      const auto run = whole->getRoot<api::RunDetail>().asReader();
      try {
        designs.push_back(compared_design(run, pick_task(run, name)));
      } catch (const std::invalid_argument& e) {
        std::cerr << "mace compare: " << e.what() << "\n";
        return kExitBadInput;
      }
    }
    const Comparison comparison = compare_designs(std::move(designs));
    if (global.json)
      std::cout << comparison_json(comparison) << "\n";
    else if (args.has("--csv"))
      std::cout << comparison_csv(comparison);
    else
      std::cout << comparison_text(comparison);
    return kExitOk;
  });
}

}  // namespace mace::client
