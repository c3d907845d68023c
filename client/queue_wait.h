#pragma once
// What a queued run waits for, in words, from what maced says of its checkouts and of the
// runs queued before it: no checkout at all, every checkout busy, refused or its node
// down, or only its turn.

#include <cstddef>
#include <string>
#include <vector>

namespace mace::client {

struct CheckoutView {
  std::string path;
  std::string held_by;    // the run holding it; empty: free
  std::string node_down;  // why its node takes no work; empty: it does
  std::string refused;    // why maced refused it at start; empty: taken
};

std::string queued_run_waits_for(const std::vector<CheckoutView>& checkouts,
                                 std::size_t runs_queued_before);

}  // namespace mace::client
