// mace status / list / logs / metrics / cancel / version: one request, one answer.

#include <unistd.h>

#include <iostream>

#include "answer_pages.h"
#include "commands.h"
#include "core/run_state.h"
#include "exit_codes.h"
#include "maced_connection.h"
#include "maced_refusal.h"
#include "queue_wait.h"
#include "render.h"
#include "run_designs.h"
#include "terminal_text.h"

namespace mace::client {
namespace {

bool one_run_argument(const Arguments& args, const char* usage) {
  if (args.positional.size() == 1) return true;
  std::cerr << "usage: " << usage << "\n";
  return false;
}

// From maced's checkouts and the queued runs ahead of the run (counted by maced), as
// `mace status` without a run shows them.
std::string what_a_queued_run_waits_for(api::Maced::Client& maced, kj::AsyncIoContext& io,
                                        api::RunDetail::Reader run) {
  auto placed = answered(maced.checkoutsRequest().send().wait(io.waitScope));
  std::vector<CheckoutView> checkouts;
  for (auto c : placed.getCheckouts())
    checkouts.push_back({c.getPath().cStr(), c.getHeldBy().cStr(), c.getNodeDown().cStr(), c.getRefused().cStr()});
  return queued_run_waits_for(checkouts, run.getQueuedAhead());
}

}  // namespace

int cmd_status(const GlobalOptions& global, const Arguments& args) {
  if (args.positional.size() > 1) {
    std::cerr << "usage: mace status [RUN]\n";
    return kExitBadInput;
  }
  if (args.positional.empty()) {
    // No run named: the daemon and its active runs.
    return with_maced(global.socket_path, [&](api::Maced::Client& maced, kj::AsyncIoContext& io) {
      auto version = maced.versionRequest().send().wait(io.waitScope);
      const ListPages pages = list_pages(maced, io.waitScope, 0, [](api::ListFilter::Builder filter) {
        auto states = filter.initStates(2);
        states.set(0, api::RunState::QUEUED);
        states.set(1, api::RunState::RUNNING);
      });
      std::vector<api::RunSummary::Reader> runs;
      for (const auto& page : pages)
        for (auto run : page.getRuns()) runs.push_back(run);
      auto placed = answered(maced.checkoutsRequest().send().wait(io.waitScope));
      auto checkouts = placed.getCheckouts();
      if (global.json) {
        JsonWriter w;
        w.begin_object();
        w.field("daemon_version", std::string(version.getDaemonVersion().cStr()));
        w.field("api_version", version.getApiVersion());
        w.key("active").begin_array();
        for (auto run : runs) write_json(w, run);
        w.end_array();
        w.field("executor", std::string(placed.getExecutor().cStr()));
        w.key("checkouts").begin_array();
        for (auto checkout : checkouts) write_json(w, checkout);
        w.end_array().end_object();
        std::cout << w.str() << "\n";
      } else {
        std::cout << "maced " << version.getDaemonVersion().cStr() << " (api "
                  << version.getApiVersion() << ") at " << connected_socket_path() << ": "
                  << runs.size() << " active run(s)\n";
        if (!runs.empty()) {
          std::cout << human_summary_header() << "\n";
          for (auto run : runs) std::cout << human_summary_row(run) << "\n";
        }
        std::cout << human_checkouts(placed.getExecutor().cStr(), checkouts);
      }
      return kExitOk;
    });
  }
  return with_maced(global.socket_path, [&](api::Maced::Client& maced, kj::AsyncIoContext& io) {
    auto whole = whole_run_detail(maced, io.waitScope, args.positional[0]);
    const auto run = whole->getRoot<api::RunDetail>().asReader();
    const std::string waiting = run.getSummary().getState() == api::RunState::QUEUED
                                    ? what_a_queued_run_waits_for(maced, io, run)
                                    : "";
    if (global.json) {
      JsonWriter w;
      w.begin_object();
      write_run_detail_fields(w, run);
      if (!waiting.empty()) w.field("waiting_for", waiting);
      if (run.getSummary().getState() == api::RunState::QUEUED)
        w.field("queued_ahead", run.getQueuedAhead());
      w.end_object();
      std::cout << w.str() << "\n";
    } else {
      std::cout << human_run_detail(run);
      if (!waiting.empty()) std::cout << "waiting    for " << waiting << "\n";
      if (auto designs = run_designs_comparison(run)) std::cout << "\n" << comparison_text(*designs);
    }
    return kExitOk;
  });
}

int cmd_list(const GlobalOptions& global, const Arguments& args) {
  if (!args.positional.empty()) {
    std::cerr << "usage: mace list [--state STATE[,STATE...]] [--mine] [--limit N]\n";
    return kExitBadInput;
  }
  std::vector<RunState> states;
  if (auto list = args.value("--state")) {
    size_t start = 0;
    while (start <= list->size()) {
      size_t comma = list->find(',', start);
      std::string name = list->substr(start, comma == std::string::npos ? std::string::npos
                                                                         : comma - start);
      auto state = run_state_from_string(name);
      if (!state) {
        std::cerr << "mace: --state: unknown state \"" << terminal_text(name) << "\" ("
                  << enum_words<RunState>() << ")\n";
        return kExitBadInput;
      }
      states.push_back(*state);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  uint32_t limit = 100;
  if (auto text = args.value("--limit")) {
    try {
      size_t used = 0;
      long n = std::stol(*text, &used);
      if (used != text->size() || n < 0) throw std::invalid_argument("");
      limit = static_cast<uint32_t>(n);
    } catch (...) {
      std::cerr << "mace: --limit: must be a whole number, got \"" << *text << "\"\n";
      return kExitBadInput;
    }
  }
  return with_maced(global.socket_path, [&](api::Maced::Client& maced, kj::AsyncIoContext& io) {
    const ListPages pages = list_pages(maced, io.waitScope, limit, [&](api::ListFilter::Builder filter) {
      auto wire_states = filter.initStates(static_cast<unsigned>(states.size()));
      for (size_t i = 0; i < states.size(); ++i)
        wire_states.set(static_cast<unsigned>(i), static_cast<api::RunState>(static_cast<uint16_t>(states[i])));
      if (args.has("--mine")) {
        filter.setAnyUser(false);
        filter.setSubmittedByUid(static_cast<uint32_t>(::getuid()));
      }
    });
    if (global.json) {
      JsonWriter w;
      w.begin_array();
      for (const auto& page : pages)
        for (auto run : page.getRuns()) write_json(w, run);
      w.end_array();
      std::cout << w.str() << "\n";
    } else {
      std::cout << human_summary_header() << "\n";
      for (const auto& page : pages)
        for (auto run : page.getRuns()) std::cout << human_summary_row(run) << "\n";
    }
    return kExitOk;
  });
}

int cmd_logs(const GlobalOptions& global, const Arguments& args) {
  if (wants_log_file(args)) return cmd_log_file(global, args);
  if (args.has("--follow") || args.value("--tail") || args.value("--task") || args.value("--iteration")) {
    std::cerr << "mace logs: --task, --iteration, --tail and --follow go with --build or --sim\n";
    return kExitBadInput;
  }
  if (!one_run_argument(args, "mace logs RUN")) return kExitBadInput;
  return with_maced(global.socket_path, [&](api::Maced::Client& maced, kj::AsyncIoContext& io) {
    each_log_entry(maced, io.waitScope, args.positional[0], [&](api::LogEntry::Reader entry) {
      if (global.json) {
        JsonWriter w;
        write_json(w, entry);
        std::cout << w.str() << "\n";
      } else {
        std::cout << format_time(entry.getAtMs()) << "  " << entry.getSource().cStr() << "  "
                  << std::string_view(entry.getText().begin(), entry.getText().size()) << "\n";
      }
    });
    return kExitOk;
  });
}

int cmd_metrics(const GlobalOptions& global, const Arguments& args) {
  if (!one_run_argument(args, "mace metrics RUN")) return kExitBadInput;
  return with_maced(global.socket_path, [&](api::Maced::Client& maced, kj::AsyncIoContext& io) {
    auto request = maced.metricsRequest();
    request.setRunId(args.positional[0]);
    auto response = answered(request.send().wait(io.waitScope));  // outlives its readers
    auto metrics = response.getMetrics();
    if (global.json) {
      JsonWriter w;
      write_json(w, metrics);
      std::cout << w.str() << "\n";
    } else {
      std::cout << human_metrics(metrics);
    }
    return kExitOk;
  });
}

int cmd_calls(const GlobalOptions& global, const Arguments& args) {
  if (!one_run_argument(args, "mace calls RUN [--full]")) return kExitBadInput;
  return with_maced(global.socket_path, [&](api::Maced::Client& maced, kj::AsyncIoContext& io) {
    const CallPages pages = call_pages(maced, io.waitScope, args.positional[0]);
    if (global.json) {
      JsonWriter w;
      w.begin_array();
      for (const auto& page : pages)
        for (auto call : page.getCalls()) write_json(w, call);
      w.end_array();
      std::cout << w.str() << "\n";
    } else {
      for (const auto& page : pages)
        for (auto call : page.getCalls()) std::cout << human_call(call, args.has("--full"));
    }
    return kExitOk;
  });
}

int cmd_cancel(const GlobalOptions& global, const Arguments& args) {
  if (!one_run_argument(args, "mace cancel RUN")) return kExitBadInput;
  return with_maced(global.socket_path, [&](api::Maced::Client& maced, kj::AsyncIoContext& io) {
    auto request = maced.cancelRequest();
    request.setRunId(args.positional[0]);
    auto response = answered(request.send().wait(io.waitScope));
    std::string state = state_name(response.getState());
    if (global.json) {
      JsonWriter w;
      w.begin_object().field("run_id", args.positional[0]).field("state", state);
      w.field("changed", response.getChanged()).end_object();
      std::cout << w.str() << "\n";
    } else if (response.getChanged()) {
      std::cout << args.positional[0] << " cancelled\n";
    } else {
      std::cout << args.positional[0] << " was already " << state << "; nothing to cancel\n";
    }
    return kExitOk;
  });
}

int cmd_version(const GlobalOptions& global, const Arguments&) {
  std::cout << "mace " << MACE_VERSION << "\n";
  return with_maced(global.socket_path, [&](api::Maced::Client& maced, kj::AsyncIoContext& io) {
    auto version = maced.versionRequest().send().wait(io.waitScope);
    std::cout << "maced " << version.getDaemonVersion().cStr() << " (api "
              << version.getApiVersion() << ") at " << connected_socket_path() << "\n";
    return kExitOk;
  });
}

}  // namespace mace::client
