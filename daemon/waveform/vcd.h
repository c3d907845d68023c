#pragma once
// A VCD file (IEEE 1364, "value change dump") as Verilator's --trace writes it, read in one
// pass with every size bounded: the header's scopes and signals, then the value changes.
//
//   $timescale 1ps $end
//   $scope module TOP $end
//    $var wire  1 ,| core_ref_clk $end
//    $var wire 32 n#! j [31:0] $end
//   $upscope $end
//   $enddefinitions $end
//   #0
//   0,|
//   b00000000000000000000000000000101 n#!
//
// A signal is named by its scopes and its name joined with '.' (TOP.cmp_top.core_ref_clk).
// Several signals may share an identifier code (the same net seen at several levels): a
// change of the code is a change of each. The file is the design's output, so nothing in
// it is trusted: a header that never ends, a line without an end, a code no $var declared
// are read within the limits below and reported, never followed without bound.
//
// Only the C++ standard library (and os/ for nothing but its base types).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <istream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace mace::waveform {

// A waveform that cannot be read as one: the file and what is wrong with it.
class WaveError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct VcdLimits {
  std::size_t max_header_bytes = std::size_t{256} << 20;
  std::size_t max_signals = 2'000'000;
  std::size_t max_line_bytes = std::size_t{1} << 20;  // a value of a very wide vector
  std::size_t max_scope_depth = 256;
};

struct Signal {
  std::string path;   // TOP.cmp_top.system.chip.tile0.clk
  std::string code;   // the VCD identifier code
  int width = 1;
  std::string range;  // "[31:0]", or "" for a scalar
  std::size_t depth() const;  // scopes above it plus one: TOP.x is 2
};

struct VcdHeader {
  std::string timescale;         // "1ps"; "" when the file gives none
  std::vector<Signal> signals;   // as declared
  // Signal indexes by code, for the body's changes.
  std::unordered_map<std::string, std::vector<std::size_t>> by_code;
  const Signal* find(std::string_view path) const;
};

// What the body's walk is told. `time` is called at each timestamp (in increasing order;
// a file that goes back in time is reported), `change` with each value change since.
// Returning false from `time` ends the walk there.
struct ChangeVisitor {
  std::function<bool(std::uint64_t time)> time;
  std::function<void(std::string_view code, std::string_view value)> change;
};

struct WalkEnd {
  std::optional<std::uint64_t> first_time, last_time;  // of the timestamps read
  bool stopped = false;    // a visitor or the deadline ended the walk early
  bool timed_out = false;  // the deadline did
  bool truncated = false;  // the file ended in the middle of a line (a run that was killed)
};

// One pass over a VCD stream: the header when made, then the value changes once.
class VcdReader {
 public:
  // Reads the header. Throws WaveError (naming `name`) when there is no $enddefinitions
  // within the limits or a construct is malformed.
  VcdReader(std::istream& in, std::string name, VcdLimits limits = {});
  ~VcdReader();
  VcdReader(const VcdReader&) = delete;
  VcdReader& operator=(const VcdReader&) = delete;

  const VcdHeader& header() const { return header_; }
  // Walks the value changes, once. Throws WaveError for a timestamp that goes back or a
  // line longer than the limit.
  WalkEnd walk(const ChangeVisitor& visitor, std::chrono::steady_clock::time_point deadline);

 private:
  class Lines;
  std::string name_;
  VcdLimits limits_;
  std::unique_ptr<Lines> lines_;
  VcdHeader header_;
};

// A value as people read it: a scalar as its digit (0, 1, x, z); a vector of 0s and 1s as
// hex with its width ("32'h5"); one with x or z as binary ("4'b10x1"); a real as written.
std::string readable_value(std::string_view value, int width);

}  // namespace mace::waveform
