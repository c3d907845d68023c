#include "openpiton/transcript_excerpt.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <deque>
#include <map>
#include <optional>
#include <vector>

namespace mace::openpiton {
namespace {

bool contains_folded(std::string_view haystack, std::string_view lower_needle) {
  if (lower_needle.size() > haystack.size()) return false;
  for (std::size_t i = 0; i + lower_needle.size() <= haystack.size(); ++i) {
    std::size_t j = 0;
    while (j < lower_needle.size() &&
           std::tolower(static_cast<unsigned char>(haystack[i + j])) == lower_needle[j])
      ++j;
    if (j == lower_needle.size()) return true;
  }
  return false;
}

// "Simulation -> ...", the verdict lines (verdict.h), with any blanks before the arrow.
bool is_verdict_line(std::string_view line) {
  const std::size_t at = line.find("Simulation");
  if (at == std::string_view::npos) return false;
  std::size_t i = at + 10;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  return line.substr(i, 2) == "->";
}

struct NumberedLine {
  std::size_t number = 0;  // from 1
  std::string text;
};

// Reads lines one at a time, each cut to kMaxExcerptLineBytes, without holding more.
class LineSource {
 public:
  explicit LineSource(int fd) : fd_(fd) {}
  // The next line without its ending; nullopt at the end of the file or on an error.
  std::optional<std::string> next() {
    std::string line;
    bool any = false;
    for (;;) {
      if (pos_ == len_) {
        if (eof_) return any ? std::optional<std::string>(std::move(line)) : std::nullopt;
        ssize_t n = ::read(fd_, buffer_.data(), buffer_.size());
        if (n <= 0) {
          eof_ = true;
          continue;
        }
        pos_ = 0;
        len_ = static_cast<std::size_t>(n);
      }
      any = true;
      const char* start = buffer_.data() + pos_;
      const char* end = buffer_.data() + len_;
      const char* nl = std::find(start, end, '\n');
      const std::size_t room = kMaxExcerptLineBytes - std::min(line.size(), kMaxExcerptLineBytes);
      line.append(start, std::min(static_cast<std::size_t>(nl - start), room));
      pos_ = static_cast<std::size_t>(nl - buffer_.data());
      if (nl != end) {
        ++pos_;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        return line;
      }
    }
  }

 private:
  int fd_;
  std::array<char, 64 * 1024> buffer_{};
  std::size_t pos_ = 0, len_ = 0;
  bool eof_ = false;
};

}  // namespace

bool reads_as_error(std::string_view line) {
  if (is_verdict_line(line)) return false;
  return contains_folded(line, "error") || contains_folded(line, "hit bad trap") ||
         contains_folded(line, "mismatch") || contains_folded(line, "fatal");
}

TranscriptExcerpt read_transcript_excerpt(const std::filesystem::path& sim_log,
                                          std::string_view marker_line) {
  TranscriptExcerpt excerpt;
  const int fd = ::open(sim_log.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return excerpt;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return excerpt;
  }
  // The marker line as it starts (the scanner may have cut a long one at either end).
  const std::string_view marker =
      marker_line.substr(0, std::min<std::size_t>(marker_line.size(), 200));

  std::map<std::size_t, std::string> kept;  // by line number
  std::deque<NumberedLine> before;
  std::optional<std::size_t> error_at, marker_at;
  std::size_t after_error = 0, after_marker = 0;  // lines still wanted after each
  LineSource source(fd);
  std::size_t number = 0;
  while (auto line = source.next()) {
    ++number;
    if (after_error > 0) {
      kept.emplace(number, *line);
      --after_error;
    }
    if (after_marker > 0) {
      kept.emplace(number, *line);
      --after_marker;
    }
    const bool is_error = !error_at && reads_as_error(*line);
    const bool is_marker = !marker_at && !marker.empty() && line->find(marker) != std::string::npos;
    if (is_error || is_marker) {
      for (const auto& b : before) kept.emplace(b.number, b.text);
      kept.emplace(number, *line);
      if (is_error) {
        error_at = number;
        excerpt.error_line = *line;
        after_error = kExcerptLinesAfter;
      }
      if (is_marker) {
        marker_at = number;
        after_marker = kExcerptLinesAfter;
      }
    }
    // Past the verdict and what follows it, an error line would explain nothing before it.
    if (marker_at && after_marker == 0 && after_error == 0) break;
    before.push_back({number, std::move(*line)});
    if (before.size() > kExcerptLinesBefore) before.pop_front();
  }
  ::close(fd);
  if (excerpt.error_line.empty() && marker_at) excerpt.error_line = kept[*marker_at];

  std::optional<std::size_t> previous;
  for (const auto& [n, text] : kept) {
    std::string line;
    if (previous && n != *previous + 1) line += "...\n";
    line += std::to_string(n) + ": " + text + "\n";
    if (excerpt.text.size() + line.size() > kMaxExcerptBytes) break;
    excerpt.text += line;
    previous = n;
  }
  return excerpt;
}

}  // namespace mace::openpiton
