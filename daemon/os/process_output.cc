#include "os/process_output.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>

#include "os/errno_text.h"

namespace mace::os {

ProcessOutput::ProcessOutput(const ProcessSpec& spec, ProcessResult& result, int log_fd)
    : spec_(spec), result_(result), log_fd_(log_fd) {
  line_.reserve(std::min<std::size_t>(spec.max_line_bytes, 4096));
}

void ProcessOutput::consume(const char* data, std::size_t size) {
  result_.output_bytes += size;
  write_log(data, size);
  keep_tail(data, size);
  if (!spec_.on_line && !spec_.is_error_line) return;
  while (size > 0) {
    const char* newline = static_cast<const char*>(std::memchr(data, '\n', size));
    std::size_t piece = newline ? static_cast<std::size_t>(newline - data) : size;
    add_to_line(data, piece);
    if (!newline) break;
    end_line();
    data += piece + 1;
    size -= piece + 1;
  }
}

void ProcessOutput::finish() {
  if (in_line_) end_line();
  if (result_.tail.size() > spec_.tail_bytes)
    result_.tail.erase(0, result_.tail.size() - spec_.tail_bytes);
}

void ProcessOutput::write_log(const char* data, std::size_t size) {
  if (log_fd_ < 0) return;
  while (size > 0) {
    ssize_t n = ::write(log_fd_, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      result_.log_error = "cannot write log file '" + spec_.log_path + "': " + errno_text(errno);
      log_fd_ = -1;  // the caller closes it
      return;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

void ProcessOutput::keep_tail(const char* data, std::size_t size) {
  const std::size_t cap = spec_.tail_bytes;
  if (cap == 0) return;
  std::string& tail = result_.tail;
  if (size >= cap) {
    tail.assign(data + size - cap, cap);
    return;
  }
  tail.append(data, size);
  if (tail.size() > 2 * cap) tail.erase(0, tail.size() - cap);  // amortised trimming
}

void ProcessOutput::add_to_line(const char* data, std::size_t size) {
  in_line_ = true;
  if (line_.size() >= spec_.max_line_bytes) return;
  line_.append(data, std::min(size, spec_.max_line_bytes - line_.size()));
  if (line_.size() < spec_.max_line_bytes) return;
  truncated_ = true;
}

void ProcessOutput::end_line() {
  std::string_view line(line_);
  if (!truncated_ && !line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (spec_.on_line) spec_.on_line(line);
  if (spec_.is_error_line && spec_.is_error_line(line)) {
    ++result_.error_lines_total;
    if (result_.error_lines.size() < spec_.max_error_lines) result_.error_lines.emplace_back(line);
  }
  line_.clear();
  in_line_ = false;
  truncated_ = false;
}

}  // namespace mace::os
