#include "openpiton/verdict.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <utility>

#include "os/errno_text.h"
#include "os/unique_fd.h"
#include "os/text.h"

// How the scan stays fast: every marker contains "->", and in a transcript that pair is
// rare (a few per thousand lines), so the scanner only looks for "->" (see find_arrow) and
// runs the exact, slower checks at those few places. Nothing is done per line: newlines
// are only looked for on the few lines that hold a marker (to keep that line for people).
//
// How pieces join: a marker is reported by the feed() in which its last needed byte
// arrives. Each feed() first scans a small window made of the last kCarry bytes of earlier
// input and the first kBoundary bytes of the new piece, for markers that START in the old
// bytes and are decided by new ones; then the piece itself for markers that start in it.
// A marker is at most kMaxMatch bytes long, less than both, so no marker is missed or
// reported twice, and the window costs a few hundred bytes per feed() whatever its size.

namespace mace::openpiton {

namespace {

constexpr std::size_t kMaxBlanks = 32;   // per run of blanks inside a marker
constexpr std::size_t kMaxDigits = 20;   // the N of "max cycles = N"
constexpr std::string_view kSimulation = "Simulation";
constexpr std::string_view kTimeoutHappen = "timeout happen";
constexpr std::string_view kMaxCycles = "(terminated by reaching max cycles";
// Longest reach of a marker: before "->" ("Simulation" and blanks) and from its "-"
// (the max-cycles marker with all its blanks and digits, or PASS plus the byte after it).
constexpr std::size_t kMaxLookback = kSimulation.size() + kMaxBlanks;
constexpr std::size_t kMaxLookahead =
    2 + kMaxBlanks + kMaxCycles.size() + kMaxBlanks + 1 + kMaxBlanks + kMaxDigits + 1;
constexpr std::size_t kMaxMatch = kMaxLookback + kMaxLookahead;
// How far before its marker a marker line's shown start may lie.
constexpr std::size_t kLineLookback = 256;
// The bytes of earlier pieces kept: enough that a marker starting in them still has
// kLineLookback bytes before it, so a marker line does not depend on how the transcript
// was cut into pieces.
constexpr std::size_t kCarry = kLineLookback + kMaxMatch;
constexpr std::size_t kBoundary = 256;
static_assert(kMaxMatch < kCarry && kMaxMatch < kBoundary);

// The buffer read_verdict() reads into: large enough that the read() calls cost little (16
// per MiB), small enough that what the kernel copied is still in L2 when the scan reads it.
// Measured here, 64 KiB read fastest; 256 KiB and more were up to 20% slower.
constexpr std::size_t kReadChunk = 64 * 1024;

bool is_blank(char c) { return c == ' ' || c == '\t'; }

unsigned bit(VerdictMarker m) { return 1u << static_cast<unsigned>(m); }

// The first "->" in [p, end), or nullptr. Looks for the '>' with memchr, which libc
// vectorises (AVX2 or EVEX on x86-64, 32 bytes or more per compare); '>' is rare in a
// transcript, so almost all of the time goes to that one call. A hand-written search for
// the two-byte pair costs twice the loads and measured slower.
const char* find_arrow(const char* p, const char* end) {
  if (end - p < 2) return nullptr;
  const char* q = p + 1;
  while (q < end) {
    q = static_cast<const char*>(std::memchr(q, '>', static_cast<std::size_t>(end - q)));
    if (q == nullptr) return nullptr;
    if (q[-1] == '-') return q - 1;
    ++q;
  }
  return nullptr;
}

// Compares `lit` with b[j...] as far as the buffer goes: 1 all of it matched (j moves past
// it), 0 a mismatch, -1 the buffer ended first but what is there matches.
int expect(const char* b, std::size_t n, std::size_t& j, std::string_view lit) {
  std::size_t have = std::min(lit.size(), n - j);
  if (std::memcmp(b + j, lit.data(), have) != 0) return 0;
  if (have < lit.size()) return -1;
  j += lit.size();
  return 1;
}

// Skips at most kMaxBlanks blanks: 1 then stopped at a non-blank, 0 too many, -1 the buffer
// ended.
int skip_blanks(const char* b, std::size_t n, std::size_t& j) {
  std::size_t k = 0;
  while (j < n && is_blank(b[j])) {
    if (++k > kMaxBlanks) return 0;
    ++j;
  }
  return j < n ? 1 : -1;
}

bool contains_timeout_any_case(std::string_view s) {
  constexpr std::string_view kWord = "timeout";
  for (std::size_t i = 0; i + kWord.size() <= s.size(); ++i) {
    // (c | 0x20) folds ASCII case; for these letters no other byte folds onto them.
    if ((s[i] | 0x20) != 't') continue;
    std::size_t k = 1;
    while (k < kWord.size() && (s[i + k] | 0x20) == kWord[k]) ++k;
    if (k == kWord.size()) return true;
  }
  return false;
}

// What is at one "->".
struct Match {
  enum Status {
    no,
    yes,
    need_more,    // consistent so far, but the buffer ends before it is decided
    pass_at_end,  // "Simulation -> PASS" and the buffer ends: a match if nothing follows
    cut_before,   // "Simulation" would start before the buffer
  };
  Status status = no;
  VerdictMarker marker = VerdictMarker::pass;  // fail means "FAIL(", message not yet read
  std::size_t start = 0;    // first byte of the marker
  std::size_t end = 0;      // one past its last byte (after "(" for FAIL)
  std::size_t decided = 0;  // the last byte that had to be seen to decide
};

// `Simulation -> PASS|FAIL(|(terminated by reaching max cycles = N)` around the "->" at a.
Match match_simulation(const char* b, std::size_t n, std::size_t a) {
  Match m;
  std::size_t k = a, blanks = 0;
  while (k > 0 && is_blank(b[k - 1])) {
    if (++blanks > kMaxBlanks) return m;
    --k;
  }
  if (k < kSimulation.size()) {
    // Part of "Simulation" may be in bytes before this buffer.
    if (std::memcmp(b, kSimulation.data() + kSimulation.size() - k, k) == 0) m.status = Match::cut_before;
    return m;
  }
  if (std::memcmp(b + k - kSimulation.size(), kSimulation.data(), kSimulation.size()) != 0) return m;
  m.start = k - kSimulation.size();

  std::size_t j = a + 2;
  int r = skip_blanks(b, n, j);
  if (r <= 0) {
    if (r < 0) m.status = Match::need_more;
    return m;
  }
  auto finish = [&](int r2, VerdictMarker marker) {
    if (r2 < 0) m.status = Match::need_more;
    if (r2 > 0) {
      m.status = Match::yes;
      m.marker = marker;
      m.end = j;
      m.decided = j - 1;
    }
    return m;
  };
  switch (b[j]) {
    case 'P': {
      r = expect(b, n, j, "PASS");
      if (r <= 0) return finish(r, VerdictMarker::pass);
      // "PASS\b": not PASSED, PASS_1...
      if (j == n) {
        m.status = Match::pass_at_end;
        m.end = j;
        return m;
      }
      if (os::is_word_char(b[j])) return m;
      m.status = Match::yes;
      m.marker = VerdictMarker::pass;
      m.end = j;
      m.decided = j;
      return m;
    }
    case 'F': {
      r = expect(b, n, j, "FAIL");
      if (r > 0) r = skip_blanks(b, n, j);
      if (r > 0) r = expect(b, n, j, "(");
      return finish(r, VerdictMarker::fail);
    }
    case '(': {
      r = expect(b, n, j, kMaxCycles);
      if (r > 0) r = skip_blanks(b, n, j);
      if (r > 0) r = expect(b, n, j, "=");
      if (r > 0) r = skip_blanks(b, n, j);
      if (r > 0) {
        std::size_t digits = 0;
        while (j < n && b[j] >= '0' && b[j] <= '9') {
          if (++digits > kMaxDigits) return m;
          ++j;
        }
        if (j == n) return finish(-1, VerdictMarker::max_cycles);
        if (digits == 0) return m;
        r = expect(b, n, j, ")");
      }
      return finish(r, VerdictMarker::max_cycles);
    }
    default:
      return m;
  }
}

// `-> timeout happen` at a.
Match match_timeout_happen(const char* b, std::size_t n, std::size_t a) {
  Match m;
  std::size_t j = a + 2;
  int r = skip_blanks(b, n, j);
  if (r > 0) r = expect(b, n, j, kTimeoutHappen);
  if (r < 0) m.status = Match::need_more;
  if (r > 0) {
    m.status = Match::yes;
    m.marker = VerdictMarker::timeout_happen;
    m.start = a;
    m.end = j;
    m.decided = j - 1;
  }
  return m;
}

Match match_at(const char* b, std::size_t n, std::size_t a) {
  Match s = match_simulation(b, n, a);
  if (s.status == Match::yes) return s;
  Match t = match_timeout_happen(b, n, a);
  if (t.status == Match::yes) return t;
  return s;
}

}  // namespace

// ------------------------------------------------------------------------ scanner

VerdictScanner::VerdictScanner() { carry_.reserve(kCarry + kBoundary); }

void VerdictScanner::feed(std::string_view chunk) {
  bytes_fed_ += chunk.size();
  if (chunk.empty() || settled()) return;
  // New bytes decide whether a PASS at the old end was "PASS" or "PASSED".
  pass_at_end_ = false;
  pass_at_end_line_.clear();
  consumed_ = 0;

  scan_boundary(chunk);
  scan_body(chunk);
  consume(chunk, chunk.size());

  if (chunk.size() >= kCarry) {
    carry_.assign(chunk.substr(chunk.size() - kCarry));
  } else {
    carry_.append(chunk);
    if (carry_.size() > kCarry) carry_.erase(0, carry_.size() - kCarry);
  }
}

void VerdictScanner::scan_boundary(std::string_view chunk) {
  if (carry_.empty()) return;
  const std::size_t cs = carry_.size();
  const bool window_is_all = chunk.size() <= kBoundary;
  std::string window = carry_;
  window.append(chunk.substr(0, kBoundary));
  const char* b = window.data();
  const std::size_t n = window.size();

  for (const char* hit = find_arrow(b, b + n); hit != nullptr; hit = find_arrow(hit + 1, b + n)) {
    const std::size_t a = static_cast<std::size_t>(hit - b);
    if (a > cs + kMaxLookback) break;  // whatever starts here starts in the new piece
    Match m = match_at(b, n, a);
    auto start = static_cast<std::ptrdiff_t>(m.start) - static_cast<std::ptrdiff_t>(cs);
    if (m.status == Match::yes && m.start < cs && m.decided >= cs) {
      on_match(m.marker, chunk, start, static_cast<std::ptrdiff_t>(m.end - cs));
    } else if (m.status == Match::pass_at_end && m.start < cs && window_is_all) {
      pass_at_end_ = true;
      pass_at_end_line_ = text_between(chunk, line_start(chunk, start),
                                       static_cast<std::ptrdiff_t>(chunk.size()));
    }
  }
}

void VerdictScanner::scan_body(std::string_view chunk) {
  const char* b = chunk.data();
  const std::size_t n = chunk.size();
  for (const char* hit = find_arrow(b, b + n); hit != nullptr; hit = find_arrow(hit + 2, b + n)) {
    if (settled()) return;
    Match m = match_at(b, n, static_cast<std::size_t>(hit - b));
    // need_more and cut_before are left to the boundary scan of the next or the current
    // feed(), which sees the bytes on both sides.
    if (m.status == Match::yes) {
      on_match(m.marker, chunk, static_cast<std::ptrdiff_t>(m.start), static_cast<std::ptrdiff_t>(m.end));
    } else if (m.status == Match::pass_at_end) {
      pass_at_end_ = true;
      pass_at_end_line_ = text_between(chunk, line_start(chunk, static_cast<std::ptrdiff_t>(m.start)),
                                       static_cast<std::ptrdiff_t>(n));
    }
  }
}

// A marker at [start, end) of the chunk; start < 0 reaches back into carry_.
void VerdictScanner::on_match(VerdictMarker marker, std::string_view chunk, std::ptrdiff_t start,
                              std::ptrdiff_t end) {
  // Only a marker's first line is kept, so a repeat costs nothing (the per-thread timeout
  // notices come by the thousand). Every FAIL( is read until TIMEOUT has been seen, since
  // any of them may carry it.
  const bool wanted = marker == VerdictMarker::fail ? !seen(VerdictMarker::fail_timeout)
                                                    : !seen(marker);
  if (!wanted) return;
  consume(chunk, static_cast<std::size_t>(end));
  if (!line_open_) open_line(chunk, start, end);
  if (marker == VerdictMarker::fail) {
    fail_message_open_ = true;
    fail_message_timeout_ = false;
    fail_message_tail_.clear();
  } else {
    mark(marker);
  }
}

void VerdictScanner::mark(VerdictMarker m) {
  if (seen_ & bit(m)) return;
  seen_ |= bit(m);
  // A marker is always found on the line being collected.
  line_markers_ |= bit(m);
}

// Follows the open marker line (and FAIL message) through chunk[consumed_, upto).
void VerdictScanner::consume(std::string_view chunk, std::size_t upto) {
  std::size_t pos = consumed_;
  while (pos < upto && line_open_) {
    const void* nl = std::memchr(chunk.data() + pos, '\n', upto - pos);
    const std::size_t stop = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - chunk.data()) : upto;
    std::string_view piece = chunk.substr(pos, stop - pos);
    if (fail_message_open_) scan_fail_message(piece, nl != nullptr);
    append_line(piece);
    if (nl == nullptr) break;
    close_line();
    pos = stop + 1;
  }
  consumed_ = upto;
}

// `text` continues the open FAIL message; the line ends right after it if closed_by_newline.
void VerdictScanner::scan_fail_message(std::string_view text, bool closed_by_newline) {
  const void* paren = std::memchr(text.data(), ')', text.size());
  std::string_view message =
      paren ? text.substr(0, static_cast<std::size_t>(static_cast<const char*>(paren) - text.data())) : text;
  if (!fail_message_timeout_) {
    // TIMEOUT may straddle the previous piece: look at its last 6 bytes joined to these.
    std::string joint = fail_message_tail_;
    joint.append(message.substr(0, 6));
    if (contains_timeout_any_case(joint) || contains_timeout_any_case(message)) {
      fail_message_timeout_ = true;
      mark(VerdictMarker::fail_timeout);
    } else {
      fail_message_tail_.append(message.substr(message.size() - std::min<std::size_t>(message.size(), 6)));
      if (fail_message_tail_.size() > 6) fail_message_tail_.erase(0, fail_message_tail_.size() - 6);
    }
  }
  if (paren != nullptr || closed_by_newline) {
    fail_message_open_ = false;
    if (!fail_message_timeout_) mark(VerdictMarker::fail);
  }
}

void VerdictScanner::open_line(std::string_view chunk, std::ptrdiff_t start, std::ptrdiff_t end) {
  line_open_ = true;
  line_.clear();
  line_markers_ = 0;
  append_line(text_between(chunk, line_start(chunk, start), end));
}

void VerdictScanner::append_line(std::string_view text) {
  if (line_.size() < kMaxMarkerLineBytes) {
    line_.append(text.substr(0, kMaxMarkerLineBytes - line_.size()));
  }
}

void VerdictScanner::close_line() {
  if (!line_.empty() && line_.back() == '\r') line_.pop_back();
  for (std::size_t i = 0; i < kVerdictMarkerCount; ++i) {
    if (line_markers_ & (1u << i)) lines_[i] = line_;
  }
  line_open_ = false;
  line_.clear();
  line_markers_ = 0;
}

// Where the line holding chunk position `start` begins, looking back at most
// kLineLookback bytes (into carry_ when start is near the chunk's beginning).
std::ptrdiff_t VerdictScanner::line_start(std::string_view chunk, std::ptrdiff_t start) const {
  const auto cs = static_cast<std::ptrdiff_t>(carry_.size());
  const std::ptrdiff_t lo = std::max(start - static_cast<std::ptrdiff_t>(kLineLookback), -cs);
  if (start > 0) {
    const std::ptrdiff_t from = std::max<std::ptrdiff_t>(lo, 0);
    const void* nl = memrchr(chunk.data() + from, '\n', static_cast<std::size_t>(start - from));
    if (nl != nullptr) return static_cast<const char*>(nl) - chunk.data() + 1;
  }
  if (lo < 0) {
    const std::ptrdiff_t to = std::min<std::ptrdiff_t>(start, 0);
    const void* nl = memrchr(carry_.data() + cs + lo, '\n', static_cast<std::size_t>(to - lo));
    if (nl != nullptr) return static_cast<const char*>(nl) - carry_.data() - cs + 1;
  }
  return lo;
}

// Chunk positions [from, to); negative positions are in carry_.
std::string VerdictScanner::text_between(std::string_view chunk, std::ptrdiff_t from,
                                         std::ptrdiff_t to) const {
  const auto cs = static_cast<std::ptrdiff_t>(carry_.size());
  std::string out;
  if (from < 0) {
    const std::ptrdiff_t cto = std::min<std::ptrdiff_t>(to, 0);
    if (cto > from) out.append(carry_, static_cast<std::size_t>(cs + from), static_cast<std::size_t>(cto - from));
  }
  const std::ptrdiff_t cfrom = std::max<std::ptrdiff_t>(from, 0);
  if (to > cfrom) {
    out.append(chunk.substr(static_cast<std::size_t>(cfrom),
                            std::min(static_cast<std::size_t>(to - cfrom), kMaxMarkerLineBytes)));
  }
  if (out.size() > kMaxMarkerLineBytes) out.resize(kMaxMarkerLineBytes);
  return out;
}

bool VerdictScanner::seen(VerdictMarker m) const {
  if (m == VerdictMarker::pass && pass_at_end_) return true;
  return (seen_ & bit(m)) != 0;
}

std::optional<VerdictMarker> VerdictScanner::deciding_marker() const {
  if (seen(VerdictMarker::fail_timeout)) return VerdictMarker::fail_timeout;
  // An open FAIL message without TIMEOUT so far is a fail if the transcript ends here.
  if (seen(VerdictMarker::fail) || fail_message_open_) return VerdictMarker::fail;
  if (seen(VerdictMarker::max_cycles)) return VerdictMarker::max_cycles;
  if (seen(VerdictMarker::pass)) return VerdictMarker::pass;
  if (seen(VerdictMarker::timeout_happen)) return VerdictMarker::timeout_happen;
  return std::nullopt;
}

Verdict VerdictScanner::verdict() const {
  std::optional<VerdictMarker> m = deciding_marker();
  if (!m) return Verdict::none;
  switch (*m) {
    case VerdictMarker::fail_timeout: return Verdict::timeout;
    case VerdictMarker::fail: return Verdict::fail;
    case VerdictMarker::max_cycles: return Verdict::maxcycles;
    case VerdictMarker::pass: return Verdict::pass;
    case VerdictMarker::timeout_happen: return Verdict::timeout;
  }
  return Verdict::none;
}

std::string_view VerdictScanner::marker_line() const {
  std::optional<VerdictMarker> m = deciding_marker();
  if (!m) return {};
  const auto i = static_cast<std::size_t>(*m);
  std::string_view line;
  if (!lines_[i].empty()) {
    line = lines_[i];
  } else if (line_open_ && ((line_markers_ & bit(*m)) || (*m == VerdictMarker::fail && fail_message_open_))) {
    line = line_;  // the transcript ends on the marker's line
  } else if (*m == VerdictMarker::pass && pass_at_end_) {
    line = pass_at_end_line_;
  }
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

bool VerdictScanner::settled() const {
  return (seen_ & bit(VerdictMarker::fail_timeout)) != 0 &&
         !lines_[static_cast<std::size_t>(VerdictMarker::fail_timeout)].empty();
}

// ------------------------------------------------------------------------ files

namespace {

std::string file_error(std::string_view what, const std::filesystem::path& path, int err) {
  return std::string(what) + " " + path.string() + ": " + os::errno_text(err);
}

}  // namespace

VerdictResult read_verdict(const std::filesystem::path& sim_log) {
  VerdictResult result;
  // O_NONBLOCK: opening a FIFO must not wait for a writer. Only a regular file is read: a
  // FIFO or a device (/dev/zero) may never end, and a transcript is always a file.
  os::UniqueFd fd(::open(sim_log.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd) {
    result.error = file_error("cannot open", sim_log, errno);
    return result;
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) {
    result.error = file_error("cannot read", sim_log, errno);
    return result;
  }
  if (!S_ISREG(st.st_mode)) {
    result.error = "cannot read " + sim_log.string() + ": not a regular file";
    return result;
  }
  // Tells the kernel to read ahead aggressively; the file is read once, front to back.
  (void)::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_SEQUENTIAL);

  // read() into one reused buffer rather than mmap: a transcript still being written or
  // truncated under us must not become a SIGBUS, and the copy costs little next to the
  // disk; with the buffer in L2 the scan then reads it from cache.
  // Page-aligned: the kernel's copy into a buffer at an odd offset measured several times
  // slower.
  struct Free {
    void operator()(char* p) const { std::free(p); }
  };
  std::unique_ptr<char, Free> buffer(static_cast<char*>(std::aligned_alloc(4096, kReadChunk)));
  if (buffer == nullptr) {
    result.error = file_error("cannot read", sim_log, ENOMEM);
    return result;
  }
  VerdictScanner scanner;
  while (!scanner.settled()) {
    ssize_t got = ::read(fd.get(), buffer.get(), kReadChunk);
    if (got < 0) {
      if (errno == EINTR) continue;
      result.error = file_error("cannot read", sim_log, errno);
      break;
    }
    if (got == 0) break;
    scanner.feed(std::string_view(buffer.get(), static_cast<std::size_t>(got)));
    result.bytes_read += static_cast<std::uint64_t>(got);
  }
  result.verdict = scanner.verdict();
  result.marker_line = std::string(scanner.marker_line());
  return result;
}

// ------------------------------------------------------------------------ pass rule

bool run_passed(int returncode, Verdict v) { return returncode != -1 && v == Verdict::pass; }

Verdict verdict_after_wall_clock_limit(Verdict from_transcript) {
  return from_transcript == Verdict::none ? Verdict::timeout : from_transcript;
}

}  // namespace mace::openpiton
