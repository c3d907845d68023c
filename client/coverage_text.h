#pragma once
// A task's line coverage (api::TaskCoverage) as `mace status`, `mace logs --coverage` and
// `--json` show it: per top-level module, and where the merged data and annotated source
// are kept.

#include <string>

#include "core/json_writer.h"
#include "mace.capnp.h"

namespace mace::client {

void write_json(JsonWriter& w, api::TaskCoverage::Reader coverage);
// Its lines covered, each top-level module's, and where the merged data and the annotated
// source are kept.
std::string human_coverage(api::TaskCoverage::Reader coverage);

}  // namespace mace::client
