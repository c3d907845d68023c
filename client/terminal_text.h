#pragma once
// Text on a terminal. What mace prints comes from maced and, through it, from models
// (plans, diagnoses, post-mortems, replies), transcripts (build logs, sim.logs), logs and
// other users (objectives, names); a file or a command line gives the rest. Any of it may
// hold bytes a terminal obeys: ESC sequences that retitle the window, clear the screen,
// move the cursor or answer back; C1 controls, which some terminals take as ESC [; a
// carriage return that draws over what a line said; bidirectional overrides that make
// text read as something else; bytes that are no UTF-8 at all. Shown here, each of them
// becomes a visible escape instead:
//
//   - a C0 control or DEL as \xNN ("\x1b"), newline and tab excepted (they are layout),
//     and a carriage return that ends a line ("\r\n", harmless) kept too;
//   - a byte that is not part of well-formed UTF-8 as \xNN ("\xff");
//   - any other character that is not printable (core/printable_text.h: C1 controls,
//     bidirectional and invisible formatting characters, line separators, noncharacters)
//     as \uXXXX ("\u009b", "\u202e") or \UXXXXXXXX beyond the first plane.
//
// A backslash stays as it is: what is shown is for reading, and `--raw` (or `--json`)
// gives the text exactly.

#include <cstddef>
#include <string>
#include <string_view>

namespace mace::client {

// `text` as it may be shown on a terminal.
std::string terminal_text(std::string_view text);

// The same for text that arrives in pieces (a log read a piece at a time, a stream
// written a call at a time): a character cut at the end of one piece is completed by the
// next instead of shown as bytes that are not UTF-8.
class TerminalTextPieces {
 public:
  // What may be shown of everything appended so far.
  std::string append(std::string_view piece);
  // What is left once no piece follows: a cut character, shown as its bytes.
  std::string finish();

 private:
  std::string held_;
};

}  // namespace mace::client
