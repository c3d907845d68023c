// mace logs RUN --coverage [--task T] [--iteration N]: a task's line coverage merged over its
// workloads (lines covered per top-level module of the design), where maced keeps the merged
// coverage.dat and the annotated source, and each annotated file with the ID that
// `mace logs RUN --file ID` reads it by.

#include <cstdint>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "core/json_writer.h"
#include "exit_codes.h"
#include "maced_connection.h"
#include "maced_refusal.h"
#include "render.h"

namespace mace::client {

int cmd_log_coverage(const GlobalOptions& global, const Arguments& args, uint64_t iteration) {
  const std::string run_id = args.positional[0];
  const std::string task = args.value("--task").value_or("");
  return with_maced(global.socket_path, [&](api::Maced::Client& maced, kj::AsyncIoContext& io) {
    auto status = maced.statusRequest();
    status.setRunId(run_id);
    auto detail_response = answered(status.send().wait(io.waitScope));
    auto detail = detail_response.getRun();
    // The newest task's coverage, unless --task and --iteration say which.
    std::optional<api::TaskCoverage::Reader> chosen;
    for (auto c : detail.getCoverage()) {
      if (iteration && c.getIteration() != iteration) continue;
      if (!task.empty() && task != c.getTaskId().cStr()) continue;
      chosen = c;
    }
    if (!chosen) {
      const bool asked = detail.getSpecJson().size() &&
                         std::string(detail.getSpecJson().cStr()).find("\"coverage\":true") != std::string::npos;
      std::cerr << "mace logs: run " << run_id << " has no coverage"
                << (task.empty() ? "" : " for task " + task)
                << (asked ? " (yet)" : ": its spec does not ask for it (\"coverage\": true)") << "\n";
      return kExitBadInput;
    }
    auto files_request = maced.logFilesRequest();
    files_request.setRunId(run_id);
    auto files_response = answered(files_request.send().wait(io.waitScope));
    std::vector<api::LogFile::Reader> sources;
    for (auto f : files_response.getFiles())
      if (std::string(f.getKind().cStr()) == "coverage_source" && f.getIteration() == chosen->getIteration() &&
          f.getTaskId() == chosen->getTaskId() && f.getNarrowing().size() == 0)
        sources.push_back(f);
    if (global.json) {
      JsonWriter w;
      w.begin_object().key("coverage");
      write_json(w, *chosen);
      w.key("annotated_files").begin_array();
      for (auto f : sources)
        w.begin_object().field("id", f.getId()).field("file", f.getWorkload().cStr())
            .field("kept", f.getKept()).field("note", f.getNote().cStr()).end_object();
      w.end_array().end_object();
      std::cout << w.str() << "\n";
      return kExitOk;
    }
    std::cout << human_coverage(*chosen);
    if (chosen->getDataFileId()) std::cout << "    merged data: mace logs " << run_id << " --file " << chosen->getDataFileId() << "\n";
    if (!sources.empty()) {
      std::cout << "  annotated source (mace logs " << run_id << " --file ID):\n";
      for (auto f : sources) {
        std::cout << "    " << f.getId() << "  " << f.getWorkload().cStr();
        if (f.getNote().size()) std::cout << "  (" << f.getNote().cStr() << ")";
        std::cout << "\n";
      }
    }
    return kExitOk;
  });
}

}  // namespace mace::client
