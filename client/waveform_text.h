#pragma once
// A failed task's waveform (api::Waveform) as `mace status` shows it and its JSON form: the
// command that writes it out, the cycles it covers, or why there is none.

#include <string>

#include "core/json_writer.h"
#include "mace.capnp.h"

namespace mace::client {

void write_json(JsonWriter& w, api::Waveform::Reader waveform);

// "  iter1 t1 hello: mace wave RUN --iteration 1 --task t1 --workload hello -o hello.vcd\n
//      cycles 8996 to 9997 (1.2 MiB), ..." or "  iter1 t1 hello: no waveform: why\n".
std::string human_waveform(const std::string& run_id, api::Waveform::Reader waveform);

}  // namespace mace::client
