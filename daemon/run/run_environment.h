#pragma once
// What a run ran in, recorded when it starts (REQ-EVAL-9 for an evaluation job, and every
// run's report): MACE's version and commit, the backend and model, the host, and for each
// checkout it started on the OpenPiton commit checked out, the source fingerprint and the
// Verilator version. As JSON:
//
//   {"mace_commit": "...", "mace_version": "0.1.0", "backend": "direct", "model": "",
//    "host": "build1", "checkouts": [{"path": "/srv/openpiton/a", "commit": "41a14a05...",
//    "verilator": "Verilator 5.006 ...", "source_fingerprint": "<64 hex digits>"}]}
//
// A part that cannot be found says "unknown: <why>" in its place.

#include <string>
#include <vector>

#include "openpiton/checkout.h"
#include "store/store.h"

namespace mace::run {

std::string environment_json(const store::RunRecord& run,
                             const std::vector<openpiton::Checkout>& checkouts);

}  // namespace mace::run
