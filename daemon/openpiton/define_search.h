#pragma once
// Whether any file of a checkout mentions an RTL define (REQ-PLAN-15: a define no file
// mentions is removed from a plan, since it could only waste a build). Searches the
// checkout's tracked files under piton/ with `git grep`, which is fast on a few thousand
// files and reads nothing git ignores (build outputs, generated *.tmp.v).

#include <string>

#include "openpiton/checkout.h"

namespace mace::openpiton {

struct DefineSearch {
  bool mentioned = false;
  // Why the checkout could not be searched, naming git's own words; then `mentioned` is
  // true, so a broken git never removes a define the plan needs.
  std::string error;
};

// `define` must be an upper-snake-case identifier; anything else is reported as not
// mentioned (it could not be a define). A search that fails is tried once more before it
// is reported as failed.
DefineSearch search_checkout_for_define(const Checkout& checkout, const std::string& define);

}  // namespace mace::openpiton
