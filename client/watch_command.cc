// mace watch RUN: the run's history, then its live progress, until it is final.

#include <unistd.h>

#include <iostream>

#include "commands.h"
#include "exit_codes.h"
#include "maced_connection.h"
#include "render.h"

namespace mace::client {
namespace {

struct Outcome {
  api::RunState state = api::RunState::ERROR;
  std::string run_id;
  std::string reason;
};

// Prints events as they arrive. On a terminal it also keeps one status line at the
// bottom, redrawn after each event, so a long build shows it is alive.
class PrintingListener final : public api::RunListener::Server {
 public:
  PrintingListener(bool json, bool live, kj::Own<kj::PromiseFulfiller<Outcome>> fulfiller)
      : json_(json), live_(live), fulfiller_(kj::mv(fulfiller)) {}

 protected:
  kj::Promise<void> event(EventContext context) override {
    auto e = context.getParams().getEvent();
    clear_status();
    if (json_) {
      JsonWriter w;
      w.begin_object().key("event");
      write_json(w, e);
      w.end_object();
      std::cout << w.str() << "\n";
    } else {
      std::cout << human_event(e) << "\n";
    }
    if (e.getKind() == api::EventKind::STATE_CHANGED || e.getKind() == api::EventKind::SUBMITTED)
      state_ = state_name(e.getState());
    if (e.getKind() == api::EventKind::TASK_STAGE)
      last_ = std::string(e.getTaskId().cStr()) + " " + stage_name(e.getStage());
    std::cout.flush();
    draw_status();
    return kj::READY_NOW;
  }

  kj::Promise<void> done(DoneContext context) override {
    auto run = context.getParams().getResult().getSummary();
    clear_status();
    if (json_) {
      JsonWriter w;
      w.begin_object().key("result");
      write_json(w, run);
      w.end_object();
      std::cout << w.str() << "\n";
    } else {
      std::cout << "run " << run.getRunId().cStr() << " " << state_name(run.getState());
      if (run.getReason().size()) std::cout << " (" << run.getReason().cStr() << ")";
      std::cout << "\n";
    }
    std::cout.flush();
    fulfiller_->fulfill(Outcome{run.getState(), run.getRunId().cStr(), run.getReason().cStr()});
    return kj::READY_NOW;
  }

 private:
  void clear_status() {
    if (live_ && drawn_) std::cout << "\r\033[K";
    drawn_ = false;
  }
  void draw_status() {
    if (!live_) return;
    std::cout << "\033[7m " << state_ << " \033[0m " << last_ << std::flush;
    drawn_ = true;
  }

  bool json_;
  bool live_;
  bool drawn_ = false;
  std::string state_ = "…";
  std::string last_;
  kj::Own<kj::PromiseFulfiller<Outcome>> fulfiller_;
};

}  // namespace

int watch_run(const GlobalOptions& global, const std::string& run_id) {
  return with_maced(global.socket_path, [&](api::Maced::Client& maced, kj::AsyncIoContext& io) {
    auto paf = kj::newPromiseAndFulfiller<Outcome>();
    bool live = !global.json && ::isatty(STDOUT_FILENO);
    auto request = maced.watchRequest();
    request.setRunId(run_id);
    request.setListener(kj::heap<PrintingListener>(global.json, live, kj::mv(paf.fulfiller)));
    request.setAfterSeq(0);
    auto response = request.send().wait(io.waitScope);
    auto subscription = response.getSubscription();  // held until the run is final
    Outcome outcome = paf.promise.wait(io.waitScope);
    return outcome.state == api::RunState::PASSED ? kExitOk : kExitRunNotPassed;
  });
}

int cmd_watch(const GlobalOptions& global, const Arguments& args) {
  if (args.positional.size() != 1) {
    std::cerr << "usage: mace watch RUN\n";
    return kExitBadInput;
  }
  return watch_run(global, args.positional[0]);
}

}  // namespace mace::client
