#include "queue_wait.h"

#include <set>

namespace mace::client {
namespace {

std::string joined(const std::set<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

std::string runs_word(std::size_t n) { return n == 1 ? "1 run" : std::to_string(n) + " runs"; }

}  // namespace

std::string queued_run_waits_for(const std::vector<CheckoutView>& checkouts,
                                 std::size_t runs_queued_before) {
  if (checkouts.empty())
    return "an OpenPiton checkout: maced has none (its configuration's \"checkouts\" is "
           "empty); the run starts once maced is started with one";
  std::set<std::string> holders, down, refused;
  std::size_t held = 0, usable = 0;
  for (const auto& c : checkouts) {
    if (!c.refused.empty()) {
      refused.insert(c.path + " (" + c.refused + ")");
    } else if (!c.held_by.empty()) {
      ++held;
      holders.insert(c.held_by);
    } else if (!c.node_down.empty()) {
      down.insert(c.path + " (" + c.node_down + ")");
    } else {
      ++usable;
    }
  }
  const std::string ahead =
      runs_queued_before ? ", after " + runs_word(runs_queued_before) + " queued before it" : "";
  if (usable > 0) return "its turn: a checkout is free" + ahead;
  if (refused.size() == checkouts.size())
    return "an OpenPiton checkout maced can use: it refused every one it has when it started, " +
           joined(refused) + "; `mace doctor` says what to do";
  std::string why = "a free checkout:";
  if (held > 0)
    why += " " + std::string(held == checkouts.size() ? "all " : "") + std::to_string(held) +
           " in use by " + joined(holders);
  if (!down.empty()) why += std::string(held > 0 ? ";" : "") + " node unavailable for " + joined(down);
  if (!refused.empty())
    why += std::string(held > 0 || !down.empty() ? ";" : "") + " refused at start: " + joined(refused);
  return why + ahead;
}

}  // namespace mace::client
