// mace watch RUN: the run's history, then its live progress, until it is final.

#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <memory>

#include "commands.h"
#include "core/json_writer.h"
#include "escaped_output.h"
#include "exit_codes.h"
#include "live_view.h"
#include "maced_connection.h"
#include "maced_refusal.h"
#include "render.h"

namespace mace::client {
namespace {

struct Outcome {
  api::RunState state = api::RunState::ERROR;
  std::string run_id;
  std::string reason;
};

// What the watch prints: on a terminal, each event as a line for people with the live
// view (live_view.h) redrawn below them; otherwise, or with --json, each event as one JSON
// object on a line of its own (JSON Lines, docs/client.md). Shared by the
// listener, which maced may drop at any time, and the clock that redraws the view.
class Screen {
 public:
  Screen(bool json, bool live) : json_(json), live_(live) {}

  void event(api::Event::Reader e) {
    clear_view();
    if (json_) {
      JsonWriter w;
      w.begin_object().key("event");
      write_json(w, e);
      w.end_object();
      std::cout << w.str() << "\n";
    } else {
      std::cout << human_event(e) << "\n";
    }
    view_.on_event(e);
    draw_view();
    std::cout.flush();
  }

  void done(api::RunSummary::Reader run) {
    clear_view();
    finished_ = true;
    if (json_) {
      JsonWriter w;
      w.begin_object().key("result");
      write_json(w, run);
      w.end_object();
      std::cout << w.str() << "\n";
    } else {
      std::cout << "run " << run.getRunId().cStr() << " " << outcome_word(run);
      if (run.getReason().size()) std::cout << " (" << run.getReason().cStr() << ")";
      std::cout << "\n";
    }
    std::cout.flush();
  }

  // Redraws the live view so its clocks move while no event comes.
  void tick() {
    if (!live_ || finished_) return;
    clear_view();
    draw_view();
  }

 private:
  // Erases the view's lines; the cursor ends at the start of its first line.
  void clear_view() {
    if (!live_ || drawn_ == 0) return;
    std::string erase = "\r\033[K";
    for (std::size_t i = 1; i < drawn_; ++i) erase += "\033[A\033[K";
    write_terminal_control(erase);
    drawn_ = 0;
  }
  void draw_view() {
    if (!live_) return;
    const auto lines = view_.lines(now_ms(), terminal_width());
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (i) std::cout << "\n";
      // The first line in reverse video; the lines' own text is escaped (live_view.cc).
      if (i == 0) write_terminal_control("\033[7m");
      std::cout << lines[i];
      if (i == 0) write_terminal_control("\033[0m");
    }
    drawn_ = lines.size();
    std::cout.flush();
  }
  static std::size_t terminal_width() {
    winsize size{};
    if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 1) return size.ws_col - 1;
    return 79;
  }
  static int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }

  bool json_;
  bool live_;
  bool finished_ = false;
  std::size_t drawn_ = 0;
  LiveView view_;
};

class PrintingListener final : public api::RunListener::Server {
 public:
  PrintingListener(std::shared_ptr<Screen> screen, kj::Own<kj::PromiseFulfiller<Outcome>> fulfiller)
      : screen_(std::move(screen)), fulfiller_(kj::mv(fulfiller)) {}

 protected:
  kj::Promise<void> event(EventContext context) override {
    screen_->event(context.getParams().getEvent());
    return kj::READY_NOW;
  }

  kj::Promise<void> done(DoneContext context) override {
    auto run = context.getParams().getResult().getSummary();
    screen_->done(run);
    fulfiller_->fulfill(Outcome{run.getState(), run.getRunId().cStr(), run.getReason().cStr()});
    return kj::READY_NOW;
  }

 private:
  std::shared_ptr<Screen> screen_;
  kj::Own<kj::PromiseFulfiller<Outcome>> fulfiller_;
};

kj::Promise<void> keep_ticking(kj::Timer& timer, std::shared_ptr<Screen> screen) {
  return timer.afterDelay(1 * kj::SECONDS).then([&timer, screen = std::move(screen)]() mutable {
    screen->tick();
    return keep_ticking(timer, std::move(screen));
  });
}

}  // namespace

int watch_run(const GlobalOptions& global, const std::string& run_id) {
  return with_maced(global.socket_path, [&](api::Maced::Client& maced, kj::AsyncIoContext& io) {
    auto paf = kj::newPromiseAndFulfiller<Outcome>();
    const bool terminal = ::isatty(STDOUT_FILENO);
    const bool json = global.json || !terminal;
    auto screen = std::make_shared<Screen>(json, terminal && !json);
    auto request = maced.watchRequest();
    request.setRunId(run_id);
    request.setListener(kj::heap<PrintingListener>(screen, kj::mv(paf.fulfiller)));
    request.setAfterSeq(0);
    auto response = answered(request.send().wait(io.waitScope));
    auto subscription = response.getSubscription();  // held until the run is final
    auto ticking = keep_ticking(io.provider->getTimer(), screen).eagerlyEvaluate(nullptr);
    Outcome outcome = paf.promise.wait(io.waitScope);
    return outcome.state == api::RunState::PASSED ? kExitOk : kExitRunNotPassed;
  });
}

void print_accepted_run(const GlobalOptions& global, const std::string& run_id,
                        const std::string& replay_of) {
  if (global.json) {
    JsonWriter w;
    w.begin_object().field("run_id", run_id);
    if (!replay_of.empty()) w.field("replay_of", replay_of);
    std::cout << w.end_object().str() << "\n";
  } else {
    std::cout << run_id << "\n";
  }
  std::cout.flush();
}

int watch_if_asked(const GlobalOptions& global, const Arguments& args, int rc,
                   const std::string& run_id) {
  if (rc != kExitOk || !args.has("--watch")) return rc;
  return watch_run(global, run_id);
}

int cmd_watch(const GlobalOptions& global, const Arguments& args) {
  if (args.positional.size() != 1) {
    std::cerr << "usage: mace watch RUN\n";
    return kExitBadInput;
  }
  return watch_run(global, args.positional[0]);
}

}  // namespace mace::client
