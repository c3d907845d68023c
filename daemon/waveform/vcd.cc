#include "waveform/vcd.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace mace::waveform {

// Lines of a stream, read a block at a time, each at most `max_line` bytes.
class VcdReader::Lines {
 public:
  Lines(std::istream& in, const std::string& name, std::size_t max_line)
      : in_(in), name_(name), max_line_(max_line) {}

  // The next line without its newline; nullopt at the end. `truncated` says whether the
  // last line had no newline.
  std::optional<std::string_view> next() {
    for (;;) {
      const std::size_t newline = buffer_.find('\n', scan_from_);
      if (newline != std::string::npos) {
        std::string_view line(buffer_.data() + start_, newline - start_);
        start_ = scan_from_ = newline + 1;
        consumed_ += line.size() + 1;
        return line;
      }
      if (buffer_.size() - start_ > max_line_)
        throw WaveError(name_ + ": a line longer than " + std::to_string(max_line_) + " bytes");
      if (!fill()) {
        if (start_ == buffer_.size()) return std::nullopt;
        truncated_ = true;
        std::string_view line(buffer_.data() + start_, buffer_.size() - start_);
        consumed_ += line.size();
        start_ = scan_from_ = buffer_.size();
        return line;
      }
    }
  }
  bool truncated() const { return truncated_; }
  std::uint64_t consumed() const { return consumed_; }

 private:
  bool fill() {
    buffer_.erase(0, start_);
    scan_from_ = buffer_.size();
    start_ = 0;
    char block[1 << 16];
    in_.read(block, sizeof block);
    const auto got = static_cast<std::size_t>(in_.gcount());
    if (got == 0) return false;
    buffer_.append(block, got);
    return true;
  }

  std::istream& in_;
  const std::string& name_;
  std::size_t max_line_;
  std::string buffer_;
  std::size_t start_ = 0, scan_from_ = 0;
  std::uint64_t consumed_ = 0;
  bool truncated_ = false;
};

namespace {

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

std::optional<std::uint64_t> decimal(std::string_view text) {
  if (text.empty() || text.size() > 19) return std::nullopt;
  std::uint64_t n = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return n;
}

// The header's words, in order, one $...$end construct at a time.
struct HeaderParser {
  VcdHeader header;
  std::vector<std::string> scopes;
  const std::string& name;
  const VcdLimits& limits;
  bool done = false;

  void construct(const std::vector<std::string>& w) {
    const std::string& keyword = w.front();
    if (keyword == "$scope") {
      if (w.size() < 3) throw WaveError(name + ": a $scope without a name");
      if (scopes.size() >= limits.max_scope_depth)
        throw WaveError(name + ": scopes nested deeper than " + std::to_string(limits.max_scope_depth));
      scopes.push_back(w[2]);
    } else if (keyword == "$upscope") {
      if (scopes.empty()) throw WaveError(name + ": $upscope outside any scope");
      scopes.pop_back();
    } else if (keyword == "$var") {
      var(w);
    } else if (keyword == "$timescale") {
      for (std::size_t i = 1; i + 1 < w.size(); ++i) header.timescale += w[i];
    } else if (keyword == "$enddefinitions") {
      done = true;
    }
  }

  // $var wire 32 n#! j [31:0] $end
  void var(const std::vector<std::string>& w) {
    if (w.size() < 6) throw WaveError(name + ": a $var with fewer than four fields");
    if (header.signals.size() >= limits.max_signals)
      throw WaveError(name + ": more than " + std::to_string(limits.max_signals) + " signals");
    Signal s;
    const auto width = decimal(w[2]);
    if (!width || *width == 0 || *width > (1u << 20)) throw WaveError(name + ": a $var of width '" + w[2] + "'");
    s.width = static_cast<int>(*width);
    s.code = w[3];
    for (const auto& scope : scopes) s.path += scope + ".";
    s.path += w[4];
    if (w.size() > 6) s.range = w[5];  // the word before $end
    header.by_code[s.code].push_back(header.signals.size());
    header.signals.push_back(std::move(s));
  }
};

}  // namespace

std::size_t Signal::depth() const { return static_cast<std::size_t>(std::count(path.begin(), path.end(), '.')) + 1; }

const Signal* VcdHeader::find(std::string_view path) const {
  for (const auto& s : signals)
    if (s.path == path) return &s;
  return nullptr;
}

VcdReader::VcdReader(std::istream& in, std::string name, VcdLimits limits)
    : name_(std::move(name)), limits_(limits), lines_(std::make_unique<Lines>(in, name_, limits_.max_line_bytes)) {
  // A construct may span lines: its words gather until its $end.
  HeaderParser parser{.header = {}, .scopes = {}, .name = name_, .limits = limits_};
  std::vector<std::string> construct;
  while (!parser.done) {
    const auto line = lines_->next();
    if (!line) throw WaveError(name_ + ": the header has no $enddefinitions");
    if (lines_->consumed() > limits_.max_header_bytes)
      throw WaveError(name_ + ": a header longer than " + std::to_string(limits_.max_header_bytes) + " bytes");
    for (std::string_view word : words(*line)) {
      if (construct.empty() && word.front() != '$')
        throw WaveError(name_ + ": '" + std::string(word.substr(0, 40)) + "' outside a $ construct of the header");
      construct.emplace_back(word);
      if (word == "$end") {
        parser.construct(construct);
        construct.clear();
        if (parser.done) break;
      }
    }
  }
  header_ = std::move(parser.header);
}

VcdReader::~VcdReader() = default;

WalkEnd VcdReader::walk(const ChangeVisitor& visitor, std::chrono::steady_clock::time_point deadline) {
  WalkEnd end;
  Lines& lines = *lines_;
  const std::string& name = name_;
  std::uint64_t since_clock = 0;
  while (auto line = lines.next()) {
    if (lines.truncated()) break;  // a last line without its end is not trusted
    std::string_view text = *line;
    while (!text.empty() && (text.back() == '\r' || text.back() == ' ')) text.remove_suffix(1);
    if (text.empty()) continue;
    const char c = text.front();
    if (c == '#') {
      const auto time = decimal(text.substr(1));
      if (!time)
        throw WaveError(name + ": a timestamp '" + std::string(text.substr(0, 40)) + "'");
      if (end.last_time && *time < *end.last_time)
        throw WaveError(name + ": time goes back from " + std::to_string(*end.last_time) + " to " +
                        std::to_string(*time));
      if (!end.first_time) end.first_time = time;
      end.last_time = time;
      if (++since_clock >= 4096) {
        since_clock = 0;
        if (std::chrono::steady_clock::now() > deadline) {
          end.stopped = end.timed_out = true;
          return end;
        }
      }
      if (visitor.time && !visitor.time(*time)) {
        end.stopped = true;
        return end;
      }
    } else if (c == '0' || c == '1' || c == 'x' || c == 'X' || c == 'z' || c == 'Z') {
      if (visitor.change) visitor.change(text.substr(1), text.substr(0, 1));
    } else if (c == 'b' || c == 'B' || c == 'r' || c == 'R') {
      const std::size_t space = text.find(' ');
      if (space == std::string_view::npos) continue;  // a line cut short
      if (visitor.change) visitor.change(text.substr(space + 1), text.substr(1, space - 1));
    }
    // $dumpvars, $end, $comment ...: the changes inside are read as any others.
  }
  end.truncated = lines.truncated();
  return end;
}

std::string readable_value(std::string_view value, int width) {
  if (width <= 1 && value.size() == 1) return std::string(1, static_cast<char>(std::tolower(value[0])));
  const bool binary = std::all_of(value.begin(), value.end(), [](char c) { return c == '0' || c == '1'; });
  const std::string prefix = std::to_string(width);
  if (!binary) {
    const bool bits = std::all_of(value.begin(), value.end(), [](char c) {
      return std::strchr("01xXzZ", c) != nullptr;
    });
    return bits ? prefix + "'b" + std::string(value) : std::string(value);
  }
  // Verilator leaves out nothing, but VCD allows leading zeros to be dropped.
  std::string hex;
  const std::size_t pad = (4 - value.size() % 4) % 4;
  const std::string bits = std::string(pad, '0') + std::string(value);
  for (std::size_t i = 0; i < bits.size(); i += 4) {
    const int nibble = (bits[i] - '0') * 8 + (bits[i + 1] - '0') * 4 + (bits[i + 2] - '0') * 2 + (bits[i + 3] - '0');
    hex += "0123456789abcdef"[nibble];
  }
  const std::size_t first = hex.find_first_not_of('0');
  return prefix + "'h" + (first == std::string::npos ? "0" : hex.substr(first));
}

}  // namespace mace::waveform
