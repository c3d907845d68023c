#include "terminal_text.h"

#include <cstdio>

#include "core/printable_text.h"
#include "os/text.h"

namespace mace::client {
namespace {

void append_byte_escape(std::string& out, unsigned char byte) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", byte);
  out += buf;
}

void append_code_point_escape(std::string& out, char32_t c) {
  char buf[16];
  if (c < 0x10000)
    std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
  else
    std::snprintf(buf, sizeof buf, "\\U%08x", static_cast<unsigned>(c));
  out += buf;
}

void append_terminal_text(std::string& out, std::string_view text) {
  out.reserve(out.size() + text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte < 0x7f) {
      out += text[i++];
      continue;
    }
    const bool crlf = byte == '\r' && i + 1 < text.size() && text[i + 1] == '\n';
    if (byte == '\n' || byte == '\t' || crlf) {
      out += text[i++];
      continue;
    }
    const std::size_t n = os::utf8_sequence_length(text, i);
    if (n <= 1) {  // a C0 control, DEL, or a byte that starts no well-formed character
      append_byte_escape(out, byte);
      ++i;
      continue;
    }
    const char32_t c = os::utf8_code_point(text, i, n);
    if (is_printable_character(c))
      out.append(text.substr(i, n));
    else
      append_code_point_escape(out, c);
    i += n;
  }
}

}  // namespace

std::string terminal_text(std::string_view text) {
  std::string out;
  append_terminal_text(out, text);
  return out;
}

std::string TerminalTextPieces::append(std::string_view piece) {
  held_.append(piece);
  const std::size_t keep = os::unfinished_utf8_tail(held_);
  // A carriage return at the end may yet be the start of "\r\n".
  const std::size_t keep_cr = keep == 0 && !held_.empty() && held_.back() == '\r' ? 1 : keep;
  std::string out;
  append_terminal_text(out, std::string_view(held_).substr(0, held_.size() - keep_cr));
  held_.erase(0, held_.size() - keep_cr);
  return out;
}

std::string TerminalTextPieces::finish() {
  std::string out;
  append_terminal_text(out, held_);
  held_.clear();
  return out;
}

}  // namespace mace::client
