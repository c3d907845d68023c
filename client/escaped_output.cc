#include "escaped_output.h"

#include <iostream>
#include <streambuf>
#include <string>

#include "terminal_text.h"

namespace mace::client {

// A stream buffer in front of another: what is written collects here and leaves through
// terminal_text (or unchanged while raw) when the buffer fills or the stream is flushed.
class EscapedStandardStreams::Filter final : public std::streambuf {
 public:
  explicit Filter(std::streambuf* target) : target_(target) { setp(buffer_, buffer_ + sizeof buffer_); }

  std::streambuf* target() const { return target_; }

  void set_raw() {
    finish_text();
    raw_ = true;
  }

  // The text before `bytes` ends there: what it held back (a character cut short, a
  // carriage return) leaves first, as it is shown.
  void write_unescaped(std::string_view bytes) {
    finish_text();
    put(std::string(bytes));
  }

  void finish() {
    finish_text();
    target_->pubsync();
  }

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
    return c;
  }

  int sync() override {
    if (!drain()) return -1;
    return target_->pubsync();
  }

  // A line leaves at once, as it would from the stream's own buffer on a terminal: what a
  // command has said is on the screen even if it is killed before it ends.
  std::streamsize xsputn(const char_type* s, std::streamsize n) override {
    const std::streamsize put = std::streambuf::xsputn(s, n);
    if (traits_type::find(s, static_cast<std::size_t>(n), '\n') != nullptr) drain();
    return put;
  }

 private:
  // Passes what was written on; false when the target took less (a reader gone away),
  // which the stream reports as a failure.
  bool drain() {
    const std::string_view written(pbase(), static_cast<std::size_t>(pptr() - pbase()));
    setp(buffer_, buffer_ + sizeof buffer_);
    if (written.empty()) return true;
    return put(raw_ ? std::string(written) : pieces_.append(written));
  }

  bool finish_text() {
    const bool drained = drain();
    return put(pieces_.finish()) && drained;
  }

  bool put(const std::string& bytes) {
    const auto size = static_cast<std::streamsize>(bytes.size());
    return bytes.empty() || target_->sputn(bytes.data(), size) == size;
  }

  std::streambuf* target_;
  TerminalTextPieces pieces_;
  bool raw_ = false;
  char buffer_[8192];
};

EscapedStandardStreams::EscapedStandardStreams()
    : out_(std::make_unique<Filter>(std::cout.rdbuf())),
      err_(std::make_unique<Filter>(std::cerr.rdbuf())) {
  std::cout.rdbuf(out_.get());
  std::cerr.rdbuf(err_.get());
}

EscapedStandardStreams::~EscapedStandardStreams() {
  std::cout.flush();
  out_->finish();
  err_->finish();
  std::cout.rdbuf(out_->target());
  std::cerr.rdbuf(err_->target());
}

void leave_standard_output_raw() {
  std::cout.flush();
  if (auto* filter = dynamic_cast<EscapedStandardStreams::Filter*>(std::cout.rdbuf()))
    filter->set_raw();
}

void write_terminal_control(std::string_view sequence) {
  if (auto* filter = dynamic_cast<EscapedStandardStreams::Filter*>(std::cout.rdbuf()))
    filter->write_unescaped(sequence);
  else
    std::cout << sequence;
}

}  // namespace mace::client
