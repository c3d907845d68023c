#include "live_view.h"

#include <algorithm>
#include <cstdio>

#include "os/text.h"
#include "render.h"
#include "terminal_text.h"

namespace mace::client {
namespace {

constexpr std::size_t kBarWidth = 20;

std::string clock_text(int64_t ms) {
  const int64_t s = std::max<int64_t>(ms, 0) / 1000;
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", static_cast<long long>(s / 3600),
                  static_cast<long long>(s / 60 % 60), static_cast<long long>(s % 60));
  else
    std::snprintf(buf, sizeof buf, "%lld:%02lld", static_cast<long long>(s / 60),
                  static_cast<long long>(s % 60));
  return buf;
}

std::string bar(uint32_t done, uint32_t total) {
  std::string out = "[";
  const std::size_t filled = total ? std::min<std::size_t>(kBarWidth, done * kBarWidth / total) : 0;
  out.append(filled, '#');
  out.append(kBarWidth - filled, total ? '-' : ' ');
  return out + "]";
}

// Cut to `width` columns; the text is ASCII but for the state's ellipsis, and what a task
// ID or a build's message brings, escaped (terminal_text.h) so the view keeps its lines.
std::string fit(std::string line, std::size_t width) {
  return std::string(os::clip_utf8(line, width));
}

}  // namespace

void LiveView::on_event(api::Event::Reader e) {
  const auto key = std::make_pair(e.getIteration(), std::string(e.getTaskId().cStr()));
  switch (e.getKind()) {
    case api::EventKind::SUBMITTED:
    case api::EventKind::STATE_CHANGED:
      state_ = state_name(e.getState());
      break;
    case api::EventKind::TASK_STAGE: {
      const auto stage = e.getStage();
      if (stage == api::TaskStage::PASSED || stage == api::TaskStage::FAILED ||
          stage == api::TaskStage::SKIPPED) {
        active_.erase(key);
        order_.erase(std::remove(order_.begin(), order_.end(), key), order_.end());
        break;
      }
      if (!active_.count(key)) order_.push_back(key);
      Active& a = active_[key];
      a.stage = stage_name(stage);
      a.running.clear();
      a.since_ms = e.getAtMs();
      break;
    }
    case api::EventKind::BUILD_PROGRESS: {
      if (!active_.count(key)) order_.push_back(key);
      Active& a = active_[key];
      a.stage = "building";
      a.build_started_ms = e.getAtMs() - e.getElapsedMs();
      a.since_ms = a.build_started_ms;
      a.done = e.getObjectsDone();
      a.total = e.getObjectsTotal();
      a.estimate_left_ms = e.getEstimateLeftMs();
      a.estimate_at_ms = e.getAtMs();
      std::string message = e.getMessage().cStr();
      a.phase = message.substr(0, message.find(' '));
      break;
    }
    case api::EventKind::WORKLOAD_STARTED:
      if (active_.count(key)) active_[key].running.push_back(e.getWorkload().cStr());
      break;
    case api::EventKind::VERDICT:
      if (active_.count(key)) {
        Active& a = active_[key];
        ++a.verdicts;
        std::erase(a.running, std::string(e.getWorkload().cStr()));
      }
      break;
    default:
      break;
  }
}

std::vector<std::string> LiveView::lines(int64_t now_ms, std::size_t width) const {
  std::vector<std::string> out;
  out.push_back(fit("run " + state_ + ", " + std::to_string(active_.size()) + " task" +
                        (active_.size() == 1 ? "" : "s") + " active",
                    width));
  for (const auto& key : order_) {
    const Active& a = active_.at(key);
    char head[64];
    std::snprintf(head, sizeof head, "iter%-3u %-14.14s %-10s ", key.first,
                  terminal_text(key.second).c_str(), a.stage.c_str());
    std::string line = head;
    if (a.stage == "building" && a.build_started_ms) {
      line += bar(a.done, a.total) + " ";
      line += a.total ? std::to_string(a.done) + "/" + std::to_string(a.total) : terminal_text(a.phase);
      line += "  " + clock_text(now_ms - a.since_ms);
      if (a.estimate_left_ms >= 0)
        line += "  ~" + clock_text(a.estimate_left_ms - (now_ms - a.estimate_at_ms)) + " left";
    } else {
      line += clock_text(now_ms - a.since_ms);
      if (a.stage == "running") {
        line += "  " + std::to_string(a.verdicts) + (a.verdicts == 1 ? " workload" : " workloads") +
                " judged";
        // Several simulate at once (executor/gate_workloads.h): which, in the spec's order.
        if (!a.running.empty()) {
          line += "; running";
          for (const auto& w : a.running) line += " " + terminal_text(w);
        }
      }
    }
    out.push_back(fit(std::move(line), width));
  }
  return out;
}

}  // namespace mace::client
