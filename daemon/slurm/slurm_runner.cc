#include "slurm/slurm_runner.h"

#include <unistd.h>

#include <atomic>
#include <mutex>
#include <optional>
#include <thread>

#include "os/process_group.h"
#include "os/text.h"
#include "slurm/job_status.h"
#include "slurm/slurm_allocation.h"
#include "slurm/slurm_commands.h"

namespace mace::slurm {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// How often the monitor looks at the caller's token and the clock: a cancel reaches Slurm
// within this.
constexpr milliseconds kTick{20};
// srun asks for its job within a few ms of starting: until the job is found (and recorded,
// and known to the keeper), squeue is asked at every tick, for at most this long.
constexpr milliseconds kEagerLookup{3000};
// How often a job is looked at while it waits or runs.
constexpr milliseconds kStatusInterval{1000};
// How often a pending job's node is asked after (sinfo).
constexpr milliseconds kNodeCheckInterval{5000};
// After maced cancelled a job: how long srun may take to notice before it is killed.
constexpr milliseconds kSrunGrace{10000};

std::string seconds_text(milliseconds ms) { return std::to_string((ms.count() + 999) / 1000) + " s"; }

// Why maced itself stopped a job.
enum class OwnStop { none, cancelled, timed_out, never_started, node_failure };

// What the monitor thread and the runner share about one job.
struct JobWatch {
  std::mutex mutex;
  SubmittedJob job;  // id empty until found
  OwnStop stop = OwnStop::none;
  std::string stop_detail;
};

class Run {
 public:
  Run(const SlurmSettings& settings, const Placement& placement, JobObserver* observer,
      const os::ProcessSpec& spec, const os::CancelToken* cancel)
      : settings_(settings),
        placement_(placement),
        observer_(observer),
        spec_(spec),
        cancel_(cancel),
        commands_(settings) {}

  os::ProcessResult go() {
    if (auto refused = not_started(spec_, cancel_)) return *refused;
    os::ProcessResult result;
    if (!node_accepts_work(result)) return result;

    watch_.job.name = job_name(placement_, spec_.purpose);
    watch_.job.comment = job_comment(settings_.instance, next_job_token());
    watch_.job.node = placement_.node;
    watch_.job.checkout = placement_.checkout;
    watch_.job.purpose = std::string(os::to_string(spec_.purpose));

    os::ProcessSpec srun = spec_;
    srun.argv = srun_argv(settings_, placement_, spec_, commands_.program("srun"), watch_.job.comment);
    srun.env = srun_environment(spec_.env, commands_.environment());
    srun.timeout = milliseconds(0);  // the monitor keeps the time, and tells Slurm to stop
    started_ = Clock::now();
    std::thread monitor([this] { monitor_job(); });
    result = os::run_process_group(srun, &stop_srun_);
    srun_done_.cancel();
    monitor.join();
    return conclude(std::move(result));
  }

 private:
  // The node's state before anything is submitted: a node that takes no work fails the
  // command at once and is reported, instead of a job that pends until the limit.
  bool node_accepts_work(os::ProcessResult& result) {
    std::optional<NodeStatus> node;
    try {
      node = commands_.node(placement_.node);
    } catch (const CommandFailure& failure) {
      result.launch_failed = true;
      result.error = "cannot ask Slurm about node " + placement_.node + ": " + failure.message;
      return false;
    }
    if (!node) {
      result.launch_failed = true;
      result.error = "Slurm has no node named " + placement_.node;
      return false;
    }
    if (accepts_work(*node)) return true;
    const std::string why = describe_node(placement_.node, *node);
    result.host_stop = os::HostStop::node_failure;
    result.host_stop_detail = why + "; nothing was started there";
    tell_node_unavailable(why);
    return false;
  }

  void monitor_job() {
    std::optional<Clock::time_point> deadline;
    if (spec_.timeout.count() > 0) deadline = started_ + spec_.timeout;
    auto next_query = started_;
    auto next_node_check = started_ + kNodeCheckInterval;
    bool acted = false;
    std::optional<Clock::time_point> srun_must_end_by;

    while (!srun_done_.wait_for(kTick)) {
      const auto now = Clock::now();
      if (own_stop() == OwnStop::none) {
        if (cancel_ && cancel_->cancelled())
          decide(OwnStop::cancelled, "");
        else if (deadline && now >= *deadline)
          decide(OwnStop::timed_out, "");
      }
      if (now >= next_query && own_stop() == OwnStop::none) {
        if (job_id().empty()) {
          find_job();
          next_query = now + (now - started_ < kEagerLookup ? kTick : kStatusInterval);
        } else {
          look_at_job(now, next_node_check);
          next_query = now + kStatusInterval;
        }
      }
      if (own_stop() != OwnStop::none && !acted) {
        acted = true;
        stop_job();
        srun_must_end_by = Clock::now() + kSrunGrace + settings_.cleanup_limit;
      }
      if (srun_must_end_by && Clock::now() >= *srun_must_end_by) stop_srun_.cancel();
    }
  }

  // Finds the job srun submitted by its name and unique comment, and tells the observer.
  void find_job() {
    std::vector<JobStatus> jobs;
    try {
      jobs = commands_.jobs_named(watch_.job.name);
    } catch (const CommandFailure&) {
      return;  // the next look tries again
    }
    for (const auto& job : jobs) {
      if (job.comment != watch_.job.comment) continue;
      SubmittedJob found;
      {
        std::lock_guard lock(watch_.mutex);
        if (!watch_.job.id.empty()) return;
        watch_.job.id = job.id;
        found = watch_.job;
      }
      if (observer_) {
        try {
          observer_->submitted(found);
        } catch (...) {
          // The observer records what it can; the job is followed regardless.
        }
      }
      return;
    }
  }

  // A pending job past the limit is cancelled; one whose node stopped taking work is too,
  // and one Slurm requeued (its work on the node was lost: the task runs again elsewhere).
  void look_at_job(Clock::time_point now, Clock::time_point& next_node_check) {
    std::optional<JobStatus> job;
    try {
      job = commands_.job(job_id());
    } catch (const CommandFailure&) {
      return;
    }
    if (job && is_requeued(*job)) {
      decide(OwnStop::node_failure, "Slurm job " + job->id + " on node " + placement_.node +
                                        " was requeued" +
                                        (job->reason.empty() || job->reason == "None" ? "" : " (" + job->reason + ")"));
      return;
    }
    if (!job || !is_pending(*job)) return;
    const auto waited = std::chrono::duration_cast<milliseconds>(now - started_);
    if (now >= next_node_check) {
      next_node_check = now + kNodeCheckInterval;
      try {
        if (auto node = commands_.node(placement_.node); node && !accepts_work(*node)) {
          const std::string why = describe_node(placement_.node, *node);
          decide(OwnStop::node_failure, "Slurm job " + job->id + " waited " + seconds_text(waited) +
                                            " for its node, and " + why);
          tell_node_unavailable(why);
          return;
        }
      } catch (const CommandFailure&) {
      }
    }
    if (waited >= settings_.pending_limit) {
      std::string detail = "Slurm job " + job->id + " was still pending after " +
                           seconds_text(waited) + " (the limit is " +
                           seconds_text(settings_.pending_limit) + ") waiting for node " +
                           placement_.node;
      if (!job->reason.empty() && job->reason != "None") detail += ": " + job->reason;
      decide(OwnStop::never_started, std::move(detail));
    }
  }

  void stop_job() {
    if (job_id().empty()) find_job();
    const std::string id = job_id();
    if (id.empty()) {
      // Not known yet: srun, told to stop, withdraws its own request; the job is looked up
      // by name afterwards and cancelled if it still exists.
      stop_srun_.cancel();
      return;
    }
    try {
      commands_.cancel({id});
    } catch (const CommandFailure&) {
      stop_srun_.cancel();  // srun cancels its job when it is stopped
    }
  }

  os::ProcessResult conclude(os::ProcessResult result) {
    // srun's own cancel and timeout flags are ours, not the caller's; they are set below.
    result.cancelled = false;
    result.timed_out = false;
    // What the kernel accounted here is srun's, a client that only waited: the command ran
    // on the node, and its use is not known here.
    result.usage.reset();
    if (job_id().empty()) find_job();
    const std::string id = job_id();
    const OwnStop stop = own_stop();
    if (id.empty()) {
      if (stop == OwnStop::none && !result.launch_failed) {
        result.launch_failed = true;
        result.error = "srun could not start a job on node " + placement_.node + ": " +
                       complaint(result.tail, "srun");
      }
      return with_own_stop(std::move(result), stop);
    }

    std::optional<JobStatus> final_state = wait_until_gone(id);
    result = with_own_stop(std::move(result), stop);
    if (stop == OwnStop::none && final_state && refused_before_a_node(*final_state)) {
      result.launch_failed = true;
      result.error = "Slurm refused job " + id + " for node " + placement_.node +
                     (final_state->reason.empty() ? "" : " (" + final_state->reason + ")") +
                     ": " + complaint(result.tail, "srun");
    } else if (stop == OwnStop::none && final_state) {
      std::optional<NodeStatus> node_now;
      if (!ended_by_its_command(*final_state)) {
        try {
          node_now = commands_.node(placement_.node);
        } catch (const CommandFailure&) {
        }
      }
      apply_final_state(*final_state, placement_.node, node_now, result);
      if (result.host_stop == os::HostStop::node_failure && node_now && !accepts_work(*node_now))
        tell_node_unavailable(describe_node(placement_.node, *node_now));
    }
    if (observer_) {
      SubmittedJob job;
      {
        std::lock_guard lock(watch_.mutex);
        job = watch_.job;
      }
      try {
        observer_->ended(job, final_state ? final_state->state : std::string(),
                         result.host_stop_detail);
      } catch (...) {
      }
    }
    return result;
  }

  // Waits (bounded) until Slurm no longer counts the job as live, cancelling it again if
  // it is still there at the limit; its last state, when Slurm still knows it.
  std::optional<JobStatus> wait_until_gone(const std::string& id) {
    const auto give_up = Clock::now() + settings_.cleanup_limit;
    auto pause = milliseconds(10);
    std::optional<JobStatus> last;
    while (true) {
      try {
        last = commands_.job(id);
      } catch (const CommandFailure&) {
        last.reset();
      }
      if (!last || !is_live(*last)) return last;
      if (Clock::now() >= give_up) break;
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, milliseconds(500));
    }
    // srun is gone but the job lingers: maced must not hand the checkout on with it there.
    try {
      commands_.cancel_and_wait({id}, std::chrono::seconds(30));
      last = commands_.job(id);
    } catch (const CommandFailure&) {
    }
    return last;
  }

  os::ProcessResult with_own_stop(os::ProcessResult result, OwnStop stop) {
    switch (stop) {
      case OwnStop::none: break;
      case OwnStop::cancelled: result.cancelled = true; break;
      case OwnStop::timed_out: result.timed_out = true; break;
      case OwnStop::never_started:
        result.host_stop = os::HostStop::never_started;
        result.host_stop_detail = stop_detail();
        break;
      case OwnStop::node_failure:
        result.host_stop = os::HostStop::node_failure;
        result.host_stop_detail = stop_detail();
        break;
    }
    return result;
  }

  void decide(OwnStop stop, std::string detail) {
    std::lock_guard lock(watch_.mutex);
    if (watch_.stop != OwnStop::none) return;
    watch_.stop = stop;
    watch_.stop_detail = std::move(detail);
  }
  OwnStop own_stop() {
    std::lock_guard lock(watch_.mutex);
    return watch_.stop;
  }
  std::string stop_detail() {
    std::lock_guard lock(watch_.mutex);
    return watch_.stop_detail;
  }
  std::string job_id() {
    std::lock_guard lock(watch_.mutex);
    return watch_.job.id;
  }
  void tell_node_unavailable(const std::string& why) {
    if (!observer_) return;
    try {
      observer_->node_unavailable(placement_.node, why);
    } catch (...) {
    }
  }

  const SlurmSettings& settings_;
  const Placement& placement_;
  JobObserver* observer_;
  const os::ProcessSpec& spec_;
  const os::CancelToken* cancel_;
  SlurmCommands commands_;
  JobWatch watch_;
  os::CancelToken srun_done_;  // cancelled when srun has returned: the monitor stops
  os::CancelToken stop_srun_;  // cancelled to stop srun itself
  Clock::time_point started_;
};

}  // namespace

SlurmRunner::SlurmRunner(std::shared_ptr<const SlurmSettings> settings, Placement placement,
                         std::shared_ptr<JobObserver> observer)
    : settings_(std::move(settings)), placement_(std::move(placement)), observer_(std::move(observer)) {}

os::ProcessResult SlurmRunner::run(const os::ProcessSpec& spec, const os::CancelToken* cancel) const {
  return Run(*settings_, placement_, observer_.get(), spec, cancel).go();
}

std::shared_ptr<const os::CommandRunner> SlurmRunner::labelled(const std::string& label) const {
  Placement placement = placement_;
  placement.label = label;
  return std::make_shared<const SlurmRunner>(settings_, std::move(placement), observer_);
}

std::shared_ptr<const os::CommandRunner> SlurmRunner::side_by_side(std::size_t at_once,
                                                                   const os::CancelToken* cancel,
                                                                   std::string& why) const {
  return hold_allocation(settings_, placement_, observer_, at_once, cancel, why);
}

}  // namespace mace::slurm
