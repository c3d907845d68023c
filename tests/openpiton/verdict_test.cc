// The verdict of a simulation from its transcript (sim.log), and the pass rule on top of it.

#include "openpiton/verdict.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <optional>
#include <random>
#include <regex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace mace::openpiton {
namespace {

namespace fs = std::filesystem;

// The lines of real sim.log files (sims-notes.md).
constexpr std::string_view kPass = "7110750: Simulation -> PASS (HIT GOOD TRAP)";
constexpr std::string_view kFail = "4498250 : Simulation -> FAIL(HIT BAD TRAP)";
constexpr std::string_view kFailTimeout = "27669250 : Simulation -> FAIL(TIMEOUT)";
constexpr std::string_view kMaxCycles =
    "750000250 : Simulation -> (terminated by reaching max cycles = 1500000)";
constexpr std::string_view kTimeoutHappen = "Info: spc(0) thread(1) -> timeout happen";
constexpr std::string_view kChatter =
    "12345 : L15: tile0 thr1 req LOAD_RQ addr=0x0080001000 data=0x0000000000000013";
constexpr std::string_view kFinish = "- /piton/build/pc_cmp.tmp.v:1775: Verilog $finish";

struct Scanned {
  Verdict verdict;
  std::string marker_line;
};

Scanned scan(std::string_view text) {
  VerdictScanner s;
  s.feed(text);
  return {s.verdict(), std::string(s.marker_line())};
}

Scanned scan_in_pieces(std::string_view text, const std::vector<std::size_t>& cuts) {
  VerdictScanner s;
  std::size_t from = 0;
  for (std::size_t cut : cuts) {
    s.feed(text.substr(from, cut - from));
    from = cut;
  }
  s.feed(text.substr(from));
  return {s.verdict(), std::string(s.marker_line())};
}

// Lines joined with "\n", a final newline included.
std::string transcript(std::initializer_list<std::string_view> lines) {
  std::string out;
  for (std::string_view l : lines) {
    out += l;
    out += '\n';
  }
  return out;
}

Verdict verdict_of(std::string_view text) { return scan(text).verdict; }

// ---------------------------------------------------------------- names

TEST(VerdictNames, RoundTripThroughTheirSnakeCaseNames) {
  for (Verdict v : {Verdict::none, Verdict::pass, Verdict::fail, Verdict::timeout, Verdict::maxcycles}) {
    EXPECT_EQ(verdict_from_string(to_string(v)), v);
  }
  EXPECT_EQ(to_string(Verdict::maxcycles), "maxcycles");
  EXPECT_EQ(to_string(Verdict::none), "none");
  EXPECT_EQ(verdict_from_string("PASS"), std::nullopt);
  EXPECT_EQ(verdict_from_string(""), std::nullopt);
  EXPECT_EQ(verdict_from_string("max_cycles"), std::nullopt);
}

// ---------------------------------------------------------------- the table, row by row

TEST(VerdictTable, PassLineIsPass) {
  // REQ-VER-3
  Scanned s = scan(transcript({kChatter, kPass, kFinish}));
  EXPECT_EQ(s.verdict, Verdict::pass);
  EXPECT_EQ(s.marker_line, kPass);
}

TEST(VerdictTable, FailLineIsFail) {
  // REQ-VER-3
  Scanned s = scan(transcript({kChatter, kFail, kFinish}));
  EXPECT_EQ(s.verdict, Verdict::fail);
  EXPECT_EQ(s.marker_line, kFail);
}

TEST(VerdictTable, FailWithTimeoutInItsMessageIsTimeout) {
  // REQ-VER-3
  Scanned s = scan(transcript({kChatter, kFailTimeout, kFinish}));
  EXPECT_EQ(s.verdict, Verdict::timeout);
  EXPECT_EQ(s.marker_line, kFailTimeout);
}

TEST(VerdictTable, MaxCyclesLineIsMaxcycles) {
  // REQ-VER-3
  Scanned s = scan(transcript({kChatter, kMaxCycles, kFinish}));
  EXPECT_EQ(s.verdict, Verdict::maxcycles);
  EXPECT_EQ(s.marker_line, kMaxCycles);
}

TEST(VerdictTable, OnlyTimeoutHappenNoticesAreTimeout) {
  // REQ-VER-3
  Scanned s = scan(transcript({kChatter, kTimeoutHappen, "Info: spc(0) thread(2) -> timeout happen"}));
  EXPECT_EQ(s.verdict, Verdict::timeout);
  EXPECT_EQ(s.marker_line, kTimeoutHappen);  // the first one
}

TEST(VerdictTable, TranscriptWithoutMarkersIsNone) {
  // REQ-VER-3: left unclassified
  Scanned s = scan(transcript({kChatter, kChatter, kFinish, "noc1 -> noc2 flit", "state M->S"}));
  EXPECT_EQ(s.verdict, Verdict::none);
  EXPECT_EQ(s.marker_line, "");
  EXPECT_EQ(verdict_of(""), Verdict::none);
}

// ---------------------------------------------------------------- precedence

TEST(VerdictPrecedence, FailBeatsPassInEitherOrder) {
  // REQ-VER-4
  EXPECT_EQ(verdict_of(transcript({kFail, kPass})), Verdict::fail);
  Scanned s = scan(transcript({kPass, kFail}));
  EXPECT_EQ(s.verdict, Verdict::fail);
  EXPECT_EQ(s.marker_line, kFail);
}

TEST(VerdictPrecedence, MaxCyclesBeatsPassInEitherOrder) {
  // REQ-VER-4
  EXPECT_EQ(verdict_of(transcript({kMaxCycles, kPass})), Verdict::maxcycles);
  Scanned s = scan(transcript({kPass, kMaxCycles}));
  EXPECT_EQ(s.verdict, Verdict::maxcycles);
  EXPECT_EQ(s.marker_line, kMaxCycles);
}

TEST(VerdictPrecedence, FailTimeoutBeatsPassAndIsTimeout) {
  // REQ-VER-4
  Scanned s = scan(transcript({kPass, kFailTimeout}));
  EXPECT_EQ(s.verdict, Verdict::timeout);
  EXPECT_EQ(s.marker_line, kFailTimeout);
  EXPECT_EQ(verdict_of(transcript({kFailTimeout, kPass})), Verdict::timeout);
}

TEST(VerdictPrecedence, FailBeatsMaxCycles) {
  EXPECT_EQ(verdict_of(transcript({kMaxCycles, kFail})), Verdict::fail);
  EXPECT_EQ(verdict_of(transcript({kFail, kMaxCycles})), Verdict::fail);
  EXPECT_EQ(verdict_of(transcript({kMaxCycles, kFailTimeout})), Verdict::timeout);
}

TEST(VerdictPrecedence, AnyFailWithTimeoutBeatsAnOtherFail) {
  // The table's first row is checked over the whole transcript before the second.
  Scanned s = scan(transcript({kFail, kFailTimeout}));
  EXPECT_EQ(s.verdict, Verdict::timeout);
  EXPECT_EQ(s.marker_line, kFailTimeout);
  EXPECT_EQ(verdict_of(transcript({kFailTimeout, kFail})), Verdict::timeout);
}

TEST(VerdictPrecedence, PassWithTimeoutHappenNoticesIsPass) {
  // The notices are row 5, after PASS (row 4): they never override a verdict line.
  Scanned s = scan(transcript({kTimeoutHappen, "Info: spc(0) thread(2) -> timeout happen", kPass}));
  EXPECT_EQ(s.verdict, Verdict::pass);
  EXPECT_EQ(s.marker_line, kPass);
  EXPECT_EQ(verdict_of(transcript({kPass, kTimeoutHappen})), Verdict::pass);
}

TEST(VerdictPrecedence, VerdictLinesBeatTimeoutHappenNotices) {
  EXPECT_EQ(verdict_of(transcript({kTimeoutHappen, kFail})), Verdict::fail);
  EXPECT_EQ(verdict_of(transcript({kTimeoutHappen, kMaxCycles})), Verdict::maxcycles);
  EXPECT_EQ(verdict_of(transcript({kTimeoutHappen, kFailTimeout})), Verdict::timeout);
}

TEST(VerdictPrecedence, ScannerTracksEveryMarkerItSaw) {
  VerdictScanner s;
  s.feed(transcript({kTimeoutHappen, kPass, kMaxCycles}));
  EXPECT_TRUE(s.seen(VerdictMarker::timeout_happen));
  EXPECT_TRUE(s.seen(VerdictMarker::pass));
  EXPECT_TRUE(s.seen(VerdictMarker::max_cycles));
  EXPECT_FALSE(s.seen(VerdictMarker::fail));
  EXPECT_FALSE(s.seen(VerdictMarker::fail_timeout));
  EXPECT_EQ(s.deciding_marker(), VerdictMarker::max_cycles);
  EXPECT_FALSE(s.settled());
  s.feed(transcript({kFail}));
  EXPECT_TRUE(s.seen(VerdictMarker::fail));
  EXPECT_EQ(s.verdict(), Verdict::fail);
}

TEST(VerdictPrecedence, ScannerSettlesOnceAFailTimeoutLineIsComplete) {
  VerdictScanner s;
  s.feed("27669250 : Simulation -> FAIL(TIMEOUT)");
  EXPECT_EQ(s.verdict(), Verdict::timeout);
  EXPECT_FALSE(s.settled());  // its line is not complete yet
  s.feed(" trailing words\n");
  EXPECT_TRUE(s.settled());
  EXPECT_EQ(s.marker_line(), "27669250 : Simulation -> FAIL(TIMEOUT) trailing words");
  s.feed(transcript({kPass, kFail}));  // ignored: nothing can change the verdict any more
  EXPECT_EQ(s.verdict(), Verdict::timeout);
}

// ---------------------------------------------------------------- how markers are spelled

TEST(VerdictSpelling, SpaceBeforeTheColonIsOptional) {
  EXPECT_EQ(verdict_of("7110750: Simulation -> PASS (HIT GOOD TRAP)\n"), Verdict::pass);
  EXPECT_EQ(verdict_of("7110750 : Simulation -> PASS (HIT GOOD TRAP)\n"), Verdict::pass);
  EXPECT_EQ(verdict_of("4498250: Simulation -> FAIL(HIT BAD TRAP)\n"), Verdict::fail);
  EXPECT_EQ(verdict_of("4498250 : Simulation -> FAIL(HIT BAD TRAP)\n"), Verdict::fail);
  EXPECT_EQ(verdict_of("27669250: Simulation -> FAIL(TIMEOUT)\n"), Verdict::timeout);
  EXPECT_EQ(verdict_of("750000250: Simulation -> (terminated by reaching max cycles = 1500000)\n"),
            Verdict::maxcycles);
}

TEST(VerdictSpelling, BlanksAroundTheArrowParenAndEqualsMayVary) {
  // As the reference parser's \s*: a FAIL must not slip through on spacing.
  EXPECT_EQ(verdict_of("1: Simulation->PASS\n"), Verdict::pass);
  EXPECT_EQ(verdict_of("1: Simulation \t->  PASS (HIT GOOD TRAP)\n"), Verdict::pass);
  EXPECT_EQ(verdict_of("1: Simulation -> FAIL (HIT BAD TRAP)\n"), Verdict::fail);
  EXPECT_EQ(verdict_of("1: Simulation->FAIL\t(TIMEOUT)\n"), Verdict::timeout);
  EXPECT_EQ(verdict_of("1: Simulation -> (terminated by reaching max cycles=42)\n"), Verdict::maxcycles);
  EXPECT_EQ(verdict_of("1: Simulation -> (terminated by reaching max cycles =  42)\n"), Verdict::maxcycles);
  EXPECT_EQ(verdict_of("Info: spc(0) thread(1) ->timeout happen\n"), Verdict::timeout);
}

TEST(VerdictSpelling, NearMissesAreNotMarkers) {
  EXPECT_EQ(verdict_of("1: Simulation -> PASSED\n"), Verdict::none);        // PASS\b
  EXPECT_EQ(verdict_of("1: Simulation -> PASS_2\n"), Verdict::none);
  EXPECT_EQ(verdict_of("1: Simulation -> pass\n"), Verdict::none);          // case matters
  EXPECT_EQ(verdict_of("1: Simulation -> FAIL\n"), Verdict::none);          // no "("
  EXPECT_EQ(verdict_of("1: Simulation - > FAIL(x)\n"), Verdict::none);
  EXPECT_EQ(verdict_of("1: simulation -> FAIL(x)\n"), Verdict::none);
  EXPECT_EQ(verdict_of("1: Simulation\n-> PASS\n"), Verdict::none);         // not across lines
  EXPECT_EQ(verdict_of("1: Simulation -> (terminated by reaching max cycles = )\n"), Verdict::none);
  EXPECT_EQ(verdict_of("1: Simulation -> (terminated by reaching max cycles = 12\n"), Verdict::none);
  EXPECT_EQ(verdict_of("1: Simulation -> (terminated by reaching max cycles = 123456789012345678901)\n"),
            Verdict::none);  // more than 20 digits
  EXPECT_EQ(verdict_of("Info: timeout happen\n"), Verdict::none);          // no arrow
  EXPECT_EQ(verdict_of("Info: -> Timeout happen\n"), Verdict::none);
  EXPECT_EQ(verdict_of("1: Simulation" + std::string(33, ' ') + "-> PASS\n"), Verdict::none);
  EXPECT_EQ(verdict_of("1: Simulation" + std::string(32, ' ') + "-> PASS\n"), Verdict::pass);
  EXPECT_EQ(verdict_of("1: Simulation ->" + std::string(33, ' ') + "PASS\n"), Verdict::none);
  EXPECT_EQ(verdict_of("1: Simulation -> PASS\n"), Verdict::pass);
  EXPECT_EQ(verdict_of("1: Simulation -> PASS."), Verdict::pass);
}

TEST(VerdictSpelling, FailMessageIsTheTextInsideTheParentheses) {
  EXPECT_EQ(verdict_of("1 : Simulation -> FAIL(Timeout on thread 3)\n"), Verdict::timeout);  // any case
  EXPECT_EQ(verdict_of("1 : Simulation -> FAIL(HIT BAD TRAP) after TIMEOUT\n"), Verdict::fail);
  EXPECT_EQ(verdict_of("1 : Simulation -> FAIL(HIT BAD TRAP)\n2: TIMEOUT\n"), Verdict::fail);
  EXPECT_EQ(verdict_of("1 : Simulation -> FAIL()\n"), Verdict::fail);
}

TEST(VerdictSpelling, FailLineWithoutClosingParenStillFails) {
  // The message runs to the end of its line; a cut-off FAIL line is not a pass.
  Scanned s = scan(transcript({"1 : Simulation -> FAIL(HIT BAD TR", kPass}));
  EXPECT_EQ(s.verdict, Verdict::fail);
  EXPECT_EQ(s.marker_line, "1 : Simulation -> FAIL(HIT BAD TR");
  EXPECT_EQ(verdict_of(transcript({"1 : Simulation -> FAIL(TIMEOU", "T)"})), Verdict::fail);
  EXPECT_EQ(verdict_of(transcript({"1 : Simulation -> FAIL(no paren TIMEOUT", kPass})), Verdict::timeout);
}

TEST(VerdictSpelling, MarkerLineIsCutForPeople) {
  const std::string long_prefix(5000, 'x');
  Scanned s = scan(long_prefix + " : Simulation -> FAIL(HIT BAD TRAP)" + std::string(5000, 'y') + "\n");
  EXPECT_EQ(s.verdict, Verdict::fail);
  EXPECT_LE(s.marker_line.size(), VerdictScanner::kMaxMarkerLineBytes);
  EXPECT_NE(s.marker_line.find("Simulation -> FAIL(HIT BAD TRAP)"), std::string::npos);
}

// ---------------------------------------------------------------- pieces, line ends

const std::vector<std::string>& split_cases() {
  static const std::vector<std::string> cases = {
      transcript({kChatter, kPass, kFinish}),
      transcript({kChatter, kFail, kPass}),
      transcript({kPass, kFailTimeout, kChatter}),
      transcript({kFail, kFailTimeout}),
      transcript({kMaxCycles, kPass}),
      transcript({kTimeoutHappen, kPass, kTimeoutHappen}),
      transcript({kChatter, kTimeoutHappen}),
      transcript({"1: Simulation -> PASSED", kChatter}),
      transcript({"1 : Simulation  ->\tFAIL (Timeout)", kPass}),
      std::string(kPass),                                       // no newline at the end
      std::string(kChatter) + "\n1: Simulation -> PASS",        // ends right after PASS
      std::string(kChatter) + "\n1: Simulation -> PASSE",
      "1 : Simulation -> FAIL(TIME",                            // open message at the end
      "x\r\n4498250 : Simulation -> FAIL(HIT BAD TRAP)\r\n7110750: Simulation -> PASS\r\n",
  };
  return cases;
}

TEST(VerdictPieces, MarkerSplitAcrossTwoFeedsAtEveryOffsetIsFound) {
  for (const std::string& text : split_cases()) {
    const Scanned whole = scan(text);
    for (std::size_t cut = 0; cut <= text.size(); ++cut) {
      Scanned s = scan_in_pieces(text, {cut});
      EXPECT_EQ(s.verdict, whole.verdict) << "cut at " << cut << " of: " << text;
      EXPECT_EQ(s.marker_line, whole.marker_line) << "cut at " << cut << " of: " << text;
    }
  }
}

TEST(VerdictPieces, OneByteAtATimeGivesTheSameResult) {
  for (const std::string& text : split_cases()) {
    const Scanned whole = scan(text);
    VerdictScanner s;
    for (char c : text) s.feed(std::string_view(&c, 1));
    EXPECT_EQ(s.verdict(), whole.verdict) << text;
    EXPECT_EQ(s.marker_line(), whole.marker_line) << text;
    EXPECT_EQ(s.bytes_fed(), text.size());
  }
}

TEST(VerdictPieces, PassCutBeforeItsNextByteWaitsForIt) {
  VerdictScanner s;
  s.feed("1: Simulation -> PASS");
  EXPECT_EQ(s.verdict(), Verdict::pass);  // if the transcript ends here
  s.feed("ED\n");
  EXPECT_EQ(s.verdict(), Verdict::none);
  EXPECT_EQ(s.marker_line(), "");
}

TEST(VerdictPieces, MarkersAfterLongStretchesAndInLargePiecesAreFound) {
  std::string text;
  for (int i = 0; i < 20000; ++i) {
    text += kChatter;
    text += '\n';
  }
  text += std::string(kMaxCycles) + "\n";
  for (int i = 0; i < 20000; ++i) {
    text += kTimeoutHappen;
    text += '\n';
  }
  const Scanned whole = scan(text);
  EXPECT_EQ(whole.verdict, Verdict::maxcycles);
  EXPECT_EQ(whole.marker_line, kMaxCycles);
  for (std::size_t piece : {7u, 255u, 256u, 257u, 4096u, 65536u}) {
    std::vector<std::size_t> cuts;
    for (std::size_t c = piece; c < text.size(); c += piece) cuts.push_back(c);
    Scanned s = scan_in_pieces(text, cuts);
    EXPECT_EQ(s.verdict, Verdict::maxcycles) << piece;
    EXPECT_EQ(s.marker_line, kMaxCycles) << piece;
  }
}

TEST(VerdictLineEnds, CrlfLinesClassifyAndLoseTheirCarriageReturn) {
  Scanned s = scan("a\r\n" + std::string(kFailTimeout) + "\r\n" + std::string(kPass) + "\r\n");
  EXPECT_EQ(s.verdict, Verdict::timeout);
  EXPECT_EQ(s.marker_line, kFailTimeout);
  s = scan(std::string(kPass) + "\r\n");
  EXPECT_EQ(s.verdict, Verdict::pass);
  EXPECT_EQ(s.marker_line, kPass);
  EXPECT_EQ(verdict_of("1 : Simulation -> FAIL(HIT BAD TRAP\r\n"), Verdict::fail);
  EXPECT_EQ(verdict_of(std::string(kTimeoutHappen) + "\r\n"), Verdict::timeout);
}

TEST(VerdictLineEnds, LastLineWithoutNewlineCounts) {
  Scanned s = scan(std::string(kChatter) + "\n" + std::string(kPass));
  EXPECT_EQ(s.verdict, Verdict::pass);
  EXPECT_EQ(s.marker_line, kPass);
  s = scan(std::string(kChatter) + "\n1 : Simulation -> FAIL(HIT BAD TRAP");
  EXPECT_EQ(s.verdict, Verdict::fail);
  EXPECT_EQ(s.marker_line, "1 : Simulation -> FAIL(HIT BAD TRAP");
  EXPECT_EQ(verdict_of("1: Simulation -> PAS"), Verdict::none);
}

// ---------------------------------------------------------------- against a reference

// The table written as whole-text regular expressions, as the reference parser does it.
Scanned reference_verdict(const std::string& text) {
  static const std::regex fail_re(R"(Simulation[ \t]{0,32}->[ \t]{0,32}FAIL[ \t]{0,32}\()");
  static const std::regex max_re(
      R"(Simulation[ \t]{0,32}->[ \t]{0,32}\(terminated by reaching max cycles[ \t]{0,32}=[ \t]{0,32}[0-9]{1,20}\))");
  static const std::regex pass_re(R"(Simulation[ \t]{0,32}->[ \t]{0,32}PASS(?![A-Za-z0-9_]))");
  static const std::regex happen_re(R"(->[ \t]{0,32}timeout happen)");
  auto line_at = [&](std::size_t pos) {
    std::size_t begin = text.rfind('\n', pos);
    begin = begin == std::string::npos ? 0 : begin + 1;
    std::size_t end = text.find('\n', pos);
    std::string line = text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return line;
  };
  std::optional<std::size_t> first_timeout_fail, first_other_fail;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), fail_re); it != std::sregex_iterator(); ++it) {
    std::size_t from = static_cast<std::size_t>(it->position() + it->length());
    std::size_t to = text.find_first_of(")\n", from);
    std::string message = text.substr(from, to == std::string::npos ? std::string::npos : to - from);
    for (char& c : message) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    auto& slot = message.find("TIMEOUT") != std::string::npos ? first_timeout_fail : first_other_fail;
    if (!slot) slot = static_cast<std::size_t>(it->position());
  }
  if (first_timeout_fail) return {Verdict::timeout, line_at(*first_timeout_fail)};
  if (first_other_fail) return {Verdict::fail, line_at(*first_other_fail)};
  std::smatch m;
  if (std::regex_search(text, m, max_re)) return {Verdict::maxcycles, line_at(static_cast<std::size_t>(m.position()))};
  if (std::regex_search(text, m, pass_re)) return {Verdict::pass, line_at(static_cast<std::size_t>(m.position()))};
  if (std::regex_search(text, m, happen_re)) return {Verdict::timeout, line_at(static_cast<std::size_t>(m.position()))};
  return {Verdict::none, ""};
}

TEST(VerdictReference, RandomTranscriptsInRandomPiecesAgreeWithTheRegexTable) {
  const std::vector<std::string> fragments = {
      "Simulation", " ", " ", "\t", "->", "-", ">", "PASS", "PASSED", "FAIL", "(", ")", "TIMEOUT",
      "timeout", "TIME", "OUT", "HIT BAD TRAP", "\n", "\n", "\n", "\r\n", "(terminated by reaching max cycles",
      "=", "1500000", "timeout happen", "x", "7110750: ", "Info: spc(0) thread(1) ", "Simulation -> ",
      "Simulation -> FAIL(", "Simulation -> PASS", "-> timeout happen", "Simulation -> (terminated by reaching max cycles = 7)",
  };
  std::mt19937 rng(20240116);
  int decided = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string text;
    const int count = std::uniform_int_distribution<int>(1, 40)(rng);
    for (int i = 0; i < count; ++i) text += fragments[rng() % fragments.size()];
    const Scanned want = reference_verdict(text);
    if (want.verdict != Verdict::none) ++decided;

    std::vector<std::size_t> cuts;
    for (std::size_t c = 0; c < text.size(); c += 1 + rng() % 40) {
      if (c > 0) cuts.push_back(c);
    }
    const Scanned got = scan_in_pieces(text, cuts);
    ASSERT_EQ(got.verdict, want.verdict) << "transcript: " << text;
    // Lines are kept from at most 256 bytes before their marker; compare the short ones.
    if (want.marker_line.size() < 200) {
      ASSERT_EQ(got.marker_line, want.marker_line) << "transcript: " << text;
    }
  }
  EXPECT_GT(decided, 1000);  // the generator does exercise the markers
}

// ---------------------------------------------------------------- files

class VerdictFile : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "verdict_test.XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path write(const std::string& name, std::string_view content) {
    fs::path p = dir_ / name;
    std::ofstream out(p, std::ios::binary);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    return p;
  }
  fs::path dir_;
};

TEST_F(VerdictFile, ReadsTheVerdictAndItsLine) {
  VerdictResult r = read_verdict(write("sim.log", transcript({kChatter, kTimeoutHappen, kPass, kFinish})));
  EXPECT_EQ(r.verdict, Verdict::pass);
  EXPECT_EQ(r.marker_line, kPass);
  EXPECT_EQ(r.error, "");
}

TEST_F(VerdictFile, MissingFileIsNoneWithAnError) {
  VerdictResult r = read_verdict(dir_ / "no-such-sim.log");
  EXPECT_EQ(r.verdict, Verdict::none);
  EXPECT_EQ(r.marker_line, "");
  EXPECT_NE(r.error.find("no-such-sim.log"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("No such file"), std::string::npos) << r.error;
}

TEST_F(VerdictFile, EmptyFileIsNoneWithoutAnError) {
  VerdictResult r = read_verdict(write("sim.log", ""));
  EXPECT_EQ(r.verdict, Verdict::none);
  EXPECT_EQ(r.marker_line, "");
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.bytes_read, 0u);
}

TEST_F(VerdictFile, DirectoryIsNoneWithAnError) {
  VerdictResult r = read_verdict(dir_);
  EXPECT_EQ(r.verdict, Verdict::none);
  EXPECT_FALSE(r.error.empty());
}

// read_verdict on its own thread, given `limit` to return. A call that never returns is
// left behind (the process ends with the test binary) and reported as nullopt.
std::optional<VerdictResult> verdict_within(const fs::path& path, std::chrono::seconds limit) {
  auto done = std::make_shared<std::promise<VerdictResult>>();
  std::future<VerdictResult> result = done->get_future();
  std::thread([path, done] { done->set_value(read_verdict(path)); }).detach();
  if (result.wait_for(limit) != std::future_status::ready) return std::nullopt;
  return result.get();
}

// spec-hardening finding 2: `mace verdict` on a FIFO never returned (open waited for a
// writer, then read waited for data) and on /dev/zero read forever. Neither is a
// transcript: both are refused at once, without reading a byte.
TEST_F(VerdictFile, AFifoIsRefusedAtOnceWithOrWithoutAWriter) {
  const fs::path fifo = dir_ / "sim.log";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto alone = verdict_within(fifo, std::chrono::seconds(5));
  ASSERT_TRUE(alone.has_value()) << "read_verdict waited on a FIFO nobody writes";
  EXPECT_EQ(alone->verdict, Verdict::none);
  EXPECT_EQ(alone->error, "cannot read " + fifo.string() + ": not a regular file");
  EXPECT_EQ(alone->bytes_read, 0u);

  // A writer that holds the FIFO open and writes nothing: reading would wait for ever.
  int writer = ::open(fifo.c_str(), O_RDWR | O_NONBLOCK);
  ASSERT_GE(writer, 0);
  auto held = verdict_within(fifo, std::chrono::seconds(5));
  ::close(writer);
  ASSERT_TRUE(held.has_value()) << "read_verdict waited on a FIFO a writer holds";
  EXPECT_EQ(held->error, "cannot read " + fifo.string() + ": not a regular file");
}

TEST_F(VerdictFile, DevZeroIsRefusedAtOnce) {
  auto start = std::chrono::steady_clock::now();
  auto r = verdict_within("/dev/zero", std::chrono::seconds(5));
  ASSERT_TRUE(r.has_value()) << "read_verdict kept reading /dev/zero";
  EXPECT_EQ(r->verdict, Verdict::none);
  EXPECT_EQ(r->error, "cannot read /dev/zero: not a regular file");
  EXPECT_EQ(r->bytes_read, 0u);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

TEST_F(VerdictFile, BinaryGarbageDoesNotCrashAndMarkersInItCount) {
  std::mt19937 rng(1);
  std::string garbage(3 * 1024 * 1024, '\0');
  for (char& c : garbage) c = static_cast<char>(rng() & 0xff);
  for (std::size_t i = 0; i < garbage.size(); i += 997) garbage[i] = '\0';
  // Random bytes almost never spell a marker; make sure of it for the first case.
  std::string cleaned = garbage;
  for (std::string_view word : {std::string_view("Simulation"), std::string_view("timeout happen")}) {
    for (std::size_t at = cleaned.find(word); at != std::string::npos; at = cleaned.find(word, at)) {
      cleaned[at] = 'x';
    }
  }
  VerdictResult r = read_verdict(write("garbage.log", cleaned));
  EXPECT_EQ(r.verdict, Verdict::none);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.bytes_read, cleaned.size());

  std::string with_pass = cleaned.substr(0, 1000000) + "\n" + std::string(kPass) + "\n" + cleaned.substr(1000000);
  EXPECT_EQ(read_verdict(write("garbage-pass.log", with_pass)).verdict, Verdict::pass);
}

TEST_F(VerdictFile, HugeLineWithoutNewlineNeedsNoMemoryOfItsSize) {
  // 200 MB in one line (with "->" every 4 KiB so the scan has work to do), no newline.
  fs::path p = dir_ / "huge.log";
  {
    std::ofstream out(p, std::ios::binary);
    std::string block(4096, 'x');
    block.replace(100, 6, "a -> b");
    for (int i = 0; i < 200 * 1000 * 1000 / 4096 + 1; ++i) out.write(block.data(), static_cast<std::streamsize>(block.size()));
  }
  struct rusage before {};
  ::getrusage(RUSAGE_SELF, &before);
  VerdictResult r = read_verdict(p);
  struct rusage after {};
  ::getrusage(RUSAGE_SELF, &after);
  EXPECT_EQ(r.verdict, Verdict::none);
  EXPECT_EQ(r.error, "");
  EXPECT_GE(r.bytes_read, 200u * 1000 * 1000);
  // Peak RSS (KiB) may not grow by anything like the line's 200 MB.
  EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 32 * 1024);
}

TEST_F(VerdictFile, HugeFailLineIsCutButDecides) {
  fs::path p = dir_ / "huge-fail.log";
  {
    std::ofstream out(p, std::ios::binary);
    out << kPass << "\n1 : Simulation -> FAIL(";
    std::string block(1 << 20, 'm');
    for (int i = 0; i < 20; ++i) out.write(block.data(), static_cast<std::streamsize>(block.size()));
    out << "TIMEOUT)\n";
  }
  VerdictResult r = read_verdict(p);
  EXPECT_EQ(r.verdict, Verdict::timeout);
  EXPECT_EQ(r.marker_line.size(), VerdictScanner::kMaxMarkerLineBytes);
  EXPECT_EQ(r.marker_line.rfind("1 : Simulation -> FAIL(mmm", 0), 0u) << r.marker_line.substr(0, 40);
}

TEST_F(VerdictFile, StopsReadingOnceFailTimeoutHasSettledTheVerdict) {
  std::string text = transcript({kChatter, kFailTimeout});
  const std::size_t settled_at = text.size();
  text += std::string(8 * 1024 * 1024, 'z') + "\n" + std::string(kPass) + "\n";
  VerdictResult r = read_verdict(write("sim.log", text));
  EXPECT_EQ(r.verdict, Verdict::timeout);
  EXPECT_EQ(r.marker_line, kFailTimeout);
  EXPECT_GE(r.bytes_read, settled_at);
  EXPECT_LT(r.bytes_read, text.size());
}

// ---------------------------------------------------------------- the pass rule

TEST(VerdictPassRule, OnlyAPassVerdictFromAProcessThatRanPasses) {
  // REQ-VER-2: the exit code is ignored; REQ-VER-5: -1 (timed out / launch failed) never passes.
  for (Verdict v : {Verdict::none, Verdict::pass, Verdict::fail, Verdict::timeout, Verdict::maxcycles}) {
    const bool is_pass = v == Verdict::pass;
    EXPECT_FALSE(run_passed(-1, v)) << to_string(v);
    EXPECT_EQ(run_passed(0, v), is_pass) << to_string(v);
    EXPECT_EQ(run_passed(1, v), is_pass) << to_string(v);
  }
}

TEST(VerdictPassRule, WallClockLimitMakesOnlyAnUnclassifiedRunATimeout) {
  // REQ-VER-3
  EXPECT_EQ(verdict_after_wall_clock_limit(Verdict::none), Verdict::timeout);
  EXPECT_EQ(verdict_after_wall_clock_limit(Verdict::pass), Verdict::pass);
  EXPECT_EQ(verdict_after_wall_clock_limit(Verdict::fail), Verdict::fail);
  EXPECT_EQ(verdict_after_wall_clock_limit(Verdict::maxcycles), Verdict::maxcycles);
  EXPECT_EQ(verdict_after_wall_clock_limit(Verdict::timeout), Verdict::timeout);
}

}  // namespace
}  // namespace mace::openpiton

namespace mace::openpiton {
namespace {

// Found by the fuzz harness: a long line whose marker arrived in a later piece was shown
// with less of its start than when the transcript came in one piece.
TEST(VerdictPiecesTest, TheMarkerLineDoesNotDependOnHowTheTranscriptIsCut) {
  std::string line;
  for (int i = 0; i < 40; ++i) line += "(termion -> ";
  const std::string transcript =
      "Info: start\n" + line + "Simulation -> (terminated by reaching max cycles = 1500000)\n";
  VerdictScanner whole;
  whole.feed(transcript);
  for (std::size_t step : {1u, 7u, 29u, 97u, 300u}) {
    VerdictScanner pieces;
    for (std::size_t at = 0; at < transcript.size(); at += step)
      pieces.feed(std::string_view(transcript).substr(at, step));
    EXPECT_EQ(pieces.verdict(), Verdict::maxcycles) << step;
    EXPECT_EQ(pieces.marker_line(), whole.marker_line()) << step;
  }
}

}  // namespace
}  // namespace mace::openpiton
