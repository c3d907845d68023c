#include "arguments.h"

#include <iostream>

namespace mace::client {

std::optional<Arguments> parse_arguments(const std::vector<std::string>& args,
                                         const ArgumentSpec& spec, ArgumentError& error) {
  Arguments out;
  bool only_positional = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (only_positional || a.size() < 2 || a[0] != '-') {
      out.positional.push_back(a);
      continue;
    }
    if (a == "--") {
      only_positional = true;
      continue;
    }
    std::string flag = a;
    std::optional<std::string> inline_value;
    if (auto eq = a.find('='); eq != std::string::npos) {
      flag = a.substr(0, eq);
      inline_value = a.substr(eq + 1);
    }
    if (spec.switches.count(flag)) {
      if (inline_value) {
        error.message = flag + " takes no value";
        return std::nullopt;
      }
      out.switches.insert(flag);
    } else if (spec.with_values.count(flag) || spec.repeatable.count(flag)) {
      std::optional<std::string> value = inline_value;
      if (!value && i + 1 < args.size()) value = args[++i];
      if (value && spec.repeatable.count(flag)) {
        // A command line is bounded by the kernel (ARG_MAX): so is this list.
        out.repeated[flag].push_back(*value);
      } else if (value) {
        out.values[flag] = *value;
      } else {
        error.message = flag + " needs a value";
        return std::nullopt;
      }
    } else {
      error.message = "unknown option " + flag;
      error.unknown_flag = flag;
      return std::nullopt;
    }
  }
  return out;
}

std::optional<uint32_t> iteration_option(const Arguments& args) {
  const auto n = args.value("--iteration");
  if (!n) return 0;
  if (n->empty() || n->size() > 6 || n->find_first_not_of("0123456789") != std::string::npos || *n == "0") {
    std::cerr << "mace: --iteration: must be a whole number from 1, got \"" << *n << "\"\n";
    return std::nullopt;
  }
  return static_cast<uint32_t>(std::stoul(*n));
}

}  // namespace mace::client
