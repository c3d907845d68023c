// mace compare RUN[:TASK] RUN[:TASK] ...: designs side by side (design_comparison.h), each
// read from its run's status.

#include <iostream>

#include "answer_pages.h"
#include "commands.h"
#include "design_comparison.h"
#include "run_designs.h"
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

void print(const GlobalOptions& global, const Arguments& args, const Comparison& comparison) {
  if (global.json)
    std::cout << comparison_json(comparison) << "\n";
  else if (args.has("--csv"))
    std::cout << comparison_csv(comparison);
  else
    std::cout << comparison_text(comparison);
}

// `mace compare RUN`: the run's own designs, its baseline first.
int compare_run_designs(const GlobalOptions& global, const Arguments& args, const std::string& run_id) {
  return with_maced(global.socket_path, [&](api::Maced::Client& maced, kj::AsyncIoContext& io) {
    auto whole = whole_run_detail(maced, io.waitScope, run_id);
    const auto run = whole->getRoot<api::RunDetail>().asReader();
    const auto comparison = run_designs_comparison(run);
    if (!comparison) {
      std::cerr << "mace compare: run " << run_id
                << " built fewer than two designs in its last iteration; name designs to compare as "
                   "RUN:TASK RUN:TASK\n";
      return kExitBadInput;
    }
    print(global, args, *comparison);
    return kExitOk;
  });
}

}  // namespace

int cmd_compare(const GlobalOptions& global, const Arguments& args) {
  const char* usage = "usage: mace compare RUN | RUN[:TASK] RUN[:TASK]... [--csv]\n";
  if (args.positional.empty() || args.positional.size() > kMaxDesigns) {
    std::cerr << usage << "(one run, or two to " << kMaxDesigns << " designs)\n";
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
  if (names.size() == 1) {
    if (!names[0].task_id.empty()) {
      std::cerr << "mace compare: one design alone compares with nothing; name another, or the run "
                   "alone for its own designs\n"
                << usage;
      return kExitBadInput;
    }
    return compare_run_designs(global, args, names[0].run_id);
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
    print(global, args, compare_designs(std::move(designs)));
    return kExitOk;
  });
}

}  // namespace mace::client
