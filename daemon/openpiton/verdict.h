#pragma once
// The verdict of a simulation, read from its testbench transcript (`sim.log`), and the pass
// rule built on it (REQ-VER-2..5).
//
// Why the transcript and not the exit code: an OpenPiton simulation exits 0 whether or not
// the program passed (REQ-VER-2). The testbench prints one of these lines instead:
//
//   7110750: Simulation -> PASS (HIT GOOD TRAP)
//   4498250 : Simulation -> FAIL(HIT BAD TRAP)
//   27669250 : Simulation -> FAIL(TIMEOUT)
//   750000250 : Simulation -> (terminated by reaching max cycles = 1500000)
//   Info: spc(0) thread(1) -> timeout happen          (one per idle thread, many lines)
//
// The table of the spec ("Verdict") is checked in order over the WHOLE transcript, so the
// result fails closed: a failure or max-cycles marker anywhere wins over a PASS line
// (REQ-VER-4), and the per-thread "timeout happen" notices only count when there is no
// verdict line at all.
//
//   1. `Simulation -> FAIL(msg)` with TIMEOUT in msg (any case)   timeout
//   2. any other `Simulation -> FAIL(msg)`                        fail
//   3. `Simulation -> (terminated by reaching max cycles = N)`    maxcycles
//   4. `Simulation -> PASS` (not PASSED...)                       pass
//   5. `-> timeout happen`                                        timeout
//   6. none of the above                                          none
//
// Matching follows the reference parser (chia_openpiton.parse.sim_verdict): the blanks
// around "->", between FAIL and "(" and around "=" may be any run of spaces or tabs (up to
// 32), including none; the optional " " before the time stamp's colon plays no part. The
// FAIL message is the text after "(" up to the first ")" on that line, or to the end of
// the line when there is none (a cut-off FAIL line still fails). Two deliberate
// differences from the reference: a FAIL line without ")" counts as fail instead of being
// ignored, and with several FAIL lines any one with TIMEOUT makes the run timeout (the
// reference looks only at the first), as the spec's table reads.
//
// Only the C++ standard library and POSIX (REQ-PLAT-9).

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace mace::openpiton {

enum class Verdict { none, pass, fail, timeout, maxcycles };

// "none", "pass", "fail", "timeout", "maxcycles": the names the store and the RPC use.
std::string_view to_string(Verdict v);
std::optional<Verdict> verdict_from_string(std::string_view s);

// The transcript markers, in the order the spec's table checks them (rows 1..5).
enum class VerdictMarker { fail_timeout, fail, max_cycles, pass, timeout_happen };
inline constexpr std::size_t kVerdictMarkerCount = 5;

// Classifies a transcript fed to it in pieces of any size. A marker split across two (or
// more) pieces is still found, and memory stays bounded however long a line is.
//
// feed() costs about what reading the bytes costs: it only looks closer at the rare places
// where "->" occurs (see verdict.cc). Not thread-safe; one scanner per transcript.
class VerdictScanner {
 public:
  VerdictScanner();

  // The next bytes of the transcript. Bytes need not be text (NULs are fine).
  void feed(std::string_view chunk);

  // The verdict of everything fed so far, as if the transcript ended here.
  Verdict verdict() const;
  // The marker that decided verdict(); nullopt when verdict() is none.
  std::optional<VerdictMarker> deciding_marker() const;
  // The transcript line that decided verdict(), without its line ending, for people; cut
  // to kMaxMarkerLineBytes (and to the last 256 bytes before the marker when the line
  // started further back). Empty when verdict() is none.
  std::string_view marker_line() const;
  // Whether the marker occurred anywhere in what was fed so far (up to settled(): what
  // comes after is not looked at).
  bool seen(VerdictMarker m) const;
  // True once nothing later in the transcript can change verdict() or marker_line() (a
  // FAIL(TIMEOUT) line was seen in full); the caller may stop reading. feed() is then a
  // no-op.
  bool settled() const;
  std::uint64_t bytes_fed() const { return bytes_fed_; }

  static constexpr std::size_t kMaxMarkerLineBytes = 1024;

 private:
  void scan_boundary(std::string_view chunk);
  void scan_body(std::string_view chunk);
  void on_match(VerdictMarker marker, std::string_view chunk, std::ptrdiff_t start, std::ptrdiff_t end);
  void consume(std::string_view chunk, std::size_t upto);
  void scan_fail_message(std::string_view text, bool closed_by_newline);
  void mark(VerdictMarker m);
  void close_line();
  void open_line(std::string_view chunk, std::ptrdiff_t start, std::ptrdiff_t end);
  void append_line(std::string_view text);
  std::ptrdiff_t line_start(std::string_view chunk, std::ptrdiff_t start) const;
  std::string text_between(std::string_view chunk, std::ptrdiff_t from, std::ptrdiff_t to) const;

  std::uint64_t bytes_fed_ = 0;
  unsigned seen_ = 0;  // bit per VerdictMarker

  // The last bytes before the current chunk: where a marker cut by a chunk boundary
  // starts, and the beginning of a marker's line.
  std::string carry_;
  // The current chunk has been looked at up to here by consume().
  std::size_t consumed_ = 0;

  // A marker's line being collected (its end not seen yet), and the markers it decides.
  bool line_open_ = false;
  std::string line_;
  unsigned line_markers_ = 0;
  std::array<std::string, kVerdictMarkerCount> lines_;  // the first line of each marker

  // Inside the message of a FAIL( line: looking for TIMEOUT up to ")" or the line's end.
  bool fail_message_open_ = false;
  bool fail_message_timeout_ = false;
  std::string fail_message_tail_;  // its last bytes, for a TIMEOUT cut by a chunk boundary

  // The transcript so far ends in "Simulation -> PASS": a pass if nothing follows, not one
  // if "ED" does. Decided by the next feed().
  bool pass_at_end_ = false;
  std::string pass_at_end_line_;
};

struct VerdictResult {
  Verdict verdict = Verdict::none;
  std::string marker_line;  // the line that decided it, for people; empty for none
  // Empty when the file was read to its end (or to a settled verdict). Otherwise what went
  // wrong, naming the file ("cannot open /x/sim.log: No such file or directory"); the
  // verdict is then that of the part that was read (none for a missing file).
  std::string error;
  std::uint64_t bytes_read = 0;
};

// Reads the file at disk speed in large pieces (never all of it in memory; a line of any
// length is fine) and classifies it. Never throws for I/O problems and never crashes on a
// missing, empty, unreadable, binary or growing file. Only a regular file is read: a
// directory, a FIFO or a device (/dev/zero never ends) is an error at once, without
// waiting for a writer or reading a byte.
VerdictResult read_verdict(const std::filesystem::path& sim_log);

// The pass rule of the spec (PitonRunResult.decide()): the transcript says pass and the
// process neither timed out nor failed to launch, which the runner reports as returncode
// -1. Any other exit code is ignored, since a simulation exits 0 whether or not the program
// passed (REQ-VER-2, REQ-VER-5).
bool run_passed(int returncode, Verdict v);

// For a run that hit its wall-clock limit: without a transcript verdict it is a timeout;
// a verdict the transcript already holds stands (REQ-VER-3).
Verdict verdict_after_wall_clock_limit(Verdict from_transcript);

}  // namespace mace::openpiton
