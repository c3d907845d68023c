// mace logs RUN --build | --sim WORKLOAD | --file ID [--task T] [--iteration N] [--tail N]
// [--follow]: a task's build transcript or a simulation's sim.log, the run's own copy once
// kept (while it is written, the file itself), read by maced one bounded piece at a time,
// so a file of any size costs one MiB at once. mace logs RUN --list: every log the run
// recorded (and its coverage files: --coverage, coverage_command.cc).

#include <cstdio>
#include <iostream>
#include <string>

#include "commands.h"
#include "core/json_writer.h"
#include "exit_codes.h"
#include "maced_connection.h"
#include "maced_refusal.h"

namespace mace::client {
namespace {

constexpr uint32_t kMaxTailLines = 100000;
// How often --follow asks again at the end of a file still being written.
constexpr auto kFollowInterval = 300 * kj::MILLISECONDS;

bool parse_count(const std::optional<std::string>& text, uint64_t most, uint64_t& out) {
  if (!text) return true;
  if (text->empty() || text->size() > 9 || text->find_first_not_of("0123456789") != std::string::npos)
    return false;
  out = std::stoull(*text);
  return out <= most;
}

// Through std::cout, where what a transcript holds is escaped for the terminal unless
// --raw (escaped_output.h); false when the reader went away.
bool write_all(const kj::ArrayPtr<const kj::byte> data) {
  std::cout.write(reinterpret_cast<const char*>(data.begin()), static_cast<std::streamsize>(data.size()));
  std::cout.flush();
  return static_cast<bool>(std::cout);
}

std::string size_text(uint64_t bytes) {
  char buf[32];
  if (bytes < 1024) return std::to_string(bytes) + " B";
  if (bytes < (1u << 20)) std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(bytes) / 1024);
  else std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return buf;
}

int list_log_files(const GlobalOptions& global, const std::string& run_id) {
  return with_maced(global.socket_path, [&](api::Maced::Client& maced, kj::AsyncIoContext& io) {
    auto request = maced.logFilesRequest();
    request.setRunId(run_id);
    auto response = answered(request.send().wait(io.waitScope));  // outlives its readers
    JsonWriter w;
    if (global.json) w.begin_array();
    for (auto f : response.getFiles()) {
      const std::string kind = f.getKind().cStr();
      const std::string what = kind == "coverage_data"     ? "merged coverage"
                               : kind == "coverage_source" ? "annotated " + std::string(f.getWorkload().cStr())
                               : kind == "waveform"        ? "waveform of " + std::string(f.getWorkload().cStr())
                               : f.getWorkload().size()    ? "sim.log " + std::string(f.getWorkload().cStr())
                                                           : "build log";
      if (global.json) {
        w.begin_object().field("id", f.getId()).field("iteration", f.getIteration());
        w.field("task_id", f.getTaskId().cStr()).field("narrowing", f.getNarrowing().cStr());
        w.field("workload", f.getWorkload().cStr()).field("kind", f.getKind().cStr());
        w.field("kept", f.getKept()).field("original_bytes", f.getOriginalBytes());
        w.field("stored_bytes", f.getStoredBytes()).field("cut_bytes", f.getCutBytes());
        w.field("compressed", f.getCompressed()).field("note", f.getNote().cStr()).end_object();
        continue;
      }
      std::cout << f.getId() << "  iter" << f.getIteration() << " " << f.getTaskId().cStr();
      if (f.getNarrowing().size()) std::cout << " (narrowing: " << f.getNarrowing().cStr() << ")";
      std::cout << "  " << what;
      if (f.getKept()) {
        std::cout << "  " << size_text(f.getOriginalBytes());
        if (f.getCutBytes()) std::cout << ", " << size_text(f.getCutBytes()) << " cut from its middle";
        std::cout << ", kept in " << size_text(f.getStoredBytes()) << (f.getCompressed() ? " (compressed)" : "");
      }
      if (f.getNote().size()) std::cout << "\n    " << f.getNote().cStr();
      std::cout << "\n";
    }
    if (global.json) std::cout << w.end_array().str() << "\n";
    return kExitOk;
  });
}

}  // namespace

bool wants_log_file(const Arguments& args) {
  return args.has("--build") || args.value("--sim") || args.value("--file") || args.has("--list") ||
         args.has("--coverage");
}

int cmd_log_file(const GlobalOptions& global, const Arguments& args) {
  const char* usage =
      "usage: mace logs RUN --build | --sim WORKLOAD | --file ID [--task T] [--iteration N] [--tail N] "
      "[--follow]\n       mace logs RUN --list\n       mace logs RUN --coverage [--task T] [--iteration N]\n";
  uint64_t tail = 0, iteration = 0, file_id = 0;
  const int kinds = (args.has("--build") ? 1 : 0) + (args.value("--sim") ? 1 : 0) +
                    (args.value("--file") ? 1 : 0) + (args.has("--list") ? 1 : 0) +
                    (args.has("--coverage") ? 1 : 0);
  if (args.positional.size() != 1 || kinds != 1) {
    std::cerr << usage;
    return kExitBadInput;
  }
  // Each value its own rule, said for the option that broke it.
  constexpr uint64_t kMaxIteration = 1u << 20;
  const std::string bad_value =
      !parse_count(args.value("--tail"), kMaxTailLines, tail)
          ? "--tail: a count of lines up to " + std::to_string(kMaxTailLines)
      : !parse_count(args.value("--iteration"), kMaxIteration, iteration)
          ? "--iteration: an iteration number, at most " + std::to_string(kMaxIteration)
      : !parse_count(args.value("--file"), 999999999, file_id)
          ? "--file: a log's id, as `mace logs RUN --list` shows it"
          : "";
  if (!bad_value.empty()) {
    std::cerr << usage << "  " << bad_value << "\n";
    return kExitBadInput;
  }
  if (args.has("--list")) return list_log_files(global, args.positional[0]);
  if (args.has("--coverage")) {
    if (args.value("--tail") || args.has("--follow")) {
      std::cerr << usage << "  --tail and --follow read a log; --coverage is a summary\n";
      return kExitBadInput;
    }
    return cmd_log_coverage(global, args, iteration);
  }
  const bool follow = args.has("--follow");
  return with_maced(global.socket_path, [&](api::Maced::Client& maced, kj::AsyncIoContext& io) {
    int64_t offset = tail ? -1 : 0;
    bool offset_of_live = false;
    bool note_said = false;
    auto& timer = io.provider->getTimer();
    for (;;) {
      auto request = maced.readLogRequest();
      request.setRunId(args.positional[0]);
      auto query = request.initQuery();
      query.setIteration(static_cast<uint32_t>(iteration));
      query.setTaskId(args.value("--task").value_or(""));
      query.setWorkload(args.value("--sim").value_or(""));
      query.setFileId(file_id);
      query.setOffset(offset);
      query.setTailLines(static_cast<uint32_t>(tail));
      query.setOffsetOfLive(offset_of_live);
      auto response = answered(request.send().wait(io.waitScope));
      auto chunk = response.getChunk();
      if (chunk.getNote().size() && !note_said) {
        std::cerr << "mace logs: " << chunk.getNote().cStr() << "\n";
        note_said = true;
      }
      if (!chunk.getFound() && (!follow || chunk.getRunFinal() || chunk.getNote().size())) {
        if (chunk.getNote().size()) return kExitBadInput;  // removed: the note said when and why
        std::cerr << "mace logs: run " << args.positional[0] << " has no "
                  << (args.value("--file")   ? "log " + *args.value("--file")
                      : args.value("--sim") ? "sim.log of " + *args.value("--sim")
                                            : std::string("build log"))
                  << (args.value("--task") ? " for task " + *args.value("--task") : "")
                  << (chunk.getRunFinal() ? " (none was written)" : " (yet)")
                  << "\n";
        return kExitBadInput;
      }
      const auto data = chunk.getData();
      if (!write_all(data)) return kExitOk;  // the reader went away (`| head`): nothing to say
      if (chunk.getFound()) {
        offset = chunk.getOffset() + static_cast<int64_t>(data.size());
        offset_of_live = !chunk.getKept();
      }
      const bool at_end = !chunk.getFound() || offset >= chunk.getSize();
      if (!at_end) continue;
      // A final run's files grow no more; runFinal was taken before this read.
      if (!follow || chunk.getRunFinal()) return kExitOk;
      timer.afterDelay(kFollowInterval).wait(io.waitScope);
    }
  });
}

}  // namespace mace::client
