#pragma once
// Where run_process_group's captured output goes (process_group.h): the log file, the
// tail kept in the result, and the line consumers (on_line, is_error_line). Lines are cut
// to spec.max_line_bytes, so a 50 MB line without a newline costs that much memory, not
// 50 MB.

#include <cstddef>
#include <string>

#include "os/process_group.h"

namespace mace::os {

class ProcessOutput {
 public:
  // `log_fd` (may be -1) stays owned by the caller.
  ProcessOutput(const ProcessSpec& spec, ProcessResult& result, int log_fd);

  // Bytes as read from the pipe, in order.
  void consume(const char* data, std::size_t size);
  // The output ended: deliver a last line without a newline, trim the tail.
  void finish();

 private:
  void write_log(const char* data, std::size_t size);
  void keep_tail(const char* data, std::size_t size);
  void add_to_line(const char* data, std::size_t size);
  void end_line();

  const ProcessSpec& spec_;
  ProcessResult& result_;
  int log_fd_;
  std::string line_;
  bool in_line_ = false;  // bytes seen since the last newline (line_ may be empty if capped)
  bool truncated_ = false;
};

}  // namespace mace::os
