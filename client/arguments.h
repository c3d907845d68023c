#pragma once
// The command line after global options: positional words and --flags, checked against
// what a command accepts so a mistyped flag is an error, not ignored.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mace::client {

struct Arguments {
  std::vector<std::string> positional;
  std::map<std::string, std::string> values;  // --flag VALUE
  std::set<std::string> switches;             // --flag
  std::map<std::string, std::vector<std::string>> repeated;  // --flag VALUE, as often as given

  bool has(const std::string& flag) const { return switches.count(flag) > 0; }
  std::optional<std::string> value(const std::string& flag) const {
    auto it = values.find(flag);
    if (it == values.end()) return std::nullopt;
    return it->second;
  }
  // Every value of a repeatable flag, in order; none when it was not given.
  std::vector<std::string> values_of(const std::string& flag) const {
    auto it = repeated.find(flag);
    return it == repeated.end() ? std::vector<std::string>{} : it->second;
  }
};

struct ArgumentSpec {
  std::set<std::string> switches;     // flags without a value
  std::set<std::string> with_values;  // flags that take a value
  std::set<std::string> repeatable;   // flags that take a value and may be given again
};

struct ArgumentError {
  std::string message;       // "--limit needs a value"
  std::string unknown_flag;  // set when a flag is not one the command accepts
};

// Parses `args`; on a problem returns nullopt and sets `error`.
std::optional<Arguments> parse_arguments(const std::vector<std::string>& args,
                                         const ArgumentSpec& spec, ArgumentError& error);

// --iteration N of `args`: 0 when it is not given; nullopt, having said why on standard
// error, when it is not a whole number from 1.
std::optional<uint32_t> iteration_option(const Arguments& args);

}  // namespace mace::client
