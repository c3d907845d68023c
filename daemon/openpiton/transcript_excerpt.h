#pragma once
// What a person reading a failed simulation looks at first: the transcript's error line
// and the lines around it and around the verdict (sim.log of one run).
//
// The error line is the first line of the transcript that reads as an error, as
// OpenPiton's monitors print them ("*ERROR*: 4031 : tlu_mon: ...", "Error @1200 : sparc 0
// ...", "@800 Bug 7117: Error: ...", "4498000: Info - > Hit Bad trap. spc(0) thread(0)",
// "Playback FAILED with 3 mismatches!"): a line holding "error", "hit bad trap",
// "mismatch" or "fatal" in any case. The verdict lines themselves ("Simulation -> FAIL(...)")
// are the verdict, not an error before it; when no other line reads as an error, the error
// line is the verdict's marker line, which for FAIL(msg) carries the testbench's message
// and for a timeout or max cycles is the only thing the transcript says. So two runs that
// failed alike have error lines that differ only in numbers and addresses (the failure
// signature, core/failure_signature.h).
//
// Only the C++ standard library and POSIX (REQ-PLAT-9).

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace mace::openpiton {

struct TranscriptExcerpt {
  // The first error line (see above), cut to kMaxExcerptLineBytes; the marker line when no
  // other line reads as one; empty when the transcript holds neither.
  std::string error_line;
  // The lines around the error line and around the verdict's marker line, each as
  // "<line number>: <text>" (cut to kMaxExcerptLineBytes), the two pieces apart with a
  // line "..." when they do not touch; one piece when they do, or when one is missing.
  // Empty when the transcript holds neither line. At most kMaxExcerptBytes.
  std::string text;
};

// Whether one transcript line reads as an error (see above).
bool reads_as_error(std::string_view line);

// Reads `sim_log` once from its start (a line of any length is fine; memory stays
// bounded). `marker_line` is the verdict's marker line as VerdictScanner gave it (the
// line is found by its start; empty: no verdict). A missing or unreadable file gives an
// empty excerpt; never throws for I/O.
TranscriptExcerpt read_transcript_excerpt(const std::filesystem::path& sim_log,
                                          std::string_view marker_line);

inline constexpr std::size_t kExcerptLinesBefore = 4;
inline constexpr std::size_t kExcerptLinesAfter = 2;
inline constexpr std::size_t kMaxExcerptLineBytes = 512;
inline constexpr std::size_t kMaxExcerptBytes = 8 * 1024;

}  // namespace mace::openpiton
