#pragma once
// Where terminal_text (terminal_text.h) is applied: to every byte mace writes through
// std::cout and std::cerr. Escaping at each place that prints something from maced, a
// file or a command line would leave the next such place to be remembered; here none can
// be forgotten. The exceptions are explicit: a command given --raw, whose standard output
// is then the text exactly as it is, a command whose standard output is a protocol (mace
// mcp), and mace's own control sequences (the live view of `mace watch`), written by
// write_terminal_control. Error messages on standard error are always escaped.

#include <memory>
#include <string_view>

namespace mace::client {

class EscapedStandardStreams {
 public:
  // Puts the escaping between std::cout, std::cerr and their buffers.
  EscapedStandardStreams();
  // Writes what is held and gives the streams their own buffers back.
  ~EscapedStandardStreams();
  EscapedStandardStreams(const EscapedStandardStreams&) = delete;
  EscapedStandardStreams& operator=(const EscapedStandardStreams&) = delete;

  class Filter;

 private:
  std::unique_ptr<Filter> out_;
  std::unique_ptr<Filter> err_;
};

// From now on, standard output passes as it is: for --raw, and for a protocol.
void leave_standard_output_raw();

// Writes `sequence`, a control sequence of mace's own (cursor moves, reverse video), on
// standard output unescaped, after everything written there before it.
void write_terminal_control(std::string_view sequence);

}  // namespace mace::client
