#pragma once
// One checkout as `mace status` shows it: where it is, which run holds it, whether its node
// takes work, the Slurm job running on it now, and why maced refused it if it did.

#include <string>

namespace mace::service {

struct CheckoutStatus {
  std::string path;
  std::string node;        // "local", or the Slurm node that holds it
  std::string held_by;     // the run holding it; empty: free
  std::string node_down;   // why its node takes no work now; empty: not known to be down
  std::string job_id;      // the Slurm job running on it; empty: none
  std::string job_name;    // mace:<run>:<task>:<purpose>
  std::string job_purpose;
  std::string refused;     // why maced refused it at start (never leased); empty: taken
};

}  // namespace mace::service
