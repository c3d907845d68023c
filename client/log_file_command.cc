// mace logs RUN --build | --sim WORKLOAD [--task T] [--iteration N] [--tail N] [--follow]:
// a task's build transcript or a simulation's sim.log, read by maced (which owns the
// checkouts) one bounded piece at a time, so a file of any size costs one MiB at once.

#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "commands.h"
#include "exit_codes.h"
#include "maced_connection.h"

namespace mace::client {
namespace {

constexpr uint32_t kMaxTailLines = 100000;
// How often --follow asks again at the end of a file still being written.
constexpr auto kFollowInterval = 300 * kj::MILLISECONDS;

bool parse_count(const std::optional<std::string>& text, uint32_t most, uint32_t& out) {
  if (!text) return true;
  if (text->empty() || text->size() > 9 || text->find_first_not_of("0123456789") != std::string::npos)
    return false;
  out = static_cast<uint32_t>(std::stoul(*text));
  return out <= most;
}

bool write_all(const kj::ArrayPtr<const kj::byte> data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(STDOUT_FILENO, data.begin() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

bool wants_log_file(const Arguments& args) { return args.has("--build") || args.value("--sim"); }

int cmd_log_file(const GlobalOptions& global, const Arguments& args) {
  const char* usage =
      "usage: mace logs RUN --build | --sim WORKLOAD [--task T] [--iteration N] [--tail N] "
      "[--follow]\n";
  uint32_t tail = 0, iteration = 0;
  if (args.positional.size() != 1 || (args.has("--build") && args.value("--sim")) ||
      !parse_count(args.value("--tail"), kMaxTailLines, tail) ||
      !parse_count(args.value("--iteration"), 1u << 20, iteration)) {
    std::cerr << usage << "  --tail: a count of lines up to " << kMaxTailLines << "\n";
    return kExitBadInput;
  }
  const bool follow = args.has("--follow");
  return with_maced(global.socket_path, [&](api::Maced::Client& maced, kj::AsyncIoContext& io) {
    int64_t offset = tail ? -1 : 0;
    auto& timer = io.provider->getTimer();
    for (;;) {
      auto request = maced.readLogRequest();
      request.setRunId(args.positional[0]);
      auto query = request.initQuery();
      query.setIteration(iteration);
      query.setTaskId(args.value("--task").value_or(""));
      query.setWorkload(args.value("--sim").value_or(""));
      query.setOffset(offset);
      query.setTailLines(tail);
      auto response = request.send().wait(io.waitScope);
      auto chunk = response.getChunk();
      if (!chunk.getFound() && (!follow || chunk.getRunFinal())) {
        std::cerr << "mace logs: run " << args.positional[0] << " has no "
                  << (args.value("--sim") ? "sim.log of " + *args.value("--sim") : "build log")
                  << (args.value("--task") ? " for task " + *args.value("--task") : "")
                  << " (yet)\n";
        return kExitBadInput;
      }
      const auto data = chunk.getData();
      if (!write_all(data)) return kExitOk;  // the reader went away (`| head`): nothing to say
      if (chunk.getFound()) offset = chunk.getOffset() + static_cast<int64_t>(data.size());
      const bool at_end = !chunk.getFound() || offset >= chunk.getSize();
      if (!at_end) continue;
      // A final run's files grow no more; runFinal was taken before this read.
      if (!follow || chunk.getRunFinal()) return kExitOk;
      timer.afterDelay(kFollowInterval).wait(io.waitScope);
    }
  });
}

}  // namespace mace::client
