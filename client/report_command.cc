// mace report RUN -o FILE.html: the run as one self-contained page (report_page.h), made
// from what maced already answers: the run's detail, its events (the watch history) and
// its LLM calls.

#include <fstream>
#include <iostream>

#include "answer_pages.h"
#include "commands.h"
#include "core/run_outcome.h"
#include "exit_codes.h"
#include "maced_connection.h"
#include "render.h"
#include "report_page.h"

namespace mace::client {
namespace {

// The run's events as JSON objects, collected from a watch: the history comes at once,
// then the listener is done when the run is final, or the report is made from the
// history when the run is still going (nothing more arrives for a moment).
class CollectingListener final : public api::RunListener::Server {
 public:
  explicit CollectingListener(JsonWriter& events) : events_(events) {}
  bool final_seen() const { return final_; }
  int64_t count() const { return count_; }

 protected:
  kj::Promise<void> event(EventContext context) override {
    write_json(events_, context.getParams().getEvent());
    ++count_;
    return kj::READY_NOW;
  }
  kj::Promise<void> done(DoneContext) override {
    final_ = true;
    return kj::READY_NOW;
  }

 private:
  JsonWriter& events_;
  bool final_ = false;
  int64_t count_ = 0;
};

}  // namespace

int cmd_report(const GlobalOptions& global, const Arguments& args) {
  const auto output = args.value("-o");
  if (args.positional.size() != 1 || !output || output->empty()) {
    std::cerr << "usage: mace report RUN -o FILE.html\n";
    return kExitBadInput;
  }
  const std::string& run_id = args.positional[0];
  return with_maced(global.socket_path, [&](api::Maced::Client& maced, kj::AsyncIoContext& io) {
    JsonWriter data;
    data.begin_object();

    auto whole = whole_run_detail(maced, io.waitScope, run_id);
    const auto detail = whole->getRoot<api::RunDetail>().asReader();
    data.key("run");
    write_json(data, detail.getSummary());
    const auto planner = planner_kind_from_string(detail.getSummary().getPlanner().cStr());
    data.field("planner_description", planner ? std::string(describe(*planner)) : std::string());
    data.key("tasks").begin_array();
    for (auto t : detail.getTasks()) write_json(data, t);
    data.end_array();
    data.key("diagnoses").begin_array();
    for (auto d : detail.getDiagnoses()) write_json(data, d);
    data.end_array();
    data.key("narrowing_builds").begin_array();
    for (auto n : detail.getNarrowingBuilds()) write_json(data, n);
    data.end_array();
    data.key("post_mortem");
    write_json(data, detail.getPostMortem());

    data.key("calls").begin_array();
    for (const auto& page : call_pages(maced, io.waitScope, run_id))
      for (auto c : page.getCalls()) write_json(data, c);
    data.end_array();

    data.key("events").begin_array();
    auto listener = kj::heap<CollectingListener>(data);
    CollectingListener& collected = *listener;
    auto watch = maced.watchRequest();
    watch.setRunId(run_id);
    watch.setListener(kj::mv(listener));
    watch.setAfterSeq(0);
    auto subscription = watch.send().wait(io.waitScope).getSubscription();
    auto& timer = io.provider->getTimer();
    int64_t seen = -1;
    while (!collected.final_seen() && collected.count() != seen) {
      seen = collected.count();
      timer.afterDelay(300 * kj::MILLISECONDS).wait(io.waitScope);
    }
    data.end_array();
    data.end_object();

    std::ofstream out(*output, std::ios::binary | std::ios::trunc);
    out << report_html(data.str());
    out.close();
    if (!out) {
      std::cerr << "mace report: cannot write " << *output << "\n";
      return kExitBadInput;
    }
    std::cout << *output << "\n";
    return kExitOk;
  });
}

}  // namespace mace::client
