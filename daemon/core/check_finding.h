#pragma once
// One finding of a check-up of the machine maced runs on (`mace doctor`, and maced's own
// checks at start): what was looked at, how it stands, and what to do when it is not well.
// Its words (topic, level) are those JSON and the wire use.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/enum_text.h"

namespace mace {

enum class CheckTopic {
  maced,        // the daemon itself: who runs it, its state directory
  checkout,     // one configured OpenPiton checkout
  tool,         // a program builds and simulations run
  workloads,    // maced's workloads directory and its CHECKSUMS
  disk,         // room left where models, the compiler cache and evidence go
  slurm_node,   // a node of the configuration, as Slurm sees it
  llm_backend,  // whether a backend could be used (credentials, CLI), never their values
};

enum class CheckLevel {
  ok,
  warning,  // some runs cannot work (a backend without credentials, coverage without its tool)
  failure,  // runs cannot work, or a checkout maced refuses
};

std::string_view to_string(CheckTopic topic);
std::optional<CheckTopic> check_topic_from_string(std::string_view text);
std::string_view to_string(CheckLevel level);
std::optional<CheckLevel> check_level_from_string(std::string_view text);

struct CheckFinding {
  CheckTopic topic = CheckTopic::maced;
  std::string subject;  // the checkout's path, the tool's or node's or backend's name
  CheckLevel level = CheckLevel::ok;
  std::string what;     // how it stands, in a sentence
  std::string fix;      // what to do; empty when level is ok
};

// The worst level of `findings`; ok for none.
CheckLevel worst_level(const std::vector<CheckFinding>& findings);

}  // namespace mace
