// mace wave RUN [--iteration N] [--task T] [--workload W] [-o FILE]: the waveform of a
// failed workload (docs/failures.md), the run's kept copy written out as a plain VCD that
// GTKWave or Surfer opens, read through maced a bounded piece at a time.

#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <system_error>
#include <filesystem>

#include "capnp_text.h"
#include "commands.h"
#include "core/json_writer.h"
#include "exit_codes.h"
#include "maced_connection.h"
#include "maced_refusal.h"
#include "waveform_text.h"

namespace mace::client {
namespace {

const char* kUsage = "usage: mace wave RUN [--iteration N] [--task TASK] [--workload WORKLOAD] [-o FILE]\n";

// The newest waveform the options name, or nullopt.
std::optional<api::Waveform::Reader> choose(capnp::List<api::Waveform>::Reader all, uint32_t iteration,
                                            const std::string& task, const std::string& workload) {
  std::optional<api::Waveform::Reader> chosen;
  for (auto v : all) {
    if (iteration && v.getIteration() != iteration) continue;
    if (!task.empty() && task != text(v.getTaskId())) continue;
    if (!workload.empty() && workload != text(v.getWorkload())) continue;
    chosen = v;
  }
  return chosen;
}

// Copies log `file_id` of the run into `out`; false (having said why) when it cannot.
bool copy_log(api::Maced::Client& maced, kj::AsyncIoContext& io, const std::string& run_id, uint64_t file_id,
              std::ostream& out, uint64_t& written) {
  int64_t offset = 0;
  for (;;) {
    auto request = maced.readLogRequest();
    request.setRunId(run_id);
    auto query = request.initQuery();
    query.setFileId(file_id);
    query.setOffset(offset);
    auto response = answered(request.send().wait(io.waitScope));
    auto chunk = response.getChunk();
    if (!chunk.getFound()) {
      std::cerr << "mace wave: the waveform of run " << run_id << " is not there"
                << (chunk.getNote().size() ? ": " + text(chunk.getNote()) : std::string()) << "\n";
      return false;
    }
    const auto data = chunk.getData();
    out.write(reinterpret_cast<const char*>(data.begin()), static_cast<std::streamsize>(data.size()));
    written += data.size();
    offset = chunk.getOffset() + static_cast<int64_t>(data.size());
    if (data.size() == 0 || offset >= chunk.getSize()) return true;
  }
}

}  // namespace

int cmd_wave(const GlobalOptions& global, const Arguments& args) {
  if (args.positional.size() != 1) {
    std::cerr << kUsage;
    return kExitBadInput;
  }
  const std::string run_id = args.positional[0];
  const std::optional<uint32_t> chosen_iteration = iteration_option(args);
  if (!chosen_iteration) return kExitBadInput;
  const uint32_t iteration = *chosen_iteration;
  const std::string task = args.value("--task").value_or("");
  const std::string workload = args.value("--workload").value_or("");
  return with_maced(global.socket_path, [&](api::Maced::Client& maced, kj::AsyncIoContext& io) {
    auto status = maced.statusRequest();
    status.setRunId(run_id);
    auto detail_response = answered(status.send().wait(io.waitScope));
    auto detail = detail_response.getRun();
    const auto chosen = choose(detail.getWaveforms(), iteration, task, workload);
    if (!chosen) {
      std::cerr << "mace wave: run " << run_id << " has no waveform"
                << (workload.empty() ? "" : " of " + workload) << (task.empty() ? "" : " in task " + task)
                << (detail.getWaveforms().size() ? "; it has:\n" : ": only a failed workload gets one\n");
      for (auto v : detail.getWaveforms()) std::cerr << human_waveform(run_id, v);
      return kExitBadInput;
    }
    if (!chosen->getFileId()) {
      std::cerr << "mace wave: " << text(chosen->getWorkload()) << " has no waveform: " << text(chosen->getProblem())
                << "\n";
      return kExitBadInput;
    }
    const std::string output = args.value("-o").value_or(text(chosen->getWorkload()) + ".vcd");
    uint64_t written = 0;
    if (output == "-") {
      if (!copy_log(maced, io, run_id, chosen->getFileId(), std::cout, written)) return kExitBadInput;
      return kExitOk;
    }
    std::error_code ec;
    if (std::filesystem::exists(output, ec)) {
      std::cerr << "mace wave: " << output << " exists; name another file with -o (or -o - for standard output)\n";
      return kExitBadInput;
    }
    // Written beside its name and renamed when whole, so a half-written waveform never
    // stands under it.
    const std::string partial = output + ".part";
    {
      std::ofstream out(partial, std::ios::binary | std::ios::trunc);
      if (!out) {
        std::cerr << "mace wave: cannot write " << partial << "\n";
        return kExitBadInput;
      }
      const bool copied = copy_log(maced, io, run_id, chosen->getFileId(), out, written);
      out.close();
      if (!copied || !out) {
        if (copied) std::cerr << "mace wave: cannot write " << partial << "\n";
        std::remove(partial.c_str());
        return kExitBadInput;
      }
    }
    if (std::rename(partial.c_str(), output.c_str()) != 0) {
      std::cerr << "mace wave: cannot rename " << partial << " to " << output << "\n";
      std::remove(partial.c_str());
      return kExitBadInput;
    }
    if (global.json) {
      JsonWriter w;
      w.begin_object().field("file", output).field("bytes", written).key("waveform");
      write_json(w, *chosen);
      std::cout << w.end_object().str() << "\n";
    } else {
      std::cout << output << "\n";
    }
    return kExitOk;
  });
}

}  // namespace mace::client
