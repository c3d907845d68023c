// mace failures [--since WHEN] [--core CORE] [--max-runs N]: failure signatures across the
// runs the user may read (service/failures_across_runs.h), the most frequent first.

#include <ctime>
#include <iostream>
#include <string>

#include "capnp_text.h"
#include "commands.h"
#include "core/json_writer.h"
#include "exit_codes.h"
#include "maced_connection.h"
#include "maced_refusal.h"
#include "render.h"
#include "terminal_text.h"

namespace mace::client {
namespace {

// "7d", "24h", "90m" back from `now_ms`, or a UTC date "2026-12-01" (its midnight) or time
// "2026-12-01T08:30"; nullopt when it is none of them.
std::optional<int64_t> since_ms(const std::string& when, int64_t now_ms) {
  if (when.size() >= 2 && when.size() <= 8) {
    const char unit = when.back();
    const std::string digits = when.substr(0, when.size() - 1);
    const int64_t per = unit == 'm' ? 60'000 : unit == 'h' ? 3'600'000 : unit == 'd' ? 86'400'000 : 0;
    if (per && digits.find_first_not_of("0123456789") == std::string::npos) return now_ms - std::stoll(digits) * per;
  }
  std::tm tm{};
  for (const char* format : {"%Y-%m-%dT%H:%M", "%Y-%m-%d"}) {
    tm = {};
    const char* end = ::strptime(when.c_str(), format, &tm);
    if (end && *end == '\0') return static_cast<int64_t>(::timegm(&tm)) * 1000;
  }
  return std::nullopt;
}

std::string shown(capnp::Text::Reader t) { return terminal_text(text(t)); }

void write_json(JsonWriter& w, api::FailureHistory::Reader history) {
  w.begin_object().field("runs_read", history.getRunsRead()).field("more_runs", history.getMoreRuns());
  w.field("signatures_total", history.getSignaturesTotal());
  w.key("signatures").begin_array();
  for (auto s : history.getSignatures()) {
    w.begin_object().field("signature", text(s.getSignature())).field("verdict", verdict_name(s.getVerdict()));
    w.field("error_line", text(s.getErrorLine())).field("occurrences", s.getOccurrences()).field("runs", s.getRuns());
    w.field("first_run_id", text(s.getFirstRunId())).field("first_at_ms", s.getFirstAtMs());
    w.field("last_run_id", text(s.getLastRunId())).field("last_at_ms", s.getLastAtMs());
    w.key("configurations").begin_array();
    for (auto c : s.getConfigurations()) w.value(text(c));
    w.end_array().field("configurations_total", s.getConfigurationsTotal());
    w.key("workloads").begin_array();
    for (auto c : s.getWorkloads()) w.value(text(c));
    w.end_array().field("workloads_total", s.getWorkloadsTotal());
    w.field("passed_later", s.getPassedLater()).field("still_failing", s.getStillFailing());
    w.end_object();
  }
  w.end_array().end_object();
}

// "a, b, c and 4 more"
std::string listed(capnp::List<capnp::Text>::Reader items, uint32_t total) {
  std::string out;
  for (auto item : items) out += (out.empty() ? "" : "; ") + shown(item);
  if (total > items.size()) out += " and " + std::to_string(total - items.size()) + " more";
  return out;
}

void write_human(std::ostream& out, api::FailureHistory::Reader history) {
  const auto signatures = history.getSignatures();
  out << history.getSignaturesTotal() << " failure signature" << (history.getSignaturesTotal() == 1 ? "" : "s")
      << " in " << history.getRunsRead() << " run" << (history.getRunsRead() == 1 ? "" : "s") << " read";
  if (history.getMoreRuns()) out << " (older runs not read: --max-runs)";
  if (signatures.size() < history.getSignaturesTotal()) out << "; the " << signatures.size() << " most frequent";
  out << "\n";
  for (auto s : signatures) {
    out << "\n" << s.getOccurrences() << " x " << shown(s.getSignature()) << "\n";
    out << "  in " << s.getRuns() << " run" << (s.getRuns() == 1 ? "" : "s") << ": first " << format_time(s.getFirstAtMs())
        << " " << shown(s.getFirstRunId()) << ", last " << format_time(s.getLastAtMs()) << " " << shown(s.getLastRunId())
        << "\n";
    out << "  last error: " << shown(s.getErrorLine()) << "\n";
    out << "  configurations: " << listed(s.getConfigurations(), s.getConfigurationsTotal()) << "\n";
    out << "  workloads: " << listed(s.getWorkloads(), s.getWorkloadsTotal()) << "\n";
    const uint32_t pairs = s.getPassedLater() + s.getStillFailing();
    out << "  " << (s.getStillFailing() == 0 ? "fixed: " : "open: ") << s.getPassedLater() << " of " << pairs
        << " configuration and workload pair" << (pairs == 1 ? "" : "s") << " passed in a later run\n";
  }
}

}  // namespace

int cmd_failures(const GlobalOptions& global, const Arguments& args) {
  const char* usage = "usage: mace failures [--since 7d|24h|90m|YYYY-MM-DD[THH:MM]] [--core CORE] [--max-runs N]\n";
  if (!args.positional.empty()) {
    std::cerr << usage;
    return kExitBadInput;
  }
  int64_t since = 0;
  if (auto when = args.value("--since")) {
    const auto parsed = since_ms(*when, static_cast<int64_t>(std::time(nullptr)) * 1000);
    if (!parsed) {
      std::cerr << "mace: --since: must be a time back from now (7d, 24h, 90m) or a UTC date (2026-12-01, "
                   "2026-12-01T08:30), got \"" << terminal_text(*when) << "\"\n";
      return kExitBadInput;
    }
    since = *parsed;
  }
  uint32_t max_runs = 0;
  if (auto text = args.value("--max-runs")) {
    if (text->empty() || text->size() > 6 || text->find_first_not_of("0123456789") != std::string::npos) {
      std::cerr << "mace: --max-runs: must be a whole number up to 5000 (0: 1000), got \"" << terminal_text(*text) << "\"\n";
      return kExitBadInput;
    }
    max_runs = static_cast<uint32_t>(std::stoul(*text));
  }
  return with_maced(global.socket_path, [&](api::Maced::Client& maced, kj::AsyncIoContext& io) {
    auto request = maced.failuresRequest();
    auto query = request.initQuery();
    query.setSinceMs(since);
    query.setCore(args.value("--core").value_or(""));
    query.setMaxRuns(max_runs);
    auto response = answered(request.send().wait(io.waitScope));
    if (global.json) {
      JsonWriter w;
      write_json(w, response.getHistory());
      std::cout << w.str() << "\n";
    } else {
      write_human(std::cout, response.getHistory());
    }
    return kExitOk;
  });
}

}  // namespace mace::client
