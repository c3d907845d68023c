#include "slurm/slurm_allocation.h"

#include <chrono>
#include <optional>
#include <thread>
#include <vector>

#include "os/process_group.h"
#include "slurm/job_status.h"
#include "slurm/slurm_commands.h"

namespace mace::slurm {
namespace {

using std::chrono::milliseconds;

// salloc is given the pending limit to be granted (--immediate); this much more before
// maced stops waiting for salloc itself.
constexpr std::chrono::seconds kSallocGrace{30};
// After a step's srun ended: how long the step may take to leave the allocation before it
// is cancelled by its ID.
constexpr milliseconds kStepLeaveLimit{5000};

// How long a step's "Node failure" may wait for the controller to end the allocation.
constexpr milliseconds kNodeFailureNotice{10000};

// srun's and slurmstepd's words for a step its node failed under.
bool says_node_failed(std::string_view output) {
  return output.find("srun: error: Node failure on") != std::string_view::npos ||
         output.find("DUE TO NODE FAILURE") != std::string_view::npos;
}

// What every runner of one allocation shares; the allocation is released when it goes.
struct Allocation {
  std::shared_ptr<const SlurmSettings> settings;
  std::shared_ptr<JobObserver> observer;
  SubmittedJob job;

  Allocation() = default;
  Allocation(const Allocation&) = delete;
  Allocation& operator=(const Allocation&) = delete;
  ~Allocation() { release(*settings, observer.get(), job); }

  static void release(const SlurmSettings& settings, JobObserver* observer, const SubmittedJob& job) {
    std::optional<JobStatus> last;
    try {
      const SlurmCommands commands(settings);
      commands.cancel_and_wait({job.id}, settings.cleanup_limit);
      last = commands.job(job.id);
    } catch (const CommandFailure&) {
      // The observer's record and the keeper still cancel it.
    }
    if (!observer) return;
    try {
      observer->ended(job, last ? last->state : std::string(), "");
    } catch (...) {
    }
  }
};

class AllocationRunner final : public os::CommandRunner,
                               public std::enable_shared_from_this<AllocationRunner> {
 public:
  AllocationRunner(std::shared_ptr<const Allocation> allocation, Placement placement)
      : allocation_(std::move(allocation)), placement_(std::move(placement)) {}

  os::ProcessResult run(const os::ProcessSpec& spec, const os::CancelToken* cancel) const override {
    if (auto refused = not_started(spec, cancel)) return *refused;
    const SlurmSettings& settings = *allocation_->settings;
    const SlurmCommands commands(settings);
    const std::string& id = allocation_->job.id;
    const std::string step_name = job_name(placement_, spec.purpose) + ":" + next_job_token();
    os::ProcessSpec srun = spec;
    srun.argv = step_argv(settings, placement_, spec, commands.program("srun"), id, step_name);
    srun.env = srun_environment(spec.env, commands.environment());
    // srun obeys the caller's token and timeout by being stopped: its step dies with it.
    os::ProcessResult result = os::run_process_group(srun, cancel);
    // What the kernel accounted is srun's, a client that only waited.
    result.usage.reset();
    leave(commands, step_name);
    if (result.cancelled || result.timed_out || result.launch_failed) return result;
    if (result.exit_code == 0 && !says_node_failed(result.tail)) return result;
    judge_failure(commands, result);
    return result;
  }

  std::shared_ptr<const os::CommandRunner> labelled(const std::string& label) const override {
    Placement placement = placement_;
    placement.label = label;
    return std::make_shared<const AllocationRunner>(allocation_, std::move(placement));
  }

  std::shared_ptr<const os::CommandRunner> side_by_side(std::size_t, const os::CancelToken*,
                                                        std::string&) const override {
    return shared_from_this();
  }

 private:
  // Nothing of the step may outlive run(): a step still listed is cancelled by its ID.
  void leave(const SlurmCommands& commands, const std::string& step_name) const {
    const auto give_up = std::chrono::steady_clock::now() + kStepLeaveLimit;
    auto pause = milliseconds(10);
    bool cancelled = false;
    while (true) {
      std::vector<std::string> ours;
      try {
        for (const auto& [step, name] : commands.steps_of(allocation_->job.id))
          if (name == step_name) ours.push_back(step);
      } catch (const CommandFailure&) {
        return;  // the allocation's release cancels whatever is left
      }
      if (ours.empty()) return;
      if (!cancelled && std::chrono::steady_clock::now() >= give_up) {
        try {
          commands.cancel(ours);
        } catch (const CommandFailure&) {
          return;
        }
        cancelled = true;
      } else if (cancelled && std::chrono::steady_clock::now() >= give_up + allocation_->settings->cleanup_limit) {
        return;
      }
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, milliseconds(500));
    }
  }

  // A step that failed: its own command's doing while the allocation still runs, the
  // host's when the allocation ended under it, a launch failure when srun could not
  // start it.
  void judge_failure(const SlurmCommands& commands, os::ProcessResult& result) const {
    const std::string& node = placement_.node;
    // srun hears of a node failure before the controller has ended the allocation: its
    // words are waited on (bounded) until the allocation's state says it too.
    const bool node_failed = says_node_failed(result.tail);
    const auto give_up = std::chrono::steady_clock::now() + kNodeFailureNotice;
    std::optional<JobStatus> allocation;
    while (true) {
      try {
        allocation = commands.job(allocation_->job.id);
      } catch (const CommandFailure&) {
        return;
      }
      if (!node_failed || !allocation || !is_running(*allocation) ||
          std::chrono::steady_clock::now() >= give_up)
        break;
      std::this_thread::sleep_for(milliseconds(200));
    }
    if (allocation && is_running(*allocation) && node_failed) {
      result.host_stop = os::HostStop::node_failure;
      result.host_stop_detail = "Slurm allocation " + allocation_->job.id + " lost its step on node " +
                                node + ": " + complaint(result.tail, "srun");
      tell_if_node_unavailable(commands);
      return;
    }
    if (allocation && is_running(*allocation)) {
      const std::string said = complaint(result.tail, "srun");
      if (said.find("srun: error: Unable to create step") != std::string::npos) {
        result.launch_failed = true;
        result.error = "srun could not start a step in allocation " + allocation_->job.id +
                       " on node " + node + ": " + said;
      }
      return;
    }
    std::optional<NodeStatus> node_now;
    try {
      node_now = commands.node(node);
    } catch (const CommandFailure&) {
    }
    if (!allocation) {
      result.host_stop = os::HostStop::node_failure;
      result.host_stop_detail = "Slurm allocation " + allocation_->job.id + " on node " + node +
                                " was gone before its step ended";
    } else {
      JobStatus ended = *allocation;
      ended.wait_status.reset();  // the allocation's, not the step's
      apply_final_state(ended, node, node_now, result);
      if (result.host_stop == os::HostStop::none && !result.timed_out) {
        result.host_stop = os::HostStop::node_failure;
        result.host_stop_detail = "Slurm allocation " + ended.id + " on node " + node + " ended " +
                                  ended.state + " under its step";
      }
    }
    if (node_now && !accepts_work(*node_now)) tell_node_unavailable(describe_node(node, *node_now));
  }

  void tell_if_node_unavailable(const SlurmCommands& commands) const {
    try {
      if (auto node = commands.node(placement_.node); node && !accepts_work(*node))
        tell_node_unavailable(describe_node(placement_.node, *node));
    } catch (const CommandFailure&) {
    }
  }

  void tell_node_unavailable(const std::string& why) const {
    if (!allocation_->observer) return;
    try {
      allocation_->observer->node_unavailable(placement_.node, why);
    } catch (...) {
    }
  }

  std::shared_ptr<const Allocation> allocation_;
  Placement placement_;
};

// "salloc: Granted job allocation 42" → "42".
std::string granted_id(std::string_view output) {
  constexpr std::string_view kGranted = "Granted job allocation ";
  const auto at = output.find(kGranted);
  if (at == std::string_view::npos) return "";
  std::string id;
  for (std::size_t i = at + kGranted.size(); i < output.size() && output[i] >= '0' && output[i] <= '9'; ++i)
    id += output[i];
  return id;
}

// The job salloc asked for, by its name and unique comment, whatever salloc said.
std::optional<JobStatus> find_allocation(const SlurmCommands& commands, const std::string& name,
                                         const std::string& comment) {
  try {
    for (auto& job : commands.jobs_named(name))
      if (job.comment == comment) return job;
  } catch (const CommandFailure&) {
  }
  return std::nullopt;
}

}  // namespace

std::shared_ptr<const os::CommandRunner> hold_allocation(std::shared_ptr<const SlurmSettings> settings,
                                                         Placement placement,
                                                         std::shared_ptr<JobObserver> observer,
                                                         std::size_t steps,
                                                         const os::CancelToken* cancel,
                                                         std::string& why) {
  if (cancel && cancel->cancelled()) {
    why = "the run was cancelled";
    return nullptr;
  }
  const SlurmCommands commands(*settings);
  try {
    const auto node = commands.node(placement.node);
    if (!node) {
      why = "Slurm has no node named " + placement.node;
      return nullptr;
    }
    if (!accepts_work(*node)) {
      why = describe_node(placement.node, *node);
      return nullptr;
    }
  } catch (const CommandFailure& failure) {
    why = "cannot ask Slurm about node " + placement.node + ": " + failure.message;
    return nullptr;
  }

  SubmittedJob job{.id = "", .name = allocation_name(placement),
                   .comment = job_comment(settings->instance, next_job_token()),
                   .node = placement.node, .checkout = placement.checkout, .purpose = "workloads"};
  os::ProcessSpec salloc;
  salloc.argv = salloc_argv(*settings, placement, steps, commands.program("salloc"), job.comment,
                            settings->pending_limit);
  salloc.env = srun_environment({}, commands.environment());
  salloc.working_dir = "/";
  salloc.timeout = std::chrono::duration_cast<milliseconds>(settings->pending_limit + kSallocGrace);
  salloc.kill_grace = std::chrono::seconds(2);
  salloc.tail_bytes = 16 * 1024;
  const os::ProcessResult asked = os::run_process_group(salloc, cancel);

  job.id = granted_id(asked.tail);
  std::optional<JobStatus> found = find_allocation(commands, job.name, job.comment);
  if (job.id.empty() && found) job.id = found->id;
  if (job.id.empty()) {
    why = asked.cancelled ? "the run was cancelled"
          : asked.launch_failed ? "salloc cannot be run: " + asked.error
                                : "salloc got no allocation on node " + placement.node + ": " +
                                      complaint(asked.tail, "salloc");
    return nullptr;
  }
  // Told before anything waits on it: a maced that dies from here on leaves it to the keeper.
  if (observer) {
    try {
      observer->submitted(job);
    } catch (...) {
    }
  }
  auto allocation = std::make_shared<Allocation>();
  allocation->settings = settings;
  allocation->observer = observer;
  allocation->job = job;
  std::optional<JobStatus> now;
  try {
    now = commands.job(job.id);
  } catch (const CommandFailure&) {
  }
  if (asked.cancelled || asked.timed_out || asked.exit_code != 0 || !now || !is_running(*now)) {
    why = asked.cancelled ? "the run was cancelled"
                          : "Slurm did not grant allocation " + job.id + " on node " + placement.node +
                                (now ? " (" + now->state + (now->reason.empty() || now->reason == "None" ? "" : ", " + now->reason) + ")" : "") +
                                ": " + complaint(asked.tail, "salloc");
    return nullptr;  // the allocation's release cancels it
  }
  return std::make_shared<const AllocationRunner>(std::move(allocation), std::move(placement));
}

}  // namespace mace::slurm
